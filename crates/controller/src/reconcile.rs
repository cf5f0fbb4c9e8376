//! Converging nodes to their desired state (omicron's pattern): each
//! node's desired networks are the provisioned, started network bookings
//! placed on it, under a generation number bumped by every change. The
//! reconciler compares them with what the node reports through the typed
//! node API and adds, replaces or removes the controller's networks
//! (names starting `pc-`); it leaves any other network alone.

use crate::bookings::BOOKING_SELECT;
use crate::bookings::booking_of;
use crate::error::Result;
use crate::model::{NODE_PREFIX, node_doc, node_network_name};
use crate::service::Controller;
use prism_netdoc::NetworkDoc;
use sqlx::Row;
use std::collections::BTreeMap;

/// What one pass did to a node.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Converged {
    pub added: usize,
    pub replaced: usize,
    pub removed: usize,
    pub failed: usize,
}

impl Controller {
    /// Reconciles every node (the background loop).
    pub async fn reconcile_all(&self) {
        let ids = match sqlx::query("SELECT id FROM nodes")
            .fetch_all(&self.pool)
            .await
        {
            Ok(rows) => rows
                .iter()
                .filter_map(|r| r.try_get::<String, _>(0).ok())
                .collect::<Vec<_>>(),
            Err(e) => {
                eprintln!("prism controller: reconcile: {e}");
                return;
            }
        };
        for id in ids {
            self.reconcile_node(&id).await;
        }
    }

    /// One pass over node `id`; failures are recorded on the node and on
    /// the bookings concerned, never raised.
    pub async fn reconcile_node(&self, id: &str) -> Converged {
        let lock = self.node_lock(id);
        let _held = lock.lock().await;
        match self.converge(id).await {
            Ok(c) => c,
            Err(e) => {
                let _ = sqlx::query("UPDATE nodes SET last_error = $2 WHERE id = $1")
                    .bind(id)
                    .bind(e.to_string())
                    .execute(&self.pool)
                    .await;
                Converged::default()
            }
        }
    }

    async fn converge(&self, id: &str) -> Result<Converged> {
        let node = sqlx::query("SELECT address, generation FROM nodes WHERE id = $1")
            .bind(id)
            .fetch_one(&self.pool)
            .await?;
        let address: String = node.try_get(0)?;
        let generation: i64 = node.try_get(1)?;
        let rows = sqlx::query(&format!(
            "{BOOKING_SELECT} WHERE b.node_id = $1 AND b.allocation_state = 'provisioned' \
             AND b.released_ms IS NULL AND b.operational_state <> 'stopped'"
        ))
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        let mut desired: BTreeMap<String, (String, NetworkDoc)> = BTreeMap::new();
        for r in &rows {
            let b = booking_of(r)?;
            let name = node_network_name(&b.id);
            let doc = node_doc(
                &b.spec,
                &name,
                b.tier.as_deref().unwrap_or("software"),
                b.vlan.unwrap_or(0),
                b.bandwidth_mbps,
            )?;
            desired.insert(name, (b.id, doc));
        }
        let client = self.client(&address);
        let on_node = match client.list_networks().await {
            Ok(v) => v,
            Err(e) => {
                sqlx::query("UPDATE nodes SET last_error = $2 WHERE id = $1")
                    .bind(id)
                    .bind(format!("unreachable: {e}"))
                    .execute(&self.pool)
                    .await?;
                return Ok(Converged::default());
            }
        };
        let mut c = Converged::default();
        let mut errors: Vec<(String, String)> = Vec::new();
        let mut ready: Vec<String> = Vec::new();
        for n in on_node.iter().filter(|n| n.name.starts_with(NODE_PREFIX)) {
            if !desired.contains_key(&n.name) {
                match client.remove_network(&n.name).await {
                    Ok(_) => c.removed += 1,
                    Err(e) => {
                        c.failed += 1;
                        eprintln!("prism controller: removing {} from a node: {e}", n.name);
                    }
                }
            }
        }
        for (name, (booking, doc)) in &desired {
            let result = if on_node.iter().any(|n| &n.name == name) {
                match client.get_network(name).await {
                    Ok(d) if &d.definition == doc => Ok(()),
                    _ => client
                        .replace_network(name, doc)
                        .await
                        .map(|_| c.replaced += 1),
                }
            } else {
                client.add_network(doc).await.map(|_| c.added += 1)
            };
            match result {
                Ok(()) => ready.push(booking.clone()),
                Err(e) => {
                    c.failed += 1;
                    errors.push((booking.clone(), e.to_string()));
                }
            }
        }
        let now = self.now_ms();
        let mut tx = self.pool.begin().await?;
        for b in &ready {
            sqlx::query("UPDATE bookings SET operational_state = 'ready', op_error = NULL WHERE id = $1 AND operational_state <> 'stopped' AND released_ms IS NULL")
                .bind(b)
                .execute(&mut *tx)
                .await?;
        }
        for (b, e) in &errors {
            sqlx::query("UPDATE bookings SET operational_state = 'failed', op_error = $2 WHERE id = $1 AND released_ms IS NULL")
                .bind(b)
                .bind(e)
                .execute(&mut *tx)
                .await?;
        }
        let error = (!errors.is_empty())
            .then(|| format!("{} network(s) refused; see their bookings", errors.len()));
        sqlx::query("UPDATE nodes SET applied_generation = $2, last_seen_ms = $3, last_error = $4 WHERE id = $1")
            .bind(id)
            .bind(if errors.is_empty() { generation } else { generation - 1 })
            .bind(now)
            .bind(error)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(c)
    }
}
