//! `prism demo` as root: a live node with two hardware and three software
//! networks, test hosts in network namespaces, real traffic through each,
//! a live table, an isolation check and cleanup.
//!
//! Topology: network `k` has host `a` (10.0.1.2/24) and host `b`
//! (10.0.2.2/24), each in its own namespace behind its own substrate port.
//! All five networks use the *same* addresses: only the substrate keeps
//! them apart. Hardware networks route in the pipeline; `sw-green` and
//! `sw-orange` run the Linux kernel's forwarding in their containers
//! (destination and source+destination policy routing), `sw-violet` runs
//! Prism's software router process (source routing).

use crate::demo::hosts::{
    HOST_PREFIX, STATE_DIR, host_mac, leftovers, make_hosts, remove_hosts, scenario_text_for,
    start_node,
};
use anyhow::{Context, Result, bail};
use prism_io::afpacket::{PacketPort, RingConfig};
use prism_io::netns;
use prism_node::gateway_mac;
use prism_pipeline::traffic::{FrameSpec, build};
use prism_wire::{EthernetAddress, Ipv4Address};
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
/// (name, tier, forwarding mode, router kind).
const NETWORKS: [(&str, &str, &str, &str); 5] = [
    ("hw-red", "hardware", "destination", ""),
    ("hw-blue", "hardware", "destination", ""),
    ("sw-green", "software", "destination", "kernel"),
    ("sw-violet", "software", "source", "prism"),
    ("sw-orange", "software", "flow", "kernel"),
];

/// The demo's scenario, with port `k-a`/`k-b` on `pdh<k>a`/`pdh<k>b`.
pub fn scenario_text() -> String {
    scenario_text_for(&NETWORKS)
}

struct Hosts;

impl Hosts {
    fn create() -> Result<Hosts> {
        remove_hosts();
        let h = Hosts;
        make_hosts(NETWORKS.len())?;
        Ok(h)
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        remove_hosts();
    }
}

/// Per network: frames sent by host a, frames host b received with this
/// network's tag, and frames host b received with another network's tag.
#[derive(Debug, Default)]
pub struct Flow {
    pub sent: AtomicU64,
    pub received: AtomicU64,
    pub foreign: AtomicU64,
    pub bytes: AtomicU64,
}

/// A network's flow as its hosts counted it: name, tier, frames sent,
/// received and foreign (of other networks).
pub type FlowCount = (String, String, u64, u64, u64);

#[derive(Debug)]
pub struct LiveOutcome {
    pub flows: Vec<FlowCount>,
    pub pings_ok: Vec<(String, bool)>,
    pub violations: Vec<String>,
    pub leftovers: Vec<String>,
}

const RATE_PPS: u64 = 4000;
const FRAME_LEN: usize = 1000;

pub fn run(seconds: u64, quiet: bool) -> Result<LiveOutcome> {
    let stop = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGINT, stop.clone())?;
    signal_hook::flag::register(signal_hook::consts::SIGTERM, stop.clone())?;
    let state = std::path::PathBuf::from(STATE_DIR);
    std::fs::create_dir_all(&state)?;
    let file = state.join("demo-live.toml");
    let text = scenario_text();
    std::fs::write(&file, &text)?;
    let sc = prism_compile::load(&file.display().to_string(), &text)?;
    let say = crate::demo::printer(quiet);
    say("prism demo (live): building 10 test hosts and 3 containers ...");
    let hosts = Hosts::create().context("building the test hosts")?;
    let node = start_node(sc, prism_node::IoSettings::default())?;
    for n in &node.notes {
        say(&format!("  {n}"));
    }
    let pings_ok = pings(&say);
    let flows: Arc<Vec<Flow>> = Arc::new((0..NETWORKS.len()).map(|_| Flow::default()).collect());
    let mut threads = Vec::new();
    let traffic_stop = Arc::new(AtomicBool::new(false));
    for k in 0..NETWORKS.len() {
        let (f, ts) = (flows.clone(), traffic_stop.clone());
        let rx = netns::in_namespace(&format!("{HOST_PREFIX}{k}b"), || {
            PacketPort::open("eth0", Some(RingConfig::default()))
        })?;
        threads.push(std::thread::spawn(move || sink(k, rx, &f, &ts)));
        let (f, ts) = (flows.clone(), traffic_stop.clone());
        let tx = netns::in_namespace(&format!("{HOST_PREFIX}{k}a"), || {
            PacketPort::open_tx("eth0")
        })?;
        threads.push(std::thread::spawn(move || generate(k, tx, &f, &ts)));
    }
    say(&format!(
        "  traffic: {RATE_PPS} frames/s of {FRAME_LEN} bytes per network from host a to host b, {seconds} s"
    ));
    watch(seconds, &stop, &flows, &say);
    traffic_stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    let counters = node.counters();
    node.stop()?;
    drop(hosts);
    let (out, violations) = results(&flows);
    say_counters(counters.as_ref(), &say);
    let leftovers = leftovers();
    Ok(LiveOutcome {
        flows: out,
        pings_ok,
        violations,
        leftovers,
    })
}

/// A ping from host a to host b through each network.
fn pings(say: &dyn Fn(&str)) -> Vec<(String, bool)> {
    let mut pings_ok = Vec::new();
    for (k, (name, ..)) in NETWORKS.iter().enumerate() {
        let ns = format!("{HOST_PREFIX}{k}a");
        let ok = netns::run(
            "ip",
            &[
                "netns", "exec", &ns, "ping", "-c", "2", "-i", "0.2", "-W", "2", "10.0.2.2",
            ],
        )
        .is_ok();
        say(&format!(
            "  ping a→b through {name:<10} {}",
            if ok { "ok" } else { "FAILED" }
        ));
        pings_ok.push((name.to_string(), ok));
    }
    pings_ok
}

/// Each second until `seconds` pass (or a signal): every network's rate,
/// bandwidth, loss and foreign frames as counted at its host b.
fn watch(seconds: u64, stop: &AtomicBool, flows: &[Flow], say: &dyn Fn(&str)) {
    let start = Instant::now();
    let mut last: Vec<u64> = vec![0; NETWORKS.len()];
    while start.elapsed() < Duration::from_secs(seconds) && !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_secs(1));
        let t = start.elapsed().as_secs().min(seconds);
        let bar: String = (0..seconds)
            .map(|i| if i < t { '#' } else { '.' })
            .collect();
        let mut table = format!(
            "  [{bar}] {t}/{seconds} s\n  network    tier      rx fr/s  Mbit/s  loss%  foreign\n"
        );
        for (k, (name, tier, ..)) in NETWORKS.iter().enumerate() {
            let f = &flows[k];
            let r = f.received.load(Ordering::Relaxed);
            let s = f.sent.load(Ordering::Relaxed).max(1);
            let rate = r - last[k];
            last[k] = r;
            let _ = writeln!(
                table,
                "  {name:<10} {tier:<9} {rate:>7} {:>7.1} {:>6.2} {:>8}",
                rate as f64 * FRAME_LEN as f64 * 8.0 / 1e6,
                100.0 * (s.saturating_sub(r)) as f64 / s as f64,
                f.foreign.load(Ordering::Relaxed)
            );
        }
        say(&table);
    }
}

/// Each network's (name, tier, sent, received, foreign), and the
/// isolation violations: frames of other networks at a host b.
fn results(flows: &[Flow]) -> (Vec<FlowCount>, Vec<String>) {
    let mut violations = Vec::new();
    let mut out = Vec::new();
    for (k, (name, tier, ..)) in NETWORKS.iter().enumerate() {
        let f = &flows[k];
        let (s, r, x) = (
            f.sent.load(Ordering::Relaxed),
            f.received.load(Ordering::Relaxed),
            f.foreign.load(Ordering::Relaxed),
        );
        if x > 0 {
            violations.push(format!(
                "host b of `{name}` received {x} frames of other networks"
            ));
        }
        out.push((name.to_string(), tier.to_string(), s, r, x));
    }
    (out, violations)
}

/// The node's own per-network counters, beside the hosts' figures.
fn say_counters(counters: Option<&prism_pipeline::CounterSnapshot>, say: &dyn Fn(&str)) {
    if let Some(c) = counters {
        say("  node counters (pipeline):");
        for n in &c.networks {
            say(&format!(
                "    {:<10} rx {:>7} tx {:>7} to-sw {:>7} from-sw {:>7} drops {:?}",
                n.name,
                n.counters.rx_packets,
                n.counters.tx_packets,
                n.counters.to_software,
                n.counters.from_software,
                n.drops
            ));
        }
    }
}

/// Namespaces, links or cgroups of the demo still present.
fn generate(k: usize, mut tx: PacketPort, flows: &[Flow], stop: &AtomicBool) {
    let port = (2 * k) as u16;
    let mut spec = FrameSpec {
        src_mac: EthernetAddress(host_mac(k, 0)),
        dst_mac: EthernetAddress(gateway_mac(k as u16, port)),
        src: Ipv4Address([10, 0, 1, 2]),
        dst: Ipv4Address([10, 0, 2, 2]),
        src_port: 4000,
        dst_port: 5000,
        frame_len: FRAME_LEN,
        ..FrameSpec::default()
    };
    let frame = build(&spec, &[b'P', b'R', b'S', b'M', k as u8]);
    // Every 50th frame is addressed outside the network: it must be dropped
    // (no route), not delivered anywhere.
    spec.dst = Ipv4Address([10, 0, 3, 2]);
    let stray = build(&spec, &[b'P', b'R', b'S', b'M', k as u8]);
    let start = Instant::now();
    let mut sent = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let due = start.elapsed().as_micros() as u64 * RATE_PPS / 1_000_000;
        while sent < due {
            let f = if sent % 50 == 49 { &stray } else { &frame };
            if tx.send_batch(std::iter::once(f.as_slice())) == 1 && f == &frame {
                flows[k].sent.fetch_add(1, Ordering::Relaxed);
            }
            sent += 1;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn sink(k: usize, mut rx: PacketPort, flows: &[Flow], stop: &AtomicBool) {
    let mut end: Option<Instant> = None;
    loop {
        // Keep draining for a moment after the generators stop.
        if stop.load(Ordering::Relaxed) {
            let e = *end.get_or_insert_with(|| Instant::now() + Duration::from_millis(300));
            if Instant::now() > e {
                break;
            }
        }
        rx.recv_block(|f| {
            let d = f.data;
            // Frames to 10.0.2.2 only: a source-routed network rightly
            // delivers the strays (addressed to 10.0.3.2) too.
            if d.len() >= 47
                && d[12..14] == [8, 0]
                && d[23] == 17
                && d[30..34] == [10, 0, 2, 2]
                && &d[42..46] == b"PRSM"
            {
                let from = usize::from(d[46]);
                if from == k {
                    flows[k].received.fetch_add(1, Ordering::Relaxed);
                    flows[k].bytes.fetch_add(d.len() as u64, Ordering::Relaxed);
                } else {
                    flows[k].foreign.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
        let _ = PacketPort::wait_any(&[&rx], 20);
    }
}

/// Runs the live demo and prints its verdict; errors if it found a problem.
pub fn main(seconds: u64) -> Result<()> {
    let o = run(seconds, false)?;
    println!("  result:");
    let mut failed = false;
    for ((name, tier, s, r, x), (_, ping)) in o.flows.iter().zip(&o.pings_ok) {
        let loss = 100.0 * s.saturating_sub(*r) as f64 / (*s).max(1) as f64;
        println!(
            "    {name:<10} {tier:<9} ping {:<6} sent {s:>6} received {r:>6} loss {loss:>5.2}% foreign {x}",
            if *ping { "ok" } else { "FAILED" }
        );
        failed |= !ping || *r == 0;
    }
    if o.violations.is_empty() {
        println!("  isolation: every host received only its own network's traffic");
    }
    for v in &o.violations {
        println!("  ISOLATION VIOLATION: {v}");
    }
    if o.leftovers.is_empty() {
        println!("  cleanup: no namespace, link or container left");
    } else {
        println!("  cleanup left: {:?}", o.leftovers);
    }
    if failed || !o.violations.is_empty() || !o.leftovers.is_empty() {
        bail!("the live demo found problems (above)");
    }
    Ok(())
}
