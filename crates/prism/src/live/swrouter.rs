//! `prism swrouter`: Prism's software router as a process inside a software
//! network's container (router kind `prism`).
//!
//! In: frames on the container's interfaces `eth<p>`, one per substrate
//! port `p`. Out: each frame routed by the network's table with the same
//! code the hardware tier runs (`software_router::route`), sent from
//! `eth<out>`; dropped frames are counted by reason and the counts printed
//! to the router's log when it stops (SIGTERM/SIGINT) and every 10 s.

use super::kernel_router::inner_ifname;
use crate::scenario;
use anyhow::{Context, Result};
use prism_io::afpacket::{PacketPort, RingConfig};
use prism_pipeline::{PacketPool, ServiceScratch, software_router};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub fn run(config: &Path, network: &str) -> Result<()> {
    let text = std::fs::read_to_string(config)
        .with_context(|| format!("cannot read {}", config.display()))?;
    let sc = scenario::load(&config.display().to_string(), &text)?;
    let dp = sc.substrate.handle().load_full();
    let net = dp
        .network_id(network)
        .with_context(|| format!("{}: no network `{network}`", config.display()))?;
    let ports = sc.port_names.len() as u16;
    let mut rx: Vec<(u16, PacketPort)> = Vec::new();
    let mut tx: Vec<Option<PacketPort>> = Vec::new();
    for p in 0..ports {
        let name = inner_ifname(p);
        let r = PacketPort::open(&name, Some(RingConfig::default()));
        match r {
            Ok(r) => {
                rx.push((p, r));
                tx.push(Some(PacketPort::open_tx(&name)?));
            }
            Err(_) => tx.push(None),
        }
    }
    anyhow::ensure!(
        !rx.is_empty(),
        "no interface eth0..eth{} in this namespace",
        ports - 1
    );
    let stop = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGTERM, stop.clone())?;
    signal_hook::flag::register(signal_hook::consts::SIGINT, stop.clone())?;
    let mut pool = PacketPool::new(4096);
    let mut scratch = ServiceScratch::new(0x5357);
    let mut batch = Vec::with_capacity(4096);
    let mut ready: Vec<prism_pipeline::Packet> = Vec::with_capacity(4096);
    let mut routed = 0u64;
    let mut drops: BTreeMap<String, u64> = BTreeMap::new();
    let mut last = Instant::now();
    eprintln!(
        "prism swrouter: network `{network}` on {} interfaces",
        rx.len()
    );
    while !stop.load(Ordering::Relaxed) {
        let mut work = 0;
        for (p, port) in rx.iter_mut() {
            let p = *p;
            work += port.recv_block(|f| {
                if let Some(mut pkt) = pool.packet(f.data, p, 0) {
                    pkt.network = net;
                    batch.push(pkt);
                }
            });
            for mut pkt in batch.drain(..) {
                match software_router::route(&dp, &mut pkt, &mut scratch) {
                    Ok(out) if tx.get(usize::from(out)).is_some_and(Option::is_some) => {
                        pkt.port = out;
                        routed += 1;
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
            // One sendmmsg per run of packets for the same interface.
            let mut start = 0;
            while start < ready.len() {
                let port = ready[start].port;
                let end = start + ready[start..].iter().take_while(|p| p.port == port).count();
                if let Some(Some(t)) = tx.get_mut(usize::from(port)) {
                    t.send_batch(ready[start..end].iter().map(|p| p.data()));
                }
                start = end;
            }
            for pkt in ready.drain(..) {
                pool.recycle(pkt);
            }
        }
        if work == 0 {
            let ports: Vec<&PacketPort> = rx.iter().map(|(_, p)| p).collect();
            let _ = PacketPort::wait_any(&ports, 50);
        }
        if last.elapsed() > Duration::from_secs(10) {
            last = Instant::now();
            eprintln!("prism swrouter: routed {routed}, dropped {drops:?}");
        }
    }
    eprintln!("prism swrouter: stopping; routed {routed}, dropped {drops:?}");
    Ok(())
}
