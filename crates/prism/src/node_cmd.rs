//! `prism node` and `prism cleanup`.

use anyhow::{Context, Result};
use prism_io::port::IoChoice;
use prism_io::xdp::XdpConfig;
use prism_netdoc as scenario;
use prism_node::{IoSettings, Node, NodeFacts, NodeOptions, NodeService};
use prism_node_api::{Credential, Listener};
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Container namespaces and cgroups of `prism node` start with this.
pub const NS_PREFIX: &str = "prism-c";
/// Root-namespace ends of container veths start with this.
pub const LINK_PREFIX: &str = "pc";

#[derive(clap::Args, Debug)]
pub struct NodeArgs {
    /// Scenario file (TOML; ports name their `interface`).
    #[arg(long)]
    pub config: PathBuf,
    /// PORT=IFACE: attach PORT to IFACE (overrides the scenario). Repeatable.
    #[arg(long = "iface", value_name = "PORT=IFACE")]
    pub iface: Vec<String>,
    /// PORT=IFACE: software networks' traffic for PORT enters on IFACE,
    /// straight into their routers (multi-receiver path). Repeatable.
    #[arg(long = "soft-iface", value_name = "PORT=IFACE")]
    pub soft_iface: Vec<String>,
    /// Socket family: auto (AF_XDP where it works, else AF_PACKET), xdp, packet.
    #[arg(long, default_value = "auto")]
    pub io: IoChoice,
    /// Polling threads.
    #[arg(long, default_value_t = 1)]
    pub workers: usize,
    /// Cores to pin the workers to, comma-separated (default: not pinned).
    #[arg(long, value_delimiter = ',')]
    pub cores: Vec<usize>,
    /// Stop after this many seconds (default: run until Ctrl-C).
    #[arg(long)]
    pub seconds: Option<u64>,
    /// Print counters as JSON every second instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Unix socket of the node API (`prism ctl`; docs/api/node.json).
    #[arg(long, default_value = crate::ctl::DEFAULT_SOCKET)]
    pub api: PathBuf,
    /// Also serve the API on TCP at ADDR (e.g. 127.0.0.1:7700), for the
    /// control plane; every request must carry the credential.
    #[arg(long, value_name = "ADDR", requires = "api_credential_file")]
    pub api_listen: Option<std::net::SocketAddr>,
    /// Start from the scenario, forgetting the networks the API changed
    /// before (by default a node restores them when its scenario file is
    /// unchanged; see docs/live.md).
    #[arg(long)]
    pub fresh: bool,
    /// File holding the control plane's credential (a secret of at least
    /// 32 characters, e.g. `openssl rand -hex 32`), required with --api-listen.
    #[arg(long, value_name = "FILE")]
    pub api_credential_file: Option<PathBuf>,
    /// How a hardware network's module is changed when a request does not
    /// say: partial (paper 000: its slot is dark for the modelled load),
    /// fallback (served by software meanwhile: nothing lost) or full
    /// (paper 003: the whole device is reprogrammed).
    #[arg(long, default_value = "fallback")]
    pub reconfig_strategy: prism_pipeline::reconfig::Strategy,
    /// Run beside other nodes on this machine: names its containers,
    /// links and state directory (/run/prism-INSTANCE) apart. One or two
    /// letters.
    #[arg(long, value_parser = instance_name)]
    pub instance: Option<String>,
    /// Register with the controller at HOST:PORT and send it heartbeats
    /// (`prism controller serve`; docs/controller.md). Needs --api-listen.
    #[arg(long, value_name = "HOST:PORT", requires_all = ["controller_key_file", "api_listen"])]
    pub controller: Option<String>,
    /// File holding this node's key (`prism ctl node-key NAME`).
    #[arg(long, value_name = "FILE", requires = "controller")]
    pub controller_key_file: Option<PathBuf>,
    /// The name to register under: the one the key was made for
    /// (default: the host's name, with the instance).
    #[arg(long, requires = "controller")]
    pub node_name: Option<String>,
    /// Where the controller reaches this node's API (default: the
    /// --api-listen address, which must then not be a wildcard).
    #[arg(long, value_name = "HOST:PORT", requires = "controller")]
    pub advertise: Option<String>,
}

fn instance_name(s: &str) -> Result<String, String> {
    // Letters only: names end in a network's number, which must not be
    // read as part of the instance.
    if (1..=2).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_lowercase()) {
        Ok(s.to_string())
    } else {
        Err("one or two of a-z (it goes into 15-byte interface names)".into())
    }
}

impl NodeArgs {
    /// The defaults of `prism node --config FILE` (for `prism run --live`).
    pub fn for_config(config: PathBuf, json: bool) -> Self {
        Self {
            config,
            iface: Vec::new(),
            soft_iface: Vec::new(),
            io: IoChoice::Auto,
            workers: 1,
            cores: Vec::new(),
            seconds: None,
            json,
            api: PathBuf::from(crate::ctl::DEFAULT_SOCKET),
            api_listen: None,
            api_credential_file: None,
            instance: None,
            controller: None,
            controller_key_file: None,
            node_name: None,
            advertise: None,
            fresh: false,
            reconfig_strategy: Default::default(),
        }
    }
}

/// Applies `PORT=IFACE` overrides to a per-port list.
fn override_ports(
    sc: &scenario::Scenario,
    list: &mut [Option<String>],
    specs: &[String],
    flag: &str,
) -> Result<()> {
    for spec in specs {
        let (p, i) = spec
            .split_once('=')
            .with_context(|| format!("{flag} {spec}: not PORT=IFACE"))?;
        let idx = sc.port_index(p).with_context(|| {
            format!(
                "{flag} {spec}: no port `{p}` (ports: {})",
                sc.port_names.join(", ")
            )
        })?;
        list[usize::from(idx)] = Some(i.to_string());
    }
    Ok(())
}

pub fn node(a: &NodeArgs) -> Result<()> {
    let text = std::fs::read_to_string(&a.config)
        .with_context(|| format!("reading {}", a.config.display()))?;
    let file = a.config.display().to_string();
    let (sc, restored) = load_desired(a, &file, &text)?;
    let mut ifaces = sc.interfaces.clone();
    override_ports(&sc, &mut ifaces, &a.iface, "--iface")?;
    let mut soft = sc.software_interfaces.clone();
    override_ports(&sc, &mut soft, &a.soft_iface, "--soft-iface")?;
    let ifaces: Vec<String> = ifaces
        .into_iter()
        .zip(&sc.port_names)
        .map(|(i, p)| {
            i.with_context(|| {
                format!(
                    "{}: port `{p}` has no `interface` (or give --iface {p}=IFACE)",
                    a.config.display()
                )
            })
        })
        .collect::<Result<_>>()?;
    let stop = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGINT, stop.clone())?;
    signal_hook::flag::register(signal_hook::consts::SIGTERM, stop.clone())?;
    let mut opts = node_options(a.workers, a.cores.clone(), a.instance.as_deref());
    opts.persist = Some(text.clone());
    opts.reconfig_strategy = a.reconfig_strategy;
    let io = IoSettings {
        choice: a.io,
        xdp: XdpConfig::default(),
    };
    // The credential is read (and refused) before anything is started.
    let credential = a
        .api_credential_file
        .as_deref()
        .map(Credential::from_file)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let agent = agent_config(a)?;
    let networks = sc.substrate.networks().count();
    let facts = NodeFacts {
        software_interfaces: soft.iter().map(Option::is_some).collect(),
        io: a.io.as_str().to_string(),
        workers: a.workers.max(1),
    };
    let mut node = Node::start(sc, &ifaces, &soft, &opts, io)?;
    if a.fresh {
        prism_node::saved::forget(&opts.state_dir)?;
    }
    if let Some((generation, note)) = restored {
        if let Ok(mut c) = node.control.lock() {
            c.restore_generation(generation);
        }
        node.notes.insert(0, note);
    }
    if let Some(dir) = a.api.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let service = std::sync::Arc::new(NodeService {
        control: node.control.clone(),
        reports: node.reports.clone(),
        facts,
        taps: Some(node.taps.clone()),
    });
    let mut apis = Vec::new();
    let (_, t) = prism_node_api::spawn(
        Listener::Unix(a.api.clone()),
        prism_node_api::router(service.clone()),
        stop.clone(),
    )
    .with_context(|| format!("API socket {}", a.api.display()))?;
    apis.push(t);
    let mut tcp_at = None;
    if let (Some(addr), Some(cred)) = (a.api_listen, credential) {
        let (at, t) = prism_node_api::spawn(
            Listener::Tcp(addr, cred),
            prism_node_api::router(service),
            stop.clone(),
        )
        .with_context(|| format!("API on TCP {addr}"))?;
        apis.push(t);
        tcp_at = Some(at);
    }
    if let (Some(mut cfg), Some(at)) = (agent, &tcp_at) {
        if cfg.address.is_empty() {
            cfg.address = at.clone();
        }
        apis.push(prism_controller::spawn_heartbeats(cfg, stop.clone())?);
    }
    eprintln!(
        "prism node: {} ports, {} networks, {} worker(s); Ctrl-C stops and removes the containers",
        ifaces.len(),
        networks,
        a.workers.max(1)
    );
    eprintln!("  API on {}", a.api.display());
    if let Some(at) = &tcp_at {
        eprintln!("  API on TCP {at} (bearer credential required)");
    }
    for n in &node.notes {
        eprintln!("  {n}");
    }
    let started = std::time::Instant::now();
    while !stop.load(Ordering::Relaxed)
        && a.seconds
            .is_none_or(|s| started.elapsed() < Duration::from_secs(s))
    {
        std::thread::sleep(Duration::from_secs(1));
        for e in node.take_events() {
            eprintln!("  {e}");
        }
        if let Some(c) = node.counters() {
            // A closed stdout stops the printing, not the node.
            let text = if a.json {
                format!("{}\n", serde_json::to_string(&c)?)
            } else {
                prism_node::report::table(&c)
            };
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        }
    }
    for p in node.port_stats() {
        if p.stats.rx_ring_drops > 0 || p.stats.tx_errors > 0 {
            eprintln!(
                "  {} ({}): {} frames lost on receive, {} refused on transmit",
                p.name, p.io, p.stats.rx_ring_drops, p.stats.tx_errors
            );
        }
    }
    stop.store(true, Ordering::Relaxed);
    for t in apis {
        let _ = t.join();
    }
    let c = node.stop()?;
    if let Some(c) = c {
        let _ = writeln!(std::io::stdout(), "{}", serde_json::to_string_pretty(&c)?);
    }
    Ok(())
}

/// The heartbeat thread's settings, read (and refused) before anything
/// starts; the address is filled in once the API listens.
fn agent_config(a: &NodeArgs) -> Result<Option<prism_controller::AgentConfig>> {
    let (Some(controller), Some(file)) = (&a.controller, &a.controller_key_file) else {
        return Ok(None);
    };
    let key = std::fs::read_to_string(file)
        .with_context(|| format!("node key file {}", file.display()))?
        .trim()
        .to_string();
    if !key.starts_with("prn_") {
        anyhow::bail!(
            "node key file {}: not a node key (they start `prn_`; `prism ctl node-key NAME` makes one)",
            file.display()
        );
    }
    let name = match &a.node_name {
        Some(n) => n.clone(),
        None => {
            let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
                .unwrap_or_else(|_| "node".into());
            match &a.instance {
                Some(i) => format!("{}-{i}", host.trim()),
                None => host.trim().to_string(),
            }
        }
    };
    let address = match (&a.advertise, a.api_listen) {
        (Some(x), _) => x.clone(),
        (None, Some(l)) if l.ip().is_unspecified() => anyhow::bail!(
            "--api-listen {l} is a wildcard: give --advertise HOST:PORT, where the controller reaches this node"
        ),
        // The address bound, once the API listens.
        _ => String::new(),
    };
    Ok(Some(prism_controller::AgentConfig {
        controller: controller.clone(),
        key,
        name,
        address,
        hw_mbps: None,
        sw_mbps: None,
        local: prism_node_api::Endpoint::Unix(a.api.clone()),
    }))
}

/// The scenario to start from: the saved desired state's networks when
/// the scenario file is the one they were saved with (and not `--fresh`),
/// else the file's own. Also the restored generation, with a note.
fn load_desired(
    a: &NodeArgs,
    file: &str,
    text: &str,
) -> Result<(scenario::Scenario, Option<(u64, String)>)> {
    let dir = node_options(1, Vec::new(), a.instance.as_deref()).state_dir;
    if a.fresh {
        // Forgotten once this node holds the state directory.
        return Ok((scenario::load(file, text)?, None));
    }
    match prism_node::saved::load(&dir) {
        Ok(Some(s)) if s.scenario_text == text => {
            let n = s.networks.len();
            let sc = scenario::load_with_networks(file, text, s.networks)?;
            let note = format!(
                "restored the desired state of generation {} ({n} networks) from {} (--fresh starts from the scenario)",
                s.generation,
                prism_node::saved::path(&dir).display()
            );
            Ok((sc, Some((s.generation, note))))
        }
        Ok(Some(_)) => {
            eprintln!(
                "prism node: {file} changed since the saved desired state; starting from the scenario"
            );
            Ok((scenario::load(file, text)?, None))
        }
        Ok(None) => Ok((scenario::load(file, text)?, None)),
        Err(e) => {
            eprintln!("prism node: {e}; starting from the scenario");
            Ok((scenario::load(file, text)?, None))
        }
    }
}

/// The names and state directory of `prism node`.
fn node_options(workers: usize, cores: Vec<usize>, instance: Option<&str>) -> NodeOptions {
    let i = instance.unwrap_or("");
    NodeOptions {
        workers,
        cores,
        ns_prefix: format!("{NS_PREFIX}{i}"),
        link_prefix: format!("{LINK_PREFIX}{i}"),
        state_dir: match instance {
            Some(i) => PathBuf::from(format!("/run/prism-{i}")),
            None => PathBuf::from("/run/prism"),
        },
        persist: None,
        router_exe: None,
        reconfig_strategy: Default::default(),
    }
}

/// Removes what dead nodes (`prism node`, the demo, the benchmarks) left;
/// a running one's things are left alone, and it is named.
pub fn cleanup() -> Result<()> {
    let mut total = 0;
    let mut running = Vec::new();
    for (opts, hosts) in [
        (node_options(1, Vec::new(), None), false),
        (prism_testbed::hosts::demo_options(), true),
    ] {
        let r = match prism_node::node::cleanup_instance(&opts) {
            Ok(r) => r,
            Err(e) => {
                running.push(format!("{e:#}"));
                continue;
            }
        };
        for n in &r.report.namespaces {
            println!("removed namespace {n}");
        }
        for l in &r.report.links {
            println!("removed link {l}");
        }
        for g in &r.report.cgroups {
            println!("removed cgroup {g}");
        }
        for f in &r.files {
            println!("removed file {}", f.display());
        }
        total += r.report.namespaces.len()
            + r.report.links.len()
            + r.report.cgroups.len()
            + r.files.len();
        if hosts {
            // The demo's test hosts belong to the demo's (dead) instance.
            let h = prism_io::container::cleanup(
                prism_testbed::hosts::HOST_PREFIX,
                prism_testbed::hosts::LINK_PREFIX,
            )?;
            for n in &h.namespaces {
                println!("removed namespace {n}");
            }
            total += h.namespaces.len() + h.links.len();
        }
    }
    println!("prism cleanup: {total} objects removed");
    for r in running {
        println!("left alone: {r}");
    }
    Ok(())
}
