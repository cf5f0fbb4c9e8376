//! Seeing into what runs, for the portal and `prism ctl`: a node's
//! hardware tier and event log (administrators), and a booking's next
//! packets traced through the stages (its booker or a project owner). The
//! controller reads each from the node with its own credential for it; a
//! browser never talks to a node.

use crate::app::authz::{Operation, Principal};
use crate::app::bookings::{booking_to_change, get_booking};
use crate::app::context::Context;
use crate::app::node_identity::node_client;
use crate::datastore::bookings as booking_store;
use crate::datastore::nodes;
use crate::error::{Error, ErrorCode, Result};
use crate::model::{AllocationState, Booking};
use prism_controller_api::{CaptureRequest, NodeHardware, SlotView, TraceRequest};
use prism_node_api::{
    EventKind, NetworkView as NodeNetwork, NodeClient, NodeEvent, TapAnswer, TapBody,
};
use std::collections::{BTreeMap, BTreeSet};

/// Packets a trace or capture may ask for, and its longest wait.
const TAP_MAX: usize = 1000;
const TAP_WAIT_MAX_MS: u64 = 30_000;

pub(crate) fn node_failed(node: &str, e: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::NodeFailed, format!("node `{node}`: {e}"))
}

/// Networks whose last reconfiguration event is a start: loading now.
fn loading(events: &[NodeEvent]) -> BTreeSet<String> {
    let mut last: BTreeMap<&str, EventKind> = BTreeMap::new();
    use EventKind::*;
    for e in events {
        if matches!(
            e.kind,
            ReconfigurationStarted | ReconfigurationDone | ReconfigurationFailed
        ) {
            last.insert(&e.network, e.kind);
        }
    }
    last.into_iter()
        .filter(|(_, k)| *k == ReconfigurationStarted)
        .map(|(n, _)| n.to_string())
        .collect()
}

/// Provisioned booking `b`'s node, its network's name there and a
/// client for that node; 409 with `refusal` otherwise.
pub(crate) async fn placed(
    cx: &Context,
    b: &Booking,
    refusal: &str,
) -> Result<(String, String, NodeClient)> {
    let placed = b.ids.node.as_deref().zip(b.node_network.as_deref());
    let (Some((node_id, network)), AllocationState::Provisioned) = (placed, b.allocation_state)
    else {
        return Err(Error::conflict(refusal));
    };
    let (node, address, _) = nodes::address_and_generation(&cx.pool, node_id).await?;
    let client = node_client(cx, &node, &address).await?;
    Ok((node, network.to_string(), client))
}

/// Node `name`'s id and a client for it.
async fn node_named(cx: &Context, name: &str) -> Result<(String, NodeClient)> {
    let id = nodes::id_by_name(&cx.pool, name)
        .await?
        .ok_or_else(|| Error::not_found(format!("node `{name}`")))?;
    let (_, address, _) = nodes::address_and_generation(&cx.pool, &id).await?;
    Ok((id.clone(), node_client(cx, name, &address).await?))
}

/// Node `name`'s slots: what each holds, its state and power (model).
pub async fn node_hardware(cx: &Context, p: &Principal, name: &str) -> Result<NodeHardware> {
    p.require_admin()?;
    let (id, client) = node_named(cx, name).await?;
    let power = client.power().await.map_err(|e| node_failed(name, e))?;
    let networks = client
        .list_networks()
        .await
        .map_err(|e| node_failed(name, e))?;
    let events = client.events(0).await.map_err(|e| node_failed(name, e))?;
    let booked = booking_store::running_on(&cx.pool, &id, None).await?;
    let loads = loading(&events);
    let slots = power
        .regions
        .iter()
        .map(|r| {
            let net: Option<&NodeNetwork> = r
                .network
                .as_deref()
                .and_then(|n| networks.iter().find(|v| v.name == n))
                .or_else(|| networks.iter().find(|v| v.slot == Some(r.slot)));
            let name = net.map(|v| v.name.clone()).or(r.network.clone());
            let booking = name
                .as_deref()
                .and_then(|n| booked.iter().find(|b| b.node_network.as_deref() == Some(n)));
            let state = match &name {
                Some(n) if loads.contains(n) => "loading".to_string(),
                _ => r.state.clone(),
            };
            SlotView {
                slot: r.slot,
                state,
                network: name,
                booking: booking.map(|b| b.name.clone()),
                project: booking.map(|b| b.project.clone()),
                module: net.map(|v| v.forwarding.clone()),
                mw: r.mw,
            }
        })
        .collect();
    Ok(NodeHardware {
        node: name.to_string(),
        device: power.device,
        slots,
        total_mw: power.total_mw,
        device_static_mw: power.device_static_mw,
        static_region_mw: power.static_region_mw,
        source: power.source,
    })
}

/// Node `name`'s events numbered above `since`, oldest first.
pub async fn node_events(
    cx: &Context,
    p: &Principal,
    name: &str,
    since: u64,
) -> Result<Vec<NodeEvent>> {
    p.require_admin()?;
    let (_, client) = node_named(cx, name).await?;
    client.events(since).await.map_err(|e| node_failed(name, e))
}

/// The next `r.count` packets of booking `id`'s network, each stage's
/// decision (its booker's or a project owner's: a trace shows the
/// network's traffic).
pub async fn trace_booking(
    cx: &Context,
    p: &Principal,
    project: &str,
    id: &str,
    r: TraceRequest,
) -> Result<TapAnswer> {
    let tap = TapBody {
        count: r.count,
        capture: false,
        snaplen: None,
        timeout_ms: r.timeout_ms,
    };
    tap_booking(cx, p, project, id, tap).await
}

/// The next `r.count` frames of booking `id`'s network at ingress and
/// egress, as a pcapng file, and the booking's name (its booker's or a
/// project owner's: a capture holds the network's traffic).
pub async fn capture_booking(
    cx: &Context,
    p: &Principal,
    project: &str,
    id: &str,
    r: CaptureRequest,
) -> Result<(String, Vec<u8>)> {
    if r.snaplen.is_some_and(|s| !(1..=2048).contains(&s)) {
        return Err(Error::invalid("1 to 2048 bytes").with_field("snaplen"));
    }
    let tap = TapBody {
        count: r.count,
        capture: true,
        snaplen: r.snaplen,
        timeout_ms: r.timeout_ms,
    };
    let answer = tap_booking(cx, p, project, id, tap).await?;
    let bytes = answer
        .frames()
        .and_then(|f| prism_wire::pcapng::write(&f))
        .map_err(|e| Error::new(ErrorCode::NodeFailed, e))?;
    let name = get_booking(cx, p, project, id).await?.name;
    Ok((name, bytes))
}

/// A trace or capture of booking `id`'s network on its node, for its
/// booker or a project owner.
async fn tap_booking(
    cx: &Context,
    p: &Principal,
    project: &str,
    id: &str,
    tap: TapBody,
) -> Result<TapAnswer> {
    if !(1..=TAP_MAX).contains(&tap.count) {
        return Err(Error::invalid(format!("1 to {TAP_MAX}")).with_field("count"));
    }
    let wait = tap.timeout_ms.unwrap_or(5000);
    if wait > TAP_WAIT_MAX_MS {
        return Err(
            Error::invalid(format!("at most {TAP_WAIT_MAX_MS} ms")).with_field("timeout_ms")
        );
    }
    let (_, b) = booking_to_change(cx, p, project, id, Operation::BookingsAction).await?;
    let refusal = "only a provisioned network is traced or captured";
    let (node, network, client) = placed(cx, &b, refusal).await?;
    let client = client.with_timeout(std::time::Duration::from_millis(wait + 5000));
    let body = TapBody {
        timeout_ms: Some(wait),
        ..tap
    };
    client
        .tap(Some(&network), &body)
        .await
        .map_err(|e| node_failed(&node, e))
}
