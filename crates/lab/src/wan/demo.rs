//! The wide area, end to end (`prism demo --wan`, and the live test): a
//! controller and three `prism node` processes, each in its own network
//! namespace with a host on its `lan` port and its `wan` port (its WAN
//! port, docs/wan.md) on one Linux bridge that stands for the wide-area
//! Ethernet. A user books a network spanning the three nodes, two more
//! spanning nodes 1 and 2 on the same inner addresses, a bridged one and
//! one in the software tier (each part's router in its container); frames are sent
//! between every pair of hosts of each, and counted at the receiving host
//! by VLAN (each experiment's frames must arrive on its own VLAN and on no
//! other); an outsider on the WAN sends tunnels from an address that is no
//! node's and plain IPv4, which the WAN side drops by name; the leases are
//! released and nothing is left behind.
//!
//! Loss is counted at the receiving host (a packet socket on its `eth0`).

use crate::demo::nodes::{DemoNode, Names, Topology, management_link};
pub use crate::wan::faults::Restart;
pub use crate::wan::gateway::GatewayOutcome;
pub use crate::wan::traffic::{FRAMES, Flow};
use topology::NAMES;
pub use topology::leftovers;

mod topology;
use crate::wan::traffic::{
    GATEWAY_MAC, HOST_NS, OUTSIDER_NS, host_mac, host_ns, node_client, wan_mac,
};
use crate::wan::traffic::{flows, latencies};
use anyhow::{Context, Result, bail};
use prism_controller::{Booking, BookingRequest, Controller, ControllerClient, PartRequest};
use prism_io::netns;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

pub const STATE_DIR: &str = "/run/prism-demo-wan";
const NODES: usize = 3;
const NODE_NS: &str = "pwn-n";
const MGMT: &str = "pwnm";
const WAN_LINK: &str = "pwnw";
const WAN_BRIDGE: &str = "pwnwan";
const INSTANCES: [&str; NODES] = ["wa", "wb", "wc"];
fn wan_address(i: usize) -> String {
    format!("203.0.113.{i}")
}
fn node_ns(i: usize) -> String {
    format!("{NODE_NS}{i}")
}

/// What the demo measured.
#[derive(Debug, Default)]
pub struct Outcome {
    pub flows: Vec<Flow>,
    /// Booking a three-node network until every part forwards, ms.
    pub book_ms: f64,
    /// The outsider's frames: sent, received by any host, and counted by
    /// node 2 as `wan/unknown-tunnel` and `wan/not-leased`.
    pub spoofed: u64,
    pub spoofed_delivered: u64,
    pub spoof_drops: (u64, u64),
    /// Controller networks still on a node after the releases.
    pub left_on_nodes: Vec<String>,
    pub leftovers: Vec<String>,
    /// One-way latency, p50 and p99 in µs: (path, p50, p99), a single node's
    /// path beside paths across the WAN bridge.
    pub latency: Vec<(String, f64, f64)>,
    /// VANI Table 2, when asked for (`--rates`).
    pub rates: Vec<crate::wan::rates::RateRow>,
    /// The gateway service: NAT and a public address.
    pub gateway: crate::wan::gateway::GatewayOutcome,
    /// Node 3 killed and started again under traffic.
    pub restart: Restart,
    pub tier_move: crate::wan::faults::TierMove,
    /// A bridge network's host with a public MAC.
    pub public_mac: crate::wan::public_mac::PublicMacOutcome,
}
/// A part on node `i` holding 10.`i`.0.0/24, delivered to its host with
/// the experiment's VLAN kept.
fn part(i: usize) -> PartRequest {
    serde_json::from_value(serde_json::json!({
        "node": format!("node{i}"),
        "route": [{"prefix": format!("10.{i}.0.0/24"), "action": {
            "port": "lan", "decrement_ttl": true,
            "set_src_mac": netns::format_mac(GATEWAY_MAC),
            "set_dst_mac": netns::format_mac(host_mac(i)),
        }}],
    }))
    .expect("a part")
}

/// A bridged network (any EtherType) on `nodes`, its frames on `lan`.
fn bridged(name: &str, nodes: &[usize]) -> BookingRequest {
    let mut r = spanning(name, nodes);
    r.spec = serde_json::json!({"tier": "hardware", "forwarding": "bridge"});
    for p in &mut r.parts {
        p.route.clear();
    }
    r
}

fn spanning(name: &str, nodes: &[usize]) -> BookingRequest {
    let mut r = BookingRequest::network(
        name,
        serde_json::json!({"tier": "hardware", "forwarding": "destination"}),
        20,
    );
    r.provision = true;
    r.parts = nodes.iter().map(|i| part(*i)).collect();
    r
}

/// Runs the demo; `prism` is the executable that runs the nodes.
pub fn run(prism: &Path, quiet: bool, rates: bool) -> Result<Outcome> {
    let say = crate::demo::printer(quiet);
    NAMES.remove_all();
    let dir = PathBuf::from(STATE_DIR);
    let secret = crate::demo::nodes::fresh_state(&dir)?;
    say(
        "prism demo --wan: a controller and three nodes whose WAN ports share one bridge (the wide area) ...",
    );
    let mut topo = Topology {
        nodes: Vec::new(),
        names: &NAMES,
    };
    topology::build_topology().context("building the namespaces")?;
    let rt = crate::demo::nodes::runtime()?;
    // Latency probes a path: the figure is the demo's to print; quiet (the
    // test), fewer, checked only to arrive (99% of them) in order.
    let probes = if quiet { 400 } else { 2000 };
    let run = drive(prism, &dir, &secret, &mut topo, &say, (rates, probes));
    let out = rt.block_on(run);
    drop(topo);
    let mut out = out?;
    out.leftovers = leftovers();
    let _ = std::fs::remove_dir_all(&dir);
    Ok(out)
}

/// The controller, its admin, and a user `alice` in project `wan`.
async fn controller(
    dir: &Path,
    secret: &str,
    say: &dyn Fn(&str),
) -> Result<(Controller, ControllerClient, ControllerClient, String)> {
    crate::demo::nodes::demo_controller(dir, secret, ("10.253.1.1", "wan"), say).await
}

/// Starts the nodes and waits until each has registered with its WAN port.
async fn start_nodes(
    prism: &Path,
    dir: &Path,
    admin: &ControllerClient,
    addr: &str,
    topo: &mut Topology,
    say: &dyn Fn(&str),
) -> Result<()> {
    let cred = dir.join("control-plane.secret");
    let start = |i, key: &Path| topology::start_node(prism, i, &cred, addr, key);
    crate::demo::nodes::start_registered(admin, (dir, NODES), start, topo, say).await
}

/// A booking in a line: its VLAN, state and parts.
fn describe(b: &Booking) -> String {
    let parts: Vec<String> = b
        .parts
        .iter()
        .map(|p| match &p.tunnel {
            Some(t) => format!("{} ({}, tunnel {t})", p.node, p.prefixes.join(" ")),
            None => p.node.clone(),
        })
        .collect();
    let s_tag = b.s_tag.map(|t| format!(", S-tag {t}")).unwrap_or_default();
    format!(
        "  booked {:<5} VLAN {}{s_tag}: {} — {}",
        b.name,
        b.vlan.unwrap_or(0),
        b.operational_state.as_str(),
        parts.join(", ")
    )
}

/// Node 2's part moved to software and back by an operator on the node
/// itself. The controller owns the desired state and would put the part
/// back in hardware at its next pass (every 2 s; CI saw it land inside the
/// move): its background work waits meanwhile (a request it had under way
/// let land first), then starts again.
async fn operator_move(
    ctl: &Controller,
    background: tokio::task::JoinHandle<()>,
    span: &Booking,
    secret: &str,
) -> (
    Result<crate::wan::faults::TierMove>,
    tokio::task::JoinHandle<()>,
) {
    background.abort();
    let _ = background.await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let moved = crate::wan::faults::move_node2_part(span, secret).await;
    (moved, ctl.spawn_background())
}

async fn drive(
    prism: &Path,
    dir: &Path,
    secret: &str,
    topo: &mut Topology,
    say: &dyn Fn(&str),
    (rates, probes): (bool, u32),
) -> Result<Outcome> {
    let (ctl, admin, alice, addr) = controller(dir, secret, say).await?;
    let mut background = ctl.spawn_background();
    start_nodes(prism, dir, &admin, &addr, topo, say).await?;
    let mut out = Outcome::default();
    let t = Instant::now();
    let [span, red, blue, l2, soft] = book_five(&alice, &t, &mut out.book_ms).await?;
    for b in [&span, &red, &blue, &l2, &soft] {
        say(&describe(b));
    }
    say(&format!(
        "  span3 booked and ready on its three nodes in {:.0} ms",
        out.book_ms
    ));
    // A slot loading its module forwards nothing for the profile's
    // (modelled) reconfiguration time.
    tokio::time::sleep(Duration::from_millis(500)).await;
    out.flows = flows(&[&span, &red, &blue, &l2, &soft], say).await?;

    out.latency = latencies(span.vlan.unwrap_or(0) as u16, probes, say).await?;
    (out.spoofed, out.spoofed_delivered, out.spoof_drops) =
        crate::wan::traffic::spoof(secret).await?;
    say(&format!(
        "  an outsider's {} frames on the WAN: {} delivered; node2 dropped {} as wan/unknown-tunnel, {} as wan/not-leased",
        out.spoofed, out.spoofed_delivered, out.spoof_drops.0, out.spoof_drops.1
    ));
    let (moved, again) = operator_move(&ctl, background, &span, secret).await;
    (out.tier_move, background) = (moved?, again);
    say(&out.tier_move.line());
    let cred = dir.join("control-plane.secret");
    let key = dir.join("node3.key");
    let again = || topology::start_node(prism, 3, &cred, &addr, &key);
    let log = Path::new(STATE_DIR).join("node3.log");
    let node3 = (&mut topo.nodes[2], log.as_path());
    out.restart = crate::wan::faults::restart_node3((&span, secret), node3, again).await?;
    say(&out.restart.line());
    for b in [&span, &red, &blue, &l2, &soft] {
        alice.release("wan", &b.id).await?;
    }
    out.gateway = crate::wan::gateway::run(&alice, secret, say).await?;
    out.public_mac = crate::wan::public_mac::run(&alice, secret, say).await?;
    if rates {
        out.rates = vani_table2(&alice, say).await?;
    }
    out.left_on_nodes = left_on_nodes(secret).await?;
    say(&format!(
        "  released: {} networks left on the nodes",
        out.left_on_nodes.len()
    ));
    background.abort();
    Ok(out)
}

/// VANI's Table 2 over the WAN: five experiments across node1's WAN port,
/// each offering 1.5 times its booking.
async fn vani_table2(
    alice: &ControllerClient,
    say: &dyn Fn(&str),
) -> Result<Vec<crate::wan::rates::RateRow>> {
    say(
        "  VANI Table 2: five experiments across node1's WAN port, each offering 1.5× its booking ...",
    );
    let rows = crate::wan::rates::table2(alice, |name, mbps| {
        let mut r = spanning(name, &[1, 2]);
        r.bandwidth_mbps = mbps;
        r
    })
    .await?;
    say(&crate::wan::rates::table(&rows));
    Ok(rows)
}

/// The demo's five experiments booked: a span of the three nodes (its
/// booking's time in `book_ms`, from `t`), two on the same addresses, a
/// bridged one and one in the software tier.
async fn book_five(
    alice: &ControllerClient,
    t: &Instant,
    book_ms: &mut f64,
) -> Result<[Booking; 5]> {
    let span = alice.book("wan", &spanning("span3", &[1, 2, 3])).await?;
    *book_ms = t.elapsed().as_secs_f64() * 1e3;
    let red = alice.book("wan", &spanning("red", &[1, 2])).await?;
    let blue = alice.book("wan", &spanning("blue", &[1, 2])).await?;
    let l2 = alice.book("wan", &bridged("l2", &[1, 2])).await?;
    let mut soft = spanning("soft", &[2, 3]);
    soft.spec["tier"] = "software".into();
    let soft = alice.book("wan", &soft).await?;
    Ok([span, red, blue, l2, soft])
}

/// The controller's networks still on the nodes.
async fn left_on_nodes(secret: &str) -> Result<Vec<String>> {
    let mut left = Vec::new();
    for i in 1..=NODES {
        for n in node_client(i, secret).list_networks().await? {
            if n.name.starts_with(prism_controller::NODE_PREFIX) {
                left.push(n.name);
            }
        }
    }
    Ok(left)
}

/// Runs the demo and prints its verdict; errors if it found a problem.
pub fn main(prism: &Path, rates: bool) -> Result<()> {
    if !netns::have_privileges() {
        bail!("the WAN demo needs root (namespaces, a bridge and raw sockets)");
    }
    let o = run(prism, false, rates)?;
    let mut failed = print_flows(&o.flows);
    println!(
        "  outsider: {} sent, {} delivered, {} + {} dropped by name at node2",
        o.spoofed, o.spoofed_delivered, o.spoof_drops.0, o.spoof_drops.1
    );
    failed |= print_gateway(&o.gateway);
    let m = &o.public_mac;
    println!(
        "  public MAC {}: {} ARP requests, {} answered; {} pings, {} answered; after release {} sent, {} reached, {} dropped as wan/unexpected",
        m.mac, m.arp.0, m.arp.1, m.pings.0, m.pings.1, m.released.0, m.released.1, m.released.2
    );
    failed |= m.arp.1 < m.arp.0 || m.pings.1 < m.pings.0;
    failed |= m.released.1 > 0 || m.released.2 < m.released.0;
    let r = &o.restart;
    println!(
        "  node3 restarted under traffic: node1 → node2 {} of {} meanwhile; part back in {:.0} ms; node1 → node3 {} of {} after",
        r.during.1, r.during.0, r.back_ms, r.after.1, r.after.0
    );
    failed |= r.during.1 < r.during.0 || r.after.1 < r.after.0;
    let m = &o.tier_move;
    println!(
        "  node2's part moved to software under traffic: node1 → node3 {} of {} meanwhile; then node1 → node2 {} of {} in software, {} of {} back in hardware",
        m.other.1, m.other.0, m.in_software.1, m.in_software.0, m.back.1, m.back.0
    );
    failed |= m.other.1 < m.other.0 || m.in_software.1 < m.in_software.0 || m.back.1 < m.back.0;
    println!(
        "  cleanup: {}",
        if o.leftovers.is_empty() {
            "nothing left".to_string()
        } else {
            format!("left {:?}", o.leftovers)
        }
    );
    if failed || o.spoofed_delivered > 0 || !o.left_on_nodes.is_empty() || !o.leftovers.is_empty() {
        bail!("the WAN demo found problems (above)");
    }
    Ok(())
}

/// The flows' table, a line each; whether any lost a frame or was
/// delivered on another VLAN.
fn print_flows(flows: &[Flow]) -> bool {
    println!("\n  experiment  path            VLAN  sent  received  loss    on another VLAN");
    let mut failed = false;
    for f in flows {
        let loss = 100.0 * f.sent.saturating_sub(f.got) as f64 / f.sent.max(1) as f64;
        let loss = format!("{loss:.2}%");
        println!(
            "  {:<10}  node{} → node{}   {:<5} {:<5} {:<8}  {loss:<7} {}",
            f.experiment, f.from, f.to, f.vlan, f.sent, f.got, f.wrong_vlan
        );
        failed |= f.got < f.sent || f.wrong_vlan > 0;
    }
    failed
}

/// The gateway's NAT, pings and public address, in words; whether any of
/// them fell short.
fn print_gateway(g: &GatewayOutcome) -> bool {
    let mut failed = false;
    for (node, sources, sent, echoed) in &g.nat {
        println!(
            "  NAT via {node}: {sent} datagrams, echo server saw {}, {echoed} echoes back inside",
            sources.join(" ")
        );
        failed |= echoed < sent || sources.len() != 1;
    }
    println!("  NAT ping: {} sent, {} answered", g.pings.0, g.pings.1);
    println!(
        "  public address {}: {} sent from the Internet, {} reached the host, {} answers back; after release {} sent, {} reached, {} dropped as wan/not-leased",
        g.public_address,
        g.public.0,
        g.public.1,
        g.public.2,
        g.released.0,
        g.released.1,
        g.released.2
    );
    failed |= g.pings.1 < g.pings.0 || g.public.1 < g.public.0 || g.public.2 < g.public.0;
    failed || g.released.1 > 0 || g.released.2 < g.released.0
}
