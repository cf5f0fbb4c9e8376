//! `prism bench`: throughput and per-packet cost of the hardware tier and its
//! tables, measured in this process on this machine.
//!
//! Each figure is the best of several timed runs after a warm-up. Cycles are
//! read with RDTSC (the invariant time-stamp counter, as DPDK's perf tests
//! do), so they are reference cycles at the TSC rate; the core may run at
//! another clock. Nothing here is a model: it is the real code on real data.
//!
//! Beside it: `live` (`prism bench-live`, forwarding over veth), `migrate`
//! (`--migrate`), `reconfig` (`--reconfig`), `soak` (`--soak`),
//! `controller` (`prism bench-controller`) and `tables` (`prism tables`).

pub mod bridge;
mod change;
mod churn;
pub mod classify;
pub mod controller;
pub mod l3fwd;
pub mod live;
mod lpm;
pub mod migrate;
pub mod nat;
mod payload;
pub mod reconfig;
pub mod rules;
pub mod scale;
pub mod soak;
pub mod tables;
pub mod wan;

use anyhow::Result;
use prism_pipeline::fixtures;
use prism_pipeline::{Packet, Pipeline, PipelineConfig, Substrate};
use prism_tables::Key;
use serde::Serialize;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Where the shared data lives (ClassBench, BGP table).
    #[arg(long, default_value = "../shared/data")]
    pub data: PathBuf,
    /// Only benchmarks whose name contains this.
    #[arg(long)]
    pub only: Option<String>,
    /// Fewer repetitions (for a quick look, not for the record).
    #[arg(long)]
    pub quick: bool,
    /// Print results as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Serialize)]
pub struct Figure {
    pub name: String,
    pub items: u64,
    pub mpps: f64,
    pub ns_per_item: f64,
    pub tsc_cycles_per_item: f64,
    pub note: String,
}

#[inline]
pub fn tsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: RDTSC has no preconditions on x86_64; it only reads the counter.
        #[allow(unused_unsafe)]
        unsafe {
            core::arch::x86_64::_rdtsc()
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        0
    }
}

/// TSC ticks per second, against the wall clock (over 200 ms).
pub fn tsc_hz() -> f64 {
    let (t, c) = (Instant::now(), tsc());
    std::thread::sleep(std::time::Duration::from_millis(200));
    tsc().wrapping_sub(c) as f64 / t.elapsed().as_secs_f64()
}

/// Runs `f` (which processes `items` items) `reps` times; keeps the best run.
pub(crate) fn measure(
    name: &str,
    items: u64,
    reps: usize,
    note: &str,
    mut f: impl FnMut(),
) -> Figure {
    f(); // warm-up
    let mut best_ns = f64::MAX;
    let mut best_cyc = f64::MAX;
    for _ in 0..reps {
        let t = Instant::now();
        let c = tsc();
        f();
        let cyc = tsc().wrapping_sub(c) as f64;
        let ns = t.elapsed().as_nanos() as f64;
        if ns < best_ns {
            best_ns = ns;
            best_cyc = cyc;
        }
    }
    let per = best_ns / items as f64;
    Figure {
        name: name.into(),
        items,
        mpps: 1e3 / per,
        ns_per_item: per,
        tsc_cycles_per_item: best_cyc / items as f64,
        note: note.into(),
    }
}

/// Frames through the whole pipeline: copy-in, parse, map, route, actions,
/// output queue, DRR transmit, buffer recycle. Queues hold the node's
/// default `queue_limit` (1,024; a batch of 32 never fills one): their
/// reserved storage is one region per network and port, so a larger limit
/// spreads the queues over more pages (with 4,096, 1,024 networks cost
/// about 8% more per packet).
pub fn pipeline_loop(s: &Substrate, frames: &[Vec<u8>], rounds: usize) -> impl FnMut() {
    let mut p = Pipeline::new(s.handle(), bench_config());
    let mut batch: Vec<Packet> = Vec::with_capacity(32);
    let mut out: Vec<Packet> = Vec::with_capacity(64);
    let frames = frames.to_vec();
    move || {
        for _ in 0..rounds {
            forward_pass(&mut p, &frames, &mut batch, &mut out);
        }
        assert_eq!(
            p.pool.available(),
            p.pool.capacity(),
            "every packet forwarded or dropped"
        );
    }
}

/// The benchmarks' pipeline: the node's queues, a pool for a few batches.
pub(crate) fn bench_config() -> PipelineConfig {
    PipelineConfig {
        pool_packets: 4096,
        queue_limit: 1024,
        channel_capacity: 1024,
        ..Default::default()
    }
}

/// Every frame once through `p` in batches of 32 (copied in on port 0,
/// transmitted from port 1, buffers recycled); returns how many left.
pub fn forward_pass(
    p: &mut Pipeline,
    frames: &[Vec<u8>],
    batch: &mut Vec<Packet>,
    out: &mut Vec<Packet>,
) -> usize {
    let mut sent = 0;
    for chunk in frames.chunks(32) {
        for f in chunk {
            batch.push(p.pool.packet(f, 0, 0).expect("pool sized for a batch"));
        }
        p.process(batch, 0);
        p.transmit(1, usize::MAX, out);
        sent += out.len();
        p.pool.recycle_all(out);
    }
    sent
}

/// Passes over the frames per timed run.
pub(crate) fn rounds(quick: bool) -> usize {
    if quick { 2 } else { 5 }
}

/// Times [`pipeline_loop`] over `frames`, repeated a few rounds per run.
pub(crate) fn bench_pipeline(
    name: &str,
    s: &Substrate,
    frames: &[Vec<u8>],
    quick: bool,
    reps: usize,
    note: &str,
) -> Figure {
    let rounds = rounds(quick);
    measure(
        name,
        (frames.len() * rounds) as u64,
        reps,
        note,
        pipeline_loop(s, frames, rounds),
    )
}

/// The control side: a scenario of n software networks loaded (parsed,
/// compiled, placed, published); per network, so linear means flat.
fn control_load(args: &BenchArgs, push: &mut impl FnMut(Figure)) {
    for &n in &[1_000usize, 10_000] {
        let name = format!("control/load-{n}-networks");
        if !wanted(args, &name) {
            continue;
        }
        let text = many_networks(n);
        push(measure(
            &name,
            n as u64,
            if args.quick || n > 1_000 { 1 } else { 3 },
            "scenario parse + compile + place + one publication, per network",
            move || {
                black_box(prism_compile::load("bench.toml", &text).expect("loads"));
            },
        ));
    }
}

fn copy_loop(frames: &[Vec<u8>], rounds: usize) -> impl FnMut() {
    let mut pool = prism_pipeline::PacketPool::new(64);
    let frames = frames.to_vec();
    move || {
        for _ in 0..rounds {
            for f in &frames {
                let p = pool.packet(f, 0, 0).expect("pool");
                black_box(&p);
                pool.recycle(p);
            }
        }
    }
}

/// A scenario of `n` software networks, each mapped by a VLAN on port a
/// and routing one /24 to port b.
fn many_networks(n: usize) -> String {
    use std::fmt::Write as _;
    let mut s = String::from("[[port]]\nname = \"a\"\n[[port]]\nname = \"b\"\n");
    for i in 0..n {
        let _ = write!(
            s,
            "[[network]]\nname = \"n{i}\"\ntier = \"software\"\nforwarding = \"destination\"\nmap = [{{ vlan = {}, in_port = \"a\" }}]\nroute = [{{ prefix = \"10.{}.{}.0/24\", action = {{ port = \"b\" }} }}]\n",
            i % 4096,
            i / 256 % 256,
            i % 256
        );
    }
    s
}

pub(crate) fn wanted(args: &BenchArgs, name: &str) -> bool {
    args.only.as_deref().is_none_or(|o| name.contains(o))
}

fn data(args: &BenchArgs, rel: &str) -> Result<PathBuf> {
    let p = args.data.join(rel);
    anyhow::ensure!(
        p.exists(),
        "{} is missing: benchmarks on standard data need the shared data (set --data)",
        p.display()
    );
    Ok(p)
}

pub fn run(args: &BenchArgs) -> Result<()> {
    let reps = if args.quick { 3 } else { 40 };
    let mut figs: Vec<Figure> = Vec::new();
    let mut push = |f: Figure| {
        if !args.json {
            println!(
                "{:<44} {:>8.2} Mpps {:>8.1} ns {:>8.1} cycles  {}",
                f.name, f.mpps, f.ns_per_item, f.tsc_cycles_per_item, f.note
            );
        }
        figs.push(f);
    };
    if !args.json {
        println!(
            "{:<44} {:>13} {:>11} {:>15}",
            "benchmark (per packet or lookup)", "rate", "time", "TSC cycles"
        );
    }
    pipeline_rows(args, reps, &mut push);
    l3fwd::run(args, reps, &mut push)?;
    rules::run(args, reps, &mut push)?;
    scale::run(args, reps, &mut push)?;
    wan::run(args, reps, &mut push)?;
    nat::run(args, reps, &mut push)?;
    bridge::run(args, reps, &mut push)?;
    control_load(args, &mut push);
    change::run(args, &mut push);
    change::rule_change(args, &mut push)?;
    churn::run(args, &mut push)?;
    lpm::run(args, reps, &mut push)?;
    payload::run(args, reps, &mut push);
    classify::run(args, reps, &mut push)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&figs)?);
    } else {
        println!("\nmachine: {}", machine());
    }
    Ok(())
}

/// The whole pipeline with 1, 16 and 1024 networks, 64 and 1500 bytes,
/// and the frame copy it includes.
fn pipeline_rows(args: &BenchArgs, reps: usize, push: &mut impl FnMut(Figure)) {
    for &nets in &[1u16, 16, 1024] {
        for &size in &[64usize, 1500] {
            let name = format!("pipeline/{nets}-networks/{size}B");
            if !wanted(args, &name) {
                continue;
            }
            let s = fixtures::vlan_networks(nets, 16);
            let frames = fixtures::vlan_traffic(nets, 4096, size);
            push(bench_pipeline(
                &name,
                &s,
                &frames,
                args.quick,
                reps,
                "copy-in+parse+map+LPM+TTL/MAC/VLAN+DRR out",
            ));
            if nets == 1 {
                let cname = format!("copy-in-only/{size}B");
                push(measure(
                    &cname,
                    (frames.len() * rounds(args.quick)) as u64,
                    reps,
                    "frame copy into a pool buffer (part of the line above)",
                    copy_loop(&frames, rounds(args.quick)),
                ));
            }
        }
    }
}

/// One header inside each rule, for rule sets without a trace.
pub fn in_rule_headers(rules: &[prism_tables::Rule]) -> Vec<Key> {
    rules
        .iter()
        .map(|r| {
            let f = r.fields;
            let k = prism_wire::FlowKey {
                src_ip: (f.value[0] >> 32) as u32,
                dst_ip: f.value[0] as u32,
                src_port: r.src_port.lo,
                dst_port: r.dst_port.lo,
                proto: ((f.value[4] >> 48) & 0xff) as u8,
                ..Default::default()
            };
            Key::from_flow(&k)
        })
        .collect()
}

/// A one-line description of this machine.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{cpu}, {cores} cores, {}", std::env::consts::ARCH)
}
