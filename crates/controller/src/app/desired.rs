//! What each node should hold (omicron's pattern; the pass that sends it
//! is `crate::app::converge`): each node's desired networks are the provisioned, started network bookings
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

use crate::app::context::Context;
use crate::datastore::{bookings, nodes};
use crate::error::Result;
use crate::model::{NODE_PREFIX, OperationalState, node_doc, node_network_name};
use prism_netdoc::NetworkDoc;
use prism_node_api::{DesiredAction, DesiredState};
use std::collections::BTreeMap;

/// The node's desired networks, by network name: each booking's id,
/// whether it is `ready` already, and its document; only those of the
/// bookings `only` names, if given. A constant number of queries
/// whatever the node holds.
pub(crate) async fn desired_networks(
    cx: &Context,
    id: &str,
    only: Option<&[String]>,
) -> Result<Vec<Desired>> {
    use crate::datastore::{parts as part_store, public_addresses as publics_store};
    let running = bookings::running_on(&cx.pool, id, only).await?;
    let node_wan = nodes::wan_of(&cx.pool, id).await?;
    let mut parts = part_store::parts_by_booking_on(&cx.pool, id, only).await?;
    let s_tags = part_store::s_tags_on(&cx.pool, id, only).await?;
    let mut publics = publics_store::publics_by_booking_on(&cx.pool, id, only).await?;
    let mut desired = BTreeMap::new();
    for mut b in running {
        if b.resource_type != crate::model::NETWORK {
            continue;
        }
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
        crate::app::processing::add_hosts(cx, id, &b, &mut doc).await?;
        let ready = b.operational_state == OperationalState::Ready;
        desired.insert(name, (b.id, ready, doc));
    }
    Ok(desired.into_values().collect())
}

/// What the node did with each network (`applied`: a whole state's
/// answer lists every network, a change's those it touched): the counts,
/// and the bookings of `desired` now `ready` that were not. A network of
/// `desired` the node did not fail is on the node (a node that accepts a
/// generation holds every network of it but those it failed); only a
/// change of state is written. The networks it failed join `refused`.
pub(crate) fn tally(
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
            // A network is replaced; a processing node rewired in place counts as one.
            DesiredAction::Replaced | DesiredAction::Rewired => c.replaced += 1,
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
pub(crate) fn whole(generation: u64, desired: &[Desired]) -> DesiredState {
    DesiredState {
        generation,
        scope: NODE_PREFIX.to_string(),
        networks: desired.iter().map(|(_, _, d)| d.clone()).collect(),
    }
}

/// A network the node should hold: its booking, whether that booking is
/// `ready` already, its document.
pub(crate) type Desired = (String, bool, NetworkDoc);

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
