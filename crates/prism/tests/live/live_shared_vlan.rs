//! Shared VLANs booked as researchers would, with `prism ctl` only: alice
//! books a shared VLAN and invites bob's project; bob's processing node
//! attaches to it as `exp/lab` and pings alice's, on the same subnet
//! (ARP and all, switched by the node between the two containers);
//! alice's node on another shared VLAN, with an address on the same
//! subnet, is not reached. Bob's project leaves: the next ping fails,
//! and his container still runs, its interface unplugged.

use crate::common::*;
use crate::live_processing::tools_present;
use crate::live_processing_booked::{
    INSTANCE, booking_state, install_busybox, prepare, prism_ok, testbed, wait_until,
};
use prism_io::oci::runc::Runc;
use std::path::Path;

fn book_vm(dir: &Path, name: &str, on: &str, address: &str) -> String {
    let v =
        crate::live_processing_booked::book_processing(dir, name, ("busybox", on), address, &[]);
    v["id"].as_str().unwrap().to_string()
}

fn book_lab(dir: &Path, name: &str) -> serde_json::Value {
    let out = prism_ok(dir, &["ctl", "book", name, "--type", "shared-vlan"]);
    serde_json::from_str(&out).unwrap()
}

fn wait_ready(dir: &Path, id: &str) {
    wait_until(dir, &format!("processing node {id} ready"), 30, || {
        let s = booking_state(dir, id);
        assert!(
            !s.ends_with("failed"),
            "{}",
            prism_ok(dir, &["ctl", "status", id])
        );
        s == "provisioned/ready"
    });
}

/// Bob's shell: his own HOME beside alice's, logged in to `other`.
fn bob_shell(dir: &Path) -> std::path::PathBuf {
    let bob = dir.join("bob");
    let config = bob.join("home/.config/prism");
    std::fs::create_dir_all(&config).unwrap();
    let session = dir.join("home/.config/prism/session.json");
    std::fs::copy(session, config.join("session.json")).unwrap();
    prism_ok(&bob, &["ctl", "login", "admin"]);
    prism_ok(&bob, &["ctl", "user-add", "bob"]);
    prism_ok(&bob, &["ctl", "project-add", "other", "--owner", "bob"]);
    prism_ok(&bob, &["ctl", "--project", "other", "login", "bob"]);
    bob
}

fn ping(runc: &Runc, from: &str, to: &str) -> std::process::Output {
    let args = ["/bin/ping", "-c", "2", "-i", "0.2", "-W", "1", to];
    runc.exec(from, &args).unwrap()
}

#[test]
fn a_shared_vlan_joins_two_projects_nodes_until_one_leaves() {
    if !root_or_skip("shared VLANs") || !tools_present("shared VLANs") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tmp = prepare("shared-vlan");
    let dir = tmp.path();
    install_busybox(dir);
    let _procs = testbed(dir);
    let bob = bob_shell(dir);

    let lab = book_lab(dir, "lab");
    let lab_id = lab["id"].as_str().unwrap();
    let other_lab = book_lab(dir, "lab2");
    assert_ne!(lab["vlan"], other_lab["vlan"]);
    let a = book_vm(dir, "vm-a", "lab", "10.8.0.1/24");
    let c = book_vm(dir, "vm-c", "lab2", "10.8.0.3/24");
    let refused = crate::live_processing_booked::prism(
        &bob,
        &[
            "ctl",
            "book",
            "vm-b",
            "--type",
            "processing",
            "--image",
            "busybox",
            "--attach",
            "exp/lab",
            "--address",
            "10.8.0.2/24",
        ],
    );
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && said.contains("spec.attach[0].network"),
        "{said}"
    );
    assert_eq!(prism_ok(&bob, &["ctl", "vlan", "list"]).trim(), "[]");

    prism_ok(dir, &["ctl", "vlan", "invite", lab_id, "other"]);
    let seen: serde_json::Value =
        serde_json::from_str(&prism_ok(&bob, &["ctl", "vlan", "list"])).unwrap();
    assert_eq!(seen[0]["attach_as"], "exp/lab", "{seen:#}");
    let b = book_vm(&bob, "vm-b", "exp/lab", "10.8.0.2/24");
    for (d, id) in [(dir, &a), (dir, &c), (bob.as_path(), &b)] {
        wait_ready(d, id);
    }
    let runc = Runc::new(format!("/run/prism-{INSTANCE}/runc"));
    let (pa, pb) = (format!("pp-{a}"), format!("pp-{b}"));
    let out = ping(&runc, &pa, "10.8.0.2");
    assert!(
        out.status.success(),
        "alice's node could not reach bob's on `lab`: {out:?}"
    );
    let out = ping(&runc, &pa, "10.8.0.3");
    assert!(
        !out.status.success(),
        "a node on another shared VLAN was reached: {out:?}"
    );

    // Bob's project leaves: cut off by the time the call answers.
    prism_ok(&bob, &["ctl", "vlan", "leave", lab_id]);
    let out = ping(&runc, &pa, "10.8.0.2");
    assert!(
        !out.status.success(),
        "bob's node still reached after leaving: {out:?}"
    );
    assert!(runc.list().unwrap().contains(&pb), "his container kept");
    assert_eq!(booking_state(&bob, &b), "provisioned/ready");
}
