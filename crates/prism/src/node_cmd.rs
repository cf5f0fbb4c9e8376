//! `prism node` and `prism cleanup`.

use anyhow::{Context, Result};
use prism_io::port::IoChoice;
use prism_node::{JoinController, ServeConfig, TcpAuth};
use prism_node_api::Credential;
use std::path::PathBuf;

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
    /// Unix socket of the node API (`prism ctl`; docs/api/node.json);
    /// default /run/prism/node.sock, or /run/prism-INSTANCE/node.sock
    /// with --instance.
    #[arg(long)]
    pub api: Option<PathBuf>,
    /// Also serve the API on TCP at ADDR (e.g. 127.0.0.1:7700), for the
    /// control plane: in mutual TLS with the certificate an https://
    /// --controller issues this node, or in plain HTTP with
    /// --api-credential-file.
    #[arg(long, value_name = "ADDR")]
    pub api_listen: Option<std::net::SocketAddr>,
    /// Start from the scenario, forgetting the networks the API changed
    /// before (by default a node restores them when its scenario file is
    /// unchanged; see docs/live.md).
    #[arg(long)]
    pub fresh: bool,
    /// File holding the control plane's shared credential (a secret of at
    /// least 32 characters, e.g. `openssl rand -hex 32`): the API on TCP
    /// in plain HTTP for whoever holds it, instead of node certificates.
    #[arg(long, value_name = "FILE")]
    pub api_credential_file: Option<PathBuf>,
    /// How a hardware network's module is changed when a request does not
    /// say: partial (paper 000: its slot is dark for the modelled load),
    /// fallback (served by software meanwhile: nothing lost) or full
    /// (paper 003: the whole device is reprogrammed).
    #[arg(long, default_value = "fallback")]
    pub reconfig_strategy: prism_pipeline::control::reconfig::Strategy,
    /// Run beside other nodes on this machine: names its containers,
    /// links and state directory (/run/prism-INSTANCE) apart. One or two
    /// letters.
    #[arg(long, value_parser = prism_node::instance_name)]
    pub instance: Option<String>,
    /// Register with the controller at https://HOST:PORT (or HOST:PORT in
    /// plain HTTP) and send it heartbeats (`prism controller serve`;
    /// docs/controller.md). Needs --api-listen.
    #[arg(long, value_name = "ADDR", requires_all = ["controller_key_file", "api_listen"])]
    pub controller: Option<String>,
    /// The CA that signed an https:// controller's certificate (PEM;
    /// default: the system's roots).
    #[arg(long, value_name = "FILE", requires = "controller")]
    pub controller_ca: Option<PathBuf>,
    /// File holding this node's key (`prism ctl node-key NAME`).
    #[arg(long, value_name = "FILE", requires = "controller")]
    pub controller_key_file: Option<PathBuf>,
    /// The name to register under: the one the key was made for
    /// (default: the host's name, with the instance).
    #[arg(long, requires = "controller")]
    pub node_name: Option<String>,
    /// Run processing nodes (containers from images, booked as
    /// `--type processing`; docs/processing.md) as hosts behind PORT, a
    /// port of the scenario (its interface may be a veth whose peer
    /// nothing uses). Needs runc, umoci, tini and containers-common.
    #[arg(long, value_name = "PORT")]
    pub processing_port: Option<String>,
    /// Where the controller reaches this node's API (default: the
    /// --api-listen address, which must then not be a wildcard).
    #[arg(long, value_name = "HOST:PORT", requires = "controller")]
    pub advertise: Option<String>,
}

impl NodeArgs {
    /// The defaults of `prism node --config FILE` (for `prism run --live`).
    pub fn for_config(config: PathBuf, json: bool) -> Self {
        #[derive(clap::Parser)]
        struct Only {
            #[command(flatten)]
            node: NodeArgs,
        }
        let mut a = <Only as clap::Parser>::parse_from(["node", "--config", ""]).node;
        (a.config, a.json) = (config, json);
        a
    }
}

impl NodeArgs {
    /// What the library starts: the files read (and refused) here.
    fn serve_config(&self) -> Result<ServeConfig> {
        let text = std::fs::read_to_string(&self.config)
            .with_context(|| format!("reading {}", self.config.display()))?;
        let mut cfg = ServeConfig::new(self.config.display().to_string(), text);
        cfg.ifaces = self.iface.clone();
        cfg.soft_ifaces = self.soft_iface.clone();
        cfg.io = self.io;
        cfg.workers = self.workers;
        cfg.cores = self.cores.clone();
        cfg.api_socket = self
            .api
            .clone()
            .unwrap_or_else(|| prism_node::default_socket(self.instance.as_deref()));
        cfg.fresh = self.fresh;
        cfg.reconfig_strategy = self.reconfig_strategy;
        cfg.instance = self.instance.clone();
        cfg.processing_port = self.processing_port.clone();
        if let Some(addr) = self.api_listen {
            let auth = match &self.api_credential_file {
                Some(file) => {
                    TcpAuth::Credential(Credential::from_file(file).map_err(anyhow::Error::msg)?)
                }
                None => TcpAuth::Certificate,
            };
            cfg.api_tcp = Some((addr, auth));
        }
        if let (Some(controller), Some(file)) = (&self.controller, &self.controller_key_file) {
            cfg.join = Some(JoinController {
                controller: controller.clone(),
                ca: self.controller_ca.clone(),
                key: JoinController::key_from_file(file)?,
                name: self.node_name.clone(),
                advertise: self.advertise.clone(),
            });
        }
        Ok(cfg)
    }
}

pub fn node(a: &NodeArgs) -> Result<()> {
    let server = prism_node::serve(a.serve_config()?)?;
    let stop = server.stop_flag();
    signal_hook::flag::register(signal_hook::consts::SIGINT, stop.clone())?;
    signal_hook::flag::register(signal_hook::consts::SIGTERM, stop.clone())?;
    eprintln!(
        "prism node: {} ports, {} networks, {} worker(s); Ctrl-C stops and removes the containers",
        server.ports,
        server.networks,
        a.workers.max(1)
    );
    eprintln!("  API on {}", server.api_socket.display());
    for n in &server.notes {
        eprintln!("  {n}");
    }
    prism_node::foreground::report_until(server, &stop, a.seconds, a.json)
}

/// Removes what dead nodes (`prism node`, the demo, the benchmarks) left,
/// or only instance `instance`'s; a running one's things are left alone,
/// and it is named.
pub fn cleanup(instance: Option<&str>) -> Result<()> {
    let c = match instance {
        Some(i) => prism_node::cleanup::instance(Some(i))?,
        None => prism_node::cleanup::everything([prism_lab::demo::hosts::demo_leftovers()])?,
    };
    println!("{}", c.report());
    Ok(())
}
