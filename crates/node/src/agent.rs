//! A node's side of registration: a thread that sends the controller a
//! heartbeat every few seconds with what the node is (read from the node's
//! own API) and where the controller reaches it. A node started with a
//! controller (`NodeServer`, `prism node --controller`) runs it. It says when the controller first hears it, when it stops
//! hearing it and when it hears it again; not every beat.

use prism_node_api::{
    ClientError, Endpoint, HEARTBEAT_EVERY_MS, Heartbeat, HeartbeatClient, NodeClient,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// The controller, with the node key.
    pub controller: HeartbeatClient,
    pub name: String,
    /// Where the controller reaches this node's API.
    pub address: String,
    pub hw_mbps: Option<i64>,
    pub sw_mbps: Option<i64>,
    /// The node's own API, asked what the node is before every beat.
    pub local: Endpoint,
}

/// What the agent last told its operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Said {
    Nothing,
    Heard,
    Failing,
}

/// Sends heartbeats until `stop` is set.
pub fn spawn_heartbeats(
    cfg: AgentConfig,
    stop: Arc<AtomicBool>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    std::thread::Builder::new()
        .name("prism-heartbeat".into())
        .spawn(move || rt.block_on(beat(cfg, stop)))
}

async fn beat(cfg: AgentConfig, stop: Arc<AtomicBool>) {
    let controller = cfg.controller.clone();
    let local = NodeClient::new(cfg.local.clone());
    let boot_id = uuid::Uuid::new_v4().to_string();
    let mut said = Said::Nothing;
    let mut every = Duration::from_millis(HEARTBEAT_EVERY_MS as u64);
    while !stop.load(Ordering::Relaxed) {
        let result = match local.node().await {
            Ok(info) => controller
                .send(&Heartbeat {
                    name: cfg.name.clone(),
                    address: cfg.address.clone(),
                    boot_id: boot_id.clone(),
                    info,
                    hw_mbps: cfg.hw_mbps,
                    sw_mbps: cfg.sw_mbps,
                })
                .await
                .map_err(|e| explain(&e)),
            Err(e) => Err(format!("reading this node's own API: {e}")),
        };
        match result {
            Ok(a) => {
                if said != Said::Heard {
                    eprintln!(
                        "  controller {}: {} as node `{}` (generation {}, reached {})",
                        cfg.controller,
                        if a.registered { "registered" } else { "heard" },
                        cfg.name,
                        a.generation,
                        a.applied_generation
                    );
                    said = Said::Heard;
                }
                every = Duration::from_millis(a.every_ms.clamp(100, 60_000) as u64);
            }
            Err(e) => {
                if said != Said::Failing {
                    eprintln!("  controller {}: heartbeat failed: {e}", cfg.controller);
                    said = Said::Failing;
                }
            }
        }
        let until = tokio::time::Instant::now() + every;
        while !stop.load(Ordering::Relaxed) && tokio::time::Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

fn explain(e: &ClientError) -> String {
    match e.status() {
        Some(401) => format!("{e} (is --controller-key-file this node's live key?)"),
        Some(403) => format!("{e} (is --node-name the name the key was made for?)"),
        _ => e.to_string(),
    }
}
