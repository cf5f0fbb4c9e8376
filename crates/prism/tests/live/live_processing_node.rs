//! Processing nodes on a served node (`PUT /v1/processing`): two
//! containers from a busybox image, each a host on a hardware network's
//! VLAN behind the node's port, ping each other across two subnets
//! through the pipeline (the network's counters see every frame); the
//! node killed with `kill -9` and started again finds both running and
//! keeps them (same first process, none twice, still forwarding); an
//! empty state removes them and leaves no container, namespace, link,
//! cgroup or bundle.

use crate::common::*;
use crate::live_processing::{busybox_image, tools_present};
use prism_io::oci::runc::Runc;
use std::path::Path;
use std::process::Command;

const INSTANCE: &str = "pq";
const SOCKET: &str = "/run/prism-pq/node.sock";
const PORT_LINK: &str = "ptpq";
const VLAN: u16 = 100;
const GW: &str = "02:50:00:00:00:63";

fn mac(name: &str) -> String {
    let m = prism_node::processing_mac(name, 0);
    prism_io::netns::format_mac(m)
}

/// One port (`proc`, on a veth whose peer nothing uses) and a hardware
/// network routing 10.7.1.0/24 to `pq-a` and 10.7.2.0/24 to `pq-b`, both
/// behind `proc` on VLAN 100.
fn scenario() -> String {
    let route = |net: u8, host: &str| {
        format!(
            "  {{ prefix = \"10.7.{net}.0/24\", action = {{ port = \"proc\", decrement_ttl = true, set_src_mac = \"{GW}\", set_dst_mac = \"{}\" }} }},\n",
            mac(host)
        )
    };
    format!(
        "device = \"alveo-u280\"\n[[port]]\nname = \"proc\"\ninterface = \"{PORT_LINK}\"\n\
         [[network]]\nname = \"lan\"\ntier = \"hardware\"\nforwarding = \"destination\"\n\
         map = [{{ in_port = \"proc\", vlan = {VLAN} }}]\nroute = [\n{}{}]\n",
        route(1, "pq-a"),
        route(2, "pq-b")
    )
}

/// The desired state: `pq-a` and `pq-b` from `layout`, or none.
fn state(generation: u64, layout: &Path, nodes: bool) -> String {
    let node = |name: &str, net: u8| {
        serde_json::json!({
            "name": name,
            "image": {"layout": layout, "tag": "busybox"},
            "cpus": 0.5, "memory_mib": 64, "pids": 32,
            "command": ["/bin/sleep", "100000"],
            "interfaces": [{
                "port": "proc", "vlan": VLAN,
                "addresses": [format!("10.7.{net}.2/24")],
                "gateway": format!("10.7.{net}.1"), "gateway_mac": GW,
            }],
        })
    };
    let nodes = match nodes {
        true => vec![node("pq-a", 1), node("pq-b", 2)],
        false => vec![],
    };
    let s = serde_json::json!({"generation": generation, "scope": "pq-", "nodes": nodes});
    temp_file(&format!("processing-{generation}.json"), &s.to_string())
}

fn node_ctl(args: &[&str]) -> serde_json::Value {
    let mut v = vec![PRISM, "ctl", "--socket", SOCKET];
    v.extend_from_slice(args);
    serde_json::from_str(&ok(&v)).unwrap()
}

/// Each node's (status, pid) as the node reports it.
fn running() -> Vec<(String, String, u64)> {
    let list = node_ctl(&["processing"]);
    let mut v: Vec<_> = (list.as_array().unwrap().iter())
        .map(|n| {
            let name = n["name"].as_str().unwrap().to_string();
            let status = n["status"].as_str().unwrap().to_string();
            (name, status, n["pid"].as_u64().unwrap_or(0))
        })
        .collect();
    v.sort();
    v
}

fn lan_rx() -> u64 {
    let c = node_ctl(&["counters"]);
    network(&c, "lan")["rx_packets"].as_u64().unwrap()
}

fn ping(runc: &Runc, from: &str, to: &str) -> (bool, String) {
    let out = runc
        .exec(from, &["/bin/ping", "-c", "3", "-i", "0.2", "-W", "2", to])
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

struct Cleanup;
impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = Command::new(PRISM)
            .args(["cleanup", "--instance", INSTANCE])
            .output();
        let _ = prism_io::netns::delete_link(PORT_LINK);
    }
}

#[test]
fn processing_nodes_forward_through_the_pipeline_and_outlive_a_killed_node() {
    if !root_or_skip("processing nodes on a node") || !tools_present("processing nodes on a node") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _c = Cleanup;
    drop(
        Command::new(PRISM)
            .args(["cleanup", "--instance", INSTANCE])
            .output(),
    );
    prism_io::netns::delete_link(PORT_LINK).unwrap();
    prism_io::netns::create_veth(PORT_LINK, None, "ptpqk", None).unwrap();
    ok(&["ip", "link", "set", "ptpqk", "up"]);
    let dir = prism_testkit::TempDir::new("processing-node");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o711)).unwrap();
    let layout = busybox_image(dir.path());
    let args = [
        "--instance",
        INSTANCE,
        "--api",
        SOCKET,
        "--processing-port",
        "proc",
    ];
    let fresh = [&["--fresh"][..], &args].concat();
    let node = start_node_args("processing", &scenario(), &fresh);
    wait_for_api_at(SOCKET, 20);
    assert_eq!(node_ctl(&["node"])["processing_port"], "proc");
    let applied = node_ctl(&["processing", &state(1, &layout, true)]);
    let actions: Vec<&str> = (applied["nodes"].as_array().unwrap().iter())
        .map(|n| n["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["added", "added"], "{applied:#}");
    let runc = Runc::new(format!("/run/prism-{INSTANCE}/runc"));
    let before = lan_rx();
    let (ok_ping, out) = ping(&runc, "pq-a", "10.7.2.2");
    assert!(ok_ping, "pq-a could not reach pq-b: {out}");
    // Three requests and three replies, each through the network (the
    // workers publish their counters every 200 ms).
    let until = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while lan_rx() < before + 6 && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(
        lan_rx() >= before + 6,
        "the pipeline saw {} frames",
        lan_rx() - before
    );
    let first = running();
    assert!(
        first.iter().all(|(_, s, pid)| s == "running" && *pid > 0),
        "{first:?}"
    );

    // Killed; started again: both found and kept, none twice.
    let mut node = node;
    node.0.kill().unwrap();
    node.0.wait().unwrap();
    let node = start_node_args("processing", &scenario(), &args);
    wait_for_api_at(SOCKET, 20);
    assert_eq!(
        running(),
        first,
        "the same containers, the same first processes"
    );
    let mut ids = runc.list().unwrap();
    ids.sort();
    assert_eq!(ids, ["pq-a", "pq-b"]);
    let (ok_ping, out) = ping(&runc, "pq-b", "10.7.1.2");
    assert!(ok_ping, "no forwarding after the restart: {out}");
    // The same state again changes nothing.
    let again = node_ctl(&["processing", &state(1, &layout, true)]);
    assert!(
        (again["nodes"].as_array().unwrap().iter()).all(|n| n["action"] == "unchanged"),
        "{again:#}"
    );

    // Released: nothing of them left.
    let applied = node_ctl(&["processing", &state(2, &layout, false)]);
    let actions: Vec<&str> = (applied["nodes"].as_array().unwrap().iter())
        .map(|n| n["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["removed", "removed"], "{applied:#}");
    assert_eq!(runc.list().unwrap(), Vec::<String>::new());
    assert!(prism_io::netns::links_with_prefix(&format!("pn{INSTANCE}")).is_empty());
    for name in ["pq-a", "pq-b"] {
        assert!(
            !Path::new("/run/netns").join(name).exists(),
            "{name}'s namespace left"
        );
        for c in ["memory", "pids", "cpu"] {
            let g = Path::new("/sys/fs/cgroup")
                .join(c)
                .join("prism-processing")
                .join(name);
            assert!(!g.exists(), "{} left", g.display());
        }
        let bundle = Path::new("/var/lib/prism-pq/processing").join(name);
        assert!(!bundle.exists(), "{} left", bundle.display());
    }
    stop_node(node);
}
