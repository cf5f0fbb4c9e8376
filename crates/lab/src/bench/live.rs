//! `prism bench-live`: forwarding rate and latency over veth, per RFC 2544
//! frame size, through a hardware-tier network, software networks with the
//! `prism` and `kernel` routers, and plain Linux forwarding between
//! namespaces (no Prism) as the baseline.
//!
//! Method: host `a` sends UDP frames of one size as fast as one
//! `sendmmsg` loop can for `seconds`; host `b` counts what arrives. The
//! targets are measured in turn for each size (interleaved, so drifts of a
//! noisy machine fall on all of them alike), `rounds` times; the table
//! keeps the median. Latency is the median ping round trip at that size on
//! an idle path. Rates are frames delivered; Gbit/s counts frame bytes
//! (no preamble or gap).

use crate::demo::hosts::{self as demo, HOST_PREFIX, LINK_PREFIX, host_mac, make_host};
use anyhow::Result;
use prism_compile as scenario;
use prism_io::afpacket::{PacketPort, RingConfig};
use prism_io::netns;
use prism_node::gateway_mac;
use prism_pipeline::traffic::{FrameSpec, build};
use prism_wire::{EthernetAddress, Ipv4Address};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

pub const SIZES: [usize; 7] = [64, 128, 256, 512, 1024, 1280, 1518];

#[derive(clap::Args, Debug)]
pub struct BenchLiveArgs {
    /// Seconds per measurement.
    #[arg(long, default_value_t = 1.0)]
    pub seconds: f64,
    /// Rounds over all targets; the median is kept.
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// Frame sizes (default: the RFC 2544 sizes).
    #[arg(long, value_delimiter = ',')]
    pub sizes: Vec<usize>,
    /// Instead: paper 003 Figs 10-12, aggregate rate and mean RTT with
    /// these numbers of networks (the first 4 in hardware, the rest in
    /// software with the `prism` router), all sending at once.
    #[arg(long, value_delimiter = ',')]
    pub networks: Vec<usize>,
    /// The node's socket family: auto, xdp or packet.
    #[arg(long, default_value = "auto")]
    pub io: prism_io::port::IoChoice,
    /// With --networks: how software networks' traffic arrives: `single`
    /// (through Prism's ports and the pipeline, paper 003's "from NetFPGA")
    /// or `multi` (through the ports' software interfaces straight into the
    /// routers, "from NIC").
    #[arg(long, default_value = "single")]
    pub receiver: Receiver,
    /// With --networks: offer this many frames per second in all, shared
    /// equally by the networks (paper 003's equal bandwidth shares),
    /// instead of every host sending as fast as it can.
    #[arg(long)]
    pub rate: Option<f64>,
    /// Instead: frames lost while a network moves between the tiers under
    /// traffic, counted at the receiving host (see `bench_migrate`).
    #[arg(long)]
    pub migrate: bool,
    /// Instead: a soak of this many seconds under route changes and moves
    /// (see `soak`); fails if networks not moved lose a frame, memory grows
    /// more than 5% or descriptors leak.
    #[arg(long, value_name = "SECONDS")]
    pub soak: Option<f64>,
    /// With --migrate: offered rates, frames per second.
    #[arg(long, value_delimiter = ',', default_values_t = [10_000.0, 50_000.0, 100_000.0])]
    pub rates: Vec<f64>,
    /// With --migrate: the software router kinds to move to.
    #[arg(long, value_delimiter = ',', default_values_t = ["prism".to_string(), "kernel".to_string()])]
    pub routers: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Receiver {
    Single,
    Multi,
}

/// The networks of the size sweep: (name, tier, mode, router); the last
/// two take the multi-receiver path.
const SWEEP: [(&str, &str, &str, &str); 5] = [
    ("hw", "hardware", "destination", ""),
    ("sw-prism", "software", "destination", "prism"),
    ("sw-kernel", "software", "destination", "kernel"),
    ("sw-prism-nic", "software", "destination", "prism"),
    ("sw-kernel-nic", "software", "destination", "kernel"),
];
const SWEEP_MULTI: [usize; 2] = [3, 4];

/// (label, host a namespace, host b namespace, frame source MAC, gateway MAC).
#[derive(Debug)]
pub struct Target {
    pub label: &'static str,
    pub a: String,
    pub b: String,
    pub src: [u8; 6],
    pub gw: [u8; 6],
}

impl Target {
    /// The demo's host pair `k` (`{HOST_PREFIX}{k}a` and `…b`), sending
    /// to its network's gateway MAC on the node.
    pub fn demo_host(label: &'static str, k: usize) -> Self {
        Target {
            label,
            a: format!("{HOST_PREFIX}{k}a"),
            b: format!("{HOST_PREFIX}{k}b"),
            src: host_mac(k, 0),
            gw: gateway_mac(k as u16, (2 * k) as u16),
        }
    }
}

/// Sends from host a for `secs`, as fast as one `sendmmsg` loop can or at
/// `pps` frames per second, and counts what host b receives. Returns
/// (delivered Mpps, Gbit/s).
pub fn blast(t: &Target, size: usize, secs: f64, pps: Option<f64>) -> Result<(f64, f64)> {
    let spec = FrameSpec {
        src_mac: EthernetAddress(t.src),
        dst_mac: EthernetAddress(t.gw),
        src: Ipv4Address([10, 0, 1, 2]),
        dst: Ipv4Address([10, 0, 2, 2]),
        src_port: 4000,
        dst_port: 5001,
        frame_len: size - 4, // the FCS is the NIC's
        ..FrameSpec::default()
    };
    let frame = build(&spec, b"PRSMB");
    let mut tx = netns::in_namespace(&t.a, || PacketPort::open_tx("eth0"))?;
    let rx = netns::in_namespace(&t.b, || {
        PacketPort::open("eth0", Some(RingConfig::default()))
    })?;
    let got = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let sink = count_received(rx, got.clone(), stop.clone());
    let burst = if pps.is_some() { 16 } else { 64 };
    let batch: Vec<&[u8]> = vec![frame.as_slice(); burst];
    let start = Instant::now();
    let mut due = 0.0f64;
    while start.elapsed().as_secs_f64() < secs {
        match pps {
            None => {
                tx.send_batch(batch.iter().copied());
            }
            Some(r) => {
                let now = start.elapsed().as_secs_f64();
                if now >= due {
                    tx.send_batch(batch.iter().copied());
                    due += burst as f64 / r;
                } else {
                    std::thread::sleep(Duration::from_secs_f64((due - now).min(0.001)));
                }
            }
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let _ = sink.join();
    let pps = got.load(Ordering::Relaxed) as f64 / elapsed;
    Ok((pps / 1e6, pps * size as f64 * 8.0 / 1e9))
}

/// Counts into `got` the frames of a blast that `rx` receives, until
/// `stop` and 200 ms of draining after it.
fn count_received(
    mut rx: PacketPort,
    g: Arc<AtomicU64>,
    s: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut drain_until: Option<Instant> = None;
        loop {
            if s.load(Ordering::Relaxed) {
                let e =
                    *drain_until.get_or_insert_with(|| Instant::now() + Duration::from_millis(200));
                if Instant::now() > e {
                    break;
                }
            }
            let n = rx.recv_block(|f| {
                if f.data.len() > 46 && &f.data[42..47] == b"PRSMB" {
                    g.fetch_add(1, Ordering::Relaxed);
                }
            });
            if n == 0 {
                let _ = PacketPort::wait_any(&[&rx], 5);
            }
        }
    })
}

pub fn rtt_us(t: &Target, size: usize) -> Option<f64> {
    let payload = (size - 4 - 14 - 20 - 8).to_string();
    let out = netns::run(
        "ip",
        &[
            "netns", "exec", &t.a, "ping", "-c", "20", "-i", "0.01", "-s", &payload, "-q",
            "10.0.2.2",
        ],
    )
    .ok()?;
    // rtt min/avg/max/mdev = 0.05/0.06/0.1/0.01 ms
    let avg: f64 = out
        .split('=')
        .nth(1)?
        .split('/')
        .nth(1)?
        .trim()
        .parse()
        .ok()?;
    Some(avg * 1000.0)
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// A Linux router namespace between two hosts: the baseline with no Prism.
pub fn kernel_baseline() -> Result<Target> {
    let r = format!("{HOST_PREFIX}r");
    netns::create_namespace(&r)?;
    netns::sysctl_in(Some(&r), "net.ipv4.ip_forward", "1")?;
    let mut gw = [[0u8; 6]; 2];
    for side in 0..2 {
        let s = ["a", "b"][side];
        let (ns, link) = (format!("{HOST_PREFIX}k{s}"), format!("{LINK_PREFIX}k{s}"));
        let rmac = [0x02, 0x60, 0, 0, 0, side as u8];
        make_host(&ns, &link, side, host_mac(9, side), rmac)?;
        netns::ip(&["link", "set", &link, "netns", &r])?;
        netns::ip_in(
            Some(&r),
            &["link", "set", &link, "address", &netns::format_mac(rmac)],
        )?;
        netns::ip_in(
            Some(&r),
            &[
                "addr",
                "add",
                &format!("10.0.{}.1/24", side + 1),
                "dev",
                &link,
            ],
        )?;
        netns::ip_in(Some(&r), &["link", "set", &link, "up"])?;
        gw[side] = rmac;
    }
    Ok(Target {
        label: "linux-forwarding",
        a: format!("{HOST_PREFIX}ka"),
        b: format!("{HOST_PREFIX}kb"),
        src: host_mac(9, 0),
        gw: gw[0],
    })
}

pub fn run(args: &BenchLiveArgs) -> Result<()> {
    anyhow::ensure!(
        netns::have_privileges(),
        "bench-live needs root (namespaces, raw sockets)"
    );
    if let Some(secs) = args.soak {
        return crate::bench::soak::run(secs, io(args));
    }
    if args.migrate {
        return crate::bench::migrate::run(&args.rates, &args.routers, io(args));
    }
    if !args.networks.is_empty() {
        return scale(args);
    }
    let sizes = if args.sizes.is_empty() {
        SIZES.to_vec()
    } else {
        args.sizes.clone()
    };
    demo::remove_hosts();
    let state = std::path::PathBuf::from(demo::STATE_DIR);
    std::fs::create_dir_all(&state)?;
    let file = state.join("bench-live.toml");
    let text = demo::scenario_text_with(&SWEEP, |k| SWEEP_MULTI.contains(&k));
    std::fs::write(&file, &text)?;
    let sc = scenario::load(&file.display().to_string(), &text)?;
    demo::make_hosts(SWEEP.len())?;
    demo::make_spare_links(&SWEEP_MULTI)?;
    let baseline = kernel_baseline();
    let node = demo::start_node(sc, io(args));
    let result = (|| -> Result<()> {
        let node = node?;
        let receiving = node
            .notes
            .iter()
            .find(|n| n.starts_with("receiving on"))
            .cloned()
            .unwrap_or_default();
        std::thread::sleep(Duration::from_millis(500));
        let t = Target::demo_host;
        let targets = [
            t("hardware", 0),
            t("sw-prism", 1),
            t("sw-kernel", 2),
            t("sw-prism-nic", 3),
            t("sw-kernel-nic", 4),
            baseline?,
        ];
        say_sweep(args, &receiving);
        sweep(args, &targets, &sizes)
    })();
    demo::remove_hosts();
    result
}

/// The sweep's header: what is measured, and the columns.
fn say_sweep(args: &BenchLiveArgs, receiving: &str) {
    println!(
        "prism bench-live: 1 worker over veth, {} s x {} rounds (median); hardware tier modelled in software",
        args.seconds, args.rounds
    );
    println!("  {receiving}");
    println!(
        "  targets: hardware tier; software tier with Prism's router and with Linux forwarding, through Prism's ports (single receiver) and through software interfaces (-nic, multi receiver); Linux forwarding between namespaces without Prism"
    );
    println!(
        "{:>5}  {:<17} {:>8} {:>8} {:>9}",
        "size", "target", "Mpps", "Gbit/s", "RTT us"
    );
}

/// Each size's rounds over every target in turn, a line per target with
/// the medians and a round-trip time.
fn sweep(args: &BenchLiveArgs, targets: &[Target], sizes: &[usize]) -> Result<()> {
    for &size in sizes {
        let mut res: Vec<Vec<(f64, f64)>> = vec![Vec::new(); targets.len()];
        for _ in 0..args.rounds {
            for (i, tg) in targets.iter().enumerate() {
                res[i].push(blast(tg, size, args.seconds, None)?);
            }
        }
        for (i, tg) in targets.iter().enumerate() {
            let mpps = median(res[i].iter().map(|r| r.0).collect());
            let gbps = median(res[i].iter().map(|r| r.1).collect());
            let rtt = rtt_us(tg, size).map_or("-".into(), |r| format!("{r:.0}"));
            println!(
                "{size:>5}  {:<17} {mpps:>8.3} {gbps:>8.3} {rtt:>9}",
                tg.label
            );
        }
    }
    Ok(())
}

fn io(args: &BenchLiveArgs) -> prism_node::IoSettings {
    prism_node::IoSettings {
        choice: args.io,
        ..Default::default()
    }
}

/// Paper 003 Figs 10-12: networks added one by one, 4 in hardware.
fn scale(args: &BenchLiveArgs) -> Result<()> {
    let size = args.sizes.first().copied().unwrap_or(64);
    println!(
        "prism bench-live --networks: {size} B frames, every network's host a sending at once for {} s; first 4 networks hardware, the rest software (`prism` router, {} receiver); 1 worker; hardware tier modelled in software",
        args.seconds,
        match args.receiver {
            Receiver::Single => "single",
            Receiver::Multi => "multi",
        }
    );
    if let Some(r) = args.rate {
        println!("  offered: {r:.0} frames/s in all, shared equally");
    }
    println!(
        "{:>4} {:>3} {:>3} {:>10} {:>8} {:>7} {:>12}",
        "nets", "hw", "sw", "agg Mpps", "Gbit/s", "loss%", "mean RTT us"
    );
    let state = std::path::PathBuf::from(demo::STATE_DIR);
    std::fs::create_dir_all(&state)?;
    for &n in &args.networks {
        let names: Vec<String> = (0..n).map(|k| format!("n{k}")).collect();
        let nets: Vec<(&str, &str, &str, &str)> = names
            .iter()
            .enumerate()
            .map(|(k, name)| {
                if k < 4 {
                    (name.as_str(), "hardware", "destination", "")
                } else {
                    (name.as_str(), "software", "destination", "prism")
                }
            })
            .collect();
        demo::remove_hosts();
        let file = state.join("bench-scale.toml");
        let multi = |k: usize| args.receiver == Receiver::Multi && k >= 4;
        let text = demo::scenario_text_with(&nets, multi);
        std::fs::write(&file, &text)?;
        let sc = scenario::load(&file.display().to_string(), &text)?;
        let r = scale_once(args, n, size, sc, &multi);
        demo::remove_hosts();
        let (mpps, gbps, rtt) = r?;
        let loss = args.rate.map_or("-".into(), |r| {
            format!("{:.1}", (1.0 - mpps * 1e6 / r).max(0.0) * 100.0)
        });
        println!(
            "{n:>4} {:>3} {:>3} {mpps:>10.3} {gbps:>8.3} {loss:>7} {rtt:>12.0}",
            n.min(4),
            n.saturating_sub(4)
        );
    }
    Ok(())
}

/// One network count's run: hosts and node made, the medians of the
/// aggregate rate over the rounds, and the mean round-trip time.
fn scale_once(
    args: &BenchLiveArgs,
    n: usize,
    size: usize,
    sc: prism_compile::Scenario,
    multi: &dyn Fn(usize) -> bool,
) -> Result<(f64, f64, f64)> {
    demo::make_hosts(n)?;
    demo::make_spare_links(&(0..n).filter(|&k| multi(k)).collect::<Vec<_>>())?;
    let _node = demo::start_node(sc, io(args))?;
    std::thread::sleep(Duration::from_millis(500));
    let targets: Vec<Target> = (0..n).map(|k| Target::demo_host("", k)).collect();
    let mut rounds = Vec::new();
    let per_net = args.rate.map(|r| r / n as f64);
    for _ in 0..args.rounds {
        let secs = args.seconds;
        rounds.push(blast_all(&targets, size, secs, per_net)?);
    }
    let rtts: Vec<f64> = targets.iter().filter_map(|t| rtt_us(t, size)).collect();
    let rtt = rtts.iter().sum::<f64>() / rtts.len().max(1) as f64;
    Ok((
        median(rounds.iter().map(|r| r.0).collect()),
        median(rounds.iter().map(|r| r.1).collect()),
        rtt,
    ))
}

/// Every target's host a sending at once; the sum of what their hosts b
/// received (Mpps, Gbit/s).
fn blast_all(
    targets: &[Target],
    size: usize,
    secs: f64,
    per_net: Option<f64>,
) -> Result<(f64, f64)> {
    let res: Vec<Result<(f64, f64)>> = std::thread::scope(|sc| {
        let hs: Vec<_> = targets
            .iter()
            .map(|t| sc.spawn(move || blast(t, size, secs, per_net)))
            .collect();
        hs.into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("blast panicked")))
            })
            .collect()
    });
    let mut mpps = 0.0;
    let mut gbps = 0.0;
    for r in res {
        let (m, g) = r?;
        mpps += m;
        gbps += g;
    }
    Ok((mpps, gbps))
}
