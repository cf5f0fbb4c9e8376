//! The `prism` command: run scenarios, the demo, table tools and benchmarks.

mod auto_tier;
mod bench;
mod demo;
mod live;
mod netdoc;
mod peers;
mod plot;
mod report;
mod router_config;
mod runner;
mod scenario;
mod sim_cmd;
mod sim_rmu;
mod tables_cmd;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "prism",
    version,
    about = "Prism: many isolated virtual networks on one substrate, with a fast hardware tier and a flexible software tier"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// The embedded demo. As root: a live node with test hosts in network
    /// namespaces, real traffic, a live table, an isolation check and
    /// cleanup. Otherwise (or with --offline): the same idea over in-memory ports.
    Demo {
        /// Print counters as JSON (offline demo).
        #[arg(long)]
        json: bool,
        /// Run over in-memory ports even as root.
        #[arg(long)]
        offline: bool,
        /// Seconds of traffic in the live demo.
        #[arg(long, default_value_t = 8)]
        seconds: u64,
    },
    /// Run a scenario live on Linux interfaces until Ctrl-C.
    Node(live::cli::NodeArgs),
    /// Forwarding rate and latency over veth per RFC 2544 size: hardware
    /// tier, software tier (prism and kernel routers), Linux forwarding.
    BenchLive(live::bench_live::BenchLiveArgs),
    /// Prism against DPDK l3fwd, rte_fib/rte_lpm, rte_acl, Open vSwitch and
    /// Linux forwarding on this machine, as ratios (bench/peers/run).
    BenchPeers(peers::PeersArgs),
    /// Talk to a running node through its API (docs/api/openapi.yaml).
    Ctl(live::ctl::CtlArgs),
    /// Remove every namespace, link and cgroup a killed Prism left behind.
    Cleanup,
    /// Prism's software router inside a container (started by the node).
    #[command(hide = true)]
    Swrouter {
        #[arg(long)]
        config: PathBuf,
        #[arg(long)]
        network: String,
        #[arg(long, default_value = "auto")]
        io: prism_io::port::IoChoice,
    },
    /// Run a scenario over pcap/pcapng captures (offline substrate).
    Run {
        /// Scenario file (TOML; see docs/scenario.md).
        #[arg(long)]
        config: PathBuf,
        /// PORT=FILE: frames from FILE enter on PORT (name or index). Repeatable.
        #[arg(long = "pcap-in", value_name = "PORT=FILE")]
        pcap_in: Vec<String>,
        /// PORT=FILE: frames leaving PORT are written to FILE. Repeatable.
        #[arg(long = "pcap-out", value_name = "PORT=FILE")]
        pcap_out: Vec<String>,
        /// Print counters as JSON.
        #[arg(long)]
        json: bool,
        /// Run live on the ports' interfaces instead (as `prism node
        /// --config FILE`; see `prism node --help` for its options).
        #[arg(long, conflicts_with_all = ["pcap_in", "pcap_out"])]
        live: bool,
    },
    /// Check a scenario file and print its placement, without running it.
    Check { config: PathBuf },
    /// Build, check and time lookup tables on standard data.
    #[command(subcommand)]
    Tables(TablesCmd),
    /// Measure the pipeline and tables (Mpps, ns and cycles per packet).
    Bench(bench::BenchArgs),
    /// List the built-in device profiles.
    Profiles,
    /// Simulators of the papers' experiments.
    #[command(subcommand)]
    Sim(SimCmd),
}

#[derive(Subcommand)]
enum SimCmd {
    /// Network allocation between tiers (paper 000 §5.4, Fig. 10).
    Alloc(sim_cmd::AllocArgs),
    /// Reconfiguration managers of the multi-service edge router (paper 004).
    Rmu(sim_rmu::RmuArgs),
}

#[derive(Subcommand)]
enum TablesCmd {
    /// Longest-prefix match over a prefix list (one CIDR a line, .gz allowed).
    Lpm {
        #[arg(long)]
        prefixes: PathBuf,
        #[arg(long, default_value_t = 1_000_000)]
        lookups: usize,
        /// Compare every lookup with the reference implementation.
        #[arg(long)]
        check: bool,
    },
    /// Ternary classification of a ClassBench filter set, optionally over a trace.
    Classify {
        #[arg(long)]
        filters: PathBuf,
        #[arg(long)]
        trace: Option<PathBuf>,
        /// Compare every lookup with the linear reference.
        #[arg(long)]
        check: bool,
        /// Write the matched rule of each trace header (0-based line in the
        /// filter file, or -1) to this file, one per line, for comparison
        /// with other classifiers.
        #[arg(long)]
        matches: Option<PathBuf>,
    },
}

fn split_port_file(s: &str) -> Result<(String, PathBuf)> {
    let (p, f) = s
        .split_once('=')
        .with_context(|| format!("`{s}` is not PORT=FILE"))?;
    Ok((p.to_string(), PathBuf::from(f)))
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = dispatch(cli.cmd) {
        eprintln!("prism: {e:#}");
        std::process::exit(1);
    }
}

fn dispatch(cmd: Cmd) -> Result<()> {
    match cmd {
        Cmd::Demo {
            offline: false,
            json: false,
            seconds,
        } if prism_io::netns::have_privileges() => live::demo::main(seconds),
        Cmd::Node(args) => live::cli::node(&args),
        Cmd::Cleanup => live::cli::cleanup(),
        Cmd::Ctl(args) => live::ctl::run(&args),
        Cmd::BenchLive(args) => live::bench_live::run(&args),
        Cmd::BenchPeers(args) => peers::run(&args),
        Cmd::Swrouter {
            config,
            network,
            io,
        } => live::swrouter::run(&config, &network, io),
        Cmd::Demo { json, .. } => {
            if !prism_io::netns::have_privileges() {
                eprintln!(
                    "prism demo: not root, so no namespaces or raw sockets: running the same idea over in-memory ports (run as root for the live demo)"
                );
            }
            let d = demo::run()?;
            if json {
                println!("{}", serde_json::to_string_pretty(&d.result.counters)?);
            } else {
                println!(
                    "Prism demo: 5 virtual networks, 80 000 frames over 1 s of traffic time plus 500 that must be dropped, offline (in-memory ports)\n"
                );
                print!("{}", d.summary);
                println!();
                print!("{}", report::table(&d.result.counters));
                for (i, o) in d.result.outputs.iter().enumerate() {
                    println!(
                        "  port {:<7} sent {} frames",
                        d.port_names[i],
                        o.frames.len()
                    );
                }
            }
            if d.violations.is_empty() {
                eprintln!(
                    "isolation check: every output port carried only its own network's frames"
                );
                Ok(())
            } else {
                bail!("isolation check failed: {}", d.violations.join("; "))
            }
        }
        Cmd::Run {
            config,
            json,
            live: true,
            ..
        } => live::cli::node(&live::cli::NodeArgs::for_config(config, json)),
        Cmd::Run {
            config,
            pcap_in,
            pcap_out,
            json,
            live: false,
        } => run(&config, &pcap_in, &pcap_out, json),
        Cmd::Check { config } => {
            let text = std::fs::read_to_string(&config)
                .with_context(|| format!("reading {}", config.display()))?;
            let sc = scenario::load(&config.display().to_string(), &text)?;
            let hw = sc.substrate.hardware();
            println!(
                "{}: ok; device {}, {} ports, {}/{} hardware slots used",
                config.display(),
                hw.profile.name,
                sc.port_names.len(),
                usize::from(hw.profile.slots) - hw.free_slots(),
                hw.profile.slots
            );
            for (id, s) in sc.substrate.networks() {
                println!(
                    "  {:<12} {:<9} {:<20} slot {:?}",
                    s.name,
                    s.tier.as_str(),
                    s.forwarding.module().as_str(),
                    hw.slot_of(id)
                );
            }
            Ok(())
        }
        Cmd::Tables(TablesCmd::Lpm {
            prefixes,
            lookups,
            check,
        }) => tables_cmd::lpm(&prefixes, lookups, check),
        Cmd::Tables(TablesCmd::Classify {
            filters,
            trace,
            check,
            matches,
        }) => tables_cmd::classify(&filters, trace.as_deref(), check, matches.as_deref()),
        Cmd::Bench(args) => bench::run(&args),
        Cmd::Sim(SimCmd::Alloc(args)) => sim_cmd::alloc(&args),
        Cmd::Sim(SimCmd::Rmu(args)) => sim_rmu::rmu(&args),
        Cmd::Profiles => {
            for p in prism_pipeline::PROFILES {
                println!("{:<16} {}", p.name, p.description);
                println!(
                    "{:<16} slots {}, {} routes/slot, TCAM {} entries in slices of {}, {} mapping entries, reconfiguration {} ms partial / {} ms full, {} MHz",
                    "",
                    p.slots,
                    p.routes_per_slot,
                    p.tcam_entries,
                    p.tcam_slice,
                    p.mapping_entries,
                    p.partial_reconfig_ms,
                    p.full_reconfig_ms,
                    p.clock_mhz
                );
                println!("{:<16} sources: {}", "", p.assumptions);
            }
            Ok(())
        }
    }
}

fn run(
    config: &std::path::Path,
    pcap_in: &[String],
    pcap_out: &[String],
    json: bool,
) -> Result<()> {
    let text =
        std::fs::read_to_string(config).with_context(|| format!("reading {}", config.display()))?;
    let sc = scenario::load(&config.display().to_string(), &text)?;
    let mut input = Vec::new();
    let mut notes = Vec::new();
    for spec in pcap_in {
        let (port, file) = split_port_file(spec)?;
        let p = sc.port_index(&port).with_context(|| {
            format!(
                "--pcap-in {spec}: no port `{port}` (ports: {})",
                sc.port_names.join(", ")
            )
        })?;
        let (frames, stats) = prism_io::pcap::read_frames(&file)?;
        if stats.converted > 0 {
            notes.push(format!(
                "{}: {} frames given a synthetic Ethernet header (raw IP / Linux cooked capture)",
                file.display(),
                stats.converted
            ));
        }
        for (lt, n) in &stats.unsupported_link {
            notes.push(format!(
                "{}: {n} frames skipped: unsupported link type {lt}",
                file.display()
            ));
        }
        input.extend(frames.into_iter().map(|f| runner::InputFrame {
            port: p,
            timestamp_ns: f.timestamp_ns,
            data: f.data,
        }));
    }
    input.sort_by_key(|f| f.timestamp_ns);
    let mut writers = Vec::new();
    for spec in pcap_out {
        let (port, file) = split_port_file(spec)?;
        let p = sc.port_index(&port).with_context(|| {
            format!(
                "--pcap-out {spec}: no port `{port}` (ports: {})",
                sc.port_names.join(", ")
            )
        })?;
        writers.push((p, prism_io::pcap::FrameWriter::create(&file)?));
    }
    let result = runner::run(
        runner::pipeline_for(sc.substrate.handle()),
        &input,
        &sc.port_rates,
    );
    if result.oversized > 0 {
        notes.push(format!(
            "{} frames longer than {} bytes were refused at input",
            result.oversized,
            prism_pipeline::packet::MAX_FRAME
        ));
    }
    for (p, w) in &mut writers {
        for (t, f) in &result.outputs[usize::from(*p)].frames {
            w.write(*t, f)?;
        }
    }
    if json {
        let v = serde_json::json!({ "counters": result.counters, "notes": notes });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", report::table(&result.counters));
        for (i, o) in result.outputs.iter().enumerate() {
            println!(
                "  port {:<8} sent {} frames",
                sc.port_names[i],
                o.frames.len()
            );
        }
        for n in notes {
            println!("note: {n}");
        }
    }
    Ok(())
}
