//! The end of a lease: a user's release, and the reaper's expiry of
//! leases past their end and holds past their hold.

use crate::app::audit::commit_accounted;
use crate::app::authz::{Membership, Operation, Principal};
use crate::app::bookings::{booking_in, bump_generation, change_wait};
use crate::app::context::Context;
use crate::app::gateway::release_publics_of;
use crate::app::login_guard::forget_old_login_strikes;
use crate::app::node_work::kick_all;
use crate::app::operations::{begin_operation, node_changed};
use crate::app::projects::project_for;
use crate::app::public::reap_public;
use crate::app::registry::NETWORK;
use crate::datastore::bookings;
use crate::error::{Error, Result};
use crate::infra::db;
use crate::model::Booking;

/// Generations of a node's change record kept before what it has taken:
/// a replica whose last state is older sends the node its whole state.
const CHANGES_KEPT: i64 = 1000;

/// Releases booking `id` of `project`: its VLAN, capacity and tunnels
/// freed (to the back of their pools), its nodes' desired states
/// changed; answers once its nodes have taken it or after a moment
/// (`converging` then says the nodes' convergence is pending).
pub async fn release(cx: &Context, p: &Principal, project: &str, id: &str) -> Result<Booking> {
    let m = project_for(cx, p, project, Operation::BookingsRelease).await?;
    let now = cx.now_ms();
    // Read and released in one statement, in the transaction, if the
    // caller may (its booker; any booker for an owner or an
    // administrator): the project's lock first, the shared one after
    // it once the booking is known to hold shared capacity.
    let mut tx = db::project_tx(&cx.pool, &m.project_id, false).await?;
    let any_booker = p.is_admin || m.role == Some(crate::model::Role::Owner);
    let who = (p.user_id.as_str(), any_booker);
    let found = bookings::release_returning(&mut tx, (id, &m.project_id), who, now).await?;
    let Some(mut b) = found else {
        drop(tx);
        return Err(why_not_released(cx, p, &m, id).await);
    };
    let resource = format!("booking {id}");
    p.may_touch(&m, Operation::BookingsRelease, &b.ids.user, &resource)?;
    if b.resource_type == NETWORK {
        crate::app::bookings::with_parts(&mut b, &mut tx).await?;
    }
    if bookings::shares(&b.resource_type, b.ids.node.is_some(), b.vlan.is_some()) {
        db::take_shared(&mut tx).await?;
    }
    let op = begin_operation(cx, &mut tx, &b, "release").await?;
    if b.vlan.is_some() {
        bookings::release_vlan(&mut tx, id, now).await?;
    }
    // Tunnel addresses, S-tags and public addresses are a network's.
    if b.resource_type == NETWORK {
        crate::datastore::parts::free_tunnels(&mut tx, id, now).await?;
        release_publics_of(&mut tx, id, now).await?;
    }
    bump_generation(&mut tx, &b).await?;
    let who = (m.project_id.as_str(), p.user_id.as_str());
    commit_accounted(cx, tx, ("release", &b), who, 200).await?;
    let converged = node_changed(cx, op, change_wait(cx)).await;
    b.converging = !converged;
    Ok(b)
}

/// Why booking `id` of project `m` was not released by `p`: not the
/// project's (404), released already (409), or not the caller's to
/// release (403).
async fn why_not_released(cx: &Context, p: &Principal, m: &Membership, id: &str) -> Error {
    match booking_in(cx, m, id).await {
        Err(e) => e,
        Ok(b) if b.released_ms.is_some() => Error::conflict("the booking is released already"),
        Ok(b) => match p.may_touch(m, Operation::BookingsRelease, &b.ids.user, "") {
            Err(e) => e,
            Ok(()) => Error::internal("the booking changed meanwhile; try again"),
        },
    }
}

/// Forgets, once a minute, each node's change record older than
/// `CHANGES_KEPT` generations before what it has taken.
async fn prune_node_changes(cx: &Context) -> Result<()> {
    use std::sync::atomic::Ordering;
    let now = cx.now_ms();
    if now - cx.changes_pruned_ms.load(Ordering::Relaxed) < 60_000 {
        return Ok(());
    }
    cx.changes_pruned_ms.store(now, Ordering::Relaxed);
    let mut tx = db::begin(&cx.pool).await?;
    crate::datastore::nodes::prune_changes(&mut tx, CHANGES_KEPT).await?;
    tx.commit().await?;
    Ok(())
}

/// Releases every lease past its end (and every hold past its hold)
/// in one transaction, set by set, then asks each node concerned for
/// a pass, which it does in its own time (`crate::app::node_work`): a lease
/// ends on time whatever its node does. Returns how many.
pub async fn reap(cx: &Context) -> Result<usize> {
    forget_old_login_strikes(cx).await?;
    prune_node_changes(cx).await?;
    let mut n = reap_public(cx).await?;
    let now = cx.now_ms();
    let mut tx = db::booking_tx(&cx.pool).await?;
    let (nodes, expired) = bookings::expire_due(&mut tx, now).await?;
    n += expired;
    tx.commit().await?;
    kick_all(cx, &nodes);
    Ok(n)
}
