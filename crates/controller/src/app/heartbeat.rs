//! Nodes that register themselves and send heartbeats.
//!
//! An administrator makes a key for a node name (shown once, kept as a
//! digest, revocable). A node started with `prism node --controller`
//! presents it every few seconds with what it is (device profile, slots,
//! ports) and where its API listens: the first heartbeat registers the
//! node, later ones keep it up. The key only lets a node speak for its own
//! name; the controller still drives the node with the control plane's
//! credential, which the node holds only as a digest.

use crate::app::audit::audit;
use crate::app::authz::Principal;
use crate::app::checks::check_name;
use crate::app::client_certs::client_crl;
use crate::app::context::Context;
use crate::app::node_identity::{certify, revoke_node_certificates};
use crate::app::node_work::kick;
use crate::app::node_work::kick_every_node;
use crate::app::span::record_wan;
use crate::datastore::{node_keys as keys, nodes};
use crate::error::{Error, Result};
use crate::infra::secrets::{self, NODE_KEY_PREFIX};

pub use prism_controller_api::{HEARTBEAT_EVERY_MS, Heartbeat, HeartbeatAnswer};

pub use prism_controller_api::node_keys::{NodeKeyRequest, NodeKeyView};

pub use prism_controller_api::areas::{NodeCaller, NodeRefused};

/// `host:port`, the port a number.
fn check_address(a: &str) -> Result<()> {
    let ok = a.len() <= 255
        && a.rsplit_once(':').is_some_and(|(host, port)| {
            !host.is_empty()
                && !host.contains(char::is_whitespace)
                && port.parse::<u16>().is_ok_and(|p| p > 0)
        });
    if ok {
        Ok(())
    } else {
        Err(Error::invalid("`host:port` of the node's API").with_field("address"))
    }
}

pub async fn create_node_key(
    cx: &Context,
    p: &Principal,
    r: NodeKeyRequest,
) -> Result<NodeKeyView> {
    p.require_admin()?;
    check_name("node", &r.node)?;
    let (key, digest) = secrets::new_secret(NODE_KEY_PREFIX);
    let id = secrets::new_id();
    let now = cx.now_ms();
    keys::insert(&cx.pool, &id, &r.node, &digest, &p.user_id, now).await?;
    Ok(NodeKeyView {
        id,
        node: r.node,
        created_ms: now,
        last_used_ms: None,
        revoked_ms: None,
        key: Some(key),
    })
}

pub async fn list_node_keys(cx: &Context, p: &Principal) -> Result<Vec<NodeKeyView>> {
    p.require_admin()?;
    keys::all(&cx.pool).await
}

/// Revokes a node key: the node's next heartbeat is refused, the
/// certificates issued under it are no longer accepted (the node is
/// not called again), and, unless it has another live key, the node
/// is down at once (nothing is placed on it).
pub async fn revoke_node_key(cx: &Context, p: &Principal, id: &str) -> Result<()> {
    p.require_admin()?;
    let now = cx.now_ms();
    let mut tx = crate::infra::db::begin(&cx.pool).await?;
    let node = keys::revoke(&mut tx, id, now)
        .await?
        .ok_or_else(|| Error::not_found("such live node key"))?;
    revoke_node_certificates(&mut tx, id).await?;
    nodes::mark_revoked(&mut tx, &node, now).await?;
    tx.commit().await?;
    Ok(())
}

/// The node a `prn_` key stands for, unless it is unknown, revoked or
/// expired; a refusal names the node when the key is known (a revoked one), for the audit log.
pub(crate) async fn node_key(
    cx: &Context,
    bearer: &str,
) -> std::result::Result<NodeCaller, NodeRefused> {
    let refused = |error, node| NodeRefused { error, node };
    if !bearer.starts_with(NODE_KEY_PREFIX) {
        let why = "a heartbeat needs `Authorization: Bearer <node key>` (`prism ctl node-key`)";
        return Err(refused(Error::unauthorized(why), None));
    }
    let found = keys::by_digest(&cx.pool, &secrets::digest(bearer))
        .await
        .map_err(|e| refused(e, None))?;
    let Some((key_id, node, revoked)) = found else {
        return Err(refused(Error::unauthorized("unknown node key"), None));
    };
    if revoked {
        let e = Error::unauthorized("this node key was revoked");
        return Err(refused(e, Some(node)));
    }
    Ok(NodeCaller { key_id, node })
}

/// In the background: every node when this one's WAN side moved (the
/// other parts of its spanning networks tunnel to it anew), else this
/// one if `behind`.
fn converge_after_heartbeat(cx: &Context, id: &str, wan_moved: bool, behind: bool) {
    let c = cx.clone();
    let id = id.to_string();
    if wan_moved {
        tokio::spawn(async move { kick_every_node(&c).await });
    } else if behind {
        kick(&c, &id);
    }
}

/// Registers the node or marks it up. A new node, a restarted one
/// (another boot id), one that moved or one behind its desired state
/// is converged at once, in the background.
pub async fn heartbeat(cx: &Context, caller: &NodeCaller, h: Heartbeat) -> Result<HeartbeatAnswer> {
    check_heartbeat(caller, &h)?;
    let now = cx.now_ms();
    let mut tx = crate::infra::db::begin(&cx.pool).await?;
    let certified = match &h.csr {
        Some(csr) => Some(certify(cx, &mut tx, caller, csr).await?),
        None => None,
    };
    let (id, registered, changed, generation, applied) =
        nodes::upsert_from_heartbeat(&mut tx, &h, now).await?;
    let wan_moved = record_wan(&mut tx, &id, h.info.wan.as_ref()).await?;
    keys::touch(&mut tx, &caller.key_id, now).await?;
    tx.commit().await?;
    let who = format!("node:{}", h.name);
    if changed {
        // Every heartbeat would flood the audit log; a registration or
        // a restart is worth a line.
        audit(cx, Some(&who), "POST", "/v1/nodes/heartbeat", 200).await;
    }
    if let Some(Ok(_)) = &certified {
        audit(
            cx,
            Some(&who),
            "POST",
            "/v1/nodes/heartbeat#certificate",
            201,
        )
        .await;
    }
    // A node that holds less than it reached (its state forgotten:
    // `--fresh`, a new disk) is sent its desired state again.
    let forgot = i64::try_from(h.info.desired_generation).unwrap_or(i64::MAX) < applied;
    // A node given its certificate now cannot answer until it serves
    // with it: its next heartbeat (2 s) or the next pass converges it.
    let issued = matches!(certified, Some(Ok(_)));
    let behind = changed || applied < generation || forgot;
    converge_after_heartbeat(cx, &id, wan_moved, behind && !issued);
    Ok(HeartbeatAnswer {
        node_id: id,
        registered,
        generation,
        applied_generation: applied,
        every_ms: HEARTBEAT_EVERY_MS,
        certificate_refused: certified.as_ref().and_then(|c| c.as_ref().err().cloned()),
        certificate: certified.and_then(|c| c.ok()),
        client_crl: client_crl(cx).await?,
    })
}

/// Refuses a heartbeat whose name is not the key's node, or whose
/// address, boot id or rates are out of range.
fn check_heartbeat(caller: &NodeCaller, h: &Heartbeat) -> Result<()> {
    if h.name != caller.node {
        return Err(Error::forbidden(format!(
            "this key is for node `{}`, not `{}`",
            caller.node, h.name
        ))
        .with_field("name"));
    }
    check_address(&h.address)?;
    if h.boot_id.is_empty() || h.boot_id.len() > 64 {
        return Err(Error::invalid("1 to 64 characters").with_field("boot_id"));
    }
    for (field, v) in [("hw_mbps", h.hw_mbps), ("sw_mbps", h.sw_mbps)] {
        if v.is_some_and(|v| !(0..=10_000_000).contains(&v)) {
            return Err(Error::invalid("0 to 10,000,000 Mbit/s").with_field(field));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_host_and_port() {
        for ok in ["127.0.0.1:7700", "node-1.example:1", "[::1]:7700"] {
            assert!(check_address(ok).is_ok(), "{ok}");
        }
        for bad in ["", "127.0.0.1", ":7700", "h:0", "h:65536", "h :1", "h:x"] {
            let e = check_address(bad).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("address"), "{bad}");
        }
    }
}
