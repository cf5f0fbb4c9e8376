//! Nodes that register themselves and send heartbeats.
//!
//! An administrator makes a key for a node name (shown once, kept as a
//! digest, revocable). A node started with `prism node --controller`
//! presents it every few seconds with what it is (device profile, slots,
//! ports) and where its API listens: the first heartbeat registers the
//! node, later ones keep it up. The key only lets a node speak for its own
//! name; the controller still drives the node with the control plane's
//! credential, which the node holds only as a digest.

use crate::authz::Principal;
use crate::controller::Controller;
use crate::error::{Error, Result};
use crate::identity::{check_name, unique_violation};
use crate::secrets::{self, NODE_KEY_PREFIX};
use serde::{Deserialize, Serialize};
use sqlx::Row;
use utoipa::ToSchema;

pub use prism_node_api::{HEARTBEAT_EVERY_MS, Heartbeat, HeartbeatAnswer};

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeKeyRequest {
    /// The name the node will register under (`prism node --node-name`).
    pub node: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NodeKeyView {
    pub id: String,
    pub node: String,
    pub created_ms: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_used_ms: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked_ms: Option<i64>,
    /// The key itself (`prn_…`): in the answer that makes it, never again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// A node authenticated by its key.
#[derive(Debug, Clone)]
pub struct NodeCaller {
    pub key_id: String,
    pub node: String,
}

fn key_view(r: &sqlx::any::AnyRow) -> Result<NodeKeyView> {
    Ok(NodeKeyView {
        id: r.try_get("id")?,
        node: r.try_get("node_name")?,
        created_ms: r.try_get("created_ms")?,
        last_used_ms: r.try_get("last_used_ms")?,
        revoked_ms: r.try_get("revoked_ms")?,
        key: None,
    })
}

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

impl Controller {
    pub async fn create_node_key(&self, p: &Principal, r: NodeKeyRequest) -> Result<NodeKeyView> {
        p.require_admin()?;
        check_name("node", &r.node)?;
        let (key, digest) = secrets::new_secret(NODE_KEY_PREFIX);
        let id = secrets::new_id();
        let now = self.now_ms();
        sqlx::query("INSERT INTO node_keys (id, node_name, digest, created_by, created_ms) VALUES ($1, $2, $3, $4, $5)")
            .bind(&id)
            .bind(&r.node)
            .bind(&digest)
            .bind(&p.user_id)
            .bind(now)
            .execute(&self.pool)
            .await?;
        Ok(NodeKeyView {
            id,
            node: r.node,
            created_ms: now,
            last_used_ms: None,
            revoked_ms: None,
            key: Some(key),
        })
    }

    pub async fn list_node_keys(&self, p: &Principal) -> Result<Vec<NodeKeyView>> {
        p.require_admin()?;
        sqlx::query("SELECT * FROM node_keys ORDER BY node_name, created_ms, id")
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(key_view)
            .collect()
    }

    /// Revokes a node key: the node's next heartbeat is refused, and the
    /// node goes down once its timeout passes.
    pub async fn revoke_node_key(&self, p: &Principal, id: &str) -> Result<()> {
        p.require_admin()?;
        let done = sqlx::query(
            "UPDATE node_keys SET revoked_ms = $2 WHERE id = $1 AND revoked_ms IS NULL",
        )
        .bind(id)
        .bind(self.now_ms())
        .execute(&self.pool)
        .await?;
        if done.rows_affected() == 0 {
            return Err(Error::not_found("such live node key"));
        }
        Ok(())
    }

    /// The node a `prn_` key stands for; 401 unless it is live.
    pub async fn authenticate_node(&self, bearer: &str) -> Result<NodeCaller> {
        if !bearer.starts_with(NODE_KEY_PREFIX) {
            return Err(Error::unauthorized(
                "a heartbeat needs `Authorization: Bearer <node key>` (`prism ctl node-key`)",
            ));
        }
        let row = sqlx::query("SELECT id, node_name, revoked_ms FROM node_keys WHERE digest = $1")
            .bind(secrets::digest(bearer))
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| Error::unauthorized("unknown node key"))?;
        if row.try_get::<Option<i64>, _>(2)?.is_some() {
            return Err(Error::unauthorized("this node key was revoked"));
        }
        Ok(NodeCaller {
            key_id: row.try_get(0)?,
            node: row.try_get(1)?,
        })
    }

    /// Registers the node or marks it up. A new node, a restarted one
    /// (another boot id), one that moved or one behind its desired state
    /// is reconciled at once, in the background.
    /// In the background: every node when this one's WAN side moved (the
    /// other parts of its spanning networks tunnel to it anew), else this
    /// one if `behind`.
    fn reconcile_after_heartbeat(&self, id: &str, wan_moved: bool, behind: bool) {
        let c = self.clone();
        let id = id.to_string();
        if wan_moved {
            tokio::spawn(async move { c.reconcile_all().await });
        } else if behind {
            tokio::spawn(async move { c.reconcile_node(&id).await });
        }
    }

    pub async fn heartbeat(&self, caller: &NodeCaller, h: Heartbeat) -> Result<HeartbeatAnswer> {
        check_heartbeat(caller, &h)?;
        let now = self.now_ms();
        let mut tx = self.pool.begin().await?;
        let (id, registered, changed, generation, applied) =
            self.upsert_node(&mut tx, &h, now).await?;
        let wan_moved = self.record_wan(&mut tx, &id, h.info.wan.as_ref()).await?;
        sqlx::query("UPDATE node_keys SET last_used_ms = $2 WHERE id = $1")
            .bind(&caller.key_id)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        if changed {
            // Every heartbeat would flood the audit log; a registration or
            // a restart is worth a line.
            let who = format!("node:{}", h.name);
            self.audit(Some(&who), "POST", "/v1/nodes/heartbeat", 200)
                .await;
        }
        // A node that holds less than it reached (its state forgotten:
        // `--fresh`, a new disk) is sent its desired state again.
        let forgot = i64::try_from(h.info.desired_generation).unwrap_or(i64::MAX) < applied;
        self.reconcile_after_heartbeat(&id, wan_moved, changed || applied < generation || forgot);
        Ok(HeartbeatAnswer {
            node_id: id,
            registered,
            generation,
            applied_generation: applied,
            every_ms: HEARTBEAT_EVERY_MS,
        })
    }

    /// The node's row, made at its first heartbeat and updated at each:
    /// (id, registered now, moved or rebooted, generation, applied).
    async fn upsert_node(
        &self,
        tx: &mut sqlx::Transaction<'static, sqlx::Any>,
        h: &Heartbeat,
        now: i64,
    ) -> Result<(String, bool, bool, i64, i64)> {
        let ports = serde_json::to_string(&h.info.ports).unwrap_or_default();
        let slots = i64::from(h.info.hardware_slots.total);
        let old = sqlx::query(
            "SELECT id, address, boot_id, generation, applied_generation FROM nodes WHERE name = $1",
        )
        .bind(&h.name)
        .fetch_optional(&mut **tx)
        .await?;
        Ok(match old {
            None => {
                let id = secrets::new_id();
                sqlx::query("INSERT INTO nodes (id, name, address, device, slots, hw_mbps, sw_mbps, ports, generation, applied_generation, last_seen_ms, created_ms, boot_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, 0, $9, $9, $10)")
                    .bind(&id)
                    .bind(&h.name)
                    .bind(&h.address)
                    .bind(&h.info.device)
                    .bind(slots)
                    .bind(h.hw_mbps.unwrap_or(1000))
                    .bind(h.sw_mbps.unwrap_or(100))
                    .bind(&ports)
                    .bind(now)
                    .bind(&h.boot_id)
                    .execute(&mut **tx)
                    .await
                    .map_err(|e| {
                        if unique_violation(&e) {
                            Error::conflict("this node was registered meanwhile; send again")
                        } else {
                            e.into()
                        }
                    })?;
                (id, true, true, 1, 0)
            }
            Some(r) => {
                let id: String = r.try_get(0)?;
                let moved = r.try_get::<String, _>(1)? != h.address;
                let rebooted = r.try_get::<Option<String>, _>(2)?.as_deref() != Some(&h.boot_id);
                let generation: i64 = r.try_get(3)?;
                let applied: i64 = r.try_get(4)?;
                sqlx::query("UPDATE nodes SET address = $2, device = $3, slots = $4, ports = $5, boot_id = $6, last_seen_ms = $7, hw_mbps = COALESCE($8, hw_mbps), sw_mbps = COALESCE($9, sw_mbps) WHERE id = $1")
                    .bind(&id)
                    .bind(&h.address)
                    .bind(&h.info.device)
                    .bind(slots)
                    .bind(&ports)
                    .bind(&h.boot_id)
                    .bind(now)
                    .bind(h.hw_mbps)
                    .bind(h.sw_mbps)
                    .execute(&mut **tx)
                    .await?;
                (id, false, moved || rebooted, generation, applied)
            }
        })
    }
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
