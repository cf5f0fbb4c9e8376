//! Changes to a live network booking (docs/customizing.md): its tables
//! (routes, rules, default action), its tier and its bandwidth. A change is checked
//! whole in one transaction (the booking's generation fenced, the quota
//! and its nodes' capacity, its documents compiled against its nodes'
//! ports) before anything moves; accepted, it is one generation of the
//! booking, kept in its history, accounted, and recorded as an operation
//! on each of its nodes, whose passes carry it there (on a node, a table
//! change replaces the network's tables in its slot: no reconfiguration;
//! a tier change is a move, the new tier serving before the old lets go).

use super::parts_change::{parts_after, parts_before, replace_parts};
use super::slot_load::{SlotLoad, slot_load};
use super::{booking_in, booking_tx_row, bump_generation};
use crate::app::audit::account;
use crate::app::authz::{Operation, Principal};
use crate::app::context::Context;
use crate::app::node_work::pass_wait;
use crate::app::operations::{begin_operation_on, node_changed};
use crate::app::placement::{Placement, node_ids_of};
use crate::app::projects::{ServiceLevel, project_for, project_level_for};
use crate::app::quota::check_quota;
use crate::datastore::{changes as store, nodes};
use crate::error::{Error, ErrorCode, Result};
use crate::infra::db::{self, Tx};
use crate::infra::secrets;
use crate::model::{
    AllocationState, Booking, BookingChange, BookingChangeView, BookingChanged, CHANGEABLE_SPEC,
    NETWORK,
};
use prism_placement::Tier;
use serde_json::{Map, Value};

/// `PATCH /v1/projects/{p}/bookings/{id}`: `c` applied to the booking,
/// or refused whole (its field named, nothing changed); with `dry_run`,
/// checked whole and answered as if applied.
pub async fn edit_booking(
    cx: &Context,
    p: &Principal,
    project: &str,
    id: &str,
    c: BookingChange,
) -> Result<BookingChanged> {
    let (m, level) = project_level_for(cx, p, project, Operation::BookingsChange).await?;
    let b = booking_in(cx, &m, id).await?;
    p.may_touch(
        &m,
        Operation::BookingsChange,
        &b.ids.user,
        &format!("booking {id}"),
    )?;
    check_request(&b, &c)?;
    let mut tx = db::project_tx(&cx.pool, &m.project_id, true).await?;
    let cur = booking_tx_row(&mut tx, id).await?;
    if cur.allocation_state == AllocationState::Unallocated {
        return Err(Error::conflict("the booking is released"));
    }
    if let Some(g) = c.generation.filter(|g| *g != cur.generation) {
        return Err(lost(g, cur.generation));
    }
    let (spec, mut diff) = changed(&cur, &c);
    if let Some(new) = &c.parts {
        let before = parts_before(&mut tx, id).await?;
        let after = parts_after(&mut tx, new).await?;
        diff.note("parts".into(), before, after);
    }
    if diff.fields.is_empty() {
        let change = diff.view(cx, cur.generation, &p.user, None);
        return Ok(answer(cur, change, c.dry_run));
    }
    let (b, change, lost) = write_change(
        cx,
        &mut tx,
        (&m.project_id, &level),
        &p.user,
        &cur,
        &c,
        (&spec, &diff),
    )
    .await?;
    if c.dry_run {
        // Dropped, the transaction changes nothing.
        return Ok(answer(b, change, true));
    }
    record(&mut tx, &b, &p.user_id, &change).await?;
    let op = match b.allocation_state == AllocationState::Provisioned {
        true => begin_operation_on(cx, &mut tx, (&b, "change"), &lost).await?,
        false => None,
    };
    bump_generation(&mut tx, &b).await?;
    account(cx, &mut tx, "change", &b, &m.project_id, &p.user_id).await?;
    tx.commit().await?;
    node_changed(cx, op, pass_wait(cx)).await;
    Ok(answer(booking_in(cx, &m, id).await?, change, false))
}

fn answer(booking: Booking, change: BookingChangeView, dry_run: bool) -> BookingChanged {
    BookingChanged {
        booking,
        change,
        dry_run,
    }
}

/// Checks change `c` of booking `cur` whole (its quota and nodes, its
/// documents, the slot load it makes) and writes it in `tx`, uncommitted:
/// the booking as changed, the change as its history will show it, and
/// the nodes that lose a part of it.
async fn write_change(
    cx: &Context,
    tx: &mut Tx,
    (project_id, level): (&str, &ServiceLevel),
    user: &str,
    cur: &Booking,
    c: &BookingChange,
    (spec, diff): (&Value, &Diff),
) -> Result<(Booking, BookingChangeView, Vec<String>)> {
    let mbps = c.bandwidth_mbps.unwrap_or(cur.bandwidth_mbps);
    let tier = asked_tier(c)?.or(cur.tier);
    let load = slot_load(tx, cur, spec, tier).await?;
    check_room(tx, (project_id, level), cur, (tier, mbps)).await?;
    let row = store::Changed { spec, mbps, tier };
    if !store::apply(tx, &cur.id, cur.generation, &row).await? {
        // Another change took the generation since it was read.
        let now = booking_tx_row(tx, &cur.id).await?.generation;
        return Err(lost(cur.generation, now));
    }
    let lost = match &c.parts {
        Some(new) if diff.fields.iter().any(|f| f == "parts") => {
            replace_parts(cx, tx, cur, (new, mbps)).await?
        }
        _ => Vec::new(),
    };
    let b = booking_tx_row(tx, &cur.id).await?;
    check_on_nodes(tx, &b, load.as_ref()).await?;
    let change = diff.view(cx, b.generation, user, load.as_ref());
    Ok((b, change, lost))
}

/// `GET …/bookings/{id}/changes`: the booking's accepted changes,
/// oldest first.
pub async fn booking_changes(
    cx: &Context,
    p: &Principal,
    project: &str,
    id: &str,
) -> Result<Vec<BookingChangeView>> {
    let m = project_for(cx, p, project, Operation::BookingsRead).await?;
    let b = booking_in(cx, &m, id).await?;
    store::list(&cx.pool, &b.id).await
}

/// A change that lost its generation: 409, with the one it lost to.
fn lost(from: i64, now: i64) -> Error {
    Error::conflict(format!(
        "the booking is at generation {now}, not {from}: read it again and make the change from there"
    ))
    .with_field("generation")
}

/// What needs no transaction: a network, fields that may change, values
/// in range.
fn check_request(b: &Booking, c: &BookingChange) -> Result<()> {
    if b.resource_type != NETWORK {
        return Err(Error::invalid(format!(
            "a {} booking has nothing to change here (only a network's tables, forwarding, tier and bandwidth)",
            b.resource_type
        ))
        .with_field("type"));
    }
    if c.is_empty() {
        return Err(Error::invalid(
            "nothing to change: give `spec` or `bandwidth_mbps`",
        ));
    }
    for (key, value) in c.spec.iter().flatten() {
        if !CHANGEABLE_SPEC.contains(&key.as_str()) {
            return Err(Error::invalid(format!(
                "`{key}` is not changed on a live booking (its tables are: {})",
                CHANGEABLE_SPEC.join(", ")
            ))
            .with_field(format!("spec.{key}")));
        }
        // A span's tunnels (routed) or S-tag (bridged) were taken for its
        // forwarding: every other field is every part's, changed on each.
        let kept = b.spec.get(key) == Some(value);
        if !b.parts.is_empty() && key == "forwarding" && !kept {
            return Err(Error::invalid(
                "a network spanning nodes keeps its forwarding (`destination` over its tunnels, or `bridge` under its S-tag): book another",
            )
            .with_field("spec.forwarding"));
        }
    }
    if c.parts.is_some() && b.parts.is_empty() {
        return Err(Error::invalid(
            "a network on one node stays on one node: book a network spanning nodes to have parts",
        )
        .with_field("parts"));
    }
    if let Some(m) = c.bandwidth_mbps
        && !(1..=100_000).contains(&m)
    {
        return Err(Error::invalid("1 to 100000 Mbit/s").with_field("bandwidth_mbps"));
    }
    Ok(())
}

/// What a change changes: each field's value before and after.
#[derive(Debug, Default)]
struct Diff {
    fields: Vec<String>,
    before: Map<String, Value>,
    after: Map<String, Value>,
}

impl Diff {
    /// Field `field` from `was` to `now`, if they differ.
    fn note(&mut self, field: String, was: Value, now: Value) {
        if was != now {
            self.before.insert(field.clone(), was);
            self.after.insert(field.clone(), now);
            self.fields.push(field);
        }
    }

    /// The change as the booking's history shows it.
    fn view(
        &self,
        cx: &Context,
        generation: i64,
        user: &str,
        load: Option<&SlotLoad>,
    ) -> BookingChangeView {
        BookingChangeView {
            generation,
            at_ms: cx.now_ms(),
            user: user.to_string(),
            fields: self.fields.clone(),
            before: Value::Object(self.before.clone()),
            after: Value::Object(self.after.clone()),
            strategy: load.and_then(|l| l.strategy).map(str::to_string),
            modelled_ms: load.map(|l| l.modelled_us as f64 / 1e3),
        }
    }
}

/// `cur`'s spec with `c` applied, and what differs (a field given its
/// current value is no change).
fn changed(cur: &Booking, c: &BookingChange) -> (Value, Diff) {
    let mut spec = cur.spec.clone();
    let mut d = Diff::default();
    if let Some(obj) = spec.as_object_mut() {
        for (k, v) in c.spec.iter().flatten() {
            let was = obj.get(k).cloned().unwrap_or(Value::Null);
            match v.is_null() {
                true => obj.remove(k),
                false => obj.insert(k.clone(), v.clone()),
            };
            d.note(format!("spec.{k}"), was, v.clone());
        }
    }
    if let Some(m) = c.bandwidth_mbps {
        d.note("bandwidth_mbps".into(), cur.bandwidth_mbps.into(), m.into());
    }
    (spec, d)
}

/// The tier a change asks for (`spec.tier`): `hardware` or `software`.
fn asked_tier(c: &BookingChange) -> Result<Option<Tier>> {
    let Some(v) = c.spec.as_ref().and_then(|s| s.get("tier")) else {
        return Ok(None);
    };
    match v.as_str().and_then(Tier::parse) {
        Some(t) => Ok(Some(t)),
        None => Err(Error::invalid(format!(
            "a live network moves to `hardware` or `software`, not {v}"
        ))
        .with_field("spec.tier")),
    }
}

/// More bandwidth, or another tier: within the project's quota (its
/// networks in that tier, its bandwidth) and each of the booking's nodes'
/// capacity in the tier it will be in (a free slot for hardware; 409 or
/// 503 at `spec.tier` or `bandwidth_mbps` otherwise).
async fn check_room(
    tx: &mut Tx,
    (project_id, level): (&str, &ServiceLevel),
    cur: &Booking,
    (tier, mbps): (Option<Tier>, i64),
) -> Result<()> {
    let Some(tier) = tier else { return Ok(()) };
    let moved = cur.tier != Some(tier);
    let field = if moved { "spec.tier" } else { "bandwidth_mbps" };
    let more_mbps = (mbps - cur.bandwidth_mbps).max(0);
    if moved || more_mbps > 0 {
        check_quota(tx, project_id, level, moved.then_some(tier), more_mbps, 0)
            .await
            .map_err(|e| e.with_field(field))?;
    }
    // What the tier it will be in must take on each node.
    let more = if moved {
        mbps
    } else {
        mbps - cur.bandwidth_mbps
    };
    for id in node_ids_of(tx, cur).await? {
        let Some(n) = nodes::node_row_tx(tx, &id).await? else {
            continue;
        };
        let (slots, hw, sw) = nodes::usage(&mut **tx, &id).await?;
        let (used, cap) = match tier {
            Tier::Hardware => (hw, n.hw_mbps),
            Tier::Software => (sw, n.sw_mbps),
        };
        let no_slot = moved && tier == Tier::Hardware && slots >= n.slots;
        if no_slot || (more > 0 && used + more > cap) {
            let why = match no_slot {
                true => format!("node `{}` has no free hardware slot", n.name),
                false => format!(
                    "node `{}` has {} Mbit/s left in the {} tier; {more} more asked",
                    n.name,
                    (cap - used).max(0),
                    tier.as_str()
                ),
            };
            return Err(Error::new(ErrorCode::NoCapacity, why).with_field(field));
        }
    }
    Ok(())
}

/// The changed booking's documents compiled against its node's ports, as
/// at booking: a route to a port it does not have, or out of the WAN
/// port, is refused here.
async fn check_on_nodes(tx: &mut Tx, b: &Booking, load: Option<&SlotLoad>) -> Result<()> {
    let (Some(node), Some(tier)) = (b.ids.node.as_deref(), b.tier) else {
        return Ok(());
    };
    let Some(node) = nodes::node_row_tx(tx, node).await? else {
        return Ok(());
    };
    let pl = Placement { node, tier };
    super::allocate::check_docs(tx, b, Some(&pl)).await?;
    // Served by software while its slot loads: software must take it.
    if load.is_some_and(|l| l.strategy == Some("fallback")) {
        let pl = Placement {
            tier: Tier::Software,
            ..pl
        };
        super::allocate::check_docs(tx, b, Some(&pl))
            .await
            .map_err(|e| e.with_field("spec.reconfigure"))?;
    }
    Ok(())
}

/// The change in the booking's history, under the generation it made.
async fn record(tx: &mut Tx, b: &Booking, user_id: &str, v: &BookingChangeView) -> Result<()> {
    let c = store::NewChange {
        id: &secrets::new_id(),
        booking_id: &b.id,
        generation: b.generation,
        user_id,
        at_ms: v.at_ms,
        fields: &v.fields,
        before: &v.before,
        after: &v.after,
        strategy: v.strategy.as_deref(),
        modelled_us: v.modelled_ms.map(|ms| (ms * 1e3).round() as i64),
    };
    store::insert(tx, &c).await
}
