//! The controller, end to end (`prism demo --controller`, and the live
//! test): a controller and two `prism node` processes, each in its own
//! network namespace with two test hosts; a user logs in, books two
//! hardware and two software networks (placed on both nodes by the
//! placement library), sends traffic through each from host a to host b
//! tagged with the booking's VLAN, checks that other VLANs get nowhere,
//! prints the usage report, releases the leases and leaves nothing behind.
//!
//! Loss is counted at the receiving host (a packet socket on its `eth0`).

pub use crate::demo::controller_traffic::FRAMES;
use crate::demo::controller_traffic::{
    HOST_NS, INSTANCES, MGMT, NODE_NS, NODES, drop_report, host_mac, send_and_count,
};
use crate::demo::nodes::{Names, Topology, random_hex};
use anyhow::{Context, Result, bail};
use prism_controller::{
    Booking, BookingRequest, Controller, ControllerClient, LoginRequest, ProjectRequest,
    UserRequest,
};
use prism_io::netns;
use prism_node_api::{Endpoint, NodeClient};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use crate::demo::controller_setup::STATE_DIR;
/// What the demo measured.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Per booking: name, tier, node, VLAN, frames sent, frames host b got.
    pub flows: Vec<(String, String, String, i64, u64, u64)>,
    /// Frames of unbooked or other nodes' VLANs that reached a host b.
    pub leaked: u64,
    pub usage_csv: String,
    /// Controller networks still on a node after the releases.
    pub left_on_nodes: Vec<String>,
    pub leftovers: Vec<String>,
    /// Calls to a node's API on TCP without the controller's client
    /// certificate that were answered (there should be none).
    pub answered_strangers: Vec<String>,
    /// Where frames were lost, if any were (the nodes' and the kernel's
    /// drop counters), a line each.
    pub drops: Vec<String>,
    /// Node 2 cut off from the controller (`--cut`), if it was.
    pub cut: Option<crate::demo::controller_cut::CutOutcome>,
    /// The controller's client certificate revoked: how long until both
    /// nodes refused a client presenting it (ms), and the nodes still
    /// answering it after 10 s (there should be none).
    pub revoked_refused_ms: u128,
    pub revoked_answered: Vec<String>,
}

fn ours(ns: &str) -> bool {
    ns.starts_with(NODE_NS)
        || ns.starts_with(HOST_NS)
        || INSTANCES
            .iter()
            .any(|i| ns.starts_with(&format!("prism-c{i}")))
}

/// The demo's namespaces and links.
static NAMES: Names = Names {
    namespace: ours,
    link_prefixes: &[MGMT],
};

/// What is left of the demo: namespaces and links.
pub fn leftovers() -> Vec<String> {
    NAMES.leftovers()
}

fn spec(tier: &str) -> serde_json::Value {
    let mut s = serde_json::json!({
        "tier": tier,
        "forwarding": "destination",
        "route": [{"prefix": "10.0.2.0/24", "action": {
            "port": "b", "decrement_ttl": true, "vlan_pop": true,
            "set_src_mac": "02:44:00:ff:00:01",
            "set_dst_mac": netns::format_mac(host_mac(1)),
        }}],
    });
    if tier == "software" {
        // Addresses on both ports link the container to both: a frame of
        // the network entering on a port its container has no link on is
        // dropped (`io/no-link`).
        s["router"] = serde_json::json!({"kind": "prism", "addresses": {"a": "10.0.1.1/24", "b": "10.0.2.1/24"}});
    }
    s
}

/// Runs the demo; `prism` is the executable that runs the nodes. With
/// `portal`, the bookings keep carrying traffic for the web portal until
/// Ctrl-C or SIGTERM before they are released (`crate::demo::portal`).
pub fn run(prism: &Path, quiet: bool, portal: bool, cut: Option<u64>) -> Result<Outcome> {
    let say = crate::demo::printer(quiet);
    NAMES.remove_all();
    let dir = PathBuf::from(STATE_DIR);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let secret = random_hex()?;
    say(
        "prism demo (controller): a controller and two nodes, each in its own network namespace ...",
    );
    let mut topo = Topology {
        nodes: Vec::new(),
        names: &NAMES,
    };
    crate::demo::controller_setup::build_topology().context("building the namespaces")?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let how = How { portal, cut };
    let out = rt.block_on(drive(prism, &dir, &secret, &mut topo, how, &say));
    drop(topo);
    let mut out = out?;
    out.leftovers = leftovers();
    let _ = std::fs::remove_dir_all(&dir);
    Ok(out)
}

/// What the demo does beyond its flows: a portal left running, a node cut.
#[derive(Debug, Clone, Copy)]
struct How {
    portal: bool,
    cut: Option<u64>,
}

async fn drive(
    prism: &Path,
    dir: &Path,
    secret: &str,
    topo: &mut Topology,
    how: How,
    say: &dyn Fn(&str),
) -> Result<Outcome> {
    let password = format!("demo-{secret}");
    let (ctl, addr, tasks) =
        crate::demo::controller_setup::start_controller(dir, &password, how.cut.is_some(), say)
            .await?;
    let anon = ControllerClient::connect(&addr, None, Some(&dir.join("tls").join("ca.pem")))?;
    let login = |user: &str, project: Option<&str>| LoginRequest {
        user: user.into(),
        password: password.clone(),
        project: project.map(str::to_string),
        ttl_s: None,
    };
    let admin = anon.with_token(Some(anon.login(&login("admin", None)).await?.token));
    crate::demo::controller_setup::start_nodes(prism, dir, &addr, &admin, topo, say).await?;
    let alice = sign_up_alice(&admin, &anon, &login("alice", Some("demo")), &password).await?;
    say("  alice logged in to project demo");
    let ca = dir.join("tls").join("ca.pem");
    let trust = crate::demo::controller_trust::check(&ctl, &admin, (&ca, !how.portal), say).await?;
    let mut bookings = book_four(&alice, say).await?;
    // A software router takes a moment to start in its container.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let mut out = Outcome {
        answered_strangers: trust.strangers,
        revoked_refused_ms: trust.revoked_refused_ms,
        revoked_answered: trust.revoked_answered,
        ..Outcome::default()
    };
    forward_and_isolate(dir, &bookings, &mut out, say).await?;
    if let Some(s) = how.cut {
        let clients = (&admin, &alice);
        out.cut =
            Some(crate::demo::controller_cut::run(s, dir, clients, &mut bookings, say).await?);
    }
    out.usage_csv = usage_report(&alice, &ctl, say).await?;
    if how.portal {
        let login = crate::demo::portal::Login {
            url: &addr,
            ca: &dir.join("tls").join("ca.pem"),
            password: &password,
        };
        crate::demo::portal::serve_until_stopped(&bookings, login, say).await?;
    }
    out.left_on_nodes = release_all(&alice, &bookings, dir).await?;
    say(&format!(
        "  released the leases: {} networks left on the nodes",
        out.left_on_nodes.len()
    ));
    for t in tasks {
        t.abort();
    }
    Ok(out)
}

/// The bookings' traffic sent and counted, the nodes' drops reported, and
/// what reached a host that should not have.
async fn forward_and_isolate(
    dir: &Path,
    bookings: &[(Booking, usize)],
    out: &mut Outcome,
    say: &dyn Fn(&str),
) -> Result<()> {
    send_flows(bookings, out, say).await?;
    out.drops = drop_report(dir).await?;
    out.drops.iter().for_each(|l| say(l));
    out.leaked = leaks(bookings).await?;
    say(&format!(
        "  isolation: {} frames of unbooked or other nodes' VLANs reached a host",
        out.leaked
    ));
    Ok(())
}

/// Releases every booking and waits for their nodes to converge (a
/// release answers from the database; each booking's `converging` follows
/// its node): the controller's networks still on the nodes.
async fn release_all<T>(
    alice: &ControllerClient,
    bookings: &[(Booking, T)],
    dir: &Path,
) -> Result<Vec<String>> {
    for (b, _) in bookings {
        alice.release("demo", &b.id).await?;
    }
    converged(alice, bookings.iter().map(|(b, _)| b.id.as_str())).await?;
    left_on_nodes(dir).await
}

/// User alice, owner of project `demo`, logged in to it.
async fn sign_up_alice(
    admin: &ControllerClient,
    anon: &ControllerClient,
    login: &LoginRequest,
    password: &str,
) -> Result<ControllerClient> {
    admin
        .create_user(&UserRequest {
            name: "alice".into(),
            password: password.into(),
            admin: false,
        })
        .await?;
    admin
        .create_project(&ProjectRequest {
            name: "demo".into(),
            service_level: "standard".into(),
            owner: "alice".into(),
        })
        .await?;
    Ok(anon.with_token(Some(anon.login(login).await?.token)))
}

/// The project's usage report as CSV, said line by line.
async fn usage_report(
    alice: &ControllerClient,
    ctl: &Controller,
    say: &dyn Fn(&str),
) -> Result<String> {
    let u = alice.usage_csv("demo", 0, ctl.now_ms() + 1).await?;
    say("  usage report (CSV):");
    for l in u.lines() {
        say(&format!("    {l}"));
    }
    Ok(u)
}

/// Two hardware and two software networks, each booked and provisioned,
/// with the number of the node it landed on.
async fn book_four(alice: &ControllerClient, say: &dyn Fn(&str)) -> Result<Vec<(Booking, usize)>> {
    let mut bookings = Vec::new();
    // The bandwidth is the rate limit on the node, whose token bucket
    // holds 10 ms of it: at 40 Mbit/s, 50 KB, 125 ms of the demo's 2,000
    // frames a second of 200 bytes, so a node not run for a while (two busy
    // cores) passes what queued meanwhile (at 10 Mbit/s, 31 ms: one CI run
    // in about 25 dropped a few dozen as `output/rate-limited`). Two
    // software networks of 40 fit one node's software tier (100).
    for (name, tier, mbps) in [
        ("hw-1", "hardware", 100),
        ("hw-2", "hardware", 100),
        ("sw-1", "software", 40),
        ("sw-2", "software", 40),
    ] {
        let t = Instant::now();
        let b = alice
            .book("demo", &BookingRequest::network(name, spec(tier), mbps))
            .await?;
        let node: usize = b
            .node
            .as_deref()
            .and_then(|n| n.strip_prefix("node"))
            .and_then(|n| n.parse().ok())
            .context("a node")?;
        let b = alice.provision("demo", &b.id).await?;
        say(&format!(
            "  booked {name:<5} {tier:<9} on {} VLAN {} in {:.0} ms: {}",
            b.node.as_deref().unwrap_or("?"),
            b.vlan.unwrap_or(0),
            t.elapsed().as_secs_f64() * 1e3,
            b.operational_state.as_str()
        ));
        bookings.push((b, node));
    }
    Ok(bookings)
}

/// Each booking's flow from host a, counted at host b.
async fn send_flows(
    bookings: &[(Booking, usize)],
    out: &mut Outcome,
    say: &dyn Fn(&str),
) -> Result<()> {
    for (k, (b, node)) in bookings.iter().enumerate() {
        let vlan = b.vlan.unwrap_or(0) as u16;
        let node = *node;
        let got = tokio::task::spawn_blocking(move || {
            send_and_count(node, vlan, 5000 + k as u16, FRAMES)
        })
        .await??;
        say(&format!(
            "  {:<5} {} frames from host a, tagged VLAN {vlan}: host b received {got}",
            b.name, FRAMES
        ));
        out.flows.push((
            b.name.clone(),
            b.tier.map_or(String::new(), |t| t.as_str().to_string()),
            b.node.clone().unwrap_or_default(),
            vlan as i64,
            FRAMES,
            got,
        ));
    }
    Ok(())
}

/// Isolation: frames of a VLAN nobody booked, and of the other node's
/// bookings' VLANs, that reached a host.
async fn leaks(bookings: &[(Booking, usize)]) -> Result<u64> {
    let mut leaked = 0;
    for i in 1..=NODES {
        let mut vlans = vec![99u16];
        vlans.extend(
            bookings
                .iter()
                .filter(|(_, n)| *n != i)
                .map(|(b, _)| b.vlan.unwrap_or(0) as u16),
        );
        for v in vlans {
            leaked +=
                tokio::task::spawn_blocking(move || send_and_count(i, v, 6000, 200)).await??;
        }
    }
    Ok(leaked)
}

/// The controller's networks still on the nodes (asked of each node).
/// Waits (up to 15 s) until no booking of `ids` is converging.
async fn converged(alice: &ControllerClient, ids: impl Iterator<Item = &str>) -> Result<()> {
    let ids: Vec<&str> = ids.collect();
    let t = std::time::Instant::now();
    loop {
        let mut pending = 0;
        for id in &ids {
            pending += usize::from(alice.booking("demo", id).await?.converging);
        }
        if pending == 0 {
            return Ok(());
        }
        if t.elapsed() > std::time::Duration::from_secs(15) {
            anyhow::bail!("{pending} released booking(s) not converged on their nodes in 15 s");
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

async fn left_on_nodes(dir: &Path) -> Result<Vec<String>> {
    let mut left = Vec::new();
    for i in 1..=NODES {
        let c = NodeClient::new(Endpoint::Unix(dir.join(format!("node{i}.sock"))));
        for n in c.list_networks().await? {
            if n.name.starts_with(prism_controller::NODE_PREFIX) {
                left.push(n.name);
            }
        }
    }
    Ok(left)
}

/// Runs the demo (with `portal`, left running for a browser until
/// Ctrl-C) and prints its verdict; errors if it found a problem.
pub fn main(prism: &Path, portal: bool, cut: Option<u64>) -> Result<()> {
    if !prism_io::netns::have_privileges() {
        anyhow::bail!("the controller demo needs root (namespaces and raw sockets)");
    }
    let o = run(prism, false, portal, cut)?;
    let mut failed = false;
    for (name, tier, node, vlan, sent, got) in &o.flows {
        let loss = 100.0 * sent.saturating_sub(*got) as f64 / (*sent).max(1) as f64;
        println!(
            "  {name:<5} {tier:<9} {node:<6} VLAN {vlan:<5} sent {sent} received {got} loss {loss:.2}%"
        );
        failed |= *got == 0;
    }
    println!(
        "  cleanup: {}",
        if o.leftovers.is_empty() {
            "nothing left".to_string()
        } else {
            format!("left {:?}", o.leftovers)
        }
    );
    if let Some(c) = &o.cut {
        failed |= c.got != c.sent || c.placed_on == "node2" || !c.release_pending;
        failed |= c.on_node != c.booked;
    }
    failed |= !o.revoked_answered.is_empty();
    if failed || o.leaked > 0 || !o.left_on_nodes.is_empty() || !o.leftovers.is_empty() {
        bail!("the controller demo found problems (above)");
    }
    Ok(())
}
