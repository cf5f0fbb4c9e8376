//! `prism bench-live --migrate`: frames lost while a network moves between
//! the tiers under traffic, counted at the receiving host.
//!
//! Method: host `a` of network `m` sends 64-byte UDP frames at a fixed rate,
//! each carrying a sequence number; host `b` records which numbers arrive.
//! After a quiet second the network is moved hardware → software →
//! hardware → software → hardware through the node's reconciler (the code
//! behind `PUT /v1/networks/NAME/tier`), one move per `interval`. Each move
//! owns the sequence numbers sent from its call to the next move's call; the
//! numbers missing there are its loss (in frames, and in milliseconds of
//! traffic at the offered rate). The second before the first move is the
//! control: loss there is the machine's, not the migration's. A second
//! network, `steady`, stays in hardware and carries the same rate throughout:
//! the neighbour that must lose nothing.

use crate::demo::hosts::{self as demo, HOST_PREFIX, host_mac};
use anyhow::{Context, Result};
use prism_compile::Scenario;
use prism_io::afpacket::{PacketPort, RingConfig};
use prism_io::netns;
use prism_netdoc::TierChoice;
use prism_node::{Node, gateway_mac};
use prism_pipeline::traffic::{FrameSpec, build};
use prism_wire::{EthernetAddress, Ipv4Address};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

const MARK: &[u8; 5] = b"PRSMM";
/// After a move's call answers, how long its switch is given to settle.
const SETTLE: Duration = Duration::from_millis(100);
/// Where the mark and the sequence number sit in the frame (after the
/// Ethernet, IPv4 and UDP headers).
const AT: usize = 42;

/// One move's account.
#[derive(Debug, Clone)]
pub struct Flip {
    pub to: &'static str,
    /// Frames of the moving network lost from the call until 100 ms after
    /// it answered: the switch.
    pub lost: u64,
    /// Frames of the moving network lost in the rest of the window: the
    /// new tier's steady state, not the move.
    pub lost_after: u64,
    /// From the call to the first lost frame, ms (None: nothing lost).
    pub first_loss_ms: Option<f64>,
    /// How long the reconciler's call took, ms.
    pub call_ms: f64,
    /// Frames of the neighbour lost in the same window.
    pub steady_lost: u64,
}

/// One run at one rate with one router kind.
#[derive(Debug, Clone)]
pub struct MigrationRun {
    pub router: String,
    pub pps: f64,
    /// Lost before the first move (the machine's own loss).
    pub control_lost: u64,
    pub flips: Vec<Flip>,
    pub sent: u64,
}

/// Host `a` of network `k`'s sending socket and its numbered frame.
fn numbered_sender(k: usize) -> Result<(PacketPort, Vec<u8>)> {
    let spec = FrameSpec {
        src_mac: EthernetAddress(host_mac(k, 0)),
        dst_mac: EthernetAddress(gateway_mac(k as u16, (2 * k) as u16)),
        src: Ipv4Address([10, 0, 1, 2]),
        dst: Ipv4Address([10, 0, 2, 2]),
        src_port: 4000,
        dst_port: 5001,
        frame_len: 60,
        ..FrameSpec::default()
    };
    let mut frame = build(&spec, b"PRSMM0000");
    // No UDP checksum (allowed in IPv4): the number changes per frame.
    frame[40..42].copy_from_slice(&[0, 0]);
    let tx = netns::in_namespace(&format!("{HOST_PREFIX}{k}a"), || {
        PacketPort::open_tx("eth0")
    })?;
    Ok((tx, frame))
}

/// Numbers `frames` from `seq` on and sends them in one batch; returns how
/// many the host's interface accepted.
fn send_numbered(tx: &mut PacketPort, frames: &mut [Vec<u8>], seq: u64) -> usize {
    for (i, f) in frames.iter_mut().enumerate() {
        f[AT + 5..AT + 9].copy_from_slice(&((seq + i as u64) as u32).to_be_bytes());
    }
    tx.send_batch(frames.iter().map(Vec::as_slice))
}

/// How many times a sender found its interface refusing frames (and sent
/// them again), since the process started.
pub static RESENT: AtomicU64 = AtomicU64::new(0);

/// Sends numbered frames at `pps` from host `a` of network `k` until `stop`;
/// `next` is the number of the next frame. A sender held up (descheduled,
/// or its machine paused) catches up at once, as a burst.
fn sender(k: usize, pps: f64, next: &AtomicU64, stop: &AtomicBool) -> Result<()> {
    let (mut tx, frame) = numbered_sender(k)?;
    const BURST: u64 = 8;
    let mut frames = vec![frame; BURST as usize];
    let start = Instant::now();
    let mut seq = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let due = (start.elapsed().as_secs_f64() * pps) as u64;
        if seq + BURST > due {
            std::thread::sleep(Duration::from_micros(50));
            continue;
        }
        // A burst the host's own interface refused in part (its send buffer
        // full after a catch-up) is sent again whole: those frames never
        // reached the node, so are no loss of its (the receiver counts
        // numbers, so a repeat is harmless). Refusals need not be a prefix.
        let mut whole = send_numbered(&mut tx, &mut frames, seq) == BURST as usize;
        while !whole && !stop.load(Ordering::Relaxed) {
            RESENT.fetch_add(1, Ordering::Relaxed);
            std::thread::sleep(Duration::from_micros(50));
            whole = send_numbered(&mut tx, &mut frames, seq) == BURST as usize;
        }
        if !whole {
            break;
        }
        seq += BURST;
        next.store(seq, Ordering::Relaxed);
    }
    Ok(())
}

/// Sends `n` numbered frames from host `a` of network `k` back to back (in
/// batches of 32, unpaced). Returns how many the sending host's interface
/// refused, and how many host `b` did not receive (refused ones included).
pub fn burst(k: usize, n: u64) -> Result<(u64, u64)> {
    let stop = AtomicBool::new(false);
    let seen = std::thread::scope(|sc| {
        let (ready, opened) = std::sync::mpsc::channel();
        let rx = sc.spawn(|| receiver(k, &stop, ready));
        let accepted = (|| -> Result<u64> {
            wait_open(&opened, 1)?;
            let (mut tx, frame) = numbered_sender(k)?;
            let mut frames = vec![frame; 32];
            let mut accepted = 0;
            for seq in (0..n).step_by(32) {
                let m = (n - seq).min(32) as usize;
                accepted += send_numbered(&mut tx, &mut frames[..m], seq) as u64;
            }
            Ok(accepted)
        })();
        stop.store(true, Ordering::Relaxed);
        let seen = rx
            .join()
            .map_err(|_| anyhow::anyhow!("receiver panicked"))?;
        Ok::<_, anyhow::Error>((accepted?, seen?))
    })?;
    Ok((n - seen.0, lost(&seen.1, 0, n).0))
}

/// Waits until `n` receivers said their sockets are open. A sender that
/// started on a timer instead lost its first frames to a receiver still
/// mapping its 32 MiB ring on a busy machine (32 and 144 frames in one CI
/// soak), counted as the node's loss.
fn wait_open(opened: &std::sync::mpsc::Receiver<()>, n: usize) -> Result<()> {
    for _ in 0..n {
        opened
            .recv_timeout(Duration::from_secs(10))
            .map_err(|_| anyhow::anyhow!("a receiving host's socket did not open"))?;
    }
    Ok(())
}

/// Records the numbers arriving at host `b` of network `k` until `stop`
/// (and 300 ms more, for frames in flight), saying on `ready` when its
/// socket is open (dropping it unsaid if it could not open).
fn receiver(k: usize, stop: &AtomicBool, ready: std::sync::mpsc::Sender<()>) -> Result<Vec<bool>> {
    // TPACKET_V3 closes a block after `retire_ms` however few frames it
    // holds: the default ring (16 blocks of 1 ms) is 16 ms of frames at
    // these rates, and a receiver not scheduled for longer lost a burst's
    // tail in its own socket (166 of 1,500 in one CI run), counted as the
    // node's loss. 512 blocks of 8 ms hold seconds; a ring that still
    // overflows makes the run no measurement.
    let ring = RingConfig {
        block_size: 1 << 16,
        blocks: 512,
        retire_ms: 8,
    };
    let mut rx = netns::in_namespace(&format!("{HOST_PREFIX}{k}b"), move || {
        PacketPort::open("eth0", Some(ring))
    })?;
    let _ = ready.send(());
    let mut seen = vec![false; 1 << 24];
    // Touched now, page by page: zeroed memory comes as untouched pages
    // (the compiler turns a zero fill into a zeroed allocation), and a long
    // soak's resident memory would seem to grow as numbers arrive.
    for i in (0..seen.len()).step_by(4096) {
        // SAFETY: `i` < len; volatile so that it is not elided.
        unsafe { std::ptr::write_volatile(&mut seen[i], false) };
    }
    let mut until = None;
    loop {
        if stop.load(Ordering::Relaxed) {
            let u = *until.get_or_insert_with(|| Instant::now() + Duration::from_millis(300));
            if Instant::now() > u {
                break;
            }
        }
        let n = rx.recv_block(|f| {
            let d = f.data;
            if d.len() >= AT + 9 && &d[AT..AT + 5] == MARK {
                let s = u32::from_be_bytes([d[AT + 5], d[AT + 6], d[AT + 7], d[AT + 8]]);
                if let Some(x) = seen.get_mut(s as usize) {
                    *x = true;
                }
            }
        });
        if n == 0 {
            let _ = PacketPort::wait_any(&[&rx], 5);
        }
    }
    let own = rx.poll_drops();
    if own > 0 {
        anyhow::bail!(
            "host {k}b's own socket dropped {own} frames (its ring was full): not a measurement"
        );
    }
    Ok(seen)
}

/// The runs of numbers below `to` that did not arrive, as `first..end`.
pub fn lost_ranges(seen: &[bool], to: u64) -> Vec<std::ops::Range<u64>> {
    let mut runs: Vec<std::ops::Range<u64>> = Vec::new();
    for s in 0..to.min(seen.len() as u64) {
        if seen[s as usize] {
            continue;
        }
        match runs.last_mut() {
            Some(r) if r.end == s => r.end = s + 1,
            _ => runs.push(s..s + 1),
        }
    }
    runs
}

pub fn lost(seen: &[bool], from: u64, to: u64) -> (u64, Option<u64>) {
    let mut n = 0;
    let mut first = None;
    for s in from..to.min(seen.len() as u64) {
        if !seen[s as usize] {
            n += 1;
            first.get_or_insert(s);
        }
    }
    (n, first)
}

/// Moves network `name` of `node` to `tier` through the reconciler.
pub(crate) fn set_tier(node: &Node, name: &str, tier: TierChoice) -> Result<()> {
    let mut c = node.control.lock().unwrap_or_else(|e| e.into_inner());
    let mut doc = c
        .doc(name)
        .cloned()
        .with_context(|| format!("network {name}"))?;
    doc.tier = tier;
    c.apply(name, Some(doc))
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(())
}

/// Numbered traffic from host `a` to host `b` of networks `0..rates.len()`,
/// network `k` at `rates[k]` frames/s, while `during` runs (given each
/// sender's next number); then the numbers each `b` received.
pub fn with_traffic<T>(
    rates: &[f64],
    during: impl FnOnce(&[AtomicU64]) -> T,
) -> Result<(T, Vec<Vec<bool>>)> {
    let stop = AtomicBool::new(false);
    let next: Vec<AtomicU64> = rates.iter().map(|_| AtomicU64::new(0)).collect();
    std::thread::scope(|sc| {
        let (ready, opened) = std::sync::mpsc::channel();
        let rx: Vec<_> = (0..rates.len())
            .map(|k| {
                let (stop, ready) = (&stop, ready.clone());
                sc.spawn(move || receiver(k, stop, ready))
            })
            .collect();
        if let Err(e) = wait_open(&opened, rates.len()) {
            stop.store(true, Ordering::Relaxed);
            return Err(e);
        }
        let tx: Vec<_> = rates
            .iter()
            .enumerate()
            .map(|(k, &rate)| {
                let (stop, next) = (&stop, &next[k]);
                sc.spawn(move || sender(k, rate, next, stop))
            })
            .collect();
        let out = during(&next);
        stop.store(true, Ordering::Relaxed);
        for h in tx {
            h.join().map_err(|_| anyhow::anyhow!("sender panicked"))??;
        }
        let seen = rx
            .into_iter()
            .map(|h| h.join().map_err(|_| anyhow::anyhow!("receiver panicked"))?)
            .collect::<Result<_>>()?;
        Ok((out, seen))
    })
}

/// Runs the moves on a started node whose network 0 (`m`) moves and
/// network 1 (`steady`) stays.
pub fn measure(
    node: &Node,
    router: &str,
    pps: f64,
    flips: usize,
    interval: Duration,
) -> Result<MigrationRun> {
    let rates = [pps, pps / 10.0];
    let ((marks, settled, calls, outcome), seen) = with_traffic(&rates, |next| {
        let now = || {
            [
                next[0].load(Ordering::Relaxed),
                next[1].load(Ordering::Relaxed),
            ]
        };
        std::thread::sleep(Duration::from_secs(1));
        let (mut marks, mut settled, mut calls) = (Vec::new(), Vec::new(), Vec::new());
        let mut outcome = Ok(());
        for i in 0..flips {
            let tier = if i % 2 == 0 {
                TierChoice::Software
            } else {
                TierChoice::Hardware
            };
            marks.push(now());
            let t = Instant::now();
            let r = set_tier(node, "m", tier);
            calls.push(t.elapsed().as_secs_f64() * 1e3);
            if let Err(e) = r {
                outcome = Err(anyhow::anyhow!("move {i}: {e}"));
                break;
            }
            std::thread::sleep(SETTLE);
            settled.push(next[0].load(Ordering::Relaxed));
            std::thread::sleep(interval.saturating_sub(SETTLE));
        }
        marks.push(now());
        (marks, settled, calls, outcome)
    })?;
    outcome?;
    Ok(tally(router, pps, &marks, &settled, &calls, &seen))
}

/// What the run lost: before the first move, in each move until it
/// settled and after, and in the steady network throughout, from the
/// counts when each move was asked for (`marks`) and settled.
fn tally(
    router: &str,
    pps: f64,
    marks: &[[u64; 2]],
    settled: &[u64],
    calls: &[f64],
    seen: &[Vec<bool>],
) -> MigrationRun {
    let control_lost = lost(&seen[0], 0, marks[0][0]).0 + lost(&seen[1], 0, marks[0][1]).0;
    let flips = (0..calls.len())
        .map(|i| {
            let (n, first) = lost(&seen[0], marks[i][0], settled[i]);
            Flip {
                to: if i % 2 == 0 { "software" } else { "hardware" },
                lost: n,
                lost_after: lost(&seen[0], settled[i], marks[i + 1][0]).0,
                first_loss_ms: first.map(|f| (f - marks[i][0]) as f64 / pps * 1e3),
                call_ms: calls[i],
                steady_lost: lost(&seen[1], marks[i][1], marks[i + 1][1]).0,
            }
        })
        .collect();
    MigrationRun {
        router: router.to_string(),
        pps,
        control_lost,
        flips,
        sent: marks.last().map_or(0, |m| m[0]),
    }
}

/// The scenario: `m` (hardware, with a router of `kind` for when it moves)
/// and `steady` (hardware throughout).
pub fn scenario(kind: &str) -> Result<Scenario> {
    let nets = [
        ("m", "hardware", "destination", kind),
        ("steady", "hardware", "destination", ""),
    ];
    let text = demo::scenario_text_for(&nets);
    let state = std::path::PathBuf::from(demo::STATE_DIR);
    std::fs::create_dir_all(&state)?;
    let file = state.join("bench-migrate.toml");
    std::fs::write(&file, &text)?;
    Ok(prism_compile::load(&file.display().to_string(), &text)?)
}

/// Where the node saw frames go: ring drops per socket and the pipeline's
/// drops by reason (sockets of removed containers are gone from reports).
pub fn where_lost(node: &Node) -> String {
    let mut parts: Vec<String> = node
        .port_stats()
        .iter()
        .filter(|p| p.stats.rx_ring_drops > 0 || p.stats.tx_errors > 0)
        .map(|p| {
            format!(
                "{} ring drops {}, tx errors {}",
                p.name, p.stats.rx_ring_drops, p.stats.tx_errors
            )
        })
        .collect();
    if let Some(c) = node.counters() {
        for n in &c.networks {
            for (why, k) in &n.drops {
                parts.push(format!("{} {why} {k}", n.name));
            }
        }
    }
    if parts.is_empty() {
        "  node: no drops seen".into()
    } else {
        format!("  node: {}", parts.join(", "))
    }
}

/// `prism bench-live --migrate`: the loss table, rate × router × direction.
pub fn run(rates: &[f64], routers: &[String], io: prism_node::IoSettings) -> Result<()> {
    println!(
        "prism bench-live --migrate: network `m` moved hardware <-> software 4 times, 1 s apart, under numbered 64 B UDP at each rate; loss counted at the receiving host; `steady` (hardware, a tenth of the rate) is the neighbour; 1 worker; hardware tier modelled in software"
    );
    println!(
        "{:<7} {:>7} {:<9} {:>6} {:>9} {:>11} {:>8} {:>7} {:>7} {:>8}",
        "router",
        "pps",
        "to",
        "lost",
        "lost ms",
        "first at ms",
        "call ms",
        "after",
        "steady",
        "control"
    );
    println!(
        "  lost: frames of `m` lost from the call to 100 ms after it answered (the switch); after: lost in the rest of the second (the new tier's steady state); steady: the neighbour's loss in the whole second; control: loss before the first move"
    );
    for router in routers {
        for &pps in rates {
            demo::remove_hosts();
            let r = (|| -> Result<MigrationRun> {
                demo::make_hosts(2)?;
                let node = demo::start_node(scenario(router)?, io)?;
                std::thread::sleep(Duration::from_millis(500));
                let r = measure(&node, router, pps, 4, Duration::from_secs(1));
                // Reports are published every 200 ms.
                std::thread::sleep(Duration::from_millis(300));
                println!("{}", where_lost(&node));
                r
            })();
            demo::remove_hosts();
            let r = r?;
            for f in &r.flips {
                println!(
                    "{:<7} {:>7.0} {:<9} {:>6} {:>9.1} {:>11} {:>8.0} {:>7} {:>7} {:>8}",
                    r.router,
                    r.pps,
                    f.to,
                    f.lost,
                    f.lost as f64 / r.pps * 1e3,
                    f.first_loss_ms.map_or("-".into(), |m| format!("{m:.1}")),
                    f.call_ms,
                    f.lost_after,
                    f.steady_lost,
                    r.control_lost
                );
            }
        }
    }
    Ok(())
}
