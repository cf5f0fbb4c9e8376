//! `prism bench-live --soak SECONDS`: a node under churn for a long time.
//!
//! Three networks carry numbered 64-byte UDP at a steady rate: `hw`
//! (hardware), `sw` (software, `prism` router) and `mover` (moved between
//! the tiers every 10 s). Meanwhile `hw`'s route table changes 100 times a
//! second (a route to 10.99.x.0/24 added or taken away: every change a new
//! data plane published to the workers). Loss is counted at the receiving
//! hosts; `hw` and `sw` must lose nothing. The process's resident memory
//! and open file descriptors are sampled after a warm-up and at the end:
//! memory must stay within 5%, descriptors must not grow.

use crate::bench::migrate::{lost, set_tier, with_traffic};
use crate::demo::hosts as demo;
use anyhow::{Context, Result};
use prism_netdoc::{Prefix, TierChoice};
use prism_node::Node;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// What a soak saw.
#[derive(Debug, Clone)]
pub struct SoakReport {
    pub seconds: f64,
    pub route_changes: u64,
    pub moves: u64,
    /// Per network (hw, sw, mover): frames sent and lost.
    pub sent: [u64; 3],
    pub lost: [u64; 3],
    /// Resident memory after the warm-up, at the end, and the most seen, KiB.
    pub rss_kib: (u64, u64, u64),
    /// Open descriptors after the warm-up and at the end.
    pub fds: (usize, usize),
    /// Runs of lost frames on `sw` and `mover`: (network, seconds into the
    /// traffic, frames), at most 20 each, to set beside the moves.
    pub loss_runs: Vec<(&'static str, f64, u64)>,
    /// When each move was made, seconds into the traffic.
    pub move_times: Vec<f64>,
}

impl SoakReport {
    /// The soak's verdict: `Err` says what failed.
    pub fn check(&self) -> Result<(), String> {
        let mut bad = Vec::new();
        if self.lost[0] + self.lost[1] > 0 {
            bad.push(format!(
                "networks not moved lost frames: hw {}, sw {}",
                self.lost[0], self.lost[1]
            ));
        }
        let (a, b, _) = self.rss_kib;
        if b as f64 > a as f64 * 1.05 {
            bad.push(format!("memory grew from {a} to {b} KiB (> 5%)"));
        }
        if self.fds.1 > self.fds.0 {
            bad.push(format!(
                "file descriptors grew from {} to {}",
                self.fds.0, self.fds.1
            ));
        }
        if bad.is_empty() {
            Ok(())
        } else {
            Err(bad.join("; "))
        }
    }
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))?
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

fn fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count())
}

/// The scenario: hw (hardware), sw (software, prism), mover (hardware,
/// with a prism router for its time in software).
pub fn scenario() -> Result<prism_compile::Scenario> {
    let nets = [
        ("hw", "hardware", "destination", ""),
        ("sw", "software", "destination", "prism"),
        ("mover", "hardware", "destination", "prism"),
    ];
    let text = demo::scenario_text_for(&nets);
    let state = std::path::PathBuf::from(demo::STATE_DIR);
    std::fs::create_dir_all(&state)?;
    let file = state.join("soak.toml");
    std::fs::write(&file, &text)?;
    Ok(prism_compile::load(&file.display().to_string(), &text)?)
}

fn change_routes(node: &Node, i: u64) -> Result<()> {
    let mut c = node.control.lock().unwrap_or_else(|e| e.into_inner());
    let mut doc = c.doc("hw").cloned().context("network hw")?;
    doc.route.truncate(2);
    if i.is_multiple_of(2) {
        let mut extra = doc.route[0].clone();
        let p: Prefix =
            serde_json::from_value(serde_json::json!(format!("10.99.{}.0/24", (i / 2) % 256)))?;
        extra.prefix = Some(p);
        doc.route.push(extra);
    }
    c.apply("hw", Some(doc))
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(())
}

/// Runs the soak for `secs` on a started node of [`scenario`], each network
/// offered `pps` frames per second, `mover` moved every `move_every` s.
pub fn soak(node: &Node, secs: f64, pps: f64, move_every: f64) -> Result<SoakReport> {
    let warm = Duration::from_secs(3).min(Duration::from_secs_f64(secs / 5.0));
    let (run, seen) = with_traffic(&[pps; 3], |next| -> Result<SoakReport> {
        std::thread::sleep(warm);
        let (rss0, fds0) = (rss_kib(), fds());
        let mut rss_max = rss0;
        let start = Instant::now();
        let mut move_times = Vec::new();
        let (mut changes, mut moves) = (0u64, 0u64);
        while start.elapsed().as_secs_f64() < secs {
            // 100 route changes a second, on their own clock.
            let due = (start.elapsed().as_secs_f64() * 100.0) as u64;
            while changes < due {
                change_routes(node, changes)?;
                changes += 1;
            }
            if moves < (start.elapsed().as_secs_f64() / move_every) as u64 {
                moves += 1;
                move_times.push((start.elapsed() + warm).as_secs_f64());
                let to = if moves % 2 == 1 {
                    TierChoice::Software
                } else {
                    TierChoice::Hardware
                };
                set_tier(node, "mover", to)?;
            }
            if changes % 100 == 0 {
                rss_max = rss_max.max(rss_kib());
                // As `prism node` does: the control side's events go to the log.
                drop(node.take_events());
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let seconds = start.elapsed().as_secs_f64();
        // Back where it started, so that the last frames have a path.
        if moves % 2 == 1 {
            set_tier(node, "mover", TierChoice::Hardware)?;
        }
        std::thread::sleep(Duration::from_millis(300));
        let (rss1, fds1) = (rss_kib(), fds());
        Ok(SoakReport {
            seconds,
            route_changes: changes,
            moves,
            sent: [0, 1, 2].map(|k| next[k].load(Ordering::Relaxed)),
            lost: [0; 3],
            rss_kib: (rss0, rss1, rss_max.max(rss1)),
            fds: (fds0, fds1),
            loss_runs: Vec::new(),
            move_times,
        })
    })?;
    Ok(with_losses(run?, &seen, pps))
}

/// Report `r` with what each network lost, and the first runs of loss of
/// the software and moving networks (when, in seconds at `pps`).
fn with_losses(mut r: SoakReport, seen: &[Vec<bool>], pps: f64) -> SoakReport {
    r.lost = [0, 1, 2].map(|k| lost(&seen[k], 0, r.sent[k]).0);
    for (k, name) in [(1, "sw"), (2, "mover")] {
        r.loss_runs.extend(
            loss_runs(&seen[k], r.sent[k])
                .take(20)
                .map(|(from, n)| (name, from as f64 / pps, n)),
        );
    }
    r
}

/// Runs of consecutive numbers missing below `sent`: (first, how many).
fn loss_runs(seen: &[bool], sent: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
    let mut s = 0u64;
    std::iter::from_fn(move || {
        while s < sent && seen[s as usize] {
            s += 1;
        }
        if s >= sent {
            return None;
        }
        let from = s;
        while s < sent && !seen[s as usize] {
            s += 1;
        }
        Some((from, s - from))
    })
}

/// `prism bench-live --soak SECONDS`.
pub fn run(secs: f64, io: prism_node::IoSettings) -> Result<()> {
    println!(
        "prism bench-live --soak {secs}: hw, sw (prism router) and mover at 10,000 numbered 64 B frames/s each; hw's routes changed 100 times a second; mover moved between the tiers every 10 s; loss counted at the receiving hosts; hardware tier modelled in software"
    );
    demo::remove_hosts();
    let r = (|| -> Result<SoakReport> {
        demo::make_hosts(3)?;
        let node = demo::start_node(scenario()?, io)?;
        std::thread::sleep(Duration::from_millis(500));
        soak(&node, secs, 10_000.0, 10.0)
    })();
    demo::remove_hosts();
    let r = r?;
    println!(
        "  {:.0} s: {} route changes, {} moves",
        r.seconds, r.route_changes, r.moves
    );
    for (k, name) in ["hw", "sw", "mover"].iter().enumerate() {
        println!("  {name:<6} sent {:>9}  lost {:>6}", r.sent[k], r.lost[k]);
    }
    println!(
        "  memory (RSS, this process: node, workers, generators): {} KiB after warm-up, {} KiB at the end, {} KiB at most",
        r.rss_kib.0, r.rss_kib.1, r.rss_kib.2
    );
    println!(
        "  open file descriptors: {} after warm-up, {} at the end",
        r.fds.0, r.fds.1
    );
    for (name, at, n) in &r.loss_runs {
        println!("  lost on {name}: {n} frames from {at:.2} s");
    }
    if !r.loss_runs.is_empty() {
        let t: Vec<String> = r.move_times.iter().map(|t| format!("{t:.2}")).collect();
        println!("  moves at (s): {}", t.join(" "));
    }
    match r.check() {
        Ok(()) => {
            println!("  PASS");
            Ok(())
        }
        Err(e) => anyhow::bail!("soak failed: {e}"),
    }
}
