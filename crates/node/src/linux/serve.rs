//! A whole node, started in-process: the live node on its interfaces
//! (`crate::linux::node::Node`) with its desired state restored from disk, its
//! API on a Unix socket and optionally on TCP with the control plane's
//! credential, and the heartbeat agent that registers it with a
//! controller. `prism node` is this plus argument parsing and a counters
//! table; the tests and the test bed start nodes with it too.
//!
//! In: a [`ServeConfig`] (the scenario's text, interface overrides, I/O,
//! listeners, the controller to join). Out: a running [`NodeServer`],
//! stopped by [`NodeServer::shutdown`] (or its stop flag, for signals).
//! Everything the config can get wrong (a port without an interface, an
//! unreadable key, a wildcard address the controller cannot reach) is
//! refused before anything is started.

use crate::agent::{AgentConfig, spawn_heartbeats};
use crate::api_server::{NodeApiServer, NodeFacts};
use crate::linux::IoSettings;
use crate::linux::node::Node;
use crate::linux::options::{NodeOptions, instance_options};
use crate::runtime::Generations;
use anyhow::{Context, Result, bail};
use prism_compile::{self as scenario, Scenario};
use prism_controller_api::ControllerClient;
use prism_http::NodeIdentity;
use prism_io::port::IoChoice;
use prism_io::xdp::XdpConfig;
use prism_node_api::{Credential, Endpoint, Listener};
use prism_pipeline::CounterSnapshot;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

mod setup;
use setup::{agent_config, node_identity, node_options, wan_info};

/// The node API's Unix socket when none is given (`prism ctl`'s default).
pub const DEFAULT_SOCKET: &str = "/run/prism/node.sock";

/// The node API's Unix socket of instance `instance` when none is given:
/// in the instance's own state directory, so instances on one machine
/// never take each other's socket.
pub fn default_socket(instance: Option<&str>) -> PathBuf {
    super::options::instance_options(instance)
        .state_dir
        .join("node.sock")
}

/// The controller a node joins.
#[derive(Debug, Clone)]
pub struct JoinController {
    /// `https://host:port` of `prism controller serve` (or `host:port`, in
    /// plain HTTP).
    pub controller: String,
    /// The CA that signed an `https://` controller's certificate (else the
    /// system's roots).
    pub ca: Option<PathBuf>,
    /// The node key (`prn_…`, `prism ctl node-key NAME`).
    pub key: String,
    /// The name the key was made for (default: the host's name, with the
    /// instance).
    pub name: Option<String>,
    /// Where the controller reaches this node's API (default: the TCP
    /// address bound, which must then not be a wildcard).
    pub advertise: Option<String>,
}

impl JoinController {
    /// Reads the node key from `file`, refusing what is not one.
    pub fn key_from_file(file: &std::path::Path) -> Result<String> {
        let key = std::fs::read_to_string(file)
            .with_context(|| format!("node key file {}", file.display()))?
            .trim()
            .to_string();
        if !key.starts_with("prn_") {
            bail!(
                "node key file {}: not a node key (they start `prn_`; `prism ctl node-key NAME` makes one)",
                file.display()
            );
        }
        Ok(key)
    }
}

/// Who may call the node's API on TCP.
#[derive(Debug, Clone)]
pub enum TcpAuth {
    /// Whoever holds the control plane's shared credential (plain HTTP).
    Credential(Credential),
    /// The controller only, in mutual TLS: the node serves with the
    /// certificate the controller's CA issues it at its first heartbeat
    /// (nothing before) and accepts only the controller's client
    /// certificate. Needs an `https://` controller to join.
    Certificate,
}

/// Everything a node is started with.
#[derive(Debug)]
pub struct ServeConfig {
    /// The scenario file's name (for errors) and its text.
    pub scenario_file: String,
    pub scenario_text: String,
    /// `PORT=IFACE` overrides of the scenario's interfaces.
    pub ifaces: Vec<String>,
    /// `PORT=IFACE`: the multi-receiver path's software interfaces.
    pub soft_ifaces: Vec<String>,
    pub io: IoChoice,
    pub workers: usize,
    pub cores: Vec<usize>,
    /// The API's Unix socket.
    pub api_socket: PathBuf,
    /// The API on TCP too, for the controller.
    pub api_tcp: Option<(SocketAddr, TcpAuth)>,
    /// Start from the scenario, forgetting the saved desired state.
    pub fresh: bool,
    pub reconfig_strategy: prism_pipeline::control::reconfig::Strategy,
    /// Names containers, links and the state directory apart (one or two
    /// of a-z), so several nodes run on one machine.
    pub instance: Option<String>,
    /// The controller to register with (needs `api_tcp`).
    pub join: Option<JoinController>,
    /// The executable whose `swrouter` command runs `prism` routers
    /// (`None`: this process's own).
    pub router_exe: Option<PathBuf>,
    /// Runs processing nodes, as hosts behind this port of the scenario
    /// (`PUT /v1/processing`; docs/processing.md).
    pub processing_port: Option<String>,
}

impl ServeConfig {
    /// A node on `scenario_text` with the defaults of `prism node`.
    pub fn new(scenario_file: impl Into<String>, scenario_text: impl Into<String>) -> Self {
        Self {
            scenario_file: scenario_file.into(),
            scenario_text: scenario_text.into(),
            ifaces: Vec::new(),
            soft_ifaces: Vec::new(),
            io: IoChoice::Auto,
            workers: 1,
            cores: Vec::new(),
            api_socket: PathBuf::from(DEFAULT_SOCKET),
            api_tcp: None,
            fresh: false,
            reconfig_strategy: Default::default(),
            instance: None,
            join: None,
            router_exe: None,
            processing_port: None,
        }
    }
}

/// A running node with its API.
#[derive(Debug)]
pub struct NodeServer {
    node: Option<Node>,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    /// Where the API listens on TCP (the address bound).
    pub tcp_address: Option<String>,
    pub api_socket: PathBuf,
    /// What the start did beyond the obvious, for the node's log.
    pub notes: Vec<String>,
    /// Ports and networks started with.
    pub ports: usize,
    pub networks: usize,
}

/// Starts a node (see [`NodeServer`]).
pub fn serve(cfg: ServeConfig) -> Result<NodeServer> {
    NodeServer::start(cfg)
}

impl NodeServer {
    pub fn start(cfg: ServeConfig) -> Result<NodeServer> {
        let (sc, restored) = load_desired(&cfg)?;
        let (ifaces, soft) = interfaces(&sc, &cfg)?;
        if cfg.join.is_some() && cfg.api_tcp.is_none() {
            bail!("joining a controller needs the API on TCP (--api-listen)");
        }
        let mut agent = agent_config(&cfg)?;
        let identity = node_identity(&cfg, agent.as_ref())?;
        if let Some(a) = agent.as_mut() {
            a.identity = identity.clone();
        }
        let opts = node_options(&cfg);
        let io = IoSettings {
            choice: cfg.io,
            xdp: XdpConfig::default(),
        };
        let facts = NodeFacts {
            software_interfaces: soft.iter().map(Option::is_some).collect(),
            io: cfg.io.as_str().to_string(),
            workers: cfg.workers.max(1),
            wan: wan_info(&sc),
            processing_port: setup::processing_port(&cfg, &sc)?,
        };
        let networks = sc.substrate.networks().count();
        let gateway = sc.wan.is_some();
        let mut node = Node::start(sc, &ifaces, &soft, &opts, io)?;
        node.notes
            .extend(super::node::nat_per_worker(cfg.workers, gateway));
        if cfg.fresh {
            crate::saved::forget(&opts.state_dir)?;
        }
        log_start(&mut node, restored);
        let mut server = NodeServer {
            notes: std::mem::take(&mut node.notes),
            node: Some(node),
            stop: Arc::new(AtomicBool::new(false)),
            threads: Vec::new(),
            tcp_address: None,
            api_socket: cfg.api_socket.clone(),
            ports: ifaces.len(),
            networks,
        };
        // On error from here, dropping `server` stops what was started.
        server.listen(&cfg, facts, identity)?;
        if let (Some(mut a), Some(at)) = (agent, &server.tcp_address) {
            if a.address.is_empty() {
                a.address = at.clone();
            }
            let t = spawn_heartbeats(a, server.stop.clone())?;
            server.threads.push(t);
        }
        Ok(server)
    }

    fn listen(
        &mut self,
        cfg: &ServeConfig,
        facts: NodeFacts,
        identity: Option<Arc<NodeIdentity>>,
    ) -> Result<()> {
        let node = self.node.as_ref().expect("a started server has its node");
        if let Some(dir) = cfg.api_socket.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let api = Arc::new(NodeApiServer {
            control: node.control.clone(),
            reports: node.reports.clone(),
            facts,
            taps: Some(node.taps.clone()),
        });
        let (_, t) = prism_node_api::spawn(
            Listener::Unix(cfg.api_socket.clone()),
            prism_node_api::router(api.clone()),
            self.stop.clone(),
        )
        .with_context(|| format!("API socket {}", cfg.api_socket.display()))?;
        self.threads.push(t);
        if let Some((addr, auth)) = &cfg.api_tcp {
            let (listener, how) = match (auth, identity) {
                (TcpAuth::Certificate, Some(id)) => (
                    Listener::Tls(*addr, id.tls(), refusals_to_log(node)),
                    "mutual TLS with the certificate the controller issues this node (none yet)",
                ),
                (TcpAuth::Credential(c), _) => (
                    Listener::Tcp(*addr, c.clone()),
                    "plain HTTP, the shared credential required",
                ),
                (TcpAuth::Certificate, None) => bail!("a node certificate needs a controller"),
            };
            let (at, t) =
                prism_node_api::spawn(listener, prism_node_api::router(api), self.stop.clone())
                    .with_context(|| format!("API on TCP {addr}"))?;
            self.notes.push(format!("API on TCP {at}: {how}"));
            self.threads.push(t);
            self.tcp_address = Some(at);
        }
        Ok(())
    }

    /// The live node (counters, events, port statistics).
    pub fn node(&self) -> &Node {
        self.node.as_ref().expect("a running server has its node")
    }

    /// Set it (from a signal handler, say) to have the API and the
    /// heartbeats stop; [`Self::shutdown`] then stops the node.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Stops the API, the heartbeats, the workers and the containers;
    /// returns the final counters.
    pub fn shutdown(mut self) -> Result<Option<CounterSnapshot>> {
        self.stop_threads();
        match self.node.take() {
            Some(n) => n.stop(),
            None => Ok(None),
        }
    }

    fn stop_threads(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for NodeServer {
    fn drop(&mut self) {
        self.stop_threads();
    }
}

/// Port `i`'s interface and software interface, the scenario's with the
/// overrides applied; every port must have an interface.
fn interfaces(sc: &Scenario, cfg: &ServeConfig) -> Result<(Vec<String>, Vec<Option<String>>)> {
    let mut ifaces = sc.interfaces.clone();
    override_ports(sc, &mut ifaces, &cfg.ifaces, "--iface")?;
    let mut soft = sc.software_interfaces.clone();
    override_ports(sc, &mut soft, &cfg.soft_ifaces, "--soft-iface")?;
    let ifaces = ifaces
        .into_iter()
        .zip(&sc.port_names)
        .map(|(i, p)| {
            i.with_context(|| {
                format!(
                    "{}: port `{p}` has no `interface` (or give --iface {p}=IFACE)",
                    cfg.scenario_file
                )
            })
        })
        .collect::<Result<_>>()?;
    Ok((ifaces, soft))
}

/// Applies `PORT=IFACE` overrides to a per-port list.
fn override_ports(
    sc: &Scenario,
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

/// The generations restored from a saved state, if any, and where the
/// node's event log says it started from.
fn log_start(node: &mut Node, restored: Option<(Generations, String)>) {
    let from = match restored {
        Some((generations, note)) => {
            if let Ok(mut c) = node.control.lock() {
                c.restore_generations(generations);
            }
            node.notes.insert(0, note);
            "restored from its saved state"
        }
        None => "from its configuration",
    };
    if let Ok(mut c) = node.control.lock() {
        c.log_start(from);
    }
}

/// The scenario to start from: the saved desired state's networks when
/// the scenario is the one they were saved with (and not `fresh`), else
/// the scenario's own; with the restored generations and a note.
fn load_desired(cfg: &ServeConfig) -> Result<(Scenario, Option<(Generations, String)>)> {
    let (file, text) = (cfg.scenario_file.as_str(), cfg.scenario_text.as_str());
    let dir = instance_options(cfg.instance.as_deref()).state_dir;
    if cfg.fresh {
        // Forgotten once this node holds the state directory.
        return Ok((scenario::load(file, text)?, None));
    }
    match crate::saved::load(&dir) {
        Ok(Some(s)) if s.scenario_text == text => {
            let n = s.networks.len();
            let sc = scenario::load_with_networks(file, text, s.networks)?;
            let note = format!(
                "restored the desired state of generation {} ({n} networks{}) from {} (--fresh starts from the scenario)",
                s.generation,
                match s.desired_generation {
                    0 => String::new(),
                    g => format!(", the controller's generation {g}"),
                },
                crate::saved::path(&dir).display()
            );
            let g = Generations {
                changes: s.generation,
                desired: s.desired_generation,
            };
            Ok((sc, Some((g, note))))
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

/// Refused TLS handshakes on the node's API, into the node's log (what
/// [`Node::take_events`] hands the log next).
fn refusals_to_log(node: &Node) -> prism_node_api::Refusals {
    let control = node.control.clone();
    prism_node_api::Refusals::new(move |line| {
        if let Ok(mut c) = control.lock() {
            c.events.push(line);
        }
    })
}
