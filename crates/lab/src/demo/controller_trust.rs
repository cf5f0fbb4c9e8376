//! The demo's checks of the nodes' trust (`crate::demo::controller`): a
//! client without the controller's certificate is refused, and so is the
//! controller's own once revoked.

use crate::demo::controller_traffic::NODES;
use anyhow::{Context, Result};
use prism_controller::{Controller, ControllerClient};
use prism_node_api::{Endpoint, NodeClient};
use std::path::Path;
use std::time::{Duration, Instant};

/// What the trust checks found: calls answered without the controller's
/// certificate; how long until a revoked one was refused everywhere (ms),
/// and the nodes still answering it after 10 s.
pub(crate) struct Trust {
    pub strangers: Vec<String>,
    pub revoked_refused_ms: u128,
    pub revoked_answered: Vec<String>,
}

/// Both checks, said as they end; the revocation only with `revoke` (the
/// portal's demo leaves it to the plain one: two seconds of a heartbeat's
/// wait that the portal does not show).
pub(crate) async fn check(
    ctl: &Controller,
    admin: &ControllerClient,
    (ca, revoke): (&Path, bool),
    say: &dyn Fn(&str),
) -> Result<Trust> {
    let strangers = strangers_answered(ca).await;
    say(&format!(
        "  a client without the controller's certificate, in TLS and in plain HTTP, answered by the nodes: {}",
        if strangers.is_empty() { "never" } else { "YES" }
    ));
    if !revoke {
        return Ok(Trust {
            strangers,
            revoked_refused_ms: 0,
            revoked_answered: Vec::new(),
        });
    }
    let (revoked_refused_ms, revoked_answered) = revoke_client_cert(ctl, admin).await?;
    say(&format!(
        "  the controller's client certificate revoked: refused by every node {revoked_refused_ms} ms later{}; the controller took a new one",
        if revoked_answered.is_empty() {
            String::new()
        } else {
            format!(" (still answered by {revoked_answered:?})")
        }
    ));
    Ok(Trust {
        strangers,
        revoked_refused_ms,
        revoked_answered,
    })
}

/// Each node's API on TCP, called in TLS trusting the lab CA but with
/// no client certificate, and in plain HTTP: the calls answered.
async fn strangers_answered(ca: &Path) -> Vec<String> {
    let mut answered = Vec::new();
    for i in 1..=NODES {
        let addr = format!("10.254.{i}.2:7700");
        let Ok(tls) = prism_http::ClientTls::new(&format!("node{i}"), Some(ca)) else {
            answered.push(format!("node{i}: the lab CA unreadable"));
            continue;
        };
        for e in [
            Endpoint::Tls {
                addr: addr.clone(),
                token: None,
                tls,
            },
            Endpoint::Tcp {
                addr: addr.clone(),
                token: None,
            },
        ] {
            if let Ok(n) = NodeClient::new(e.clone()).node().await {
                answered.push(format!("{e:?} answered: {}", n.device));
            }
        }
    }
    answered
}

/// Revokes the controller's client certificate in use, as if its key had
/// leaked: how long until every node refused a client presenting it (the
/// revocation list their heartbeats bring), and the nodes still answering
/// it after 10 s.
async fn revoke_client_cert(
    ctl: &Controller,
    admin: &ControllerClient,
) -> Result<(u128, Vec<String>)> {
    let ca = ctl.settings().node_ca.clone().context("no CA")?;
    let stolen = |i: usize| -> Result<NodeClient> {
        let tls = ca.client_for(&format!("node{i}"), Vec::new())?;
        let addr = format!("10.254.{i}.2:7700");
        Ok(NodeClient::new(Endpoint::Tls {
            addr,
            token: None,
            tls,
        }))
    };
    let clients: Vec<NodeClient> = (1..=NODES).map(stolen).collect::<Result<_>>()?;
    for c in &clients {
        c.node()
            .await
            .context("the controller's certificate, before its revocation")?;
    }
    let (serial, _) = ca.client_serial()?;
    admin.revoke_controller_certificate(&serial).await?;
    let t = Instant::now();
    loop {
        let mut answered = Vec::new();
        for (i, c) in clients.iter().enumerate() {
            if c.node().await.is_ok() {
                answered.push(format!("node{}", i + 1));
            }
        }
        if answered.is_empty() || t.elapsed() > Duration::from_secs(10) {
            return Ok((t.elapsed().as_millis(), answered));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
