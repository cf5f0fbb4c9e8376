//! `prism swrouter`: Prism's software router as a process inside a software
//! network's container (router kind `prism`).
//!
//! In: frames on the container's interfaces `eth<p>`, one per substrate
//! port `p`. Out: each frame routed by the network's table with the same
//! code the hardware tier runs (`router::route`), sent from
//! `eth<out>`; dropped frames are counted by reason and the counts printed
//! to the router's log when it stops (SIGTERM/SIGINT) and every 10 s.
//!
//! Its network comes from a scenario file the node writes; on SIGHUP it
//! reads the file again and swaps in the new table between two batches, so
//! each frame is routed by the old table or the new one. A file that does
//! not load leaves the old table in force (and says why in the log).

use super::kernel_router::inner_ifname;
use anyhow::{Context, Result};
use prism_compile as scenario;
use prism_io::port::{self, IoChoice, Port};
use prism_io::xdp::XdpConfig;
use prism_pipeline::{Dataplane, PacketPool, PayloadScratch, software::router};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Loads network `network` from `config`: its data plane, id and port count.
fn load(config: &Path, network: &str) -> Result<(Arc<Dataplane>, u16, u16)> {
    let text = std::fs::read_to_string(config)
        .with_context(|| format!("cannot read {}", config.display()))?;
    let sc = scenario::load(&config.display().to_string(), &text)?;
    let dp = sc.substrate.handle().load_full();
    let net = dp
        .network_id(network)
        .with_context(|| format!("{}: no network `{network}`", config.display()))?;
    Ok((dp, net, sc.port_names.len() as u16))
}

/// The file `prism swrouter` writes once it receives, beside its network file.
pub fn ready_file(config: &Path) -> std::path::PathBuf {
    config.with_extension("ready")
}

pub fn run(config: &Path, network: &str, io: IoChoice) -> Result<()> {
    let (mut dp, mut net, ports) = load(config, network)?;
    let (Sockets { mut socks, tx, rx }, how) = Sockets::open(ports, io)?;
    anyhow::ensure!(
        !rx.is_empty(),
        "no interface eth0..eth{} in this namespace",
        ports - 1
    );
    let (stop, reload) = signals()?;
    let mut pool = PacketPool::new(4096);
    let mut scratch = PayloadScratch::new(0x5357);
    let mut batch = Vec::with_capacity(4096);
    let mut ready: Vec<prism_pipeline::Packet> = Vec::with_capacity(4096);
    let mut routed = 0u64;
    let mut drops: BTreeMap<String, u64> = BTreeMap::new();
    let mut last = Instant::now();
    eprintln!("prism swrouter: network `{network}` on {}", how.join(", "));
    announce_ready(config)?;
    while !stop.load(Ordering::Relaxed) {
        if reload.swap(false, Ordering::Relaxed) {
            reload_into(config, network, &mut dp, &mut net);
        }
        let mut work = 0;
        for &i in &rx {
            let (p, sock) = &mut socks[i];
            let p = *p;
            work += sock.recv(256, |f| {
                if let Some(mut pkt) = pool.packet(f.data, p, 0) {
                    pkt.network = net;
                    batch.push(pkt);
                }
            });
            route_all(
                &dp,
                &mut batch,
                &mut ready,
                &tx,
                (&mut pool, &mut scratch),
                (&mut routed, &mut drops),
            );
            send_runs(&mut socks, &tx, &mut ready, &mut pool);
        }
        if work == 0 {
            for (_, s) in socks.iter_mut() {
                s.flush();
            }
            let waiting: Vec<&Port> = rx.iter().map(|&i| &socks[i].1).collect();
            let _ = Port::wait_any(&waiting, 50);
        }
        if last.elapsed() > Duration::from_secs(10) {
            last = Instant::now();
            eprintln!("prism swrouter: {}", tally(routed, &drops, &mut socks));
        }
    }
    eprintln!(
        "prism swrouter: stopping; {}",
        tally(routed, &drops, &mut socks)
    );
    Ok(())
}

/// Tells the node the sockets are open: traffic may come.
fn announce_ready(config: &Path) -> Result<()> {
    let ready_path = ready_file(config);
    std::fs::write(&ready_path, std::process::id().to_string())
        .with_context(|| format!("writing {}", ready_path.display()))
}

/// What the router has done so far, in words.
fn tally(routed: u64, drops: &BTreeMap<String, u64>, socks: &mut [(u16, Port)]) -> String {
    format!(
        "routed {routed}, dropped {drops:?}; {}",
        socket_drops(socks)
    )
}

/// Flags set by SIGTERM or SIGINT (stop) and SIGHUP (reload the table).
fn signals() -> Result<(Arc<AtomicBool>, Arc<AtomicBool>)> {
    let stop = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGTERM, stop.clone())?;
    signal_hook::flag::register(signal_hook::consts::SIGINT, stop.clone())?;
    let reload = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGHUP, reload.clone())?;
    Ok((stop, reload))
}

/// The network's table read again from `config`; a refused one keeps the
/// old table, said.
fn reload_into(config: &Path, network: &str, dp: &mut Arc<Dataplane>, net: &mut u16) {
    match load(config, network) {
        Ok((d, n, _)) => {
            *dp = d;
            *net = n;
            eprintln!(
                "prism swrouter: reloaded `{network}` from {}",
                config.display()
            );
        }
        Err(e) => eprintln!("prism swrouter: reload refused, old table kept: {e:#}"),
    }
}

/// The router's sockets: (port, socket) each, the one that sends for each
/// port, and those that receive.
struct Sockets {
    socks: Vec<(u16, Port)>,
    tx: Vec<Option<usize>>,
    rx: Vec<usize>,
}

impl Sockets {
    /// Opens every `eth<p>` of the namespace; with what each runs on.
    fn open(ports: u16, io: IoChoice) -> Result<(Self, Vec<String>)> {
        let mut socks: Vec<(u16, Port)> = Vec::new();
        let mut tx: Vec<Option<usize>> = vec![None; usize::from(ports)];
        let mut rx: Vec<usize> = Vec::new();
        let mut how = Vec::new();
        for p in 0..ports {
            let name = inner_ifname(p);
            if !prism_io::netns::link_exists(&name) {
                continue;
            }
            // A wire port's ring (2,048 slots; 512 before): a router that
            // sleeps when idle must take whole the burst a held-up sender
            // catches up with (1,500 frames after 150 ms at 10,000 frames/s;
            // 512 slots lost 988 of them). 8 MiB per interface.
            let opened = port::open_rx(&name, io, &XdpConfig::default())?;
            if let Some(why) = &opened.fallback {
                eprintln!("prism swrouter: {name}: AF_XDP unavailable ({why}); using AF_PACKET");
            }
            for (q, s) in opened.ports.into_iter().enumerate() {
                how.push(format!("{name} {}", s.describe()));
                if q == 0 {
                    tx[usize::from(p)] = Some(socks.len());
                }
                rx.push(socks.len());
                socks.push((p, s));
            }
        }
        Ok((Self { socks, tx, rx }, how))
    }
}

/// Routes `batch` (left empty): what has a way out goes to `ready`, the
/// rest is counted by reason and its buffer taken back.
fn route_all(
    dp: &prism_pipeline::Dataplane,
    batch: &mut Vec<prism_pipeline::Packet>,
    ready: &mut Vec<prism_pipeline::Packet>,
    tx: &[Option<usize>],
    (pool, scratch): (&mut PacketPool, &mut PayloadScratch),
    (routed, drops): (&mut u64, &mut BTreeMap<String, u64>),
) {
    for mut pkt in batch.drain(..) {
        match router::route(dp, &mut pkt, scratch) {
            Ok(out) if tx.get(usize::from(out)).is_some_and(Option::is_some) => {
                pkt.port = out;
                *routed += 1;
                ready.push(pkt);
            }
            Ok(_) => {
                *drops.entry("output/no-interface".into()).or_default() += 1;
                pool.recycle(pkt);
            }
            Err(r) => {
                *drops.entry(r.to_string()).or_default() += 1;
                pool.recycle(pkt);
            }
        }
    }
}

/// Sends `ready` (left empty, buffers back in `pool`), one send per run of
/// packets for the same interface.
fn send_runs(
    socks: &mut [(u16, Port)],
    tx: &[Option<usize>],
    ready: &mut Vec<prism_pipeline::Packet>,
    pool: &mut PacketPool,
) {
    let mut start = 0;
    while start < ready.len() {
        let port = ready[start].port;
        let end = start + ready[start..].iter().take_while(|p| p.port == port).count();
        if let Some(t) = tx[usize::from(port)] {
            socks[t]
                .1
                .send_batch(ready[start..end].iter().map(|p| p.data()));
        }
        start = end;
    }
    for pkt in ready.drain(..) {
        pool.recycle(pkt);
    }
}

/// What the router's sockets lost (frames the kernel could not deliver, or
/// that found no room to leave): outside the node's counters, so said in
/// the router's log.
fn socket_drops(socks: &mut [(u16, Port)]) -> String {
    let parts: Vec<String> = socks
        .iter_mut()
        .map(|(p, s)| {
            let st = s.poll_stats();
            format!(
                "eth{p} ring drops {} tx errors {}",
                st.rx_ring_drops, st.tx_errors
            )
        })
        .collect();
    parts.join(", ")
}
