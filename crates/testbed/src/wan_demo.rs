//! The wide area, end to end (`prism demo --wan`, and the live test): a
//! controller and three `prism node` processes, each in its own network
//! namespace with a host on its `lan` port and its `wan` port (its WAN
//! port, docs/wan.md) on one Linux bridge that stands for the wide-area
//! Ethernet. A user books a network spanning the three nodes and two more
//! spanning nodes 1 and 2 on the same inner addresses; frames are sent
//! between every pair of hosts of each, and counted at the receiving host
//! by VLAN (each experiment's frames must arrive on its own VLAN and on no
//! other); an outsider on the WAN sends tunnels from an address that is no
//! node's and plain IPv4, which the WAN side drops by name; the leases are
//! released and nothing is left behind.
//!
//! Loss is counted at the receiving host (a packet socket on its `eth0`).

use crate::controller_demo::random_hex;
use anyhow::{Context, Result, bail};
use prism_controller::{
    BookingRequest, Controller, ControllerClient, LoginRequest, PartRequest, ProjectRequest,
    Settings, UserRequest,
};
use prism_io::afpacket::{PacketPort, RingConfig};
use prism_io::netns;
use prism_node_api::{Endpoint, NodeClient};
use prism_pipeline::traffic::{FrameSpec, build};
use prism_wire::{EthernetAddress, Ipv4Address};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const STATE_DIR: &str = "/run/prism-demo-wan";
const NODES: usize = 3;
const NODE_NS: &str = "pwn-n";
const HOST_NS: &str = "pwn-h";
/// An outsider on the wide area: no node's address.
const OUTSIDER_NS: &str = "pwn-x";
const MGMT: &str = "pwnm";
const WAN_LINK: &str = "pwnw";
const WAN_BRIDGE: &str = "pwnwan";
const INSTANCES: [&str; NODES] = ["wa", "wb", "wc"];
/// Frames per flow, sent at about 2,000 per second.
pub const FRAMES: u64 = 1000;
const GATEWAY_MAC: [u8; 6] = [0x02, 0x45, 0, 0, 0xff, 0];

fn host_mac(i: usize) -> [u8; 6] {
    [0x02, 0x45, 0, 0, 0, i as u8]
}
fn wan_mac(i: usize) -> [u8; 6] {
    [0x02, 0x0a, 0, 0, 0, i as u8]
}
fn wan_address(i: usize) -> String {
    format!("203.0.113.{i}")
}
fn node_ns(i: usize) -> String {
    format!("{NODE_NS}{i}")
}
fn host_ns(i: usize) -> String {
    format!("{HOST_NS}{i}")
}

/// One flow: `FRAMES` frames of `experiment` from host `from` to host
/// `to`, and what host `to` received on the experiment's VLAN and on any
/// other.
#[derive(Debug, Clone)]
pub struct Flow {
    pub experiment: String,
    pub from: usize,
    pub to: usize,
    pub vlan: u16,
    pub sent: u64,
    pub got: u64,
    pub wrong_vlan: u64,
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
}

struct Topology {
    nodes: Vec<Child>,
}

impl Drop for Topology {
    fn drop(&mut self) {
        for c in &mut self.nodes {
            // SAFETY: kill(2) on our child's pid: SIGTERM lets it clean up.
            unsafe { libc::kill(c.id() as i32, libc::SIGTERM) };
        }
        for c in &mut self.nodes {
            let t = Instant::now();
            while t.elapsed() < Duration::from_secs(10) {
                if let Ok(Some(_)) = c.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
        remove_all();
    }
}

fn ours(ns: &str) -> bool {
    ns.starts_with(NODE_NS)
        || ns.starts_with(HOST_NS)
        || ns == OUTSIDER_NS
        || INSTANCES
            .iter()
            .any(|i| ns.starts_with(&format!("prism-c{i}")))
}

fn remove_all() {
    for ns in netns::list_namespaces().unwrap_or_default() {
        if ours(&ns) {
            let _ = netns::delete_namespace(&ns);
        }
    }
    for prefix in [MGMT, WAN_LINK] {
        for l in netns::links_with_prefix(prefix) {
            let _ = netns::delete_link(&l);
        }
    }
}

/// What is left of the demo: namespaces and links.
pub fn leftovers() -> Vec<String> {
    let mut v: Vec<String> = netns::list_namespaces()
        .unwrap_or_default()
        .into_iter()
        .filter(|ns| ours(ns))
        .collect();
    v.extend(netns::links_with_prefix(MGMT));
    v.extend(netns::links_with_prefix(WAN_LINK));
    v
}

/// The namespaces, links and the WAN bridge.
fn build_topology() -> Result<()> {
    netns::ip(&["link", "add", WAN_BRIDGE, "type", "bridge"])?;
    netns::ip(&["link", "set", WAN_BRIDGE, "up"])?;
    for i in 1..=NODES {
        let n = node_ns(i);
        netns::create_namespace(&n)?;
        let m = format!("{MGMT}{i}");
        netns::create_veth(&m, None, "mgmt", Some(&n))?;
        netns::ip(&["addr", "add", &format!("10.253.{i}.1/24"), "dev", &m])?;
        netns::ip_in(
            Some(&n),
            &["addr", "add", &format!("10.253.{i}.2/24"), "dev", "mgmt"],
        )?;
        netns::ip_in(
            Some(&n),
            &[
                "route",
                "add",
                "10.253.0.0/16",
                "via",
                &format!("10.253.{i}.1"),
            ],
        )?;
        let w = format!("{WAN_LINK}{i}");
        netns::create_veth(&w, None, "wan0", Some(&n))?;
        netns::ip(&["link", "set", &w, "master", WAN_BRIDGE, "up"])?;
        netns::ip_in(
            Some(&n),
            &[
                "link",
                "set",
                "wan0",
                "address",
                &netns::format_mac(wan_mac(i)),
            ],
        )?;
        let h = host_ns(i);
        netns::create_namespace(&h)?;
        netns::create_veth("eth0", Some(&h), "lan", Some(&n))?;
        netns::ip_in(
            Some(&h),
            &[
                "link",
                "set",
                "eth0",
                "address",
                &netns::format_mac(host_mac(i)),
            ],
        )?;
    }
    netns::create_namespace(OUTSIDER_NS)?;
    let x = format!("{WAN_LINK}x");
    netns::create_veth(&x, None, "eth0", Some(OUTSIDER_NS))?;
    netns::ip(&["link", "set", &x, "master", WAN_BRIDGE, "up"])?;
    Ok(())
}

/// Starts node `i` (ports `lan` and `wan`, the latter its WAN port); it
/// registers itself with the controller at `controller`.
fn start_node(prism: &Path, i: usize, cred: &Path, controller: &str, key: &Path) -> Result<Child> {
    let dir = PathBuf::from(STATE_DIR);
    let config = dir.join(format!("node{i}.toml"));
    std::fs::write(
        &config,
        format!(
            "# prism demo --wan: a node with a LAN port and a WAN port; the controller books its networks.\n\
             device = \"alveo-u280\"\n\n[[port]]\nname = \"lan\"\ninterface = \"lan\"\n\n\
             [[port]]\nname = \"wan\"\ninterface = \"wan0\"\nwan = {{ address = \"{}\", mac = \"{}\" }}\n",
            wan_address(i),
            netns::format_mac(wan_mac(i))
        ),
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
        .args([
            "--api-listen",
            &format!("10.253.{i}.2:7700"),
            "--api-credential-file",
        ])
        .arg(cred)
        .args([
            "--controller",
            controller,
            "--node-name",
            &format!("node{i}"),
        ])
        .arg("--controller-key-file")
        .arg(key)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .with_context(|| format!("starting {}", prism.display()))
}

fn node_client(i: usize, secret: &str) -> NodeClient {
    NodeClient::new(Endpoint::Tcp {
        addr: format!("10.253.{i}.2:7700"),
        token: Some(secret.into()),
    })
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

/// Sends `FRAMES` frames tagged `vlan` from host `from` to 10.`to`.0.2,
/// UDP port `port`; counts at host `to` those on `vlan` and those on
/// another VLAN.
fn flow(from: usize, to: usize, vlan: u16, port: u16) -> Result<(u64, u64)> {
    let ring = RingConfig {
        block_size: 1 << 16,
        blocks: 512,
        retire_ms: 8,
    };
    let mut rx = netns::in_namespace(&host_ns(to), move || PacketPort::open("eth0", Some(ring)))?;
    let mut tx = netns::in_namespace(&host_ns(from), || PacketPort::open_tx("eth0"))?;
    let frame = build(
        &FrameSpec {
            src_mac: EthernetAddress(host_mac(from)),
            dst_mac: EthernetAddress(GATEWAY_MAC),
            vlan: Some(vlan),
            src: Ipv4Address([10, from as u8, 0, 2]),
            dst: Ipv4Address([10, to as u8, 0, 2]),
            src_port: 4000,
            dst_port: port,
            frame_len: 200,
            ..FrameSpec::default()
        },
        b"PRSM",
    );
    let (mut got, mut wrong) = (0u64, 0u64);
    let mut count = |rx: &mut PacketPort| {
        rx.recv_block(|f| {
            let (tag, d) = tagged(f.vlan, f.data);
            if d.len() >= 38
                && d[12..14] == [8, 0]
                && d[23] == 17
                && d[36..38] == port.to_be_bytes()
            {
                if tag == Some(vlan) {
                    got += 1;
                } else {
                    wrong += 1;
                }
            }
        });
    };
    send_paced(&mut tx, &frame, FRAMES, || count(&mut rx));
    let end = Instant::now() + Duration::from_millis(300);
    while Instant::now() < end {
        let _ = PacketPort::wait_any(&[&rx], 20);
        count(&mut rx);
    }
    if rx.poll_drops() > 0 {
        bail!("host {to}'s own socket dropped frames (its ring was full): not a measurement");
    }
    Ok((got, wrong))
}

/// The frame's VLAN (in the data or stripped into metadata) and the frame
/// as if untagged (the tag's 4 bytes skipped by copying the MACs).
fn tagged(meta: Option<(u16, u16)>, d: &[u8]) -> (Option<u16>, Vec<u8>) {
    if let Some((_, tci)) = meta {
        return (Some(tci & 0x0fff), d.to_vec());
    }
    if d.len() >= 18 && d[12..14] == [0x81, 0x00] {
        let mut v = d[..12].to_vec();
        v.extend_from_slice(&d[16..]);
        return (Some(u16::from_be_bytes([d[14], d[15]]) & 0x0fff), v);
    }
    (None, d.to_vec())
}

/// Sends `n` copies of `frame` at about 2,000 per second, calling `between`
/// every millisecond.
fn send_paced(tx: &mut PacketPort, frame: &[u8], n: u64, mut between: impl FnMut()) {
    let start = Instant::now();
    let mut sent = 0u64;
    while sent < n {
        let due = (start.elapsed().as_micros() as u64 * 2000 / 1_000_000).min(n);
        while sent < due {
            sent += tx.send_batch(std::iter::once(frame)) as u64;
        }
        between();
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Runs the demo; `prism` is the executable that runs the nodes.
pub fn run(prism: &Path, quiet: bool) -> Result<Outcome> {
    let say = |s: &str| {
        if !quiet {
            println!("{s}");
        }
    };
    remove_all();
    let dir = PathBuf::from(STATE_DIR);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let secret = random_hex()?;
    std::fs::write(dir.join("control-plane.secret"), &secret)?;
    say(
        "prism demo --wan: a controller and three nodes whose WAN ports share one bridge (the wide area) ...",
    );
    let mut topo = Topology { nodes: Vec::new() };
    build_topology().context("building the namespaces")?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let out = rt.block_on(drive(prism, &dir, &secret, &mut topo, &say));
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
    let db = dir.join("controller.db").display().to_string();
    let ctl = Controller::open(
        &db,
        Settings {
            node_secret: Some(secret.into()),
            ..Settings::default()
        },
    )
    .await?;
    let password = format!("demo-{secret}");
    ctl.bootstrap_admin("admin", &password).await?;
    let listener = tokio::net::TcpListener::bind("10.253.1.1:0").await?;
    let addr = listener.local_addr()?.to_string();
    tokio::spawn(prism_controller::api::serve(ctl.clone(), listener));
    say(&format!("  controller on {addr}, database {db}"));
    let anon = ControllerClient::new(&addr, None);
    let login = |user: &str, project: Option<&str>| LoginRequest {
        user: user.into(),
        password: password.clone(),
        project: project.map(str::to_string),
        ttl_s: None,
    };
    let admin = anon.with_token(Some(anon.login(&login("admin", None)).await?.token));
    let user = UserRequest {
        name: "alice".into(),
        password: password.clone(),
        admin: false,
    };
    admin.create_user(&user).await?;
    let project = ProjectRequest {
        name: "wan".into(),
        service_level: "standard".into(),
        owner: "alice".into(),
    };
    admin.create_project(&project).await?;
    let alice = anon.with_token(Some(anon.login(&login("alice", Some("wan"))).await?.token));
    Ok((ctl, admin, alice, addr))
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
    for i in 1..=NODES {
        let key = admin.create_node_key(&format!("node{i}")).await?;
        let file = dir.join(format!("node{i}.key"));
        std::fs::write(&file, key.key.unwrap_or_default())?;
        std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
        let cred = dir.join("control-plane.secret");
        topo.nodes.push(start_node(prism, i, &cred, addr, &file)?);
    }
    let t = Instant::now();
    loop {
        let nodes = admin.list_nodes().await?;
        if nodes.len() == NODES && nodes.iter().all(|n| n.up && n.wan.is_some()) {
            for n in nodes {
                let w = n.wan.unwrap_or_else(|| unreachable!());
                say(&format!(
                    "  {} registered: WAN port {} at {} ({})",
                    n.name, w.port, w.address, w.mac
                ));
            }
            return Ok(());
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

async fn drive(
    prism: &Path,
    dir: &Path,
    secret: &str,
    topo: &mut Topology,
    say: &dyn Fn(&str),
) -> Result<Outcome> {
    let (ctl, admin, alice, addr) = controller(dir, secret, say).await?;
    let background = ctl.spawn_background();
    start_nodes(prism, dir, &admin, &addr, topo, say).await?;
    let mut out = Outcome::default();
    let t = Instant::now();
    let span = alice.book("wan", &spanning("span3", &[1, 2, 3])).await?;
    out.book_ms = t.elapsed().as_secs_f64() * 1e3;
    let red = alice.book("wan", &spanning("red", &[1, 2])).await?;
    let blue = alice.book("wan", &spanning("blue", &[1, 2])).await?;
    for b in [&span, &red, &blue] {
        let parts: Vec<String> = b
            .parts
            .iter()
            .map(|p| format!("{} ({}, tunnel {})", p.node, p.prefixes.join(" "), p.tunnel))
            .collect();
        say(&format!(
            "  booked {:<5} VLAN {}: {} — {}",
            b.name,
            b.vlan.unwrap_or(0),
            b.operational_state.as_str(),
            parts.join(", ")
        ));
    }
    say(&format!(
        "  span3 booked and ready on its three nodes in {:.0} ms",
        out.book_ms
    ));
    // A slot loading its module forwards nothing for the profile's
    // (modelled) reconfiguration time.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut port = 5000u16;
    let mut plan: Vec<(String, u16, usize, usize)> = Vec::new();
    for (from, to) in [(1, 2), (2, 1), (1, 3), (3, 1), (2, 3), (3, 2)] {
        plan.push(("span3".into(), span.vlan.unwrap_or(0) as u16, from, to));
    }
    for b in [&red, &blue] {
        for (from, to) in [(1, 2), (2, 1)] {
            plan.push((b.name.clone(), b.vlan.unwrap_or(0) as u16, from, to));
        }
    }
    for (experiment, vlan, from, to) in plan {
        port += 1;
        let (got, wrong_vlan) =
            tokio::task::spawn_blocking(move || flow(from, to, vlan, port)).await??;
        say(&format!(
            "  {experiment:<5} node{from} → node{to} VLAN {vlan}: sent {FRAMES}, received {got} on its VLAN, {wrong_vlan} on another"
        ));
        out.flows.push(Flow {
            experiment,
            from,
            to,
            vlan,
            sent: FRAMES,
            got,
            wrong_vlan,
        });
    }
    spoof(&mut out, secret).await?;
    say(&format!(
        "  an outsider's {} frames on the WAN: {} delivered; node2 dropped {} as wan/unknown-tunnel, {} as wan/not-leased",
        out.spoofed, out.spoofed_delivered, out.spoof_drops.0, out.spoof_drops.1
    ));
    for b in [&span, &red, &blue] {
        alice.release("wan", &b.id).await?;
    }
    for i in 1..=NODES {
        for n in node_client(i, secret).list_networks().await? {
            if n.name.starts_with(prism_controller::NODE_PREFIX) {
                out.left_on_nodes.push(n.name);
            }
        }
    }
    say(&format!(
        "  released: {} networks left on the nodes",
        out.left_on_nodes.len()
    ));
    background.abort();
    Ok(out)
}

/// Node 2's unmapped drops by `wan/...` reason: (unknown-tunnel, not-leased).
async fn wan_drops(secret: &str) -> Result<(u64, u64)> {
    let c = node_client(2, secret).counters().await?;
    let get = |r: &str| c.unmapped_drops.get(r).copied().unwrap_or(0);
    Ok((get("wan/unknown-tunnel"), get("wan/not-leased")))
}

/// The outsider sends node 2 IPIP from an address that is no node's (with
/// a real experiment's inner addresses) and plain IPv4; host 2 listens.
async fn spoof(out: &mut Outcome, secret: &str) -> Result<()> {
    const N: u64 = 200;
    let before = wan_drops(secret).await?;
    let delivered = tokio::task::spawn_blocking(|| -> Result<u64> {
        let mut rx = netns::in_namespace(&host_ns(2), || PacketPort::open("eth0", None))?;
        let mut tx = netns::in_namespace(OUTSIDER_NS, || PacketPort::open_tx("eth0"))?;
        let spec = |tunnel| FrameSpec {
            src_mac: EthernetAddress([0x02, 0x66, 0, 0, 0, 1]),
            dst_mac: EthernetAddress(wan_mac(2)),
            src: Ipv4Address([10, 1, 0, 2]),
            dst: Ipv4Address([10, 2, 0, 2]),
            tunnel,
            dst_port: 6666,
            frame_len: 200,
            ..FrameSpec::default()
        };
        let node2 = Ipv4Address([203, 0, 113, 2]);
        let ipip = build(&spec(Some((Ipv4Address([198, 18, 9, 9]), node2))), b"SPOF");
        let mut plain = spec(None);
        plain.dst = node2;
        let plain = build(&plain, b"SPOF");
        let mut got = 0;
        let mut count = |rx: &mut PacketPort| {
            rx.recv_block(|f| got += u64::from(f.data.windows(4).any(|w| w == b"SPOF")));
        };
        send_paced(&mut tx, &ipip, N, || count(&mut rx));
        send_paced(&mut tx, &plain, N, || count(&mut rx));
        std::thread::sleep(Duration::from_millis(300));
        count(&mut rx);
        Ok(got)
    })
    .await??;
    let after = wan_drops(secret).await?;
    out.spoofed = 2 * N;
    out.spoofed_delivered = delivered;
    out.spoof_drops = (after.0 - before.0, after.1 - before.1);
    Ok(())
}

/// Runs the demo and prints its verdict; errors if it found a problem.
pub fn main(prism: &Path) -> Result<()> {
    if !netns::have_privileges() {
        bail!("the WAN demo needs root (namespaces, a bridge and raw sockets)");
    }
    let o = run(prism, false)?;
    println!("\n  experiment  path            VLAN  sent  received  loss    on another VLAN");
    let mut failed = false;
    for f in &o.flows {
        let loss = 100.0 * f.sent.saturating_sub(f.got) as f64 / f.sent.max(1) as f64;
        let loss = format!("{loss:.2}%");
        println!(
            "  {:<10}  node{} → node{}   {:<5} {:<5} {:<8}  {loss:<7} {}",
            f.experiment, f.from, f.to, f.vlan, f.sent, f.got, f.wrong_vlan
        );
        failed |= f.got < f.sent || f.wrong_vlan > 0;
    }
    println!(
        "  outsider: {} sent, {} delivered, {} + {} dropped by name at node2",
        o.spoofed, o.spoofed_delivered, o.spoof_drops.0, o.spoof_drops.1
    );
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
