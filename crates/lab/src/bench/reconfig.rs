//! Paper 000's Figs. 6 and 7, live: two hardware networks A and B carry
//! numbered 64 B UDP at equal rates through a node; at `at` B is replaced
//! by B' (destination → source+destination routing) with a strategy; the
//! receiving hosts' frames give each network's throughput per bin.
//!
//! Throughput is counted at the receiving host by sequence number: the
//! frames numbered within a bin (by the sender's clock) that arrived,
//! divided by the bin's length. The hardware tier and its reconfiguration
//! times are modelled; the packets, the hosts, the software routers that
//! carry networks meanwhile are real.

use crate::bench::migrate::{lost, with_traffic};
use crate::demo::hosts as demo;
use anyhow::{Context, Result};
use prism_compile::Scenario;
use prism_netdoc::{ForwardingMode, NetworkDoc, Prefix};
use prism_node::Node;
use prism_node_api::NodeEvent;
use prism_pipeline::control::reconfig::Strategy;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The longest a reconfiguration is waited for.
const LONGEST: Duration = Duration::from_secs(60);

/// One run: a strategy on a profile.
#[derive(Debug, Clone)]
pub struct Timeline {
    pub profile: String,
    pub strategy: Strategy,
    pub pps: f64,
    pub bin_ms: u64,
    /// When B was replaced, s from the start of traffic.
    pub at_s: f64,
    /// Received frames per second per bin: A, then B (B' after `at_s`).
    pub series: [Vec<f64>; 2],
    /// Frames lost from the call to the end: A, B.
    pub lost: [u64; 2],
    /// Frames lost before the call (the machine's own loss): A, B.
    pub control_lost: [u64; 2],
    /// The node's events about the reconfiguration (durations modelled and
    /// measured).
    pub events: Vec<NodeEvent>,
    /// Where the node saw frames go (`bench_migrate::where_lost`).
    pub node_drops: String,
}

impl Timeline {
    /// The modelled and the measured durations of the reconfiguration.
    pub fn durations(&self) -> (Option<f64>, Option<f64>) {
        let done = self.events.iter().rev().find(|e| e.measured_ms.is_some());
        (
            self.events.first().and_then(|e| e.modelled_ms),
            done.and_then(|e| e.measured_ms),
        )
    }
}

/// A and B in hardware on `profile` (B carries a `prism` router's
/// settings for when a strategy moves it to software).
pub fn scenario(profile: &str) -> Result<Scenario> {
    let nets = [
        ("a", "hardware", "destination", "prism"),
        ("b", "hardware", "destination", "prism"),
    ];
    let text = demo::scenario_text_for(&nets).replace(
        "device = \"alveo-u280\"",
        &format!("device = \"{profile}\""),
    );
    let state = std::path::PathBuf::from(demo::STATE_DIR);
    std::fs::create_dir_all(&state)?;
    let file = state.join("bench-reconfig.toml");
    std::fs::write(&file, &text)?;
    Ok(prism_compile::load(&file.display().to_string(), &text)?)
}

/// B's document made B': source+destination routing, each route from any
/// source to its prefix (paper 000's configuration II).
pub fn flow_variant(doc: &NetworkDoc) -> NetworkDoc {
    let mut d = doc.clone();
    d.forwarding = ForwardingMode::Flow;
    for r in &mut d.route {
        r.dst = r.prefix.take();
        r.src = Some(Prefix("0.0.0.0/0".parse().expect("a prefix")));
    }
    d
}

/// Runs traffic, replacing B by B' with `strategy` at `at`, until `tail`
/// after the node says the reconfiguration is done (at most `LONGEST`).
pub fn timeline(
    node: &Node,
    profile: &str,
    strategy: Strategy,
    pps: f64,
    at: Duration,
    tail: Duration,
) -> Result<Timeline> {
    let bin_ms = 100;
    let since = node
        .control
        .lock()
        .map(|c| c.events_since(0).last().map_or(0, |e| e.seq))
        .unwrap_or(0);
    let ((marks, ends, outcome), seen) = with_traffic(&[pps, pps], |next| {
        std::thread::sleep(at);
        let t0 = Instant::now();
        let marks = [0, 1].map(|k| next[k].load(Ordering::Relaxed));
        let outcome = (|| -> Result<()> {
            let mut c = node.control.lock().unwrap_or_else(|e| e.into_inner());
            let doc = c.doc("b").cloned().context("network b")?;
            c.reconfigure("b", flow_variant(&doc), Some(strategy))
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            Ok(())
        })();
        let busy = || node.control.lock().is_ok_and(|c| c.reconfiguring());
        while outcome.is_ok() && busy() && t0.elapsed() < LONGEST {
            std::thread::sleep(Duration::from_millis(10));
        }
        std::thread::sleep(tail);
        let ends = [0, 1].map(|k| next[k].load(Ordering::Relaxed));
        (marks, ends, outcome)
    })?;
    outcome?;
    let series = [0, 1].map(|k| delivered_per_bin(&seen[k], ends[k], pps, bin_ms));
    let events = node
        .control
        .lock()
        .map(|c| c.events_since(since))
        .unwrap_or_default();
    Ok(Timeline {
        profile: profile.to_string(),
        strategy,
        pps,
        bin_ms,
        at_s: marks[0] as f64 / pps,
        series,
        lost: [0, 1].map(|k| lost(&seen[k], marks[k], ends[k]).0),
        control_lost: [0, 1].map(|k| lost(&seen[k], 0, marks[k]).0),
        events,
        node_drops: {
            // Reports are published every 200 ms.
            std::thread::sleep(Duration::from_millis(300));
            crate::bench::migrate::where_lost(node)
        },
    })
}

/// Frames per second delivered in each `bin_ms` bin of the first `end`
/// frames sent at `pps`, from which were `seen`.
fn delivered_per_bin(seen: &[bool], end: u64, pps: f64, bin_ms: u64) -> Vec<f64> {
    let per_bin = pps * bin_ms as f64 / 1e3;
    let bins = (end as f64 / per_bin) as usize;
    (0..bins)
        .map(|i| {
            let (from, to) = (
                (i as f64 * per_bin) as u64,
                ((i + 1) as f64 * per_bin) as u64,
            );
            let missing = lost(seen, from, to).0;
            (to - from - missing) as f64 * 1e3 / bin_ms as f64
        })
        .collect()
}

/// One run on fresh hosts and a fresh node.
pub fn run_one(
    profile: &str,
    strategy: Strategy,
    pps: f64,
    at: Duration,
    tail: Duration,
    io: prism_node::IoSettings,
    opts: &prism_node::NodeOptions,
) -> Result<Timeline> {
    demo::remove_hosts();
    let r = (|| {
        demo::make_hosts(2)?;
        let node = demo::start_node_with(scenario(profile)?, io, opts)?;
        std::thread::sleep(Duration::from_millis(500));
        timeline(&node, profile, strategy, pps, at, tail)
    })();
    demo::remove_hosts();
    r
}
