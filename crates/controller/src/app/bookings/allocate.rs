//! Allocation: a booking request checked (its name, lease, parts and
//! bandwidth against the service level, its spec against its type), its
//! quota and capacity taken and its node placed, in one transaction.

use super::*;
use crate::app::audit::commit_accounted;
use crate::app::bookings::{booking_tx_row, provision};
use crate::app::placement::place;
use crate::app::projects::project_level_for;
use crate::app::quota::check_quota;
use crate::app::registry::resource_type;
use crate::app::span::{record_parts, span_place};

/// Allocates: checks the request, the quota and the capacity, and takes
/// them, all in one transaction; with `provision`, provisions it too.
pub async fn allocate(
    cx: &Context,
    p: &Principal,
    project: &str,
    mut r: BookingRequest,
) -> Result<Booking> {
    let (m, level) = project_level_for(cx, p, project, Operation::BookingsCreate).await?;
    check_name("name", &r.name)?;
    let compiled = resource_type(cx, &r.resource_type).await?;
    let rtype = &compiled.t;
    let lease_s = check_request(&level, &r, &rtype.name)?;
    let asked_tier = asked_tier(&compiled, &r.spec)?;
    let id = secrets::new_id();
    let shared = registry::shares_capacity(&rtype.name) || r.nat || !r.parts.is_empty();
    let mut tx = db::project_tx(&cx.pool, &m.project_id, shared).await?;
    let placement = place_within_quota(
        cx,
        &mut tx,
        (&m.project_id, &level),
        &mut r,
        asked_tier,
        lease_s,
    )
    .await?;
    let tier = placement.as_ref().map(|pl| pl.tier);
    let processing_node =
        place_processing(cx, &mut tx, (&m.project_id, &rtype.name), &mut r.spec).await?;
    let with_vlan = [NETWORK, VLAN, crate::model::SHARED_VLAN].contains(&rtype.name.as_str());
    let vlan = take_vlan(cx, &mut tx, with_vlan).await?;
    let row = store::NewBooking {
        id: &id,
        project_id: &m.project_id,
        user_id: &p.user_id,
        resource_type: &rtype.name,
        tier,
        lease_s,
        node_id: (placement.as_ref().map(|pl| pl.node.id.as_str()))
            .or(processing_node.as_ref().map(|(id, _)| id.as_str())),
        vlan,
    };
    let on_no_node = asked_tier.is_none();
    let (now, held_until) = insert_row(cx, &mut tx, (&row, &r), &level, on_no_node).await?;
    // The booking as written (no read-back: a round trip less), but
    // for a span, whose parts the database numbered.
    let b = if r.parts.is_empty() {
        let node = (placement.as_ref().map(|pl| pl.node.name.clone()))
            .or(processing_node.as_ref().map(|(_, name)| name.clone()));
        written(&row, &r, node, (&m.project, &p.user), (now, held_until))
    } else {
        record_parts(cx, &mut tx, &id, &r).await?;
        booking_tx_row(&mut tx, &id).await?
    };
    check_docs(&mut tx, &b, placement.as_ref()).await?;
    let who = (m.project_id.as_str(), p.user_id.as_str());
    commit_accounted(cx, tx, ("allocate", &b), who, 201).await?;
    if r.provision {
        return provision(cx, p, project, &id).await;
    }
    Ok(b)
}

/// The node (id, name) a processing node or a shared VLAN goes on
/// (`None` for another type); a processing node's stored image pinned to
/// its digest in `spec`.
async fn place_processing(
    cx: &Context,
    tx: &mut Tx,
    (project_id, rtype): (&str, &str),
    spec: &mut serde_json::Value,
) -> Result<Option<(String, String)>> {
    if rtype == crate::model::PROCESSING {
        crate::app::processing::pin_image(cx, tx, project_id, spec).await?;
    }
    match crate::app::processing::place_request(tx, project_id, rtype, spec).await? {
        Some(n) => Ok(Some(n)),
        None => crate::app::shared_vlans::place_request(tx, rtype, spec).await,
    }
}

/// Writes booking `row` of request `r`, held for `hold_s`; with
/// `quota_in_insert` (a type placed on no node by the network placement,
/// whose quota nothing checked before), only within the level's ceilings (a refusal names
/// its numbers). When it was allocated and until when it is held.
async fn insert_row(
    cx: &Context,
    tx: &mut Tx,
    (row, r): (&store::NewBooking<'_>, &BookingRequest),
    level: &ServiceLevel,
    quota_in_insert: bool,
) -> Result<(i64, i64)> {
    let now = cx.now_ms();
    let held_until = now + cx.settings.hold_s * 1000;
    let ceiling = quota_in_insert.then(|| store::Ceiling {
        max_mbps: level.max_bandwidth_mbps,
        mbps: r.bandwidth_mbps,
        max_hours: level.max_lease_hours,
        hours: hours_up(row.lease_s * 1000),
    });
    if !store::insert_within(tx, row, r, (now, held_until), ceiling).await? {
        // Over a ceiling: the refusal, with its numbers.
        check_quota(
            tx,
            row.project_id,
            level,
            None,
            r.bandwidth_mbps,
            row.lease_s,
        )
        .await?;
        return Err(Error::internal("a quota refused what its check allows"));
    }
    Ok((now, held_until))
}

/// Booking `r`'s quota checked and its place found, in `tx`; none for
/// a type on no node, whose quota its insert checks.
async fn place_within_quota(
    cx: &Context,
    tx: &mut Tx,
    (project_id, level): (&str, &ServiceLevel),
    r: &mut BookingRequest,
    asked: Option<TierChoice>,
    lease_s: i64,
) -> Result<Option<Placement>> {
    let Some(asked) = asked else {
        return Ok(None);
    };
    // The quota first: refused as such (409) whatever the nodes have
    // left; an `auto` network's tier counts once placed.
    let fixed = asked.fixed();
    let mbps = r.bandwidth_mbps;
    check_quota(tx, project_id, level, fixed, mbps, lease_s).await?;
    let placement = if r.parts.is_empty() {
        place(cx, tx, asked, mbps, r.nat).await?
    } else {
        span_place(cx, tx, &mut r.parts, asked, mbps).await?
    };
    if fixed.is_none() {
        check_quota(tx, project_id, level, Some(placement.tier), 0, 0).await?;
    }
    Ok(Some(placement))
}

/// Compiles the documents booking `b` becomes on its node or nodes,
/// as each node would: a refusal is the booker's, located, and the
/// transaction is not committed.
pub(super) async fn check_docs(tx: &mut Tx, b: &Booking, pl: Option<&Placement>) -> Result<()> {
    let (Some(pl), Some(v)) = (pl, b.vlan) else {
        return Ok(());
    };
    let tier = pl.tier;
    if b.parts.is_empty() {
        let doc = node_doc(
            &b.spec,
            &node_network_name(&b.id),
            tier,
            v,
            b.bandwidth_mbps,
        )?;
        let mut doc = doc;
        let wan = pl.node.wan.as_ref();
        crate::app::wan_guard::refuse_wan_egress(&doc, wan, &pl.node.ports, "spec")?;
        crate::app::gateway::gateway_doc(&mut doc, b, wan, &[])?;
        prism_compile::compile(&doc, &pl.node.ports).map_err(Error::from)?;
        return crate::app::programs::verify(&doc, "spec.program");
    }
    let parts = parts::parts(&mut **tx, &b.id).await?;
    crate::app::programs::verify(
        &node_doc(&b.spec, "part", tier, v, b.bandwidth_mbps)?,
        "spec.program",
    )?;
    for (i, part) in parts.iter().enumerate() {
        let ports = nodes::ports(tx, &part.node_id).await?;
        let wan = part.wan.as_ref();
        let spec = node_doc(&b.spec, "part", tier, v, b.bandwidth_mbps)?;
        crate::app::wan_guard::refuse_wan_egress(&spec, wan, &ports, "spec")?;
        let mut own = prism_netdoc::NetworkDoc::new("part", spec.tier, spec.forwarding);
        own.route = part.route.clone();
        crate::app::wan_guard::refuse_wan_egress(&own, wan, &ports, &format!("parts[{i}]"))?;
        if let Some(mut doc) = crate::app::span::part_doc(b, &parts, i)? {
            crate::app::gateway::gateway_doc(&mut doc, b, part.wan.as_ref(), &[])
                .map_err(|e| e.with_field(format!("parts[{i}].node")))?;
            prism_compile::compile(&doc, &ports).map_err(|e| {
                Error::invalid(format!(
                    "on node `{}`: {}: {}",
                    part.node, e.field, e.message
                ))
                .with_field(format!("parts[{i}]"))
            })?;
        }
    }
    Ok(())
}

/// A VLAN of the pool no booking holds (`crate::app::pools`' order: never
/// used first, then released longest ago, none within the hold-down), if
/// the booking is `wanted` to have one.
async fn take_vlan(cx: &Context, tx: &mut Tx, wanted: bool) -> Result<Option<i64>> {
    use crate::datastore::pool_releases::{VLANS, first_free, held_count};
    if !wanted {
        return Ok(None);
    }
    let cutoff = cx.now_ms() - cx.settings.pool_hold_down_ms;
    let (first, last) = (*VLAN_POOL.start(), *VLAN_POOL.end());
    if let Some(v) = first_free(tx, VLANS, first, last, cutoff).await? {
        return Ok(Some(v));
    }
    Err(Error::new(
        crate::error::ErrorCode::NoCapacity,
        format!(
            "the VLAN pool is exhausted ({} released in the last {} s are held down)",
            held_count(tx, VLANS, cutoff).await?,
            cx.settings.pool_hold_down_ms / 1000
        ),
    ))
}

/// The tier a network booking asks for; for another type, none, its spec
/// checked against the type's schema.
fn asked_tier(
    compiled: &crate::model::Compiled,
    spec: &serde_json::Value,
) -> Result<Option<TierChoice>> {
    match compiled.t.name.as_str() {
        NETWORK => match spec.get("tier").and_then(|t| t.as_str()) {
            Some(t) => TierChoice::parse(t).map(Some).ok_or_else(|| {
                Error::invalid("`hardware`, `software` or `auto`").with_field("spec.tier")
            }),
            None => Err(Error::invalid("`hardware`, `software` or `auto`").with_field("spec.tier")),
        },
        VLAN if !spec.as_object().is_some_and(|o| o.is_empty()) => {
            Err(Error::invalid("a `vlan` booking takes no parameters: {}").with_field("spec"))
        }
        VLAN => Ok(None),
        _ => registry::check_spec(compiled, spec).map(|()| None),
    }
}

/// Booking `row` (of request `r`) as `store::insert` writes it, allocated
/// at `times.0` and held until `times.1`: what reading it back would give.
fn written(
    row: &store::NewBooking<'_>,
    r: &BookingRequest,
    node: Option<String>,
    (project, user): (&str, &str),
    (now, held_until): (i64, i64),
) -> Booking {
    let on_node = node.is_some() && row.resource_type == NETWORK;
    Booking {
        id: row.id.to_string(),
        project: project.to_string(),
        user: user.to_string(),
        name: r.name.clone(),
        resource_type: row.resource_type.to_string(),
        allocation_state: AllocationState::Allocated,
        operational_state: OperationalState::Pending,
        error: None,
        tier: row.tier,
        bandwidth_mbps: r.bandwidth_mbps,
        node_network: on_node.then(|| crate::model::node_network_name(row.id)),
        node,
        vlan: row.vlan,
        created_ms: now,
        provisioned_ms: None,
        expires_ms: held_until,
        released_ms: None,
        spec: r.spec.clone(),
        generation: 1,
        parts: Vec::new(),
        s_tag: None,
        nat: r.nat,
        converging: false,
        ssh: None,
        host_keys: Vec::new(),
        ids: crate::model::BookingIds {
            user: row.user_id.to_string(),
            project: row.project_id.to_string(),
            node: row.node_id.map(str::to_string),
            lease_s: row.lease_s,
        },
    }
}

/// Checks a request's lease, parts and bandwidth against the service
/// level and its resource type; the lease in seconds.
fn check_request(level: &crate::ServiceLevel, r: &BookingRequest, rtype: &str) -> Result<i64> {
    let lease_s = r.lease_s.unwrap_or(level.default_lease_s);
    if !(60..=level.max_lease_s).contains(&lease_s) {
        return Err(Error::invalid(format!(
            "60 to {} seconds (the service level's longest lease)",
            level.max_lease_s
        ))
        .with_field("lease_s"));
    }
    let is_net = rtype == NETWORK;
    if !r.parts.is_empty() {
        if !is_net {
            return Err(Error::invalid("only a network spans nodes").with_field("parts"));
        }
        crate::app::span::check_parts(&r.parts, &r.spec)?;
    }
    if is_net && !(1..=100_000).contains(&r.bandwidth_mbps) {
        return Err(Error::invalid("1 to 100000 Mbit/s").with_field("bandwidth_mbps"));
    }
    if !is_net && r.bandwidth_mbps != 0 {
        return Err(
            Error::invalid(format!("a `{rtype}` has no bandwidth: 0")).with_field("bandwidth_mbps")
        );
    }
    Ok(lease_s)
}
