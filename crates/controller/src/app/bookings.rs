//! Bookings as leases (GENI AM API v3): allocate (a short hold that takes
//! quota and capacity) → provision (applied to a node) → status → renew →
//! release; start and stop as operational actions.

use crate::app::audit::account;
use crate::app::authz::{Membership, Operation, Principal};
use crate::app::checks::check_name;
use crate::app::context::Context;
use crate::app::node_work::pass_wait;
use crate::app::operations::{begin_operation, node_changed};
use crate::app::placement::Placement;
use crate::app::placement::node_ids_of;
use crate::app::projects::ServiceLevel;
use crate::app::projects::{project_for, project_level_for};
use crate::app::quota::check_quota;
use crate::app::quota::hours_up;
use crate::app::registry::{self, NETWORK, VLAN};
use crate::datastore::bookings as store;
use crate::datastore::{nodes, parts};
use crate::error::{Error, Result};
use crate::infra::db::{self, Tx};
use crate::infra::secrets;
use crate::model::{
    Action, AllocationState, Booking, BookingRequest, ListQuery, OperationalState, Page, Renewed,
    node_doc, node_network_name,
};
use prism_netdoc::TierChoice;

mod allocate;
mod change;
mod parts_change;
mod slot_load;
pub(crate) use allocate::allocate;
pub(crate) use change::{booking_changes, edit_booking};

/// The VLAN pool (1 is the default VLAN, 4095 reserved).
pub const VLAN_POOL: std::ops::RangeInclusive<i64> = 100..=4094;

/// Reads network `b`'s parts and S-tag on `conn` (the pool's, or a
/// transaction's). Only a network has them (`check_request`
/// refuses parts to other types): another type's booking reads nothing.
pub(crate) async fn with_parts(b: &mut Booking, conn: &mut sqlx::AnyConnection) -> Result<()> {
    if b.resource_type != NETWORK {
        return Ok(());
    }
    b.parts = parts::parts(&mut *conn, &b.id)
        .await?
        .iter()
        .map(|p| p.view())
        .collect();
    b.s_tag = parts::s_tag_of(&mut *conn, &b.id).await?;
    Ok(())
}

pub(crate) async fn booking_in(cx: &Context, m: &Membership, id: &str) -> Result<Booking> {
    let mut b = store::in_project(&cx.pool, id, &m.project_id)
        .await?
        .ok_or_else(|| Error::not_found(format!("booking `{id}`")))?;
    if b.resource_type == NETWORK {
        with_parts(&mut b, &mut *cx.pool.acquire().await?).await?;
    }
    Ok(b)
}

/// Booking `id` of project `project`, which the caller may see and
/// may change by `op` (its booker or a project owner): its project's
/// membership and the booking.
pub(crate) async fn booking_to_change(
    cx: &Context,
    p: &Principal,
    project: &str,
    id: &str,
    op: Operation,
) -> Result<(Membership, Booking)> {
    let m = project_for(cx, p, project, op).await?;
    let b = booking_in(cx, &m, id).await?;
    p.may_touch(&m, op, &b.ids.user, &format!("booking {id}"))?;
    Ok((m, b))
}

/// Booking `id` read in `tx`, with its parts.
pub(crate) async fn booking_tx_row(tx: &mut Tx, id: &str) -> Result<Booking> {
    let mut b = store::by_id(tx, id).await?;
    with_parts(&mut b, tx).await?;
    Ok(b)
}

pub async fn get_booking(cx: &Context, p: &Principal, project: &str, id: &str) -> Result<Booking> {
    let m = project_for(cx, p, project, Operation::BookingsRead).await?;
    booking_in(cx, &m, id).await
}

/// The project's bookings as `q` asks: oldest first, a page at a time,
/// by name (containing, any case) and state (allocation or
/// operational) when asked; released ones with `all` or when the state
/// asked is `unallocated`.
pub async fn find_bookings(
    cx: &Context,
    p: &Principal,
    project: &str,
    q: &ListQuery,
) -> Result<Page<Booking>> {
    let m = project_for(cx, p, project, Operation::BookingsRead).await?;
    let bad = || Error::invalid("a cursor from `next`").with_field("after");
    let after = match q.after.as_deref().map(|c| c.split_once('.')) {
        Some(Some((ms, id))) => (ms.parse::<i64>().map_err(|_| bad())?, id),
        Some(None) => return Err(bad()),
        None => (i64::MIN, ""),
    };
    let state = q.state.as_deref().filter(|s| !s.is_empty());
    if let Some(s) = state
        && AllocationState::parse(s).is_none()
        && OperationalState::parse(s).is_none()
    {
        return Err(Error::invalid(format!(
            "`{s}` is not a state: allocated, provisioned, unallocated, pending, ready, stopped, failed"
        ))
        .with_field("state"));
    }
    let filter = store::BookingFilter {
        all: q.all || state == Some("unallocated"),
        name: q.name.as_deref().filter(|s| !s.is_empty()),
        state,
    };
    let limit = q.limit.unwrap_or(100).clamp(1, 1000);
    let mut items = store::page(&cx.pool, &m.project_id, filter, after, limit + 1).await?;
    let next = (items.len() > limit).then(|| {
        items.truncate(limit);
        let last = &items[limit - 1];
        format!("{}.{}", last.created_ms, last.id)
    });
    Ok(Page { items, next })
}

/// Provisions an allocated booking: records the operation, makes it
/// part of its node's desired state (a new generation), then
/// converges the node. A crash between the two is resumed at start.
pub async fn provision(cx: &Context, p: &Principal, project: &str, id: &str) -> Result<Booking> {
    let (m, _) = booking_to_change(cx, p, project, id, Operation::BookingsCreate).await?;
    let now = cx.now_ms();
    let mut tx = db::project_tx(&cx.pool, &m.project_id, true).await?;
    let cur = booking_tx_row(&mut tx, id).await?;
    if cur.allocation_state != AllocationState::Allocated {
        return Err(Error::conflict(format!(
            "the booking is {}, not allocated",
            cur.allocation_state.as_str()
        )));
    }
    if cur.expires_ms <= now {
        return Err(Error::conflict(
            "the booking's hold has expired; allocate again",
        ));
    }
    let lease_s = cur.ids.lease_s;
    let op = begin_operation(cx, &mut tx, &cur, "provision").await?;
    let state = if cur.node.is_some() {
        OperationalState::Pending
    } else {
        OperationalState::Ready
    };
    store::set_provisioned(&mut tx, id, state, now, now + lease_s * 1000).await?;
    let b = booking_tx_row(&mut tx, id).await?;
    bump_generation(&mut tx, &b).await?;
    account(cx, &mut tx, "provision", &b, &m.project_id, &p.user_id).await?;
    tx.commit().await?;
    node_changed(cx, op, pass_wait(cx)).await;
    booking_in(cx, &m, id).await
}

/// Renews a provisioned or allocated booking to `lease_s` from now,
/// clamped to the service level's longest lease.
pub async fn renew(
    cx: &Context,
    p: &Principal,
    project: &str,
    id: &str,
    lease_s: i64,
) -> Result<Renewed> {
    let (m, level) = project_level_for(cx, p, project, Operation::BookingsRenew).await?;
    let b = booking_in(cx, &m, id).await?;
    p.may_touch(
        &m,
        Operation::BookingsRenew,
        &b.ids.user,
        &format!("booking {id}"),
    )?;
    if lease_s < 60 {
        return Err(Error::invalid("at least 60 seconds").with_field("lease_s"));
    }
    let now = cx.now_ms();
    let granted_s = lease_s.min(level.max_lease_s);
    let expires = now + granted_s * 1000;
    let mut tx = db::project_tx(&cx.pool, &m.project_id, true).await?;
    let cur = booking_tx_row(&mut tx, id).await?;
    if cur.allocation_state != AllocationState::Provisioned {
        return Err(Error::conflict(format!(
            "only a provisioned booking is renewed; this one is {}",
            cur.allocation_state.as_str()
        )));
    }
    let start = cur.provisioned_ms.unwrap_or(cur.created_ms);
    let extra_h = hours_up(expires - start) - hours_up(cur.expires_ms - start);
    if extra_h > 0 {
        check_quota(&mut tx, &m.project_id, &level, None, 0, extra_h * 3600).await?;
    }
    store::set_expires(&mut tx, id, expires).await?;
    let b = booking_tx_row(&mut tx, id).await?;
    account(cx, &mut tx, "renew", &b, &m.project_id, &p.user_id).await?;
    tx.commit().await?;
    Ok(Renewed {
        expires_ms: expires,
        clamped: granted_s < lease_s,
    })
}

/// Start or stop a provisioned network: a stopped one stays booked
/// (and counted) but leaves its node.
pub async fn act(
    cx: &Context,
    p: &Principal,
    project: &str,
    id: &str,
    action: Action,
) -> Result<Booking> {
    let (m, b) = booking_to_change(cx, p, project, id, Operation::BookingsAction).await?;
    if b.allocation_state != AllocationState::Provisioned || b.node.is_none() {
        return Err(Error::conflict(
            "only a provisioned network is started or stopped",
        ));
    }
    let state = match action {
        Action::Start => OperationalState::Pending,
        Action::Stop => OperationalState::Stopped,
    };
    let mut tx = db::project_tx(&cx.pool, &m.project_id, true).await?;
    let op = begin_operation(
        cx,
        &mut tx,
        &b,
        if action == Action::Start {
            "start"
        } else {
            "stop"
        },
    )
    .await?;
    store::set_operational(&mut tx, id, state).await?;
    bump_generation(&mut tx, &b).await?;
    tx.commit().await?;
    // A network started is answered ready (or failed) when its node
    // answers in time; a stop only waits a moment for its node.
    let wait = match action {
        Action::Start => pass_wait(cx),
        Action::Stop => change_wait(cx),
    };
    node_changed(cx, op, wait).await;
    booking_in(cx, &m, id).await
}

/// How long a release or a stop waits for its node before answering.
pub(crate) fn change_wait(cx: &Context) -> std::time::Duration {
    std::time::Duration::from_millis(cx.settings.change_wait_ms)
}

/// A new generation for every node booking `b` is on (a spanning
/// network's parts' nodes, else its node).
pub(crate) async fn bump_generation(tx: &mut Tx, b: &Booking) -> Result<()> {
    // A processing node's networks change with it (their routes to it).
    let attached = match b.resource_type == crate::model::PROCESSING {
        true => crate::app::processing::attached_ids(tx, b).await?,
        false => Vec::new(),
    };
    for node in node_ids_of(tx, b).await? {
        for id in std::iter::once(&b.id).chain(&attached) {
            crate::datastore::nodes::bump_generation(tx, &node, id).await?;
        }
    }
    Ok(())
}
