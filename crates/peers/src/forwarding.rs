//! Pure forwarding on one core, no NIC: DPDK's l3fwd in LPM mode, and its
//! graph-node variant l3fwd-graph (16 routes), against Prism's pipeline,
//! on the same routes and the same frames.
//!
//! l3fwd reads the frames from a pcap file its pcap device replays from
//! memory (`infinite_rx=1`, a copy per packet into a fresh mbuf) and sends
//! them to a null device; its rate is the null port's `opackets`, read from
//! DPDK's telemetry socket over a timed window. Between its windows l3fwd
//! is stopped (SIGSTOP), so Prism's windows have the core to themselves.
//! Prism copies each frame into a pool buffer (what the pcap device does),
//! runs the whole pipeline (parse and validate, checksum included; map;
//! LPM; TTL with checksum update and both MACs, as l3fwd's RFC 1812 path
//! does; queue; DRR transmit) and recycles the buffer. Both on `--core`.
//!
//! Tables: 16 routes (l3fwd's own default table, all pointed at the null
//! port), and the full BGP table (901,899 prefixes, frames to addresses
//! inside them), the latter at 64 B only: rte_lpm takes about 3 minutes to
//! load it (its adds scan the rules of the same depth), so one load is all
//! the run affords.

use crate::{Clock, PeersArgs, Row, median, steal_ms};
use anyhow::{Context, Result, bail};
use prism_io::seqpacket::SeqPacket;
use prism_io::sys::{self, Signal};
use prism_lab::bench::l3fwd::{self, frames, substrate};
use prism_node::pin_to_core;
use prism_pipeline::Substrate;
use prism_tables::Ipv4Prefix;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const PREFIX: &str = "prism-peers-l3fwd";

/// l3fwd's lookup mode, or l3fwd-graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// rte_lpm on the destination (`R<prefix> <port>` rules).
    Lpm,
    /// rte_acl on the five-tuple (ClassBench-form `R...` rules).
    Acl,
    /// l3fwd-graph (rte_graph's nodes: classify, ip4 lookup, rewrite),
    /// its routes built in (`build-l3fwd graph`: l3fwd's 16 to port 1).
    Graph,
}

impl Lookup {
    /// The pcap port's transmit queues beyond its one: l3fwd-graph sets
    /// one up per lcore, the main one's included (nothing is sent on the
    /// pcap port: every route leads to the null one).
    fn tx_queues(self) -> &'static str {
        match self {
            Lookup::Graph => ",tx_pcap=/dev/null,tx_pcap=/dev/null",
            _ => "",
        }
    }

    /// What follows the port mask, promiscuity and `--config`.
    fn args(self, rules: &Path, rules6: &Path) -> Vec<String> {
        let lookup = match self {
            Lookup::Lpm => "--lookup=lpm",
            Lookup::Acl => "--lookup=acl",
            Lookup::Graph => return Vec::new(),
        };
        vec![
            "--parse-ptype".into(),
            lookup.into(),
            format!("--rule_ipv4={}", rules.display()),
            format!("--rule_ipv6={}", rules6.display()),
        ]
    }

    /// One IPv6 route, which both modes require (ACL mode: in its
    /// fully written-out address form).
    fn rules6(self) -> &'static str {
        match self {
            Lookup::Lpm | Lookup::Graph => "R2001:db8::/32 1\n",
            Lookup::Acl => {
                "R2001:0db8:0000:0000:0000:0000:0000:0000/32 0:0:0:0:0:0:0:0/0 0 : 65535 0 : 65535 0x00/0x00 1\n"
            }
        }
    }
}

/// A running l3fwd and its telemetry connection.
pub(crate) struct L3fwd {
    child: Child,
    tele: Option<SeqPacket>,
}

impl L3fwd {
    pub(crate) fn start(
        bin: &Path,
        core: usize,
        pcap: &Path,
        rules: &Path,
        work: &Path,
        lookup: Lookup,
    ) -> Result<Self> {
        let rules6 = work.join("rules6.cfg");
        std::fs::write(&rules6, lookup.rules6())?;
        let log = std::fs::File::create(work.join("l3fwd.log"))?;
        let config = format!("(0,0,{core}),(1,0,{core})");
        // l3fwd-graph wants its main lcore apart from the worker's (the
        // main one prints statistics): the other core.
        let lcores = match lookup {
            Lookup::Graph => format!("{},{core}", usize::from(core == 0)),
            _ => core.to_string(),
        };
        let child = Command::new(bin)
            .args(["-l", &lcores])
            .args(crate::hugepages::eal_memory(1024))
            .args([
                "--no-pci",
                "--file-prefix",
                PREFIX,
                "--vdev",
                &format!(
                    "net_pcap0,rx_pcap={},infinite_rx=1{}",
                    pcap.display(),
                    lookup.tx_queues()
                ),
                "--vdev",
                "net_null0,no-rx=1",
                "--",
                "-p",
                "0x3",
                "-P",
                "--config",
                &config,
            ])
            .args(lookup.args(rules, &rules6))
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .with_context(|| format!("starting {}", bin.display()))?;
        let mut l = Self { child, tele: None };
        l.wait_forwarding(work)?;
        l.signal(Signal::Stop);
        Ok(l)
    }

    /// Waits until l3fwd forwards (its telemetry counts packets out);
    /// refuses if it exits, or takes over 10 minutes (the full BGP table
    /// takes minutes to load).
    fn wait_forwarding(&mut self, work: &Path) -> Result<()> {
        let socket = PathBuf::from(format!("/var/run/dpdk/{PREFIX}/dpdk_telemetry.v2"));
        let deadline = Instant::now() + Duration::from_secs(600);
        loop {
            if let Some(st) = self.child.try_wait()? {
                bail!(
                    "l3fwd exited ({st}); see {}",
                    work.join("l3fwd.log").display()
                );
            }
            if self.tele.is_none()
                && let Ok(s) = SeqPacket::connect(&socket)
            {
                s.recv(16384)?; // the greeting
                self.tele = Some(s);
            }
            if self.tele.is_some() && self.opackets().unwrap_or(0) > 0 {
                break;
            }
            if Instant::now() > deadline {
                bail!("l3fwd did not start forwarding within 10 minutes");
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        Ok(())
    }

    fn signal(&self, sig: Signal) {
        let _ = sys::signal(self.child.id(), sig);
    }

    /// Frames sent on the null port (port 1).
    fn opackets(&self) -> Result<u64> {
        let t = self.tele.as_ref().context("no telemetry connection")?;
        t.send(b"/ethdev/stats,1")?;
        let v: serde_json::Value = serde_json::from_slice(&t.recv(65536)?)?;
        v["/ethdev/stats"]["opackets"]
            .as_u64()
            .context("telemetry reply without opackets")
    }

    /// Lets l3fwd run for `secs` (after a short warm-up) and returns its
    /// rate in Mpps and, with perf counters, its cycles per packet.
    pub(crate) fn window(&self, secs: f64, clock: &Clock) -> Result<(f64, Option<f64>)> {
        self.signal(Signal::Continue);
        std::thread::sleep(Duration::from_millis(200));
        let perf = clock
            .perf
            .then(|| crate::perf_cycles(false, self.child.id(), secs));
        let (c0, t0) = (self.opackets()?, Instant::now());
        std::thread::sleep(Duration::from_secs_f64(secs));
        let (c1, t1) = (self.opackets()?, Instant::now());
        self.signal(Signal::Stop);
        let n = c1.saturating_sub(c0) as f64;
        let cycles = perf.and_then(crate::perf_result).map(|c| c / n);
        Ok((n / (t1 - t0).as_secs_f64() / 1e6, cycles))
    }
}

impl Drop for L3fwd {
    fn drop(&mut self) {
        self.signal(Signal::Continue);
        self.signal(Signal::Terminate);
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs Prism's pipeline over `frames` on `core` for `secs` after a short
/// warm-up; returns Mpps and, with perf counters, cycles per packet.
pub(crate) fn prism_window(
    s: &Substrate,
    frames: &[Vec<u8>],
    core: usize,
    secs: f64,
    clock: &Clock,
) -> (f64, Option<f64>) {
    let mut step = prism_lab::bench::pipeline_loop(s, frames, 1);
    let per_step = frames.len() as u64;
    let perf_on = clock.perf;
    std::thread::scope(|sc| {
        sc.spawn(move || {
            pin_to_core(core);
            let warm = Instant::now();
            while warm.elapsed() < Duration::from_millis(200) {
                step();
            }
            let tid = sys::thread_id();
            let perf = perf_on.then(|| crate::perf_cycles(true, tid, secs));
            let t = Instant::now();
            let mut n = 0u64;
            while t.elapsed().as_secs_f64() < secs {
                step();
                n += per_step;
            }
            let mpps = n as f64 / t.elapsed().as_secs_f64() / 1e6;
            (
                mpps,
                perf.and_then(crate::perf_result).map(|c| c / n as f64),
            )
        })
        .join()
        .expect("the measuring thread does not panic")
    })
}

/// l3fwd's windows and Prism's over `frames` through `s`, in turn, for
/// `args.rounds` rounds; the row of their medians (and cycles, with perf).
pub(crate) fn alternate(
    l: &L3fwd,
    s: &Substrate,
    frames: &[Vec<u8>],
    args: &PeersArgs,
    clock: &Clock,
    workload: String,
    peer_name: &str,
) -> Result<Row> {
    let (mut peer, mut ours) = (Vec::new(), Vec::new());
    let (mut pc, mut oc) = (Vec::new(), Vec::new());
    for round in 1..=args.rounds {
        let st0 = steal_ms(args.core);
        let (m, c) = l.window(args.seconds, clock)?;
        let st1 = steal_ms(args.core);
        peer.push(m);
        pc.extend(c);
        let (o, c) = prism_window(s, frames, args.core, args.seconds, clock);
        let st2 = steal_ms(args.core);
        println!(
            "    round {round}: l3fwd {m:.3} Mpps (steal {} ms), Prism {o:.3} Mpps (steal {} ms)",
            st1 - st0,
            st2 - st1
        );
        ours.push(o);
        oc.extend(c);
    }
    let mut row = Row::rate(workload, peer_name, &peer, &ours);
    if !pc.is_empty() && !oc.is_empty() {
        row.cycles = Some((median(pc), median(oc)));
    }
    Ok(row)
}

pub(crate) fn write_pcap(path: &Path, frames: &[Vec<u8>]) -> Result<()> {
    let mut w = prism_io::pcap::FrameWriter::create(path)?;
    for (i, f) in frames.iter().enumerate() {
        w.write(i as u64 * 1000, f)?;
    }
    Ok(())
}

fn write_rules(path: &Path, routes: &[Ipv4Prefix]) -> Result<()> {
    let mut text = String::with_capacity(routes.len() * 24);
    for p in routes {
        text.push_str(&format!("R{p} 1\n"));
    }
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// One table: l3fwd and Prism in turn, per size.
#[allow(clippy::too_many_arguments)]
fn compare(
    label: &str,
    (bin, lookup): (&Path, Lookup),
    routes: &[Ipv4Prefix],
    dsts: &[u32],
    sizes: &[usize],
    args: &PeersArgs,
    clock: &Clock,
    work: &Path,
) -> Result<Vec<Row>> {
    let rules = work.join("rules4.cfg");
    write_rules(&rules, routes)?;
    let s = substrate(routes)?;
    let mut rows = Vec::new();
    for &size in sizes {
        let fr = frames(dsts, size);
        let pcap = work.join(format!("frames-{size}.pcap"));
        write_pcap(&pcap, &fr)?;
        println!(
            "  forwarding, {label}, {size} B: starting l3fwd ({} routes) ...",
            routes.len()
        );
        let l = L3fwd::start(bin, args.core, &pcap, &rules, work, lookup)?;
        let peer = match lookup {
            Lookup::Graph => "DPDK l3fwd-graph (pcap+null vdevs)",
            _ => "DPDK l3fwd (LPM, pcap+null vdevs)",
        };
        let workload = format!("forwarding, one core, {label}, {size} B");
        let row = alternate(&l, &s, &fr, args, clock, workload, peer)?;
        rows.push(row);
    }
    Ok(rows)
}

pub fn run(args: &PeersArgs, clock: &Clock, work: &Path) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    let Some(bin) = &args.l3fwd else {
        println!("  forwarding: skipped (no --l3fwd; bench/peers/run builds it)");
        return Ok(rows);
    };
    let small = l3fwd::routes();
    let dsts: Vec<u32> = prism_lab::bench::tables::addresses(&small, 4096, true, 11);
    if args.l3fwd_graph.is_none() {
        println!(
            "  forwarding, l3fwd-graph: skipped (no --l3fwd-graph; bench/peers/run builds it)"
        );
    }
    let graph = args.l3fwd_graph.as_deref().map(|g| (g, Lookup::Graph));
    for peer in std::iter::once((bin.as_path(), Lookup::Lpm)).chain(graph) {
        rows.extend(compare(
            "16 routes",
            peer,
            &small,
            &dsts,
            &args.sizes,
            args,
            clock,
            work,
        )?);
    }
    if args.quick {
        println!("  forwarding on the full BGP table: skipped (--quick)");
        return Ok(rows);
    }
    let Some(big) = &args.l3fwd_big else {
        println!("  forwarding on the full BGP table: skipped (no --l3fwd-big)");
        return Ok(rows);
    };
    let path = args.data.join("bgp/prefixes.txt.gz");
    anyhow::ensure!(
        path.exists(),
        "{} is missing: the BGP workloads need the shared data (--data)",
        path.display()
    );
    let prefixes = prism_lab::bench::tables::load_prefixes(&path)?;
    let dsts = prism_lab::bench::tables::addresses(&prefixes, 4096, true, 13);
    println!("  (rte_lpm loads 901,899 routes in about 3 minutes)");
    rows.extend(
        compare(
            &format!("full BGP table ({} routes)", prefixes.len()),
            (big, Lookup::Lpm),
            &prefixes,
            &dsts,
            &[64],
            args,
            clock,
            work,
        )?
        .into_iter()
        .map(|r| r.note("l3fwd built with its LPM limits raised to hold the table")),
    );
    Ok(rows)
}
