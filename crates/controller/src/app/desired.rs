//! Converging nodes to their desired state (omicron's pattern): each
//! node's desired networks are the provisioned, started network bookings
//! placed on it, under a generation number bumped by every change. The
//! controller sends them whole in one call (`PUT /v1/desired`, scope
//! `pc-`): the node adds, replaces and removes the controller's networks
//! in one reconciliation, leaves any other network alone, answers per
//! network, and refuses a generation older than one it holds, so a stale
//! controller cannot undo a newer state. Once a node has accepted a state
//! from this replica, the next goes as the change from it (`PATCH
//! /v1/desired`: what was added, replaced, removed), which the node makes
//! whole and converges to alike; a node that does not hold that state
//! (another replica sent since, the node restarted) refuses the change,
//! and the whole state goes instead. A change costs the node what changed,
//! not every network it holds.

use crate::controller::Controller;
use crate::datastore::{bookings, nodes};
use crate::error::Result;
use crate::model::{NODE_PREFIX, OperationalState, node_doc, node_network_name};
use prism_netdoc::NetworkDoc;
use prism_node_api::{ApiError, DesiredAction, DesiredState, ErrorCode};
use std::collections::BTreeMap;

/// What one pass did to a node.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Converged {
    pub added: usize,
    pub replaced: usize,
    pub removed: usize,
    pub failed: usize,
    /// The node holds the generation read for the pass (or a newer one).
    pub reached: bool,
}

impl Controller {
    /// Asks for a pass over every node, each in its own task
    /// (`crate::app::node_work`): the background loop's period.
    pub(crate) async fn kick_every_node(&self) -> Vec<crate::infra::work_queue::Ticket> {
        match nodes::node_ids(&self.pool).await {
            Ok(ids) => self.kick_all(&ids),
            Err(e) => {
                eprintln!("prism controller: converging nodes: {e}");
                Vec::new()
            }
        }
    }

    /// A pass over every node, side by side; returns when all are done.
    pub async fn converge_all(&self) {
        for t in self.kick_every_node().await {
            t.wait().await;
        }
    }

    /// Whether node `id`'s desired generation has passed `sent` since it
    /// was read.
    async fn overtaken(&self, id: &str, sent: i64) -> Result<bool> {
        let (_, _, now) = nodes::address_and_generation(&self.pool, id).await?;
        Ok(now > sent)
    }

    /// One pass over node `id`, here and now (the background's passes go
    /// through `crate::app::node_work`, one at a time per node); failures are
    /// recorded on the node and on the bookings concerned, never raised.
    pub async fn converge_node(&self, id: &str) -> Converged {
        let lock = self.node_lock(id);
        let mut accepted = lock.lock().await;
        match self.converge(id, &mut accepted).await {
            Ok(c) => c,
            Err(e) => {
                let _ = nodes::set_last_error(&self.pool, id, &e.to_string()).await;
                Converged::default()
            }
        }
    }

    async fn converge(&self, id: &str, accepted: &mut Option<DesiredState>) -> Result<Converged> {
        let (name, address, generation) = nodes::address_and_generation(&self.pool, id).await?;
        let client = self.node_client(&name, &address).await?;
        let sent = u64::try_from(generation).unwrap_or(0);
        // The change from what the node accepted last, if it still holds
        // it (read from the node's change record: what changed since, not
        // its every booking); if the node refuses it, the whole state.
        if let Some(from) = accepted.take() {
            let (desired, change) = self.change_from(id, &from, sent).await?;
            match client.patch_desired(&change).await {
                Ok(a) => {
                    *accepted = change.apply_to(&mut Some(from)).ok();
                    if let Some(held) = accepted.as_ref() {
                        self.check_change(id, held).await;
                    }
                    return self.record(id, generation, desired, a, Vec::new()).await;
                }
                Err(e) if e.api().is_some() => {}
                Err(e) => return self.not_converged(id, generation, &e).await,
            }
        }
        let mut desired = self.desired_networks(id, None).await?;
        let mut refused: Vec<(String, String)> = Vec::new();
        // A document the node refuses whole (it should not: the controller
        // compiled it at booking) fails its booking and the rest go again.
        loop {
            let body = whole(sent, &desired);
            match client.put_desired(&body).await {
                Ok(a) => {
                    *accepted = Some(body);
                    return self.record(id, generation, desired, a, refused).await;
                }
                Err(e) => {
                    if let Some(i) = e.api().and_then(refused_network)
                        && i < desired.len()
                    {
                        let (booking, _, _) = desired.remove(i);
                        refused.push((booking, e.to_string()));
                        continue;
                    }
                    return self.not_converged(id, generation, &e).await;
                }
            }
        }
    }

    /// Records that node `id` took generation `generation` with `applied`
    /// (the networks of `desired` it did not fail are on it).
    async fn record(
        &self,
        id: &str,
        generation: i64,
        desired: Vec<Desired>,
        applied: prism_node_api::DesiredApplied,
        mut refused: Vec<(String, String)>,
    ) -> Result<Converged> {
        let (mut c, ready) = tally(desired, applied.networks, &mut refused);
        nodes::record_converged(&self.pool, id, generation, &ready, &refused, self.now_ms())
            .await?;
        c.reached = true;
        Ok(c)
    }

    /// Records why node `id` did not take generation `generation` (`e`),
    /// unless another replica or a later pass has sent a newer one since.
    async fn not_converged(
        &self,
        id: &str,
        generation: i64,
        e: &prism_node_api::ClientError,
    ) -> Result<Converged> {
        let api = e.api();
        if api.is_some_and(|a| a.code == ErrorCode::StaleGeneration)
            && self.overtaken(id, generation).await?
        {
            // The node holds what it should.
            return Ok(Converged {
                reached: true,
                ..Converged::default()
            });
        }
        let why = match api {
            Some(a) if a.code == ErrorCode::StaleGeneration => format!(
                "the node holds a newer desired state than generation {generation} ({}); \
                 was the database restored? `prism node --fresh` makes the node forget it",
                a.message
            ),
            Some(a) if a.code != ErrorCode::Unavailable => {
                format!("the node refused generation {generation}: {a}")
            }
            _ => format!("unreachable: {e}"),
        };
        nodes::set_last_error(&self.pool, id, &why).await?;
        Ok(Converged::default())
    }

    /// The node's desired networks, by network name: each booking's id,
    /// whether it is `ready` already, and its document; only those of the
    /// bookings `only` names, if given. A constant number of queries
    /// whatever the node holds.
    pub(crate) async fn desired_networks(
        &self,
        id: &str,
        only: Option<&[String]>,
    ) -> Result<Vec<Desired>> {
        use crate::datastore::{parts as part_store, public_addresses as publics_store};
        let running = bookings::running_on(&self.pool, id, only).await?;
        let node_wan = nodes::wan_of(&self.pool, id).await?;
        let mut parts = part_store::parts_by_booking_on(&self.pool, id, only).await?;
        let s_tags = part_store::s_tags_on(&self.pool, id, only).await?;
        let mut publics = publics_store::publics_by_booking_on(&self.pool, id, only).await?;
        let mut desired = BTreeMap::new();
        for mut b in running {
            let name = node_network_name(&b.id);
            let parts = parts.remove(&b.id).unwrap_or_default();
            b.s_tag = s_tags.get(&b.id).copied();
            let mut doc = match parts.iter().position(|p| p.node_id == id) {
                // A part waits for every node of its network to report
                // its WAN side.
                Some(i) => match crate::app::span::part_doc(&b, &parts, i)? {
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
            let publics = publics.remove(&b.id).unwrap_or_default();
            crate::app::gateway::gateway_doc(&mut doc, &b, node_wan.as_ref(), &publics)?;
            let ready = b.operational_state == OperationalState::Ready;
            desired.insert(name, (b.id, ready, doc));
        }
        Ok(desired.into_values().collect())
    }
}

/// What the node did with each network (`applied`: a whole state's
/// answer lists every network, a change's those it touched): the counts,
/// and the bookings of `desired` now `ready` that were not. A network of
/// `desired` the node did not fail is on the node (a node that accepts a
/// generation holds every network of it but those it failed); only a
/// change of state is written. The networks it failed join `refused`.
fn tally(
    desired: Vec<Desired>,
    applied: Vec<prism_node_api::DesiredOutcome>,
    refused: &mut Vec<(String, String)>,
) -> (Converged, Vec<String>) {
    let bookings: BTreeMap<String, (String, bool)> = desired
        .into_iter()
        .map(|(b, ready, d)| (d.name, (b, ready)))
        .collect();
    let mut c = Converged {
        failed: refused.len(),
        ..Converged::default()
    };
    for n in applied {
        match n.action {
            DesiredAction::Added => c.added += 1,
            DesiredAction::Replaced => c.replaced += 1,
            DesiredAction::Removed => c.removed += 1,
            DesiredAction::Unchanged => {}
            DesiredAction::Failed => {
                c.failed += 1;
                let why = n.error.map(|e| e.to_string()).unwrap_or_default();
                match bookings.get(&n.name) {
                    Some((b, _)) => refused.push((b.clone(), why)),
                    None => eprintln!("prism controller: removing {} from a node: {why}", n.name),
                }
            }
        }
    }
    let ready = bookings
        .into_values()
        .filter(|(b, was_ready)| !was_ready && !refused.iter().any(|(r, _)| r == b))
        .map(|(b, _)| b)
        .collect();
    (c, ready)
}

/// The whole desired state of generation `generation` of `desired`.
fn whole(generation: u64, desired: &[Desired]) -> DesiredState {
    DesiredState {
        generation,
        scope: NODE_PREFIX.to_string(),
        networks: desired.iter().map(|(_, _, d)| d.clone()).collect(),
    }
}

/// A network the node should hold: its booking, whether that booking is
/// `ready` already, its document.
pub(crate) type Desired = (String, bool, NetworkDoc);

/// Which listed network a whole-state refusal names (`networks[3]...`).
fn refused_network(e: &ApiError) -> Option<usize> {
    let f = e.field.as_deref()?.strip_prefix("networks[")?;
    f[..f.find(']')?].parse().ok()
}
