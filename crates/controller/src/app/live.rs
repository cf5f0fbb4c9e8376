//! What a booking's network is doing now, read from its node by the
//! controller (with its own credential for that node): the portal's live
//! graph polls this, and the browser never talks to a node.

use crate::app::authz::{Operation, Principal};
use crate::app::bookings::booking_in;
use crate::app::context::Context;
use crate::app::observe::placed;
use crate::app::projects::project_for;
use crate::error::{Error, ErrorCode, Result};
use crate::infra::clock::Clock;
use crate::model::BookingCounters;

/// Booking `id`'s network's counters on its node (the first part's
/// for a network spanning nodes); 409 until it is provisioned.
pub async fn booking_counters(
    cx: &Context,
    p: &Principal,
    project: &str,
    id: &str,
) -> Result<BookingCounters> {
    let m = project_for(cx, p, project, Operation::BookingsRead).await?;
    let b = booking_in(cx, &m, id).await?;
    let refusal = format!("booking `{id}` is not provisioned on a node: nothing to count");
    let (node, network, client) = placed(cx, &b, &refusal).await?;
    let snapshot = client
        .counters()
        .await
        .map_err(|e| crate::app::observe::node_failed(&node, e))?;
    // When it was read, on the wall clock: a rate is physical time,
    // whatever clock the leases run on.
    let at_ms = crate::infra::clock::SystemClock.now_ms();
    let n = snapshot
        .networks
        .into_iter()
        .find(|n| n.name == network)
        .ok_or_else(|| {
            Error::new(
                ErrorCode::Conflict,
                format!("network `{network}` is not on node `{node}` yet (being applied)"),
            )
        })?;
    Ok(BookingCounters {
        node,
        network,
        at_ms,
        rx_packets: n.counters.rx_packets,
        rx_bytes: n.counters.rx_bytes,
        tx_packets: n.counters.tx_packets,
        tx_bytes: n.counters.tx_bytes,
        dropped: n.dropped,
        drops: n.drops,
    })
}
