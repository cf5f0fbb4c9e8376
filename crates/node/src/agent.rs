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
    let mut last_info = None;
    while !stop.load(Ordering::Relaxed) {
        let csr = certificate_request(cfg.identity.as_deref());
        let result = match own_info(&local, &mut last_info).await {
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
            Err(e) => Err(e),
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

/// How long a heartbeat waits for the node's own API before it says what
/// it read last.
const OWN_API_WAIT: Duration = Duration::from_secs(1);

/// What the node's own API says of it; while the API is busy (a container
/// starting holds it for the seconds an image takes to unpack) what it
/// said last: the node is alive, and a controller that heard nothing for
/// its timeout would take it for down and refuse to book on it.
async fn own_info(
    local: &NodeClient,
    last: &mut Option<prism_node_api::NodeInfo>,
) -> Result<prism_node_api::NodeInfo, String> {
    match tokio::time::timeout(OWN_API_WAIT, local.node()).await {
        Ok(Ok(info)) => {
            *last = Some(info.clone());
            Ok(info)
        }
        Ok(Err(e)) => Err(format!("reading this node's own API: {e}")),
        Err(_) => last
            .clone()
            .ok_or_else(|| format!("this node's own API did not answer within {OWN_API_WAIT:?}")),
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

#[cfg(test)]
mod tests {
    use super::*;
    use prism_node_api::{Endpoint, NodeInfo, SlotsInfo};

    fn info() -> NodeInfo {
        NodeInfo {
            device: "alveo-u280".into(),
            ports: vec!["lan".into()],
            software_interfaces: vec![false],
            io: "packet".into(),
            workers: 1,
            hardware_slots: SlotsInfo { total: 4, free: 4 },
            desired_generation: 0,
            wan: None,
            processing_port: None,
        }
    }

    /// A node API that takes connections and never answers (one holding
    /// its lock while an image unpacks): a heartbeat says what it read
    /// last, or, having read nothing yet, says the API did not answer.
    #[tokio::test]
    async fn a_busy_node_api_leaves_the_heartbeat_with_what_it_said_last() {
        let dir = std::env::temp_dir().join(format!("prism-agent-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let sock = dir.join("busy.sock");
        let _ = std::fs::remove_file(&sock);
        let listener = tokio::net::UnixListener::bind(&sock).unwrap();
        let held = tokio::spawn(async move {
            let mut kept = Vec::new();
            while let Ok((c, _)) = listener.accept().await {
                kept.push(c);
            }
        });
        let local = NodeClient::new(Endpoint::Unix(sock.clone()));
        let mut last = None;
        let e = own_info(&local, &mut last).await.unwrap_err();
        assert!(e.contains("did not answer"), "{e}");
        last = Some(info());
        let t = std::time::Instant::now();
        assert_eq!(own_info(&local, &mut last).await, Ok(info()));
        assert!(t.elapsed() < OWN_API_WAIT * 3, "{:?}", t.elapsed());
        held.abort();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
