//! A node's side of registration: a thread that sends the controller a
//! heartbeat every few seconds with what the node is (read from the node's
//! own API) and where the controller reaches it. A node started with a
//! controller (`NodeServer`, `prism node --controller`) runs it. It says when the controller first hears it, when it stops
//! hearing it and when it hears it again; not every beat.

use prism_controller_api::{
    ClientError, ControllerClient, HEARTBEAT_EVERY_MS, Heartbeat, HeartbeatAnswer,
};
use prism_http::NodeIdentity;
use prism_http::identity::wall_ms;
use prism_node_api::{Endpoint, NodeClient};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// The controller, with the node key.
    pub controller: ControllerClient,
    pub name: String,
    /// Where the controller reaches this node's API.
    pub address: String,
    pub hw_mbps: Option<i64>,
    pub sw_mbps: Option<i64>,
    /// The node's own API, asked what the node is before every beat.
    pub local: Endpoint,
    /// The node's identity, when its API on TCP is in mutual TLS: a
    /// certificate is asked for with a beat when it has none or its
    /// certificate is two thirds through its life.
    pub identity: Option<Arc<NodeIdentity>>,
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
    let mut refused_said = false;
    while !stop.load(Ordering::Relaxed) {
        let csr = certificate_request(cfg.identity.as_deref());
        let result = match local.node().await {
            Ok(info) => controller
                .heartbeat(&Heartbeat {
                    name: cfg.name.clone(),
                    address: cfg.address.clone(),
                    boot_id: boot_id.clone(),
                    info,
                    hw_mbps: cfg.hw_mbps,
                    sw_mbps: cfg.sw_mbps,
                    csr,
                })
                .await
                .map_err(|e| explain(&e)),
            Err(e) => Err(format!("reading this node's own API: {e}")),
        };
        match result {
            Ok(a) => {
                if let Some(id) = &cfg.identity {
                    take_certificate(&cfg, id, &a, &mut refused_said);
                }
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

/// A request when the identity wants a certificate.
fn certificate_request(identity: Option<&NodeIdentity>) -> Option<String> {
    let id = identity.filter(|id| id.wants_certificate(wall_ms()))?;
    match id.request() {
        Ok(csr) => Some(csr),
        Err(e) => {
            eprintln!("  node certificate: cannot make a request: {e}");
            None
        }
    }
}

/// Serves with the certificate the answer brought; says so, or says once
/// why there is none.
fn take_certificate(
    cfg: &AgentConfig,
    id: &NodeIdentity,
    a: &HeartbeatAnswer,
    refused_said: &mut bool,
) {
    if let Some(c) = &a.certificate {
        match id.install(&c.chain_pem, &c.ca_pem, c.not_after_ms) {
            Ok(()) => eprintln!(
                "  controller {}: certificate for `{}` until {} s from now; the API on TCP answers the controller only",
                cfg.controller,
                cfg.name,
                (c.not_after_ms - wall_ms()) / 1000
            ),
            Err(e) => eprintln!(
                "  controller {}: its certificate is unusable: {e}",
                cfg.controller
            ),
        }
    } else if let Some(why) = &a.certificate_refused
        && !*refused_said
    {
        eprintln!(
            "  controller {}: no certificate ({why}); the API on TCP answers no one until one comes",
            cfg.controller
        );
        *refused_said = true;
    }
    // The controller's revoked client certificates: refused from the next
    // connection (said when the list changes).
    if let Some(crl) = &a.client_crl {
        match id.set_client_crl(crl) {
            Ok(true) => eprintln!(
                "  controller {}: a new list of its revoked client certificates, taken",
                cfg.controller
            ),
            Ok(false) => {}
            Err(e) => eprintln!(
                "  controller {}: its revocation list is unusable: {e}",
                cfg.controller
            ),
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
