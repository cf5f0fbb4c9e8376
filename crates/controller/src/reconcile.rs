//! Converging nodes to their desired state (omicron's pattern): each
//! node's desired networks are the provisioned, started network bookings
//! placed on it, under a generation number bumped by every change. The
//! reconciler sends them whole in one call (`PUT /v1/desired`, scope
//! `pc-`): the node adds, replaces and removes the controller's networks
//! in one reconciliation, leaves any other network alone, answers per
//! network, and refuses a generation older than one it holds, so a stale
//! controller cannot undo a newer state.

use crate::controller::Controller;
use crate::datastore::bookings::{BOOKING_SELECT, booking_of};
use crate::error::Result;
use crate::model::{NODE_PREFIX, node_doc, node_network_name};
use prism_netdoc::NetworkDoc;
use prism_node_api::{ApiError, DesiredAction, DesiredState, ErrorCode};
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
                let _ = self.node_error(id, &e.to_string()).await;
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
        let mut desired = self.desired_networks(id).await?;
        let client = self.client(&address);
        let mut refused: Vec<(String, String)> = Vec::new();
        // A document the node refuses whole (it should not: the controller
        // compiled it at booking) fails its booking and the rest go again.
        let applied = loop {
            let body = DesiredState {
                generation: u64::try_from(generation).unwrap_or(0),
                scope: NODE_PREFIX.to_string(),
                networks: desired.iter().map(|(_, d)| d.clone()).collect(),
            };
            match client.put_desired(&body).await {
                Ok(a) => break a,
                Err(e) => {
                    let api = e.api();
                    if let Some(i) = api.and_then(refused_network)
                        && i < desired.len()
                    {
                        let (booking, _) = desired.remove(i);
                        refused.push((booking, e.to_string()));
                        continue;
                    }
                    let why = match api {
                        Some(a) if a.code == ErrorCode::StaleGeneration => format!(
                            "the node holds a newer desired state than generation {generation} ({}); \
                             was the database restored? `prism node --fresh` makes the node forget it",
                            a.message
                        ),
                        _ => format!("unreachable: {e}"),
                    };
                    self.node_error(id, &why).await?;
                    return Ok(Converged::default());
                }
            }
        };
        let bookings: BTreeMap<String, String> =
            desired.into_iter().map(|(b, d)| (d.name, b)).collect();
        let mut c = Converged {
            failed: refused.len(),
            ..Converged::default()
        };
        let mut ready: Vec<String> = Vec::new();
        for n in applied.networks {
            match n.action {
                DesiredAction::Added => c.added += 1,
                DesiredAction::Replaced => c.replaced += 1,
                DesiredAction::Removed => c.removed += 1,
                DesiredAction::Unchanged => {}
                DesiredAction::Failed => {
                    c.failed += 1;
                    let why = n.error.map(|e| e.to_string()).unwrap_or_default();
                    match bookings.get(&n.name) {
                        Some(b) => refused.push((b.clone(), why)),
                        None => {
                            eprintln!("prism controller: removing {} from a node: {why}", n.name)
                        }
                    }
                    continue;
                }
            }
            ready.extend(bookings.get(&n.name).cloned());
        }
        self.record_converged(id, generation, &ready, &refused)
            .await?;
        Ok(c)
    }

    /// The node's desired networks: (booking, document), by network name.
    async fn desired_networks(&self, id: &str) -> Result<Vec<(String, NetworkDoc)>> {
        let rows = sqlx::query(&format!(
            "{BOOKING_SELECT} WHERE b.allocation_state = 'provisioned' \
             AND b.released_ms IS NULL AND b.operational_state <> 'stopped' AND \
             ((b.node_id = $1 AND NOT EXISTS (SELECT 1 FROM booking_parts p WHERE p.booking_id = b.id)) \
              OR b.id IN (SELECT booking_id FROM booking_parts WHERE node_id = $1))"
        ))
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        let wan_row = sqlx::query("SELECT wan FROM nodes WHERE id = $1")
            .bind(id)
            .fetch_one(&self.pool)
            .await?;
        let node_wan = crate::nodes::node_wan(&wan_row)?;
        let mut desired = BTreeMap::new();
        for r in &rows {
            let mut b = booking_of(r)?;
            let name = node_network_name(&b.id);
            let parts = self.parts(&self.pool, &b.id).await?;
            b.s_tag = self.s_tag_of(&self.pool, &b.id).await?;
            let mut doc = match parts.iter().position(|p| p.node_id == id) {
                // A part waits for every node of its network to report
                // its WAN side.
                Some(i) => match crate::span::part_doc(&b, &parts, i)? {
                    Some(doc) => doc,
                    None => continue,
                },
                None => node_doc(
                    &b.spec,
                    &name,
                    b.tier.unwrap_or(prism_placement::Tier::Software),
                    b.vlan.unwrap_or(0),
                    b.bandwidth_mbps,
                )?,
            };
            let publics = self.publics_on(&self.pool, &b.id, id).await?;
            crate::gateway::gateway_doc(&mut doc, &b, node_wan.as_ref(), &publics)?;
            desired.insert(name, (b.id, doc));
        }
        Ok(desired.into_values().collect())
    }

    async fn node_error(&self, id: &str, why: &str) -> Result<()> {
        sqlx::query("UPDATE nodes SET last_error = $2 WHERE id = $1")
            .bind(id)
            .bind(why)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Records one pass: its bookings ready or failed, and the generation
    /// reached (the one before while any network failed, so the next
    /// heartbeat tries again).
    async fn record_converged(
        &self,
        id: &str,
        generation: i64,
        ready: &[String],
        errors: &[(String, String)],
    ) -> Result<()> {
        let now = self.now_ms();
        let mut tx = self.pool.begin().await?;
        // A spanning network is ready when its last node converges: every
        // other part's node has reached its generation.
        for b in ready {
            sqlx::query("UPDATE bookings SET operational_state = 'ready', op_error = NULL WHERE id = $1 AND operational_state <> 'stopped' AND released_ms IS NULL \
                 AND NOT EXISTS (SELECT 1 FROM booking_parts p JOIN nodes n ON n.id = p.node_id \
                 WHERE p.booking_id = $1 AND p.node_id <> $2 AND n.applied_generation < n.generation)")
                .bind(b)
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        for (b, e) in errors {
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
        Ok(())
    }
}

/// Which listed network a whole-state refusal names (`networks[3]...`).
fn refused_network(e: &ApiError) -> Option<usize> {
    let f = e.field.as_deref()?.strip_prefix("networks[")?;
    f[..f.find(']')?].parse().ok()
}
