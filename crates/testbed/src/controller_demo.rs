//! The controller, end to end (`prism demo --controller`, and the live
//! test): a controller and two `prism node` processes, each in its own
//! network namespace with two test hosts; a user logs in, books two
//! hardware and two software networks (placed on both nodes by the
//! placement library), sends traffic through each from host a to host b
//! tagged with the booking's VLAN, checks that other VLANs get nowhere,
//! prints the usage report, releases the leases and leaves nothing behind.
//!
//! Loss is counted at the receiving host (a packet socket on its `eth0`).

pub use crate::controller_traffic::FRAMES;
use crate::controller_traffic::{
    HOST_NS, INSTANCES, MGMT, NODE_NS, NODES, drop_report, host_mac, host_ns, node_ns,
    send_and_count,
};
use crate::demo_nodes::{Names, Topology, random_hex};
use anyhow::{Context, Result, bail};
use prism_controller::{
    Booking, BookingRequest, Controller, ControllerClient, LoginRequest, ProjectRequest, Settings,
    UserRequest,
};
use prism_http::NodeCa;
use prism_http::tls::LabCa;
use prism_io::netns;
use prism_node_api::{Endpoint, NodeClient};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const STATE_DIR: &str = "/run/prism-demo-ctl";
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
    pub cut: Option<crate::controller_cut::CutOutcome>,
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

fn build_topology() -> Result<()> {
    for i in 1..=NODES {
        let n = node_ns(i);
        netns::create_namespace(&n)?;
        let m = format!("{MGMT}{i}");
        netns::create_veth(&m, None, "mgmt", Some(&n))?;
        netns::ip(&["addr", "add", &format!("10.254.{i}.1/24"), "dev", &m])?;
        netns::ip_in(
            Some(&n),
            &["addr", "add", &format!("10.254.{i}.2/24"), "dev", "mgmt"],
        )?;
        // The controller listens on 10.254.1.1 only (not on every address
        // of this machine); every node reaches it through its own link.
        netns::ip_in(
            Some(&n),
            &[
                "route",
                "add",
                "10.254.0.0/16",
                "via",
                &format!("10.254.{i}.1"),
            ],
        )?;
        for s in 0..2 {
            let h = host_ns(i, s);
            netns::create_namespace(&h)?;
            netns::create_veth("eth0", Some(&h), &format!("p{}", ["a", "b"][s]), Some(&n))?;
            netns::ip_in(
                Some(&h),
                &[
                    "link",
                    "set",
                    "eth0",
                    "address",
                    &netns::format_mac(host_mac(s)),
                ],
            )?;
            netns::ip_in(
                Some(&h),
                &[
                    "addr",
                    "add",
                    &format!("10.0.{}.2/24", s + 1),
                    "dev",
                    "eth0",
                ],
            )?;
        }
    }
    Ok(())
}

/// Starts node `i`; it registers itself with the controller at
/// `controller` (whose CA is `ca`) with the key in `key`, and serves its
/// API in mutual TLS with the certificate the controller gives it.
fn start_node(prism: &Path, i: usize, ca: &Path, controller: &str, key: &Path) -> Result<Child> {
    let dir = PathBuf::from(STATE_DIR);
    let config = dir.join(format!("node{i}.toml"));
    std::fs::write(
        &config,
        "# prism demo --controller: a node with two ports and no networks; the controller books them.\n\
         device = \"alveo-u280\"\n\n[[port]]\nname = \"a\"\ninterface = \"pa\"\n\n[[port]]\nname = \"b\"\ninterface = \"pb\"\n",
    )?;
    let log = std::fs::File::create(dir.join(format!("node{i}.log")))?;
    Command::new("ip")
        .args(["netns", "exec", &node_ns(i)])
        .arg(prism)
        .args([
            "node",
            "--fresh",
            "--instance",
            INSTANCES[i - 1],
            "--config",
        ])
        .arg(&config)
        .arg("--api")
        .arg(dir.join(format!("node{i}.sock")))
        .args(["--api-listen", &format!("10.254.{i}.2:7700")])
        .arg("--controller-ca")
        .arg(ca)
        .args([
            "--controller",
            controller,
            "--node-name",
            &format!("node{i}"),
        ])
        .arg("--controller-key-file")
        .arg(key)
        // Its own process group: a terminal's Ctrl-C stops the demo, which
        // releases the bookings through the nodes before it stops them.
        .process_group(0)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .with_context(|| format!("starting {}", prism.display()))
}

/// Where the controller listens: node 1's management link, which node 2
/// reaches through its own.
const CONTROLLER_IP: &str = "10.254.1.1";
const CONTROLLER_AT: &str = "10.254.1.1:0";

/// Waits until every node has registered itself and is up.
async fn wait_for_nodes(admin: &ControllerClient) -> Result<Vec<prism_controller::NodeView>> {
    let t = Instant::now();
    loop {
        let nodes = admin.list_nodes().await?;
        if nodes.len() == NODES && nodes.iter().all(|n| n.up) {
            return Ok(nodes);
        }
        if t.elapsed() > Duration::from_secs(20) {
            bail!(
                "{} of {NODES} nodes registered within 20 s (see {STATE_DIR}/node*.log)",
                nodes.len()
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
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
/// Ctrl-C or SIGTERM before they are released (`crate::portal_demo`).
pub fn run(prism: &Path, quiet: bool, portal: bool, cut: Option<u64>) -> Result<Outcome> {
    let say = |s: &str| {
        if !quiet {
            println!("{s}");
        }
    };
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
    build_topology().context("building the namespaces")?;
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
    let (ctl, addr, tasks) = start_controller(dir, &password, how.cut.is_some(), say).await?;
    let anon = ControllerClient::connect(&addr, None, Some(&dir.join("tls").join("ca.pem")))?;
    let login = |user: &str, project: Option<&str>| LoginRequest {
        user: user.into(),
        password: password.clone(),
        project: project.map(str::to_string),
        ttl_s: None,
    };
    let admin = anon.with_token(Some(anon.login(&login("admin", None)).await?.token));
    start_nodes(prism, dir, &addr, &admin, topo, say).await?;
    admin
        .create_user(&UserRequest {
            name: "alice".into(),
            password: password.clone(),
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
    let alice = anon.with_token(Some(anon.login(&login("alice", Some("demo"))).await?.token));
    say("  alice logged in to project demo");
    let strangers = strangers_answered(&dir.join("tls").join("ca.pem")).await;
    say(&format!(
        "  a client without the controller's certificate, in TLS and in plain HTTP, answered by the nodes: {}",
        if strangers.is_empty() { "never" } else { "YES" }
    ));
    let (revoked_refused_ms, revoked_answered) = revoke_client_cert(&ctl, &admin).await?;
    say(&format!(
        "  the controller's client certificate revoked: refused by every node {revoked_refused_ms} ms later{}; the controller took a new one",
        if revoked_answered.is_empty() {
            String::new()
        } else {
            format!(" (still answered by {revoked_answered:?})")
        }
    ));
    let mut bookings = book_four(&alice, say).await?;
    // A software router takes a moment to start in its container.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let mut out = Outcome {
        answered_strangers: strangers,
        revoked_refused_ms,
        revoked_answered,
        ..Outcome::default()
    };
    send_flows(&bookings, &mut out, say).await?;
    out.drops = drop_report(dir).await?;
    out.drops.iter().for_each(|l| say(l));
    out.leaked = leaks(&bookings).await?;
    say(&format!(
        "  isolation: {} frames of unbooked or other nodes' VLANs reached a host",
        out.leaked
    ));
    if let Some(s) = how.cut {
        let clients = (&admin, &alice);
        out.cut = Some(crate::controller_cut::run(s, dir, clients, &mut bookings, say).await?);
    }
    out.usage_csv = usage_report(&alice, &ctl, say).await?;
    if how.portal {
        let login = crate::portal_demo::Login {
            url: &addr,
            ca: &dir.join("tls").join("ca.pem"),
            password: &password,
        };
        crate::portal_demo::serve_until_stopped(&bookings, login, say).await?;
    }
    for (b, _) in &bookings {
        alice.release("demo", &b.id).await?;
    }
    // A release answers from the database; its node converges in the
    // background, which each booking's `converging` follows.
    converged(&alice, bookings.iter().map(|(b, _)| b.id.as_str())).await?;
    out.left_on_nodes = left_on_nodes(dir).await?;
    say(&format!(
        "  released the leases: {} networks left on the nodes",
        out.left_on_nodes.len()
    ));
    for t in tasks {
        t.abort();
    }
    Ok(out)
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

/// The controller, in HTTPS with the lab CA it makes in `dir/tls`, which
/// also certifies the nodes (no shared credential: each node is called in
/// mutual TLS); its address and its tasks (the server, the background).
async fn start_controller(
    dir: &Path,
    password: &str,
    cut: bool,
    say: &dyn Fn(&str),
) -> Result<(Controller, String, [tokio::task::JoinHandle<()>; 2])> {
    let db = dir.join("controller.db").display().to_string();
    let lab = LabCa::create(&dir.join("tls"), &[CONTROLLER_IP.into()], 1)?;
    let node_ca = NodeCa::open(&lab.ca_cert, &lab.ca_key)?;
    let settings = Settings {
        node_ca: Some(std::sync::Arc::new(node_ca)),
        // A node cut off is down after two and a half missed heartbeats
        // (a short cut's controller would not see it down otherwise).
        node_timeout_ms: if cut { 5000 } else { 10_000 },
        ..Settings::default()
    };
    let ctl = Controller::open(&db, settings).await?;
    ctl.bootstrap_admin("admin", password).await?;
    let listener = tokio::net::TcpListener::bind(CONTROLLER_AT).await?;
    let addr = format!("https://{}", listener.local_addr()?);
    let tls = prism_http::tls::server_config(&lab.server_cert, &lab.server_key)?;
    let limits = prism_http::Limits::default();
    let serving = prism_controller::api::serve_with(ctl.clone(), listener, Some(tls), limits);
    let server = tokio::spawn(async move {
        let _ = serving.await;
    });
    let background = ctl.spawn_background();
    say(&format!(
        "  controller on {addr} (lab CA {}), database {db}",
        lab.ca_cert.display()
    ));
    Ok((ctl, addr, [server, background]))
}

/// Starts the nodes, each registering itself with its own key, and waits
/// until all are up.
async fn start_nodes(
    prism: &Path,
    dir: &Path,
    addr: &str,
    admin: &ControllerClient,
    topo: &mut Topology,
    say: &dyn Fn(&str),
) -> Result<()> {
    let ca = dir.join("tls").join("ca.pem");
    for i in 1..=NODES {
        let key = admin.create_node_key(&format!("node{i}")).await?;
        let file = dir.join(format!("node{i}.key"));
        std::fs::write(&file, key.key.unwrap_or_default())?;
        std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
        topo.nodes.push(start_node(prism, i, &ca, addr, &file)?);
    }
    for n in wait_for_nodes(admin).await? {
        say(&format!(
            "  {} registered itself at {} and took a certificate for its name: {} with {} slots, ports {:?}",
            n.name, n.address, n.device, n.slots, n.ports
        ));
    }
    Ok(())
}

/// Each node's API on TCP, called in TLS trusting the lab CA but with
/// no client certificate, and in plain HTTP: the calls answered.
async fn strangers_answered(ca: &Path) -> Vec<String> {
    let mut answered = Vec::new();
    for i in 1..=NODES {
        let addr = format!("10.254.{i}.2:7700");
        let Ok(tls) = prism_http::ClientTls::new(&format!("node{i}"), Some(ca)) else {
            answered.push(format!("node{i}: the lab CA unreadable"));
            continue;
        };
        for e in [
            Endpoint::Tls {
                addr: addr.clone(),
                token: None,
                tls,
            },
            Endpoint::Tcp {
                addr: addr.clone(),
                token: None,
            },
        ] {
            if let Ok(n) = NodeClient::new(e.clone()).node().await {
                answered.push(format!("{e:?} answered: {}", n.device));
            }
        }
    }
    answered
}

/// Revokes the controller's client certificate in use, as if its key had
/// leaked: how long until every node refused a client presenting it (the
/// revocation list their heartbeats bring), and the nodes still answering
/// it after 10 s.
async fn revoke_client_cert(
    ctl: &Controller,
    admin: &ControllerClient,
) -> Result<(u128, Vec<String>)> {
    let ca = ctl.settings().node_ca.clone().context("no CA")?;
    let stolen = |i: usize| -> Result<NodeClient> {
        let tls = ca.client_for(&format!("node{i}"), Vec::new())?;
        let addr = format!("10.254.{i}.2:7700");
        Ok(NodeClient::new(Endpoint::Tls {
            addr,
            token: None,
            tls,
        }))
    };
    let clients: Vec<NodeClient> = (1..=NODES).map(stolen).collect::<Result<_>>()?;
    for c in &clients {
        c.node()
            .await
            .context("the controller's certificate, before its revocation")?;
    }
    let (serial, _) = ca.client_serial()?;
    admin.revoke_controller_certificate(&serial).await?;
    let t = Instant::now();
    loop {
        let mut answered = Vec::new();
        for (i, c) in clients.iter().enumerate() {
            if c.node().await.is_ok() {
                answered.push(format!("node{}", i + 1));
            }
        }
        if answered.is_empty() || t.elapsed() > Duration::from_secs(10) {
            return Ok((t.elapsed().as_millis(), answered));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
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
