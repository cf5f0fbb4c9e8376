//! Helpers shared by the end-to-end tests in namespaces: a topology of test
//! hosts, scenario text, a node process and its API client, iperf3.
#![allow(dead_code)]

use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use prism_lab::demo::hosts;
pub use prism_testkit::root as root_or_skip;

/// The tests share interface and namespace names: one at a time.
pub static SERIAL: Mutex<()> = Mutex::new(());

/// The namespaces of these tests' own node instances: the default one's
/// (`prism-c1`, …) and those of instances `q`, `zz` and `fs`; not a demo's
/// nodes' (`prism-cda`, `prism-cwa`, …), which may run beside them.
pub fn own_node_namespaces() -> Vec<String> {
    let list = ok(&["ip", "netns", "list"]);
    let ours = |n: &&str| {
        let Some(rest) = n.strip_prefix("prism-c") else {
            return false;
        };
        let rest = ["q", "zz", "fs"]
            .iter()
            .find_map(|i| rest.strip_prefix(i))
            .unwrap_or(rest);
        rest.starts_with(|c: char| c.is_ascii_digit())
    };
    let names = list.lines().filter_map(|l| l.split_whitespace().next());
    names.filter(ours).map(String::from).collect()
}

/// The lock a running default instance holds, as `prism cleanup` names
/// what it leaves alone.
pub const DEFAULT_LOCK: &str = "/run/prism/instance.lock";

pub const PRISM: &str = env!("CARGO_BIN_EXE_prism");

pub fn sh(args: &[&str]) -> std::process::Output {
    Command::new(args[0]).args(&args[1..]).output().unwrap()
}

pub fn ok(args: &[&str]) -> String {
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

pub fn in_ns(ns: &str, args: &[&str]) -> std::process::Output {
    let mut v = vec!["ip", "netns", "exec", ns];
    v.extend_from_slice(args);
    sh(&v)
}

/// Networks: 0 hardware (destination), 1 software/kernel, 2 software/prism.
/// Network k: host `pte{k}a` 10.0.1.2/24 behind port k-a (link pth{k}a),
/// host `pte{k}b` 10.0.2.2/24 behind port k-b.
pub const NETS: [(&str, &str); 3] = [("hw", "hardware"), ("swk", "kernel"), ("swp", "prism")];

pub fn gw_mac(net: usize, port: usize) -> String {
    hosts::mac(prism_node::gateway_mac(net as u16, port as u16))
}
pub fn host_mac(net: usize, side: usize) -> String {
    hosts::mac(hosts::host_mac(net, side))
}

/// The `[[port]]` tables of networks `0..n`: ports `k-a`, `k-b` on
/// interfaces `pth{k}a`, `pth{k}b`.
pub fn ports_toml(n: usize) -> String {
    ports_toml_from(0, n)
}

/// The `[[port]]` tables of networks `from..to` (see [`ports_toml`]).
pub fn ports_toml_from(from: usize, to: usize) -> String {
    let mut s = String::from("device = \"alveo-u280\"\n");
    for k in from..to {
        for side in ["a", "b"] {
            s += &format!("[[port]]\nname = \"{k}-{side}\"\ninterface = \"pth{k}{side}\"\n");
        }
    }
    s
}

/// Network `k` named `name`: `kind` is `hardware`, or the router of a
/// software network (`kernel`, `prism`). Destination routing between
/// 10.0.1.0/24 on port `k-a` and 10.0.2.0/24 on `k-b`, mapped by input port.
pub fn network_toml(k: usize, name: &str, kind: &str) -> String {
    let tier = if kind == "hardware" {
        "hardware"
    } else {
        "software"
    };
    let mut s = format!(
        "[[network]]\nname = \"{name}\"\ntier = \"{tier}\"\nforwarding = \"destination\"\n"
    );
    s += &format!("map = [{{ in_port = \"{k}-a\" }}, {{ in_port = \"{k}-b\" }}]\nroute = [\n");
    s += &routes_toml(k, &[0, 1]);
    s += "]\n";
    if kind != "hardware" {
        s += &format!(
            "router = {{ kind = \"{kind}\", addresses = {{ \"{k}-a\" = \"10.0.1.1/24\", \"{k}-b\" = \"10.0.2.1/24\" }} }}\n"
        );
    }
    s
}

/// Route entries of network `k` towards the given sides (0: host a, 1: host b).
pub fn routes_toml(k: usize, sides: &[usize]) -> String {
    sides
        .iter()
        .map(|&to| {
            let side = ["a", "b"][to];
            format!(
                "  {{ prefix = \"10.0.{}.0/24\", action = {{ port = \"{k}-{side}\", decrement_ttl = true, set_src_mac = \"{}\", set_dst_mac = \"{}\" }} }},\n",
                to + 1,
                gw_mac(k, 2 * k + to),
                host_mac(k, to)
            )
        })
        .collect()
}

pub fn scenario() -> String {
    let mut s = ports_toml(NETS.len());
    for (k, (name, kind)) in NETS.iter().enumerate() {
        s += &network_toml(k, name, kind);
    }
    s
}

/// Most networks a test topology has hosts for.
pub const MAX_NETS: usize = 6;

pub struct Topology;
impl Topology {
    pub fn build() -> Topology {
        Self::build_n(NETS.len())
    }

    /// Hosts `pte{k}a` (10.0.1.2/24) and `pte{k}b` (10.0.2.2/24) for
    /// networks `0..n`, behind root-namespace links `pth{k}a`, `pth{k}b`
    /// (the test bed's hosts, under the tests' own names).
    pub fn build_n(n: usize) -> Topology {
        assert!(n <= MAX_NETS);
        Topology::remove();
        for k in 0..n {
            for (side, s) in ["a", "b"].iter().enumerate() {
                hosts::make_host(
                    &format!("pte{k}{s}"),
                    &format!("pth{k}{s}"),
                    side,
                    hosts::host_mac(k, side),
                    prism_node::gateway_mac(k as u16, (2 * k + side) as u16),
                )
                .unwrap();
            }
        }
        Topology
    }

    pub fn remove() {
        hosts::remove_hosts_with("pte", "pth");
    }
}
impl Drop for Topology {
    fn drop(&mut self) {
        Topology::remove();
    }
}

pub struct NodeProc(pub Child, #[allow(dead_code)] tempfile_path::Path);
/// A test that fails leaves no node running into the next test.
impl Drop for NodeProc {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}
pub mod tempfile_path {
    pub struct Path(pub std::path::PathBuf);
    impl Drop for Path {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

pub fn start_node(tag: &str) -> NodeProc {
    let n = start_node_with(tag, &scenario(), &[]);
    // Wait until the software routers are up: the kernel router answers at once.
    wait_for_ping("pte1a", 10);
    std::thread::sleep(Duration::from_millis(300));
    // The API's socket is bound after the networks forward: on a busy
    // machine (CI's two cores, every lane running) later than 300 ms.
    wait_for_api(10);
    n
}

/// Starts `prism node` on scenario `text` with extra arguments, from the
/// scenario alone (`--fresh`: what an earlier test changed through the API
/// is not restored); does not wait.
pub fn start_node_with(tag: &str, text: &str, extra: &[&str]) -> NodeProc {
    let mut args = vec!["--fresh"];
    args.extend_from_slice(extra);
    start_node_args(tag, text, &args)
}

/// Starts `prism node` on scenario `text` with exactly `extra` as further
/// arguments (so restoring a saved desired state; the API on [`SOCKET`]
/// unless `extra` gives `--api`); does not wait.
pub fn start_node_args(tag: &str, text: &str, extra: &[&str]) -> NodeProc {
    let path = std::env::temp_dir().join(format!("prism-live-test-{tag}.toml"));
    std::fs::write(&path, text).unwrap();
    let mut args = vec!["node", "--config", path.to_str().unwrap(), "--json"];
    if !extra.contains(&"--api") {
        args.extend(["--api", SOCKET]);
    }
    args.extend_from_slice(extra);
    let child = Command::new(PRISM)
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    NodeProc(child, tempfile_path::Path(path))
}

/// Pings 10.0.2.2 from `ns` until one answer comes, for up to `secs`.
pub fn wait_for_ping(ns: &str, secs: u64) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !in_ns(ns, &["ping", "-c", "1", "-W", "1", "10.0.2.2"])
        .status
        .success()
    {
        assert!(
            Instant::now() < deadline,
            "no ping from {ns} got through within {secs} s"
        );
    }
}

/// Waits up to `secs` for the node's API to answer (the node has started
/// its containers by then).
pub fn wait_for_api(secs: u64) {
    wait_for_api_at(SOCKET, secs);
}

/// The same for a node whose API is on `socket`.
pub fn wait_for_api_at(socket: &str, secs: u64) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !sh(&[PRISM, "ctl", "--socket", socket, "node"])
        .status
        .success()
    {
        assert!(
            Instant::now() < deadline,
            "the node's API on {socket} did not come up within {secs} s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// True if `count` pings from `ns` to 10.0.2.2 all come back.
pub fn pings(ns: &str, count: u32) -> bool {
    let c = count.to_string();
    in_ns(ns, &["ping", "-c", &c, "-i", "0.2", "-W", "1", "10.0.2.2"])
        .status
        .success()
}

pub const SOCKET: &str = "/run/prism/test-node.sock";

/// `prism ctl` against the test node.
pub fn ctl(args: &[&str]) -> std::process::Output {
    let mut v = vec![PRISM, "ctl", "--socket", SOCKET];
    v.extend_from_slice(args);
    sh(&v)
}

/// `prism ctl` that must succeed; returns its standard output.
pub fn ctl_ok(args: &[&str]) -> String {
    let o = ctl(args);
    assert!(
        o.status.success(),
        "prism ctl {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Writes `text` to a temporary file named after `tag` and returns its path.
pub fn temp_file(tag: &str, text: &str) -> String {
    let p = std::env::temp_dir().join(format!("prism-live-test-{tag}"));
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// Stops the node with SIGINT and returns its final counters (JSON).
pub fn stop_node(mut n: NodeProc) -> serde_json::Value {
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
pub fn iperf3(a: &str, b: &str, extra: &[&str], what: &str) -> serde_json::Value {
    let mut server = Command::new("ip")
        .args(["netns", "exec", b, "timeout", "20", "iperf3", "-s", "-1"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let mut args = vec!["timeout", "20", "iperf3", "-c", "10.0.2.2", "-t", "1", "-J"];
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

pub fn network<'a>(c: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    c["networks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == name)
        .unwrap()
}
