//! ssh to a processing node, as a researcher would: their public key
//! added with `prism ctl ssh-key`, a node booked from the Debian base
//! image (`scripts/build-base-image`, sshd as its command), then `prism
//! ctl ssh` through the node's door with OpenSSH's client, which checks
//! the booking's own host key (from the API) on the first connection.
//! Refused: another key, a host key that is not the booking's, a
//! released booking.

use crate::common::*;
use crate::live_processing::tools_present;
use crate::live_processing_booked::{IMAGES, prepare, prism, prism_ok, testbed, wait_until};
use std::path::Path;
use std::process::Command;

const BASE: &str = "/var/lib/prism/images/base";

fn keygen(dir: &Path, name: &str) -> String {
    let key = dir.join(name);
    let out = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", name, "-f"])
        .arg(&key)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    key.display().to_string()
}

/// A processing node `name` from the base image on `lan` at `address`.
fn book_base(dir: &Path, name: &str, address: &str) -> String {
    let args = [
        "ctl",
        "book",
        name,
        "--type",
        "processing",
        "--image",
        "base",
        "--attach",
    ];
    let rest = [
        "lan",
        "--address",
        address,
        "--cpus",
        "1",
        "--memory",
        "256",
    ];
    prism_ok(dir, &[&args[..], &rest].concat())
}

fn ssh(dir: &Path, key: &str, booking: &str, cmd: &str) -> std::process::Output {
    let args = [
        "ctl",
        "ssh",
        booking,
        "-i",
        key,
        "--",
        "-o",
        "BatchMode=yes",
        cmd,
    ];
    prism(dir, &args)
}

#[test]
fn a_researcher_reaches_their_processing_node_by_ssh_checking_its_own_host_key() {
    if !root_or_skip("ssh to a processing node") || !tools_present("ssh to a processing node") {
        return;
    }
    let base = Path::new(BASE).join("index.json").exists();
    let what = "the Debian base image (scripts/build-base-image, run by CI's setup)";
    if !prism_testkit::gates::prerequisite(
        "ssh to a processing node",
        what,
        base,
        "PRISM_REQUIRE_ROOT",
    ) {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tmp = prepare("processing-ssh");
    let dir = tmp.path();
    std::fs::create_dir_all(IMAGES).unwrap();
    std::os::unix::fs::symlink(BASE, Path::new(IMAGES).join("base")).unwrap();
    let _procs = testbed(dir);
    let key = keygen(dir, "laptop");
    let stranger = keygen(dir, "stranger");
    let added = prism_ok(dir, &["ctl", "ssh-key", "laptop", &format!("{key}.pub")]);
    assert!(added.contains("SHA256:"), "{added}");
    let spec = dir.join("lan.toml");
    std::fs::write(&spec, "tier = \"hardware\"\nforwarding = \"destination\"\n").unwrap();
    prism_ok(
        dir,
        &[
            "ctl",
            "book",
            "lan",
            "--spec",
            spec.to_str().unwrap(),
            "--bandwidth",
            "10",
        ],
    );
    let booked_at = std::time::Instant::now();
    let vm = book_base(dir, "vm", "10.7.1.2/24");
    let id = serde_json::from_str::<serde_json::Value>(&vm).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut status = serde_json::Value::Null;
    wait_until(dir, "the node ready with its door and host key", 60, || {
        status = serde_json::from_str(&prism_ok(dir, &["ctl", "status", &id])).unwrap();
        status["operational_state"] == "ready" && status["host_keys"].is_array()
    });
    let host_key = status["host_keys"][0].as_str().unwrap().to_string();
    assert!(host_key.starts_with("ssh-ed25519 "), "{status:#}");
    // In, with the booking's host key checked (StrictHostKeyChecking=yes).
    let mut out = ssh(dir, &key, "vm", "cat /etc/debian_version; id -u");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while !out.status.success() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(300));
        out = ssh(dir, &key, "vm", "cat /etc/debian_version; id -u");
    }
    // The target (docs/processing.md): booking to a shell under 3 s for
    // an image the node holds; said, not asserted (a benchmark's figure).
    eprintln!("booking to a shell: {:?}", booked_at.elapsed());
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let ss = Command::new("ss").args(["-ltnp"]).output().unwrap();
    let log = std::fs::read_to_string(dir.join("node.log")).unwrap_or_default();
    assert!(
        out.status.success(),
        "ssh: {text}\n{status:#}\n{}\n{log}",
        String::from_utf8_lossy(&ss.stdout)
    );
    assert!(text.trim_end().ends_with("\n0"), "root inside: {text}");
    // Another key: refused.
    let out = ssh(dir, &stranger, "vm", "true");
    assert!(
        !out.status.success(),
        "a key that is not the booker's got in"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Permission denied"),
        "{out:?}"
    );
    // A door answering with another host key: refused by the client.
    let door = status["ssh"].as_str().unwrap();
    let (host, port) = door.rsplit_once(':').unwrap();
    let wrong = dir.join("wrong_known_hosts");
    let other = std::fs::read_to_string(format!("{stranger}.pub")).unwrap();
    std::fs::write(&wrong, format!("[{host}]:{port} {other}")).unwrap();
    let out = Command::new("ssh")
        .args([
            "-o",
            &format!("UserKnownHostsFile={}", wrong.display()),
            "-o",
            "StrictHostKeyChecking=yes",
        ])
        .args([
            "-o",
            "BatchMode=yes",
            "-i",
            &key,
            "-p",
            port,
            &format!("root@{host}"),
            "true",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Host key verification failed"),
        "{out:?}"
    );
    // A second node from the same image, which the node holds unpacked:
    // booking to a shell (the target: under 3 s; said, not asserted).
    let t = std::time::Instant::now();
    let vm2 = book_base(dir, "vm2", "10.7.1.3/24");
    let mut out = ssh(dir, &key, "vm2", "true");
    while !out.status.success() && t.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(50));
        out = ssh(dir, &key, "vm2", "true");
    }
    assert!(out.status.success(), "{vm2}: {out:?}");
    eprintln!("booking to a shell, the image held: {:?}", t.elapsed());
    // Released: no way in.
    prism_ok(dir, &["ctl", "release", &id]);
    let out = ssh(dir, &key, "vm", "true");
    assert!(!out.status.success(), "ssh to a released booking");
}
