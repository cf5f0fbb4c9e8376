//! End-to-end tests of the live node in network namespaces: ping, iperf3
//! TCP and UDP through hardware and software networks, TTL expiry, the live
//! demo's isolation check and cleanup, and removal of what a killed node
//! left. Need root; without it they say so and pass, unless
//! PRISM_REQUIRE_ROOT=1 (scripts/test sets it when run as root, as in CI).

use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The tests share interface and namespace names: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

const PRISM: &str = env!("CARGO_BIN_EXE_prism");

use prism_io::netns::root_or_skip;

fn sh(args: &[&str]) -> std::process::Output {
    Command::new(args[0]).args(&args[1..]).output().unwrap()
}

fn ok(args: &[&str]) -> String {
    let o = sh(args);
    assert!(
        o.status.success(),
        "`{}` failed: {}{}",
        args.join(" "),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn in_ns(ns: &str, args: &[&str]) -> std::process::Output {
    let mut v = vec!["ip", "netns", "exec", ns];
    v.extend_from_slice(args);
    sh(&v)
}

/// Networks: 0 hardware (destination), 1 software/kernel, 2 software/prism.
/// Network k: host `pte{k}a` 10.0.1.2/24 behind port k-a (link pth{k}a),
/// host `pte{k}b` 10.0.2.2/24 behind port k-b.
const NETS: [(&str, &str); 3] = [("hw", "hardware"), ("swk", "kernel"), ("swp", "prism")];

fn gw_mac(net: usize, port: usize) -> String {
    format!("02:50:00:{net:02x}:00:{port:02x}")
}
fn host_mac(net: usize, side: usize) -> String {
    format!("02:10:00:{net:02x}:00:{side:02x}")
}

fn scenario() -> String {
    let mut s = String::from("device = \"alveo-u280\"\n");
    for k in 0..NETS.len() {
        for side in ["a", "b"] {
            s += &format!("[[port]]\nname = \"{k}-{side}\"\ninterface = \"pth{k}{side}\"\n");
        }
    }
    for (k, (name, kind)) in NETS.iter().enumerate() {
        let tier = if *kind == "hardware" {
            "hardware"
        } else {
            "software"
        };
        s += &format!(
            "[[network]]\nname = \"{name}\"\ntier = \"{tier}\"\nforwarding = \"destination\"\n"
        );
        s += &format!("map = [{{ in_port = \"{k}-a\" }}, {{ in_port = \"{k}-b\" }}]\nroute = [\n");
        for (to, side) in ["a", "b"].iter().enumerate() {
            s += &format!(
                "  {{ prefix = \"10.0.{}.0/24\", action = {{ port = \"{k}-{side}\", decrement_ttl = true, set_src_mac = \"{}\", set_dst_mac = \"{}\" }} }},\n",
                to + 1,
                gw_mac(k, 2 * k + to),
                host_mac(k, to)
            );
        }
        s += "]\n";
        if *kind != "hardware" {
            s += &format!(
                "router = {{ kind = \"{kind}\", addresses = {{ \"{k}-a\" = \"10.0.1.1/24\", \"{k}-b\" = \"10.0.2.1/24\" }} }}\n"
            );
        }
    }
    s
}

struct Topology;
impl Topology {
    fn build() -> Topology {
        Topology::remove();
        for k in 0..NETS.len() {
            for (side, sname) in ["a", "b"].iter().enumerate() {
                let ns = format!("pte{k}{sname}");
                ok(&["ip", "netns", "add", &ns]);
                ok(&[
                    "ip",
                    "link",
                    "add",
                    &format!("pth{k}{sname}"),
                    "type",
                    "veth",
                    "peer",
                    "name",
                    "eth0",
                    "netns",
                    &ns,
                ]);
                ok(&["ip", "link", "set", &format!("pth{k}{sname}"), "up"]);
                ok(&[
                    "ip",
                    "-n",
                    &ns,
                    "link",
                    "set",
                    "eth0",
                    "address",
                    &host_mac(k, side),
                ]);
                ok(&[
                    "ip", "netns", "exec", &ns, "ethtool", "-K", "eth0", "tx", "off", "tso", "off",
                    "gso", "off",
                ]);
                ok(&["ip", "-n", &ns, "link", "set", "eth0", "up"]);
                ok(&["ip", "-n", &ns, "link", "set", "lo", "up"]);
                ok(&[
                    "ip",
                    "-n",
                    &ns,
                    "addr",
                    "add",
                    &format!("10.0.{}.2/24", side + 1),
                    "dev",
                    "eth0",
                ]);
                let gw = format!("10.0.{}.1", side + 1);
                ok(&["ip", "-n", &ns, "route", "add", "default", "via", &gw]);
                ok(&[
                    "ip",
                    "-n",
                    &ns,
                    "neigh",
                    "replace",
                    &gw,
                    "lladdr",
                    &gw_mac(k, 2 * k + side),
                    "dev",
                    "eth0",
                    "nud",
                    "permanent",
                ]);
            }
        }
        Topology
    }
    fn remove() {
        for k in 0..NETS.len() {
            for s in ["a", "b"] {
                let _ = sh(&["ip", "netns", "delete", &format!("pte{k}{s}")]);
                let _ = sh(&["ip", "link", "delete", &format!("pth{k}{s}")]);
            }
        }
        // Deleting a namespace removes its veths' peers a moment later.
        let deadline = Instant::now() + Duration::from_secs(5);
        while (0..NETS.len())
            .any(|k| std::path::Path::new(&format!("/sys/class/net/pth{k}a")).exists())
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
impl Drop for Topology {
    fn drop(&mut self) {
        Topology::remove();
    }
}

struct NodeProc(Child, #[allow(dead_code)] tempfile_path::Path);
mod tempfile_path {
    pub struct Path(pub std::path::PathBuf);
    impl Drop for Path {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

fn start_node(tag: &str) -> NodeProc {
    let path = std::env::temp_dir().join(format!("prism-live-test-{tag}.toml"));
    std::fs::write(&path, scenario()).unwrap();
    let child = Command::new(PRISM)
        .args([
            "node",
            "--config",
            path.to_str().unwrap(),
            "--json",
            "--api",
            "/run/prism/test-node.sock",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the software routers are up: the kernel router answers at once.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !in_ns("pte1a", &["ping", "-c", "1", "-W", "1", "10.0.2.2"])
        .status
        .success()
    {
        assert!(
            Instant::now() < deadline,
            "the node did not start forwarding"
        );
    }
    std::thread::sleep(Duration::from_millis(300));
    NodeProc(child, tempfile_path::Path(path))
}

/// Stops the node with SIGINT and returns its final counters (JSON).
fn stop_node(mut n: NodeProc) -> serde_json::Value {
    ok(&["kill", "-INT", &n.0.id().to_string()]);
    let out = std::mem::replace(&mut n.0, Command::new("true").spawn().unwrap())
        .wait_with_output()
        .unwrap();
    assert!(
        out.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // The last JSON document is the final, pretty-printed snapshot.
    let start = text.rfind("\n{\n").map_or(0, |i| i + 1);
    serde_json::from_str(&text[start..]).expect("final counters")
}

/// Runs an iperf3 server in namespace `b` (one test) and a 2 s client
/// from `a` with `extra` options; returns the client's JSON report.
fn iperf3(a: &str, b: &str, extra: &[&str], what: &str) -> serde_json::Value {
    let mut server = Command::new("ip")
        .args(["netns", "exec", b, "timeout", "20", "iperf3", "-s", "-1"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let mut args = vec!["timeout", "20", "iperf3", "-c", "10.0.2.2", "-t", "2", "-J"];
    args.extend_from_slice(extra);
    let o = in_ns(a, &args);
    let _ = server.wait();
    serde_json::from_slice(&o.stdout).unwrap_or_else(|_| {
        panic!(
            "iperf3 through `{what}`: {}",
            String::from_utf8_lossy(&o.stdout)
        )
    })
}

fn network<'a>(c: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    c["networks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == name)
        .unwrap()
}

#[test]
fn ping_iperf3_and_ttl_through_hardware_and_software_networks() {
    if !root_or_skip("live forwarding") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _t = Topology::build();
    let node = start_node("fwd");
    for (k, (name, _)) in NETS.iter().enumerate() {
        let a = format!("pte{k}a");
        let b = format!("pte{k}b");
        let p = in_ns(&a, &["ping", "-c", "3", "-i", "0.2", "-W", "2", "10.0.2.2"]);
        assert!(
            p.status.success(),
            "ping through `{name}`: {}",
            String::from_utf8_lossy(&p.stdout)
        );
        // TTL 1: the network decrements it to 0 and must not deliver.
        let p = in_ns(
            &a,
            &[
                "ping", "-c", "2", "-i", "0.2", "-W", "1", "-t", "1", "10.0.2.2",
            ],
        );
        assert!(!p.status.success(), "TTL-1 ping crossed `{name}`");
        for udp in [false, true] {
            let mut extra = vec![];
            if udp {
                extra.extend(["-u", "-b", "20M", "-l", "1000"]);
            }
            let j = iperf3(&a, &b, &extra, name);
            let sum = &j["end"]["sum"];
            if udp {
                let lost = sum["lost_percent"].as_f64().unwrap();
                let bps = sum["bits_per_second"].as_f64().unwrap();
                eprintln!(
                    "{name}: UDP 20 Mbit/s offered, {:.1} Mbit/s, {lost:.2}% lost",
                    bps / 1e6
                );
                assert!(lost < 5.0, "UDP through `{name}` lost {lost}%");
            } else {
                let bps = j["end"]["sum_received"]["bits_per_second"]
                    .as_f64()
                    .unwrap();
                eprintln!("{name}: TCP {:.1} Mbit/s", bps / 1e6);
                assert!(bps > 10e6, "TCP through `{name}`: {bps} bit/s");
            }
        }
    }
    let c = stop_node(node);
    let hw = network(&c, "hw");
    let drops = hw["drops"].to_string();
    assert!(drops.contains("action/ttl-expired"), "hw drops: {drops}");
    assert!(network(&c, "swk")["to_software"].as_u64().unwrap() > 1000);
    assert!(network(&c, "swp")["from_software"].as_u64().unwrap() > 1000);
    // The node removed its containers on the way out.
    let ns = ok(&["ip", "netns", "list"]);
    assert!(!ns.contains("prism-c"), "containers left: {ns}");
}

#[test]
fn a_killed_node_leaves_nothing_the_next_start_or_cleanup_cannot_remove() {
    if !root_or_skip("stale containers") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _t = Topology::build();
    let mut node = start_node("stale");
    node.0.kill().unwrap();
    node.0.wait().unwrap();
    let ns = ok(&["ip", "netns", "list"]);
    assert!(ns.contains("prism-c1"), "no containers to find: {ns}");
    // A new start removes them and runs.
    let node = start_node("stale2");
    let c = stop_node(node);
    assert!(c["rx_packets"].as_u64().unwrap() > 0);
    // Kill again, then `prism cleanup`.
    let mut node = start_node("stale3");
    node.0.kill().unwrap();
    node.0.wait().unwrap();
    let out = ok(&[PRISM, "cleanup"]);
    assert!(out.contains("removed namespace prism-c1"), "{out}");
    assert!(!ok(&["ip", "netns", "list"]).contains("prism-c"));
    assert!(!ok(&["ip", "-o", "link"]).contains(" pc1p"));
    let out = ok(&[PRISM, "cleanup"]);
    assert!(out.contains("0 objects removed"), "{out}");
}

#[test]
fn live_demo_isolates_networks_and_cleans_up() {
    if !root_or_skip("live demo") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let o = sh(&[PRISM, "demo", "--seconds", "2"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out.contains("isolation: every host received only its own network's traffic"),
        "{out}"
    );
    assert!(
        out.contains("cleanup: no namespace, link or container left"),
        "{out}"
    );
    assert_eq!(out.matches("ping ok").count(), 5, "{out}");
}

fn ctl(args: &[&str]) -> std::process::Output {
    let mut v = vec![PRISM, "ctl", "--socket", "/run/prism/test-node.sock"];
    v.extend_from_slice(args);
    sh(&v)
}

#[test]
fn api_changes_apply_under_traffic_without_restart() {
    if !root_or_skip("node API") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _t = Topology::build();
    let node = start_node("api");
    let list = ctl(&["networks"]);
    assert!(
        list.status.success(),
        "{}",
        String::from_utf8_lossy(&list.stderr)
    );
    assert!(String::from_utf8_lossy(&list.stdout).contains("\"hw\""));
    // Traffic through `hw` for the whole test.
    let flood = Command::new("ip")
        .args([
            "netns", "exec", "pte0a", "ping", "-i", "0.01", "-w", "6", "10.0.2.2",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    // Withdraw the route to host b: pings stop getting through.
    let routes = std::env::temp_dir().join("prism-api-routes.json");
    let back = format!(
        r#"{{"route":[{{"prefix":"10.0.1.0/24","action":{{"port":"0-a","decrement_ttl":true,"set_src_mac":"{}","set_dst_mac":"{}"}}}}]}}"#,
        gw_mac(0, 0),
        host_mac(0, 0)
    );
    std::fs::write(&routes, &back).unwrap();
    let o = ctl(&["routes", "hw", routes.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        !in_ns(
            "pte0a",
            &["ping", "-c", "2", "-i", "0.2", "-W", "1", "10.0.2.2"]
        )
        .status
        .success()
    );
    // Put it back: pings get through again, without a restart.
    let both = back.replace(
        "}]}",
        &format!(
            r#"}},{{"prefix":"10.0.2.0/24","action":{{"port":"0-b","decrement_ttl":true,"set_src_mac":"{}","set_dst_mac":"{}"}}}}]}}"#,
            gw_mac(0, 1),
            host_mac(0, 1)
        ),
    );
    std::fs::write(&routes, &both).unwrap();
    assert!(
        ctl(&["routes", "hw", routes.to_str().unwrap()])
            .status
            .success()
    );
    assert!(
        in_ns(
            "pte0a",
            &["ping", "-c", "2", "-i", "0.2", "-W", "1", "10.0.2.2"]
        )
        .status
        .success()
    );
    // A bad change is refused whole, with the field named.
    std::fs::write(
        &routes,
        r#"{"route":[{"prefix":"10.0.2.0/24","action":{"port":9}}]}"#,
    )
    .unwrap();
    let o = ctl(&["routes", "hw", routes.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("route[0].action.port"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        in_ns("pte0a", &["ping", "-c", "1", "-W", "1", "10.0.2.2"])
            .status
            .success()
    );
    // Rate limit a software network and check it took.
    let o = ctl(&["rate-limit", "swk", "5Mbit"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("5000000"));
    let j = iperf3("pte1a", "pte1b", &["-u", "-b", "20M"], "swk");
    let got = j["end"]["sum"]["bits_per_second"].as_f64().unwrap()
        * (1.0 - j["end"]["sum"]["lost_percent"].as_f64().unwrap() / 100.0);
    assert!(got < 7e6, "5 Mbit/s limit let {got} bit/s through");
    let flood = flood.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&flood.stdout);
    assert!(text.contains("received"), "{text}");
    let c = stop_node(node);
    assert!(
        network(&c, "swk")["drops"]
            .to_string()
            .contains("output/rate-limited")
    );
    assert!(
        network(&c, "hw")["drops"]
            .to_string()
            .contains("matching/no-route")
    );
}
