//! A pass's change to a node that holds a state this replica sent it:
//! read from the node's change record (`datastore::nodes::changes_since`),
//! the bookings changed since that state's generation, and only those
//! read, made into documents and sent (`PATCH /v1/desired`): what a change
//! costs does not grow with the networks the node holds. A node whose
//! record does not reach back to the state it holds, or a change of more
//! than `MAX_CHANGED` bookings, gets the change computed from its whole
//! desired state instead.

use crate::app::context::Context;
use crate::app::desired::Desired;
use crate::app::desired::desired_networks;
use crate::datastore::nodes;
use crate::error::Result;
use crate::model::{NODE_PREFIX, node_network_name};
use prism_node_api::{DesiredChange, DesiredState};
use std::collections::BTreeSet;
use std::sync::atomic::Ordering;

/// More changed bookings than this: the whole state is read (a query
/// listing thousands of ids costs more than the node's rows).
const MAX_CHANGED: usize = 256;

/// The change from `from` (which the node holds) to generation
/// `generation`, and the desired networks it was made of.
pub(crate) async fn change_from(
    cx: &Context,
    id: &str,
    from: &DesiredState,
    generation: u64,
) -> Result<(Vec<Desired>, DesiredChange)> {
    let base = i64::try_from(from.generation).unwrap_or(i64::MAX);
    let changed = nodes::changes_since(&cx.pool, id, base).await?;
    let Some(changed) = changed.filter(|c| c.len() <= MAX_CHANGED) else {
        let desired = desired_networks(cx, id, None).await?;
        let to = DesiredState {
            generation,
            scope: NODE_PREFIX.to_string(),
            networks: desired.iter().map(|(_, _, d)| d.clone()).collect(),
        };
        return Ok((desired, DesiredChange::between(from, &to)));
    };
    let desired = desired_networks(cx, id, Some(&changed)).await?;
    let listed: BTreeSet<&str> = desired.iter().map(|(_, _, d)| d.name.as_str()).collect();
    let change = DesiredChange {
        base: from.generation,
        generation,
        scope: NODE_PREFIX.to_string(),
        put: desired.iter().map(|(_, _, d)| d.clone()).collect(),
        remove: changed
            .iter()
            .map(|b| node_network_name(b))
            .filter(|n| !listed.contains(n.as_str()))
            .collect(),
    };
    Ok((desired, change))
}

/// With `Settings::check_changes` (the tests'), checks that the state
/// a change made of the node's (`held`) is the whole desired state
/// read anew; a difference is counted (`change_mismatches`) and said.
pub(crate) async fn check_change(cx: &Context, id: &str, held: &DesiredState) {
    if !cx.settings.check_changes {
        return;
    }
    // Read at the generation sent, or not at all: a change committed
    // meanwhile makes the whole state newer than the one sent.
    let generation = || async {
        let g = nodes::address_and_generation(&cx.pool, id).await.ok()?.2;
        (u64::try_from(g).ok()? == held.generation).then_some(())
    };
    if generation().await.is_none() {
        return;
    }
    let Ok(desired) = desired_networks(cx, id, None).await else {
        return;
    };
    if generation().await.is_none() {
        return;
    }
    let mut want: Vec<_> = desired.into_iter().map(|(_, _, d)| d).collect();
    let mut have = held.networks.clone();
    want.sort_by(|a, b| a.name.cmp(&b.name));
    have.sort_by(|a, b| a.name.cmp(&b.name));
    if want != have {
        cx.change_mismatches.fetch_add(1, Ordering::SeqCst);
        let made: std::collections::BTreeMap<_, _> =
            have.iter().map(|d| (d.name.as_str(), d)).collect();
        let wanted: std::collections::BTreeMap<_, _> =
            want.iter().map(|d| (d.name.as_str(), d)).collect();
        let differ: Vec<String> = (made.keys().chain(wanted.keys()))
            .filter(|n| made.get(*n) != wanted.get(*n))
            .map(|n| format!("{n}: made {:?}, desired {:?}", made.get(n), wanted.get(n)))
            .collect();
        eprintln!(
            "prism controller: node {id}: the state made by a change differs from the whole \
             desired state: {}",
            differ.join("; ")
        );
    }
}

/// How many changes made a state other than the whole desired one
/// (counted with `Settings::check_changes`).
pub fn change_mismatches(cx: &Context) -> usize {
    cx.change_mismatches.load(Ordering::SeqCst)
}
