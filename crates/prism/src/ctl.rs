//! `prism ctl`: the CLI as a client of a running node's API, through the
//! typed client (`prism_node_api::NodeClient`).

use crate::print;
use anyhow::{Context, Result, bail};
use prism_netdoc::NetworkDoc;
use prism_node_api::{Endpoint, NodeClient, RateLimitBody, RoutesBody, RulesBody, Tier, TierBody};
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct CtlArgs {
    /// The node's API socket (default /run/prism/node.sock, or
    /// /run/prism-INSTANCE/node.sock with --instance).
    #[arg(long)]
    pub socket: Option<PathBuf>,
    /// The node instance (`prism node --instance`) whose socket to use.
    #[arg(long, value_parser = prism_node::instance_name, conflicts_with = "socket")]
    pub instance: Option<String>,
    /// Talk to the node's TCP API at ADDR (host:port) instead of the socket.
    #[arg(long, value_name = "ADDR", requires = "credential_file")]
    pub tcp: Option<String>,
    /// The file holding the control plane's credential (with --tcp).
    #[arg(long, value_name = "FILE")]
    pub credential_file: Option<PathBuf>,
    #[command(flatten)]
    pub controller: crate::ctl_controller::Where,
    #[command(subcommand)]
    pub cmd: CtlCmd,
}

#[derive(clap::Subcommand, Debug)]
pub enum CtlCmd {
    /// List the networks.
    Networks,
    /// Print the node's counters (JSON).
    Counters,
    /// Set a network's rate limit (e.g. 10Mbit), or `none`.
    RateLimit { network: String, rate: String },
    /// Replace a network's routes with those in a JSON or TOML file, written
    /// as in a scenario file (`{"route": [{"prefix": "10.0.2.0/24", "action": {"port": "b"}}]}`).
    Routes { network: String, file: PathBuf },
    /// Replace a rules network's rule table with the one in a JSON or TOML
    /// file (`{"rule": [...], "default_action": {...}}`).
    Rules { network: String, file: PathBuf },
    /// Add a network defined in a JSON or TOML file (the fields of a
    /// scenario's `[[network]]` table, or one such table).
    Add { file: PathBuf },
    /// Replace a network's whole definition with the one in a file.
    Replace { network: String, file: PathBuf },
    /// Move a network to `hardware` or `software`.
    Tier { network: String, tier: String },
    /// Show one network and its definition.
    Show { network: String },
    /// Remove a network (and its container).
    Remove { network: String },
    /// The node's sockets and their statistics.
    Ports,
    /// The node: device, ports, I/O, workers, free hardware slots.
    Node,
    /// Trace the next packets of a network (or of any): each stage's
    /// decision, as VPP's `trace add` shows it.
    Trace(crate::ctl_observe::TraceArgs),
    /// Capture a network's next frames at ingress and egress to a pcapng file.
    Capture(crate::ctl_observe::CaptureArgs),
    /// The node's metrics, as Prometheus scrapes them (OpenMetrics text).
    Metrics,
    /// Load a hardware network's new module into its slot (a modelled
    /// reconfiguration: partial, fallback or full).
    Reconfigure(crate::ctl_reconfig::ReconfigureArgs),
    /// The node's event log: reconfigurations with modelled and measured
    /// durations.
    Events {
        /// Only events numbered above this one.
        #[arg(long, default_value_t = 0)]
        since: u64,
        #[arg(long)]
        json: bool,
    },
    /// The device's power per region and network (a model, never measured).
    Power {
        #[arg(long)]
        json: bool,
    },
    /// The node's processing nodes: converge them to the desired state in
    /// a JSON or TOML file (`{"generation": 1, "scope": "pp-", "nodes":
    /// [...]}`, `PUT /v1/processing`), or, without one, list them.
    Processing { file: Option<PathBuf> },
    /// Talk to the controller (login, bookings, usage, ...; docs/controller.md).
    #[command(flatten)]
    Controller(crate::ctl_controller::ControllerCmd),
}

/// A body from a spec file: JSON, or TOML (`.toml`) with the same fields.
pub fn read_body<T: serde::de::DeserializeOwned>(file: &Path) -> Result<T> {
    Ok(prism_netdoc::from_file(file)?)
}

pub fn run(a: &CtlArgs) -> Result<()> {
    if let CtlCmd::Controller(c) = &a.cmd {
        return crate::ctl_controller::run(&a.controller, c);
    }
    let endpoint = match (&a.tcp, &a.credential_file) {
        (Some(addr), Some(f)) => Endpoint::tcp_with_token_file(addr, f)?,
        _ => Endpoint::Unix(
            a.socket
                .clone()
                .unwrap_or_else(|| prism_node::default_socket(a.instance.as_deref())),
        ),
    };
    let client = NodeClient::new(endpoint);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(call(&client, &a.cmd))
}

async fn call(c: &NodeClient, cmd: &CtlCmd) -> Result<()> {
    match cmd {
        CtlCmd::Networks => print(&c.list_networks().await?),
        CtlCmd::Counters => print(&c.counters().await?),
        CtlCmd::Ports => print(&c.ports().await?),
        CtlCmd::Node => print(&c.node().await?),
        CtlCmd::Trace(a) => crate::ctl_observe::trace(c, a).await,
        CtlCmd::Capture(a) => crate::ctl_observe::capture(c, a).await,
        CtlCmd::Metrics => crate::ctl_observe::metrics(c).await,
        CtlCmd::Reconfigure(a) => {
            let d: NetworkDoc = read_body(&a.file)?;
            crate::ctl_reconfig::reconfigure(c, a, d).await
        }
        CtlCmd::Events { since, json } => crate::ctl_reconfig::events(c, *since, *json).await,
        CtlCmd::Power { json } => crate::ctl_reconfig::power(c, *json).await,
        CtlCmd::Show { network } => print(&c.get_network(network).await?),
        CtlCmd::RateLimit { network, rate } => {
            let b = RateLimitBody::parse(rate).map_err(anyhow::Error::msg)?;
            print(&c.set_rate_limit(network, &b).await?)
        }
        CtlCmd::Routes { network, file } => {
            let b: RoutesBody = read_body(file)?;
            print(&c.set_routes(network, &b).await?)
        }
        CtlCmd::Rules { network, file } => {
            let b: RulesBody = read_body(file)?;
            print(&c.set_rules(network, &b).await?)
        }
        CtlCmd::Add { file } => {
            let d: NetworkDoc = read_body(file)?;
            print(&c.add_network(&d).await?)
        }
        CtlCmd::Replace { network, file } => {
            let d: NetworkDoc = read_body(file)?;
            print(&c.replace_network(network, &d).await?)
        }
        CtlCmd::Tier { network, tier } => {
            let tier = Tier::parse(tier)
                .with_context(|| format!("`{tier}` is not a tier: hardware or software"))?;
            print(&c.set_tier(network, &TierBody { tier }).await?)
        }
        CtlCmd::Remove { network } => print(&c.remove_network(network).await?),
        CtlCmd::Processing { file: None } => print(&c.list_processing().await?),
        CtlCmd::Processing { file: Some(f) } => {
            let b: prism_node_api::ProcessingState = read_body(f)?;
            print(&c.put_processing(&b).await?)
        }
        CtlCmd::Controller(_) => bail!("a controller command reached the node client"),
    }
}
