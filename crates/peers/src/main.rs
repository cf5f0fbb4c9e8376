//! `prism-peers` (run by `bench/peers/run`): Prism against the systems a user would pick
//! instead, on the same machine, in the same run, as ratios.
//!
//! The peers come from Debian's packages (`bench/peers/run` installs them
//! and builds DPDK's l3fwd example): DPDK's l3fwd (LPM mode, on its pcap and
//! null virtual devices), rte_fib and rte_lpm (`dpdk-test-fib`), rte_acl
//! (`dpdk-test-acl`), Open vSwitch's userspace datapath, Linux
//! forwarding between namespaces, and OpenSSL's AEAD ciphers. Each workload runs peer and Prism in turn
//! (A B A B ...) for `--rounds` rounds and keeps the medians, so a drift of
//! a noisy machine falls on both alike. Nothing here copies a peer's code;
//! it starts the peers' own programs and reads what they report.
//!
//! Cycles: where `perf stat` has hardware counters, core cycles of the
//! measured process; otherwise (virtual machines without a PMU, like the one
//! the figures in docs/performance.md come from) cycles of the invariant
//! time-stamp counter, which for a single busy-polling core is the TSC rate
//! divided by the packet rate.

mod acl;
mod acl_forwarding;
mod aead;
mod forwarding;
mod hugepages;
mod lookups;
mod lookups6;
mod veth;

use anyhow::{Context, Result, bail};
use prism_lab::bench::tsc_hz;
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;

/// Prism against DPDK l3fwd, rte_fib/rte_lpm, rte_acl, Open vSwitch and
/// Linux forwarding on this machine, as ratios.
#[derive(clap::Parser, Debug)]
#[command(name = "prism-peers", version)]
pub struct PeersArgs {
    /// DPDK's l3fwd example, built from Debian's sources (bench/peers/run).
    #[arg(long)]
    pub l3fwd: Option<PathBuf>,
    /// l3fwd built with room for the full BGP table in its LPM.
    #[arg(long)]
    pub l3fwd_big: Option<PathBuf>,
    /// DPDK's l3fwd-graph example with l3fwd's 16 routes built in.
    #[arg(long)]
    pub l3fwd_graph: Option<PathBuf>,
    /// Shared data (ClassBench, BGP table).
    #[arg(long, default_value = "../shared/data")]
    pub data: PathBuf,
    /// Rounds of each workload (peer, Prism, peer, Prism, ...); medians kept.
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// Seconds per rate measurement.
    #[arg(long, default_value_t = 1.0)]
    pub seconds: f64,
    /// Frame sizes.
    #[arg(long, value_delimiter = ',', default_values_t = [64usize, 512, 1518])]
    pub sizes: Vec<usize>,
    /// The core the single-core workloads run on (peer and Prism alike).
    #[arg(long, default_value_t = 1)]
    pub core: usize,
    /// Only these parts: forwarding, acl-forwarding, lookup, lookup6, acl, veth, aead
    /// (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Skip the slow table loads: l3fwd with the full BGP table (rte_lpm
    /// adds 900k routes in about 3 minutes).
    #[arg(long)]
    pub quick: bool,
    /// Also rte_lpm's lookups on the full BGP table (`dpdk-test-fib -c`,
    /// another 3+ minutes of loading).
    #[arg(long)]
    pub with_rte_lpm: bool,
    /// Write the rows as JSON here too.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// One comparison: the medians of the rounds, with their spread.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub workload: String,
    pub peer: String,
    /// `Mpps` (higher is better) or `cycles` per lookup (lower is better).
    pub unit: &'static str,
    pub peer_value: f64,
    pub prism_value: f64,
    /// Every round's figure, in the order run (peer and Prism alternate).
    pub peer_rounds: Vec<f64>,
    pub prism_rounds: Vec<f64>,
    /// Prism's speed over the peer's: above 1, Prism is faster.
    pub ratio: f64,
    /// Cycles per packet: (peer, Prism).
    pub cycles: Option<(f64, f64)>,
    /// Work spread over several threads and cores: no cycles per packet.
    pub machine_wide: bool,
    pub note: String,
}

impl Row {
    fn new(workload: String, peer: &str, unit: &'static str, p: &[f64], o: &[f64]) -> Self {
        let (pv, ov) = (median(p.to_vec()), median(o.to_vec()));
        Self {
            workload,
            peer: peer.into(),
            unit,
            peer_value: pv,
            prism_value: ov,
            peer_rounds: p.to_vec(),
            prism_rounds: o.to_vec(),
            ratio: speed(unit, pv, ov),
            cycles: None,
            machine_wide: false,
            note: String::new(),
        }
    }

    /// The lowest and highest ratio of a Prism round to the peer round run
    /// just before it; `None` with fewer than two pairs.
    pub fn ratio_range(&self) -> Option<(f64, f64)> {
        let r: Vec<f64> = (self.peer_rounds.iter().zip(&self.prism_rounds))
            .map(|(a, b)| speed(self.unit, *a, *b))
            .collect();
        (r.len() >= 2).then(|| {
            let lo = r.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = r.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (lo, hi)
        })
    }

    /// Rates in Mpps, one per round (higher is better).
    pub fn rate(workload: String, peer: &str, peer_mpps: &[f64], prism_mpps: &[f64]) -> Self {
        Self::new(workload, peer, "Mpps", peer_mpps, prism_mpps)
    }

    /// Cycles per item, one per round (lower is better).
    pub fn cost(workload: String, peer: &str, peer_cycles: &[f64], prism_cycles: &[f64]) -> Self {
        let mut r = Self::new(workload, peer, "cycles", peer_cycles, prism_cycles);
        r.cycles = Some((r.peer_value, r.prism_value));
        r
    }

    pub fn machine_wide(mut self) -> Self {
        self.machine_wide = true;
        self
    }

    pub fn note(mut self, n: impl Into<String>) -> Self {
        self.note = n.into();
        self
    }
}

/// Prism's speed over the peer's for a figure in `unit`: rates are higher
/// when better, cycles lower.
fn speed(unit: &str, peer: f64, ours: f64) -> f64 {
    match unit {
        "Mpps" => ours / peer,
        _ => peer / ours,
    }
}

/// `lo–hi` of a set of figures, as a percentage around their median.
fn spread(v: &[f64]) -> String {
    let m = median(v.to_vec());
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if v.len() < 2 || m == 0.0 {
        return "one round".into();
    }
    format!(
        "{:+.0}/{:+.0}%",
        (lo / m - 1.0) * 100.0,
        (hi / m - 1.0) * 100.0
    )
}

/// The machine's clock for cycle figures.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    /// TSC ticks per second (calibrated against the wall clock).
    pub tsc_hz: f64,
    /// `perf stat` reports core cycles here.
    pub perf: bool,
}

impl Clock {
    fn measure() -> Self {
        let tsc_hz = tsc_hz();
        let perf = std::process::Command::new("perf")
            .args(["stat", "-x,", "-e", "cycles", "true"])
            .output()
            .map(|o| {
                let e = String::from_utf8_lossy(&o.stderr);
                o.status.success() && !e.contains("not supported") && !e.contains("not counted")
            })
            .unwrap_or(false);
        Self { tsc_hz, perf }
    }

    /// TSC cycles per packet of one core busy at `mpps`.
    pub fn per_packet(&self, mpps: f64) -> f64 {
        self.tsc_hz / (mpps * 1e6)
    }
}

/// Core cycles of process or thread `id` over `secs`, from `perf stat`, if
/// the machine has the counters. Start it just before the window.
pub fn perf_cycles(thread: bool, id: u32, secs: f64) -> std::process::Child {
    let flag = if thread { "-t" } else { "-p" };
    std::process::Command::new("perf")
        .args([
            "stat",
            "-x,",
            "-e",
            "cycles",
            flag,
            &id.to_string(),
            "--",
            "sleep",
            &format!("{secs}"),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("perf was found when the clock was measured")
}

/// The cycle count a finished `perf_cycles` printed.
pub fn perf_result(c: std::process::Child) -> Option<f64> {
    let out = c.wait_with_output().ok()?;
    let text = String::from_utf8_lossy(&out.stderr);
    text.lines()
        .find(|l| l.contains(",cycles"))
        .and_then(|l| l.split(',').next())
        .and_then(|v| v.trim().parse().ok())
}

/// Time the hypervisor gave core `core`'s virtual CPU to someone else
/// (`steal` in /proc/stat), in milliseconds since boot. A window in which
/// it grows was not the measured program's alone: the rounds print it.
pub fn steal_ms(core: usize) -> u64 {
    // /proc/stat counts in USER_HZ ticks, 100 a second on every Linux.
    const MS_PER_TICK: u64 = 10;
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let cpu = format!("cpu{core}");
    stat.lines()
        .find(|l| l.split_whitespace().next() == Some(cpu.as_str()))
        .and_then(|l| l.split_whitespace().nth(8))
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(0, |t| t * MS_PER_TICK)
}

pub fn median(v: Vec<f64>) -> f64 {
    prism_lab::bench::live::median(v)
}

fn wanted(args: &PeersArgs, part: &str) -> bool {
    args.only.is_empty() || args.only.iter().any(|o| o == part)
}

/// Versions of what runs, for the record.
fn versions() -> String {
    let pkg = |p: &str| {
        std::process::Command::new("dpkg-query")
            .args(["-W", "-f", "${Version}", p])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_else(|| "not installed".into())
    };
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    format!(
        "DPDK {} (Debian), Open vSwitch {} (Debian), Linux {}",
        pkg("dpdk"),
        pkg("openvswitch-switch"),
        kernel.trim()
    )
}

pub fn run(args: &PeersArgs) -> Result<()> {
    if !prism_io::netns::have_privileges() {
        bail!("prism-peers needs root (DPDK's tests, namespaces, Open vSwitch)");
    }
    anyhow::ensure!(args.rounds > 0, "--rounds must be at least 1");
    let clock = Clock::measure();
    let work = std::env::temp_dir().join("prism-peers");
    std::fs::create_dir_all(&work).with_context(|| format!("{}", work.display()))?;
    println!(
        "prism-peers: {} rounds per workload, peer and Prism in turn, medians; single-core workloads on core {}",
        args.rounds, args.core
    );
    println!("  machine: {}", prism_lab::bench::machine());
    println!("  {}", versions());
    let huge = hugepages::HugePages::reserve(&work);
    println!("  memory: {}", huge.described);
    println!(
        "  cycles: {}",
        if clock.perf {
            "core cycles from perf stat".to_string()
        } else {
            format!(
                "TSC cycles at {:.3} GHz (perf stat has no hardware counters on this machine)",
                clock.tsc_hz / 1e9
            )
        }
    );
    let mut rows: Vec<Row> = Vec::new();
    let started = Instant::now();
    if wanted(args, "forwarding") {
        rows.extend(forwarding::run(args, &clock, &work)?);
    }
    if wanted(args, "acl-forwarding") {
        rows.extend(acl_forwarding::run(args, &clock, &work)?);
    }
    if wanted(args, "lookup") {
        rows.extend(lookups::run(args, &clock, &work)?);
    }
    if wanted(args, "lookup6") {
        rows.extend(lookups6::run(args, &clock, &work)?);
    }
    if wanted(args, "acl") {
        rows.extend(acl::run(args, &clock, &work)?);
    }
    if wanted(args, "veth") {
        rows.extend(veth::run(args)?);
    }
    if wanted(args, "aead") {
        rows.extend(aead::run(args)?);
    }
    print_table(&rows, &clock);
    println!("  ({:.0} s)", started.elapsed().as_secs_f64());
    if let Some(p) = &args.json {
        std::fs::write(p, serde_json::to_string_pretty(&rows)?)
            .with_context(|| format!("writing {}", p.display()))?;
    }
    Ok(())
}

fn print_table(rows: &[Row], clock: &Clock) {
    println!();
    println!(
        "| workload | peer | peer | Prism | Prism / peer (rounds' range) | spread peer / Prism | cycles/pkt peer / Prism | note |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---|");
    for r in rows {
        let v = |x: f64| match r.unit {
            "Mpps" => format!("{x:.3} Mpps"),
            _ => format!("{x:.1} cycles"),
        };
        let cycles = match (r.unit, r.cycles) {
            _ if r.machine_wide => "-".into(),
            (_, Some((a, b))) => format!("{a:.0} / {b:.0}"),
            ("Mpps", None) => format!(
                "{:.0} / {:.0}",
                clock.per_packet(r.peer_value),
                clock.per_packet(r.prism_value)
            ),
            _ => "-".into(),
        };
        let range = r
            .ratio_range()
            .map_or(String::new(), |(lo, hi)| format!(" ({lo:.2}–{hi:.2})"));
        println!(
            "| {} | {} | {} | {} | {:.2}{} | {} / {} | {} | {} |",
            r.workload,
            r.peer,
            v(r.peer_value),
            v(r.prism_value),
            r.ratio,
            range,
            spread(&r.peer_rounds),
            spread(&r.prism_rounds),
            cycles,
            r.note
        );
    }
}

fn main() {
    let args = <PeersArgs as clap::Parser>::parse();
    if let Err(e) = run(&args) {
        eprintln!("prism-peers: {e:#}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::Row;

    #[test]
    fn ratios_favour_the_faster_side_in_either_unit() {
        // Rates: higher is better; each Prism round against the peer's before it.
        let r = Row::rate("w".into(), "p", &[10.0, 12.0, 11.0], &[12.0, 12.0, 22.0]);
        assert_eq!(
            (r.peer_value, r.prism_value, r.ratio),
            (11.0, 12.0, 12.0 / 11.0)
        );
        assert_eq!(r.ratio_range(), Some((1.0, 2.0)));
        // Cycles: lower is better.
        let c = Row::cost("w".into(), "p", &[100.0, 200.0, 150.0], &[50.0, 50.0, 50.0]);
        assert_eq!((c.ratio, c.ratio_range()), (3.0, Some((2.0, 4.0))));
        assert_eq!(
            Row::rate("w".into(), "p", &[1.0], &[2.0]).ratio_range(),
            None
        );
    }
}
