//! `prism bench` at scale: many networks and several workers.
//!
//! - Networks selected by destination (a /24 each, [`fixtures::prefix_networks`]),
//!   16 routes each, traffic spread round-robin over all of them: cycles per
//!   packet for 1, 1024 and 10,000 networks, and the memory they hold (heap
//!   in use by the substrate and a pipeline once every network has
//!   forwarded; beyond one network's, per network).
//! - Workers: each its own pipeline over the one published configuration,
//!   pinned to its own core, run for the same window; the rate of two over
//!   the rate of one.

use super::{BenchArgs, Figure, bench_pipeline, forward_pass, pipeline_loop, tsc_hz, wanted};
use prism_pipeline::fixtures;
use prism_pipeline::{Pipeline, PipelineConfig, Substrate};
use std::sync::Barrier;
use std::time::{Duration, Instant};

/// Bytes of heap allocated and not yet freed (glibc's `mallinfo2`: small
/// blocks plus mmapped ones). Unlike the resident set, it does not depend on
/// whether freed memory is reused or pages were touched: it counts every
/// byte reserved, such as a queue's storage for `queue_limit` packets.
pub fn heap_in_use() -> u64 {
    // SAFETY: mallinfo2 takes no arguments and returns a plain struct.
    let m = unsafe { libc::mallinfo2() };
    (m.uordblks + m.hblkhd) as u64
}

#[derive(Debug)]
/// Networks, their traffic (four frames per network, at least 4,096), and
/// the heap the substrate and a pipeline hold once every network has
/// forwarded (the traffic itself not counted).
pub struct ManyNetworks {
    pub substrate: Substrate,
    pub frames: Vec<Vec<u8>>,
    pub heap_bytes: u64,
}

/// Builds `n` networks of 16 routes, forwards the traffic once through a
/// pipeline of the default size, and checks that every frame left.
pub fn many_networks(n: u16, frame_len: usize) -> anyhow::Result<ManyNetworks> {
    let frames = fixtures::prefix_traffic(n, (usize::from(n) * 4).max(4096), frame_len);
    let before = heap_in_use();
    let substrate = fixtures::prefix_networks(n, 16);
    let mut p = Pipeline::new(substrate.handle(), PipelineConfig::default());
    let (mut batch, mut out) = (Vec::with_capacity(32), Vec::with_capacity(64));
    let sent = forward_pass(&mut p, &frames, &mut batch, &mut out);
    anyhow::ensure!(
        sent == frames.len(),
        "{n} networks: {sent} of {} frames forwarded",
        frames.len()
    );
    let heap_bytes = heap_in_use().saturating_sub(before);
    drop(p);
    Ok(ManyNetworks {
        substrate,
        frames,
        heap_bytes,
    })
}

/// Mpps of `workers` pipelines over the same configuration, worker w on
/// core w, for `secs` after a warm-up; each worker has its own copy of
/// `frames` and its own buffers, as the node's workers have.
pub fn workers_mpps(s: &Substrate, frames: &[Vec<u8>], workers: usize, secs: f64) -> f64 {
    let barrier = Barrier::new(workers);
    let steps: Vec<_> = (0..workers).map(|_| pipeline_loop(s, frames, 1)).collect();
    let per_step = frames.len() as u64;
    let total: u64 = std::thread::scope(|sc| {
        let handles: Vec<_> = steps
            .into_iter()
            .enumerate()
            .map(|(w, mut step)| {
                let barrier = &barrier;
                sc.spawn(move || {
                    prism_node::pin_to_core(w);
                    let warm = Instant::now();
                    while warm.elapsed() < Duration::from_millis(200) {
                        step();
                    }
                    barrier.wait();
                    let t = Instant::now();
                    let mut n = 0u64;
                    while t.elapsed().as_secs_f64() < secs {
                        step();
                        n += per_step;
                    }
                    (n, t.elapsed().as_secs_f64())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                let (n, t) = h.join().expect("a worker does not panic");
                (n as f64 * secs / t) as u64
            })
            .sum()
    });
    total as f64 / secs / 1e6
}

/// A figure for a rate measured over wall-clock windows.
pub fn rate_figure(name: &str, mpps: f64, tsc_hz: f64, note: String) -> Figure {
    Figure {
        name: name.into(),
        items: 0,
        mpps,
        ns_per_item: 1e3 / mpps,
        tsc_cycles_per_item: tsc_hz / (mpps * 1e6),
        note,
    }
}

/// Many networks selected by destination, and several workers
/// (`prism bench --only scale/` or `--only workers/`).
pub fn run(args: &BenchArgs, reps: usize, push: &mut impl FnMut(Figure)) -> anyhow::Result<()> {
    // One network first: what it holds is the pipeline's fixed part (its
    // 16,384 packet buffers, mostly), the rest is per network.
    let mut one: Option<(f64, u64)> = None;
    for n in [1u16, 1024, 10_000] {
        let name = format!("scale/{n}-networks/64B");
        if !wanted(args, &name) {
            continue;
        }
        let m = many_networks(n, 64)?;
        let mut f = bench_pipeline(&name, &m.substrate, &m.frames, args.quick, reps, "");
        let mib = m.heap_bytes as f64 / 1048576.0;
        f.note = match one {
            None => format!(
                "selected by destination /24, 16 routes each; {mib:.0} MiB of heap (mostly the pipeline's 16,384 buffers)"
            ),
            Some((c, fixed)) => format!(
                "selected by destination /24, 16 routes each; {mib:.0} MiB of heap, {:.1} KiB per network beyond one; {:.2}x the cycles of one network",
                m.heap_bytes.saturating_sub(fixed) as f64 / f64::from(n - 1) / 1024.0,
                f.tsc_cycles_per_item / c
            ),
        };
        if n == 1 {
            one = Some((f.tsc_cycles_per_item, m.heap_bytes));
        }
        push(f);
    }
    worker_rows(args, push);
    Ok(())
}

/// The rows of one and two workers, each pinned to a core, on one network
/// and on 1,024: the median of three windows each.
fn worker_rows(args: &BenchArgs, push: &mut impl FnMut(Figure)) {
    let hz = tsc_hz();
    let secs = if args.quick { 0.3 } else { 1.0 };
    let mut single = None;
    for (label, n) in [("1-network", 1u16), ("1024-networks", 1024)] {
        for w in [1usize, 2] {
            let name = format!("workers/{w}/{label}/64B");
            if !wanted(args, &name)
                || w > std::thread::available_parallelism().map_or(1, usize::from)
            {
                continue;
            }
            let s = fixtures::prefix_networks(n, 16);
            let frames = fixtures::prefix_traffic(n, 4096, 64);
            // The median of three windows.
            let mut runs: Vec<f64> = (0..3).map(|_| workers_mpps(&s, &frames, w, secs)).collect();
            runs.sort_by(f64::total_cmp);
            let mpps = runs[1];
            let note = match (w, single) {
                (1, _) => "one pipeline on core 0; cycles are per packet of the one core".into(),
                (_, Some(one)) => format!(
                    "{w} pipelines on cores 0..{w}, one configuration: {:.2}x one worker; cycles are per packet of all cores together",
                    mpps / one
                ),
                _ => String::new(),
            };
            if w == 1 {
                single = Some(mpps);
            }
            push(rate_figure(&name, mpps, hz * w as f64, note));
        }
        single = None;
    }
}
