//! The `prism` command: parses the command line and hands each command to
//! its file here, or to the libraries (node, test bed) that do the work.

mod check_cmd;
mod controller_cmd;
mod ctl;
mod ctl_book;
mod ctl_controller;
mod ctl_image;
mod ctl_observe;
mod ctl_reconfig;
mod demo_cmd;
mod node_cmd;
mod profiles_cmd;
mod run_cmd;

use anyhow::Result;
use clap::{Parser, Subcommand};
use prism_lab::experiments;
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
        /// The controller demo instead (root): a controller and two nodes in their
        /// own namespaces; networks booked on both carry traffic, then released.
        #[arg(long, conflicts_with = "offline")]
        controller: bool,
        /// With --controller: left running with traffic for the web portal (docs/portal.md).
        #[arg(long, requires = "controller")]
        portal: bool,
        /// With --controller: node 2's management link dropped for SECONDS
        /// under traffic (it goes on forwarding, the controller marks it
        /// down, and it converges once back; docs/controller.md).
        #[arg(long, value_name = "SECONDS", requires = "controller")]
        cut: Option<u64>,
        /// The wide-area demo instead (root): a controller and three nodes
        /// whose WAN ports share one bridge; networks spanning the nodes,
        /// traffic between every pair counted at the receiving host,
        /// experiments on the same addresses kept apart, an outsider's
        /// frames dropped (docs/wan.md).
        #[arg(long, conflicts_with_all = ["offline", "controller"])]
        wan: bool,
        /// With --wan: also VANI Table 2 (five experiments' rates across one
        /// WAN port, measured at the receiving host).
        #[arg(long, requires = "wan")]
        rates: bool,
        /// VANI Table 2 with processing nodes instead (root; the base
        /// image): five experiments, each a pair of containers across node
        /// 1's one shaped WAN link, iperf3 UDP and TCP without and with the
        /// bookings' rate limits (docs/processing.md).
        #[arg(long, conflicts_with_all = ["offline", "controller", "wan"])]
        processing: bool,
        /// With --processing: instead of the table, run this Jupyter
        /// notebook (examples/experiment.ipynb) against the testbed with
        /// nbclient, as a researcher's (needs a Python with Prism's SDK,
        /// nbclient, ipykernel and matplotlib: $PRISM_SDK_PYTHON, or
        /// target/sdk-venv from scripts/ensure-sdk.sh).
        #[arg(long, value_name = "FILE", requires = "processing")]
        notebook: Option<std::path::PathBuf>,
    },
    /// Run a scenario live on Linux interfaces until Ctrl-C.
    Node(node_cmd::NodeArgs),
    /// Forwarding rate and latency over veth per RFC 2544 size: hardware
    /// tier, software tier (prism and kernel routers), Linux forwarding.
    BenchLive(prism_lab::bench::live::BenchLiveArgs),
    /// The controller's bookings per second, read latency with many active
    /// leases and reaper pass time, on a database of its own.
    BenchController(prism_lab::bench::controller::BenchControllerArgs),
    /// The papers' reconfiguration and power experiments, Prism's figures
    /// beside theirs (docs/experiments/live-reconfiguration.md).
    #[command(subcommand)]
    Experiment(experiments::paper000::Experiment),
    /// Talk to a running node through its API (docs/api/node.json).
    Ctl(ctl::CtlArgs),
    /// The control and management plane: users, projects, leases of
    /// networks on nodes, quotas, accounting (docs/controller.md).
    #[command(subcommand)]
    Controller(controller_cmd::ControllerCmd),
    /// Remove every namespace, link and cgroup a killed Prism left behind
    /// (or only one node instance's).
    Cleanup {
        /// Only what node instance INSTANCE (`prism node --instance`) left.
        #[arg(long, value_parser = prism_node::instance_name)]
        instance: Option<String>,
    },
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
    Tables(prism_lab::bench::tables::TablesCmd),
    /// Measure the pipeline and tables (Mpps, ns and cycles per packet).
    Bench(prism_lab::bench::BenchArgs),
    /// List the built-in device profiles.
    Profiles,
    /// Simulators of the papers' experiments.
    #[command(subcommand)]
    Sim(SimCmd),
}

#[derive(Subcommand)]
enum SimCmd {
    /// Network allocation between tiers (paper 000 §5.4, Fig. 10).
    Alloc(experiments::alloc::AllocArgs),
    /// Reconfiguration managers of the multi-service edge router (paper 004).
    Rmu(experiments::rmu::RmuArgs),
}

fn main() {
    let cli = Cli::parse();
    // Commands that hold no containers or sockets end quietly when their
    // reader goes away (`prism sim rmu | head -3`); the others write
    // without panicking and clean up.
    if !matches!(
        cli.cmd,
        Cmd::Node(_)
            | Cmd::Demo { .. }
            | Cmd::BenchLive(_)
            | Cmd::Experiment(_)
            | Cmd::Swrouter { .. }
            | Cmd::Run { live: true, .. }
    ) {
        prism_io::sys::default_sigpipe();
    }
    if let Err(e) = dispatch(cli.cmd) {
        eprintln!("prism: {e:#}");
        std::process::exit(1);
    }
}

fn dispatch(cmd: Cmd) -> Result<()> {
    match cmd {
        demo @ Cmd::Demo { .. } => dispatch_demo(demo),
        Cmd::Node(args) => node_cmd::node(&args),
        Cmd::Cleanup { instance } => node_cmd::cleanup(instance.as_deref()),
        Cmd::Ctl(args) => ctl::run(&args),
        Cmd::Controller(c) => controller_cmd::run(&c),
        Cmd::Experiment(e) => experiments::paper000::run(e),
        Cmd::BenchLive(args) => prism_lab::bench::live::run(&args),
        Cmd::BenchController(args) => prism_lab::bench::controller::run(&args),
        Cmd::Swrouter {
            config,
            network,
            io,
        } => prism_node::swrouter::run(&config, &network, io),
        Cmd::Run {
            config,
            json,
            live: true,
            ..
        } => node_cmd::node(&node_cmd::NodeArgs::for_config(config, json)),
        Cmd::Run {
            config,
            pcap_in,
            pcap_out,
            json,
            live: false,
        } => run_cmd::run(&config, &pcap_in, &pcap_out, json),
        Cmd::Check { config } => check_cmd::run(&config),
        Cmd::Tables(tables) => prism_lab::bench::tables::run(tables),
        Cmd::Bench(args) => prism_lab::bench::run(&args),
        Cmd::Sim(SimCmd::Alloc(args)) => experiments::alloc::alloc(&args),
        Cmd::Sim(SimCmd::Rmu(args)) => experiments::rmu::rmu(&args),
        Cmd::Profiles => profiles_cmd::run(),
    }
}

/// `prism demo`: on one node, across three (`--wan`), or booked through a
/// controller (`--controller`).
fn dispatch_demo(cmd: Cmd) -> Result<()> {
    match cmd {
        Cmd::Demo {
            controller: true,
            portal,
            cut,
            ..
        } => prism_lab::demo::controller::main(&std::env::current_exe()?, portal, cut),
        Cmd::Demo {
            wan: true, rates, ..
        } => prism_lab::wan::demo::main(&std::env::current_exe()?, rates),
        Cmd::Demo {
            processing: true,
            notebook,
            ..
        } => prism_lab::processing::demo::main(&std::env::current_exe()?, notebook.as_deref()),
        Cmd::Demo {
            json,
            offline,
            seconds,
            ..
        } => demo_cmd::run(json, offline, seconds),
        _ => Ok(()),
    }
}

/// An answer as `prism ctl` prints it: pretty JSON.
fn print(v: &impl serde::Serialize) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(v)?);
    Ok(())
}
