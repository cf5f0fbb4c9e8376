//! Processing nodes on a network spanning two nodes (docs/processing.md,
//! docs/wan.md): two real nodes whose WAN ports are joined by a veth (the
//! wide area), a hardware network with a part on each, and a processing
//! node attached to it on each side, each placed on the part whose
//! prefix holds its address; they ping each other across the WAN (IPIP
//! between the parts), booked with `prism ctl` only. Then the span is
//! given the shim example (`programs/shim_header.c`) live, on both parts:
//! a new header pushed where a frame enters the span and popped where it
//! leaves, so the pings still work, and the first part's map counts both.

use crate::common::*;
use crate::live_processing::tools_present;
use crate::live_processing_booked::{
    INSTANCE, book_processing, booking_state, install_busybox, prepare, prism_ok, testbed_nodes,
    wait_until,
};
use prism_io::netns;
use prism_io::oci::runc::Runc;
use std::path::Path;
use std::process::Command;

/// The second node's instance, its processing port's link and the WAN.
const OTHER: &str = "ps";
const OTHER_PORT: &str = "ptps";
const WAN: (&str, &str) = ("wpr", "wps");

/// What the second node and the wide area leave, removed when dropped
/// (after the processes, made before them).
struct Other;
impl Drop for Other {
    fn drop(&mut self) {
        let _ = Command::new(PRISM)
            .args(["cleanup", "--instance", OTHER])
            .output();
        for l in [OTHER_PORT, WAN.0] {
            let _ = netns::delete_link(l);
        }
        let _ = std::fs::remove_dir_all(format!("/var/lib/prism-{OTHER}"));
    }
}

fn up(link: &str) {
    ok(&["ip", "link", "set", link, "up"]);
}

/// Node `i`'s scenario: its processing port and its WAN port.
fn scenario(proc_link: &str, wan_link: &str, i: u8) -> String {
    format!(
        "device = \"alveo-u280\"\n[[port]]\nname = \"proc\"\ninterface = \"{proc_link}\"\n\
         [[port]]\nname = \"up\"\ninterface = \"{wan_link}\"\n\
         wan = {{ address = \"203.0.113.{i}\", mac = \"02:0a:00:00:00:0{i}\" }}\n"
    )
}

fn book(dir: &Path, name: &str, net: u8) -> serde_json::Value {
    let (address, gateway) = (format!("10.7.{net}.2/24"), format!("10.7.{net}.1"));
    book_processing(
        dir,
        name,
        ("busybox", "span"),
        &address,
        &["--gateway", &gateway],
    )
}

#[test]
fn processing_nodes_on_a_network_spanning_two_nodes_reach_each_other_across_the_wan() {
    if !root_or_skip("processing nodes across the WAN")
        || !tools_present("processing nodes across the WAN")
    {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    drop(Other); // what an earlier run left
    let _other = Other;
    let tmp = prepare("processing-span");
    let dir = tmp.path();
    netns::create_veth(OTHER_PORT, None, "ptpsk", None).unwrap();
    netns::create_veth(WAN.0, None, WAN.1, None).unwrap();
    for l in [OTHER_PORT, "ptpsk", WAN.0, WAN.1] {
        up(l);
    }
    install_busybox(dir);
    let images = format!("/var/lib/prism-{OTHER}/images");
    std::fs::create_dir_all(&images).unwrap();
    let from = format!("/var/lib/prism-{INSTANCE}/images/busybox");
    ok(&["cp", "-a", &from, &format!("{images}/busybox")]);
    let nodes = [
        ("n1", INSTANCE, scenario("ptpr", WAN.0, 1)),
        ("n2", OTHER, scenario(OTHER_PORT, WAN.1, 2)),
    ];
    let _procs = testbed_nodes(dir, &[], &nodes);
    let spec = dir.join("span.toml");
    std::fs::write(
        &spec,
        "tier = \"hardware\"\nforwarding = \"destination\"\n\
         [[part]]\nnode = \"n1\"\nroute = [{ prefix = \"10.7.1.0/24\", action = { port = \"proc\" } }]\n\
         [[part]]\nnode = \"n2\"\nroute = [{ prefix = \"10.7.2.0/24\", action = { port = \"proc\" } }]\n",
    )
    .unwrap();
    let span = [
        "ctl",
        "book",
        "span",
        "--spec",
        spec.to_str().unwrap(),
        "--bandwidth",
        "10",
    ];
    prism_ok(dir, &span);
    let (a, b) = (book(dir, "vm-a", 1), book(dir, "vm-b", 2));
    assert_eq!(
        (a["node"].as_str(), b["node"].as_str()),
        (Some("n1"), Some("n2"))
    );
    for v in [&a, &b] {
        let id = v["id"].as_str().unwrap();
        wait_until(dir, &format!("{id} ready"), 30, || {
            booking_state(dir, id) == "provisioned/ready"
        });
    }
    let runc = Runc::new(format!("/run/prism-{INSTANCE}/runc"));
    let from = format!("pp-{}", a["id"].as_str().unwrap());
    let args = ["/bin/busybox", "ping", "-c", "3", "-W", "2", "10.7.2.2"];
    let ping = runc.exec(&from, &args).unwrap();
    let log = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_default();
    assert!(
        ping.status.success(),
        "across the WAN: {}{}\nn1: {}\nn2: {}",
        String::from_utf8_lossy(&ping.stdout),
        String::from_utf8_lossy(&ping.stderr),
        log("node.log"),
        log("n2.log")
    );
    shim_across(dir, &runc, &from);
}

/// The shim example given to the span (each part's slot loads it), then
/// pings from `from` to the other side: answered, so neither host saw the
/// header; n1's `stats` count the header pushed on each request and
/// popped from each reply (which n2 pushed, having popped the request's).
fn shim_across(dir: &Path, runc: &Runc, from: &str) {
    let test = "processing nodes across the WAN: the shim";
    let Some(shim) = prism_testkit::bpf_object(test, "programs/shim_header.c") else {
        return;
    };
    let object = dir.join("shim_header.o");
    std::fs::write(&object, shim).unwrap();
    let program = format!("program=@{}", object.display());
    let edit = [
        "ctl",
        "edit",
        "span",
        "--set",
        &program,
        "--set",
        "reconfigure=dark",
    ];
    prism_ok(dir, &edit);
    let one = ["/bin/busybox", "ping", "-c", "1", "-W", "1", "10.7.2.2"];
    wait_until(dir, "a ping through the shim", 30, || {
        runc.exec(from, &one).is_ok_and(|o| o.status.success())
    });
    let three = ["/bin/busybox", "ping", "-c", "3", "-W", "2", "10.7.2.2"];
    let ping = runc.exec(from, &three).unwrap();
    assert!(
        ping.status.success(),
        "{}",
        String::from_utf8_lossy(&ping.stdout)
    );
    let view: serde_json::Value =
        serde_json::from_str(&prism_ok(dir, &["ctl", "map", "span", "stats"])).unwrap();
    let count = |k: u32| {
        let key = hex_of(&k.to_le_bytes());
        let entries = view["entries"].as_array().cloned().unwrap_or_default();
        let entry = entries.iter().find(|e| e["key"] == key.as_str());
        let hex = entry.and_then(|e| e["value"].as_str()).unwrap_or_default();
        let bytes: Vec<u8> = (0..hex.len() / 2)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
            .collect();
        u64::from_le_bytes(bytes.try_into().unwrap_or_default())
    };
    let (pushed, popped) = (count(0), count(1));
    assert!(
        pushed >= 4 && popped >= 4,
        "n1 pushed {pushed} and popped {popped} shims: {view}\nn1: {}",
        std::fs::read_to_string(dir.join("node.log")).unwrap_or_default()
    );
}

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
