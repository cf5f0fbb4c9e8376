//! Paper 000's Fig. 8: average throughput per network against the number
//! of hardware networks when each is reconfigured once every `period`,
//! partially (only its region is dark) or statically (the whole device is
//! dark for a full reprogramming, and nothing carries the networks).
//!
//! Run through the real pipeline on a virtual clock: N networks on the
//! Virtex-5 profile (its modelled times: 0.6 s per region, 12 s for the
//! device), reconfigurations staggered evenly over the period (each one
//! toggles the network between destination and source+destination
//! routing), and every `STEP` of virtual time one frame per network is
//! processed at that time. A frame forwarded stands for `STEP` of the
//! network's share of the capacity; one dropped (`hardware/reconfiguring`)
//! for the same share lost. Hours of virtual time take a second; the live
//! Figs. 6-7 run cross-checks the dark time per reconfiguration (the
//! partial run loses 600.0 ms of traffic at the receiving host against
//! 600.2 ms modelled).

use crate::bench::reconfig::flow_variant;
use prism_netdoc::NetworkDoc;
use prism_pipeline::control::reconfig::{self, Strategy};
use prism_pipeline::{NetworkSpec, Pipeline, PipelineConfig, Substrate};

/// Virtual time between frames of a network.
const STEP_NS: u64 = 10_000_000;

/// One point of the figure.
#[derive(Debug, Clone)]
pub struct Point {
    pub networks: usize,
    pub period_s: f64,
    pub strategy: Strategy,
    /// Aggregate capacity shared by the networks, Mbit/s (1 or 4 ports).
    pub capacity_mbps: f64,
    /// Average throughput per network, Mbit/s.
    pub per_network_mbps: f64,
}

fn specs(n: usize) -> anyhow::Result<(Vec<NetworkSpec>, Vec<NetworkSpec>)> {
    let nets: Vec<(String, &str, &str, &str)> = (0..n)
        .map(|k| (format!("n{k}"), "hardware", "destination", ""))
        .collect();
    let refs: Vec<(&str, &str, &str, &str)> = nets
        .iter()
        .map(|(a, b, c, d)| (a.as_str(), *b, *c, *d))
        .collect();
    let text = crate::demo::hosts::scenario_text_for(&refs)
        .replace("device = \"alveo-u280\"", "device = \"virtex5-lx330t\"");
    let sc = prism_compile::load("fig8.toml", &text)?;
    let mut dest = Vec::new();
    let mut flow = Vec::new();
    for k in 0..n {
        let doc: &NetworkDoc = &sc.docs[&format!("n{k}")];
        dest.push(prism_compile::compile(doc, &sc.port_names)?.spec);
        flow.push(prism_compile::compile(&flow_variant(doc), &sc.port_names)?.spec);
    }
    Ok((dest, flow))
}

/// The fraction of frames forwarded with `n` networks reconfigured once
/// each per `period_s`, over `periods` periods after a first one.
pub fn forwarded_share(
    n: usize,
    period_s: f64,
    strategy: Strategy,
    periods: u32,
) -> anyhow::Result<f64> {
    let (mut s, dest, flow) = substrate(n)?;
    let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
    // One frame per network, entering on its port `k-a` (index 2k).
    let frames: Vec<(u16, Vec<u8>)> = (0..n).map(|k| ((2 * k) as u16, frame(k))).collect();
    let period_ns = (period_s * 1e9) as u64;
    let every = period_ns / n as u64;
    let end = period_ns * (u64::from(periods) + 1);
    let (mut next, mut who, mut flipped) = (every / 2, 0usize, vec![false; n]);
    let (mut sent, mut out) = (0u64, 0u64);
    let mut batch = Vec::with_capacity(n);
    let mut tx = Vec::new();
    let mut t = 0;
    while t < end {
        while next <= t {
            s.set_now(next);
            flipped[who] = !flipped[who];
            let spec = if flipped[who] { &flow[who] } else { &dest[who] };
            match strategy {
                Strategy::Full => drop(s.reprogram_with(spec.clone())?),
                _ => s.replace_network(spec.clone())?,
            }
            who = (who + 1) % n;
            next += every;
        }
        for (port, f) in &frames {
            if let Some(pkt) = p.pool.packet(f, *port, t) {
                batch.push(pkt);
            }
        }
        // The first period warms up (every network reconfigured once).
        let counted = t >= period_ns;
        if counted {
            sent += batch.len() as u64;
        }
        p.process(&mut batch, t);
        for port in 0..(2 * n) as u16 {
            p.transmit(port, usize::MAX, &mut tx);
        }
        if counted {
            out += tx.len() as u64;
        }
        for x in tx.drain(..) {
            p.pool.recycle(x);
        }
        t += STEP_NS;
    }
    Ok(out as f64 / sent.max(1) as f64)
}

/// `n` networks routed by destination on the Virtex-5's substrate, with
/// its reconfiguration times; and each network's two specs.
fn substrate(n: usize) -> anyhow::Result<(Substrate, Vec<NetworkSpec>, Vec<NetworkSpec>)> {
    let (dest, flow) = specs(n)?;
    let profile = prism_pipeline::control::device::profile("virtex5-lx330t")
        .expect("built-in")
        .clone();
    let mut s = Substrate::new(profile, (2 * n) as u16);
    for d in &dest {
        s.add_network(d.clone())?;
    }
    s.set_reconfig_timing(reconfig::bitstreams("virtex5-lx330t"));
    Ok((s, dest, flow))
}

/// A 64 B UDP frame of network `k` from host a to host b, as the hosts of
/// `crate::demo::hosts` send it.
fn frame(k: usize) -> Vec<u8> {
    use prism_pipeline::traffic::{FrameSpec, build};
    use prism_wire::{EthernetAddress, Ipv4Address};
    let spec = FrameSpec {
        src_mac: EthernetAddress(crate::demo::hosts::host_mac(k, 0)),
        dst_mac: EthernetAddress(prism_node::gateway_mac(k as u16, (2 * k) as u16)),
        src: Ipv4Address([10, 0, 1, 2]),
        dst: Ipv4Address([10, 0, 2, 2]),
        frame_len: 60,
        ..FrameSpec::default()
    };
    build(&spec, b"fig8")
}

/// The figure: networks 1..=20, periods 30 s and 180 s, partial and
/// static, 1 and 4 Gbit/s.
pub fn figure(counts: &[usize], periods: &[f64]) -> anyhow::Result<Vec<Point>> {
    let mut v = Vec::new();
    for &period_s in periods {
        for strategy in [Strategy::Partial, Strategy::Full] {
            for &n in counts {
                let share = forwarded_share(n, period_s, strategy, 2)?;
                for capacity_mbps in [1000.0, 4000.0] {
                    v.push(Point {
                        networks: n,
                        period_s,
                        strategy,
                        capacity_mbps,
                        per_network_mbps: capacity_mbps / n as f64 * share,
                    });
                }
            }
        }
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each network dark 0.6 s per period when partial; every network
    /// dark n × 12 s per period when static (all of it from 3 networks on
    /// at 30 s): the fluid arithmetic the paper's figure follows.
    #[test]
    fn dark_time_matches_the_modelled_loads() {
        let load = 0.6002;
        let p = forwarded_share(4, 30.0, Strategy::Partial, 2).unwrap();
        assert!((p - (1.0 - load / 30.0)).abs() < 0.002, "{p}");
        let f = forwarded_share(2, 180.0, Strategy::Full, 2).unwrap();
        assert!((f - (1.0 - 2.0 * 12.0 / 180.0)).abs() < 0.002, "{f}");
        let none = forwarded_share(3, 30.0, Strategy::Full, 2).unwrap();
        assert!(none < 0.01, "{none}");
    }
}
