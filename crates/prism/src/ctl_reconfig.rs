//! `prism ctl reconfigure`, `events` and `power`: a hardware network's
//! slot loaded with another module, the node's event log, and the device's
//! modelled power.

use anyhow::{Result, bail};
use prism_netdoc::NetworkDoc;
use prism_node_api::{EventKind, NodeClient, ReconfigureBody};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct ReconfigureArgs {
    pub network: String,
    /// The network's new definition (JSON or TOML, as `ctl replace`),
    /// usually with another `forwarding` mode.
    pub file: PathBuf,
    /// partial, fallback or full (default: the node's).
    #[arg(long)]
    pub strategy: Option<prism_pipeline::control::reconfig::Strategy>,
    /// Wait until it is done and print its events.
    #[arg(long)]
    pub wait: bool,
}

/// `definition`: the file's document, read by the caller.
pub async fn reconfigure(
    c: &NodeClient,
    a: &ReconfigureArgs,
    definition: NetworkDoc,
) -> Result<()> {
    let body = ReconfigureBody {
        definition,
        strategy: a.strategy.map(prism_node::api_views::strategy_name),
    };
    let started = c.reconfigure(&a.network, &body).await?;
    println!("{}", started.event);
    if !a.wait {
        return Ok(());
    }
    let last = c
        .wait_reconfigured(
            &a.network,
            started.event.seq,
            std::time::Duration::from_secs(120),
            |e| println!("{e}"),
        )
        .await?;
    match last {
        Some(e) if e.kind == EventKind::ReconfigurationFailed => bail!("{}", e.message),
        Some(_) => Ok(()),
        None => bail!("not done after 120 s (see `prism ctl events`)"),
    }
}

pub async fn events(c: &NodeClient, since: u64, json: bool) -> Result<()> {
    let ev = c.events(since).await?;
    if json {
        println!("{}", serde_json::to_string_pretty(&ev)?);
    } else {
        for e in &ev {
            println!("{e}");
        }
    }
    Ok(())
}

pub async fn power(c: &NodeClient, json: bool) -> Result<()> {
    let p = c.power().await?;
    if json {
        println!("{}", serde_json::to_string_pretty(&p)?);
        return Ok(());
    }
    println!("{p}");
    Ok(())
}
