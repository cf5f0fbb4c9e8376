//! The processing demo's machine: three node namespaces, each with a
//! processing port and a WAN port; nodes 2 and 3 on one bridge (the wide
//! area), node 1 joined to it by a link shaped to `LINK_MBPS` each way
//! (the paper's shared 1 GbE link, scaled); the bookings of a phase.

use crate::demo::nodes::{DemoNode, Names, management_link};
use anyhow::{Context, Result, bail};
use prism_controller::{
    Attachment, Booking, BookingRequest, ControllerClient, PartRequest, ProcessingSpec,
};
use prism_io::netns;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

pub const STATE_DIR: &str = "/run/prism-demo-processing";
pub const NODES: usize = 3;
pub const PROJECT: &str = "vani";
/// Each node's processing port (and its interface's name).
pub const PROCESSING_PORT: &str = "proc";
/// Node 1's link to the wide area, each way, Mbit/s: a tenth of 1 GbE.
pub const LINK_MBPS: u32 = 40;
const NODE_NS: &str = "ppn-n";
const MGMT: &str = "ppm";
/// Every WAN link and both bridges start with it.
const WAN: &str = "ppw";
const WAN_BRIDGE: &str = "ppwan";
const UPLINK_BRIDGE: &str = "ppwup";
/// Node 1's shaped link: `ppwu1` (towards the WAN) in the uplink bridge,
/// its peer `ppwu2` on the WAN bridge.
const UPLINK: (&str, &str) = ("ppwu1", "ppwu2");
const INSTANCES: [&str; NODES] = ["xa", "xb", "xc"];
/// The wide area's MTU: a network's full-size (1,500-byte) packet
/// crosses it in IPIP, 20 bytes more (docs/wan.md).
const WAN_MTU: &str = "1600";
/// The management network: node `i` at 10.252.`i`.2.
const MGMT_NET: u8 = 252;

pub fn node_ns(i: usize) -> String {
    format!("{NODE_NS}{i}")
}

fn ours(ns: &str) -> bool {
    ns.starts_with(NODE_NS)
}

pub static NAMES: Names = Names {
    namespace: ours,
    link_prefixes: &[MGMT, WAN],
};

/// Node `i`'s WAN MAC.
fn wan_mac(i: usize) -> [u8; 6] {
    [0x02, 0x0a, 0x00, 0x00, 0x05, i as u8]
}

/// The namespaces, links, bridges and the shaper.
pub fn build() -> Result<()> {
    for b in [WAN_BRIDGE, UPLINK_BRIDGE] {
        netns::ip(&["link", "add", b, "type", "bridge"])?;
        netns::ip(&["link", "set", b, "up"])?;
    }
    for i in 1..=NODES {
        let n = node_ns(i);
        netns::create_namespace(&n)?;
        management_link(&n, &format!("{MGMT}{i}"), MGMT_NET, i)?;
        let w = format!("{WAN}{i}");
        netns::create_veth(&w, None, "wan0", Some(&n))?;
        let bridge = if i == 1 { UPLINK_BRIDGE } else { WAN_BRIDGE };
        netns::ip(&["link", "set", &w, "master", bridge, "up"])?;
        let mac = netns::format_mac(wan_mac(i));
        netns::ip_in(Some(&n), &["link", "set", "wan0", "address", &mac])?;
        netns::ip_in(Some(&n), &["link", "set", "wan0", "mtu", WAN_MTU])?;
        netns::ip(&["link", "set", &w, "mtu", WAN_MTU])?;
        // The processing port: its interface carries nothing (the
        // containers' own links do), so its peer stays unused.
        netns::create_veth("proc", Some(&n), "procpeer", Some(&n))?;
        for l in ["proc", "procpeer"] {
            netns::ip_in(Some(&n), &["link", "set", l, "up"])?;
        }
    }
    netns::create_veth(UPLINK.0, None, UPLINK.1, None)?;
    for l in [UPLINK.0, UPLINK.1] {
        netns::ip(&["link", "set", l, "mtu", WAN_MTU])?;
    }
    netns::ip(&["link", "set", UPLINK.0, "master", UPLINK_BRIDGE, "up"])?;
    netns::ip(&["link", "set", UPLINK.1, "master", WAN_BRIDGE, "up"])?;
    // Frames leave node 1 for the WAN through the uplink's egress and
    // reach it through its WAN link's: each way shaped (a token bucket
    // that queues, as a switch port's buffer does, then drops).
    for l in [UPLINK.0, &format!("{WAN}1")] {
        shape(l).with_context(|| format!("shaping {l}"))?;
    }
    Ok(())
}

fn shape(link: &str) -> Result<()> {
    let rate = format!("{LINK_MBPS}mbit");
    let args = [
        "qdisc", "replace", "dev", link, "root", "tbf", "rate", &rate, "burst", "32kb", "latency",
        "50ms",
    ];
    netns::run("tc", &args)?;
    Ok(())
}

/// The base image in each node's image directory (a node reads
/// `/var/lib/prism-INSTANCE/images`), as a link to the machine's.
pub fn install_images() -> Result<()> {
    let base = Path::new("/var/lib/prism/images/base");
    if !base.join("index.json").exists() {
        bail!(
            "no base image in {} (sudo ./scripts/build-base-image makes it: Debian with sshd and iperf3)",
            base.display()
        );
    }
    for i in INSTANCES {
        let dir = std::path::PathBuf::from(format!("/var/lib/prism-{i}/images"));
        std::fs::create_dir_all(&dir)?;
        let to = dir.join("base");
        let _ = std::fs::remove_file(&to);
        let _ = std::fs::remove_dir_all(&to);
        std::os::unix::fs::symlink(base, &to)?;
    }
    Ok(())
}

/// Node `i` (ports `proc`, its processing port, and `wan`), registering
/// itself with the controller at `controller`.
pub fn start_node(prism: &Path, i: usize, controller: &str, key: &Path) -> Result<Child> {
    let scenario = format!(
        "# prism demo --processing: a node with a processing port and a WAN port.\n\
         device = \"alveo-u280\"\n\n[[port]]\nname = \"proc\"\ninterface = \"proc\"\n\n\
         [[port]]\nname = \"wan\"\ninterface = \"wan0\"\n\
         wan = {{ address = \"203.0.113.{i}\", mac = \"{}\" }}\n",
        netns::format_mac(wan_mac(i)),
    );
    let node = DemoNode {
        prism,
        dir: Path::new(STATE_DIR),
        i,
        ns: &node_ns(i),
        instance: INSTANCES[i - 1],
        controller,
        key,
        cgroups: true,
    };
    let listen = format!("10.{MGMT_NET}.{i}.2:7700");
    let cred = Path::new(STATE_DIR).join("control-plane.secret");
    let args = [
        "--api-listen".as_ref(),
        listen.as_ref(),
        "--api-credential-file".as_ref(),
        cred.as_os_str(),
        "--processing-port".as_ref(),
        PROCESSING_PORT.as_ref(),
    ];
    node.spawn(&scenario, &args, false)
}

/// The controller's address on the management network.
pub fn controller_ip() -> String {
    format!("10.{MGMT_NET}.1.1")
}

/// What `prism cleanup` leaves of a node instance's processing nodes
/// (their containers outlive a node by design): removed.
pub fn cleanup_instances(prism: &Path) {
    for i in INSTANCES {
        let _ = std::process::Command::new(prism)
            .args(["cleanup", "--instance", i])
            .output();
    }
}

/// One experiment of a phase: its network and its two processing nodes,
/// `a` on node 1 and `b` on node 2 or 3.
pub struct Pair {
    pub network: Booking,
    pub a: Booking,
    pub b: Booking,
    /// `b`'s address, which `a` sends to.
    pub b_address: String,
}

/// Experiment `k`'s network: a part on node 1 routing 10.`net`.1.0/24 to
/// the processing port, one on node `other` routing 10.`net`.2.0/24.
fn network(name: &str, net: usize, other: usize, mbps: i64) -> Result<BookingRequest> {
    let part = |node: usize, side: usize| -> Result<PartRequest> {
        Ok(serde_json::from_value(serde_json::json!({
            "node": format!("node{node}"),
            "route": [{"prefix": format!("10.{net}.{side}.0/24"), "action": {"port": PROCESSING_PORT}}],
        }))?)
    };
    let spec = serde_json::json!({"tier": "hardware", "forwarding": "destination"});
    let mut r = BookingRequest::network(name, spec, mbps);
    r.provision = true;
    r.parts = vec![part(1, 1)?, part(other, 2)?];
    Ok(r)
}

/// A processing node from the base image on `network` at
/// 10.`net`.`side`.2 (half a CPU, 256 MiB: sshd and iperf3).
fn processing(name: &str, network: &str, net: usize, side: usize) -> BookingRequest {
    let spec = ProcessingSpec {
        image: "base".into(),
        image_digest: None,
        attach: vec![Attachment {
            network: network.into(),
            address: Some(format!("10.{net}.{side}.2/24")),
            gateway: Some(format!("10.{net}.{side}.1")),
            dhcp: false,
        }],
        cpus: 0.5,
        memory_mib: 256,
        pids: None,
        command: None,
    };
    BookingRequest::processing(name, &spec, None)
}

/// Books the five experiments of a phase (`tag`, the networks' rates in
/// Mbit/s), each pair's second node on node 2 for the first three, node 3
/// for the others; waits until every processing node is ready.
pub async fn book_phase(alice: &ControllerClient, tag: &str, mbps: &[i64]) -> Result<Vec<Pair>> {
    let mut pairs = Vec::new();
    for (k, rate) in mbps.iter().enumerate() {
        let net = if tag == "rl" { 10 + k } else { 20 + k };
        let other = if k < 3 { 2 } else { 3 };
        let name = format!("{tag}{k}");
        let network = alice
            .book(PROJECT, &network(&name, net, other, *rate)?)
            .await?;
        let a = processing(&format!("{name}-a"), &name, net, 1);
        let b = processing(&format!("{name}-b"), &name, net, 2);
        let (a, b) = (
            alice.book(PROJECT, &a).await?,
            alice.book(PROJECT, &b).await?,
        );
        pairs.push(Pair {
            network,
            a,
            b,
            b_address: format!("10.{net}.2.2"),
        });
    }
    for p in &mut pairs {
        p.a = ready(alice, &p.a).await?;
        p.b = ready(alice, &p.b).await?;
    }
    Ok(pairs)
}

/// `b` once its node reports it running with its ssh door.
async fn ready(alice: &ControllerClient, b: &Booking) -> Result<Booking> {
    let t = Instant::now();
    loop {
        let now = alice.booking(PROJECT, &b.id).await?;
        if now.operational_state.as_str() == "ready" && now.ssh.is_some() {
            return Ok(now);
        }
        if now.operational_state.as_str() == "failed" || t.elapsed() > Duration::from_secs(90) {
            bail!(
                "{} not ready ({}: {}; see {STATE_DIR}/node*.log)",
                b.name,
                now.operational_state.as_str(),
                now.error.as_deref().unwrap_or("no error given")
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Releases a phase's bookings, the processing nodes first.
pub async fn release(alice: &ControllerClient, pairs: &[Pair]) -> Result<()> {
    for p in pairs {
        alice.release(PROJECT, &p.a.id).await?;
        alice.release(PROJECT, &p.b.id).await?;
    }
    for p in pairs {
        alice.release(PROJECT, &p.network.id).await?;
    }
    Ok(())
}
