//! One convergence pass over a node: its desired state read, the change
//! since what it last accepted (or the whole state) sent, its answer
//! recorded.

use crate::app::context::Context;
use crate::app::desired::{Converged, Desired, desired_networks, tally, whole};
use crate::app::desired_change::{change_from, check_change};
use crate::app::node_identity::node_client;
use crate::datastore::nodes;
use crate::error::Result;
use prism_node_api::{ApiError, DesiredState, ErrorCode};

/// Whether node `id`'s desired generation has passed `sent` since it
/// was read.
async fn overtaken(cx: &Context, id: &str, sent: i64) -> Result<bool> {
    let (_, _, now) = nodes::address_and_generation(&cx.pool, id).await?;
    Ok(now > sent)
}

/// One pass over node `id`, here and now (the background's passes go
/// through `crate::app::node_work`, one at a time per node); failures are
/// recorded on the node and on the bookings concerned, never raised.
pub async fn converge_node(cx: &Context, id: &str) -> Converged {
    let lock = cx.node_lock(id);
    let mut accepted = lock.lock().await;
    match converge(cx, id, &mut accepted).await {
        Ok(c) => c,
        Err(e) => {
            let _ = nodes::set_last_error(&cx.pool, id, &e.to_string()).await;
            Converged::default()
        }
    }
}

async fn converge(
    cx: &Context,
    id: &str,
    accepted: &mut Option<DesiredState>,
) -> Result<Converged> {
    let (name, address, generation) = nodes::address_and_generation(&cx.pool, id).await?;
    let client = node_client(cx, &name, &address).await?;
    let sent = u64::try_from(generation).unwrap_or(0);
    // The change from what the node accepted last, if it still holds
    // it (read from the node's change record: what changed since, not
    // its every booking); if the node refuses it, the whole state.
    if let Some(from) = accepted.take() {
        let (desired, change) = change_from(cx, id, &from, sent).await?;
        match client.patch_desired(&change).await {
            Ok(a) => {
                *accepted = change.apply_to(&mut Some(from)).ok();
                if let Some(held) = accepted.as_ref() {
                    check_change(cx, id, held).await;
                }
                let c = record(cx, id, generation, desired, a, Vec::new()).await?;
                processing_pass(cx, id, &client, generation).await?;
                return Ok(c);
            }
            Err(e) if e.api().is_some() => {}
            Err(e) => return not_converged(cx, id, generation, &e).await,
        }
    }
    let mut desired = desired_networks(cx, id, None).await?;
    let mut refused: Vec<(String, String)> = Vec::new();
    // A document the node refuses whole (it should not: the controller
    // compiled it at booking) fails its booking and the rest go again.
    loop {
        let body = whole(sent, &desired);
        match client.put_desired(&body).await {
            Ok(a) => {
                *accepted = Some(body);
                let c = record(cx, id, generation, desired, a, refused).await?;
                processing_pass(cx, id, &client, generation).await?;
                return Ok(c);
            }
            Err(e) => {
                if let Some(i) = e.api().and_then(refused_network)
                    && i < desired.len()
                {
                    let (booking, _, _) = desired.remove(i);
                    refused.push((booking, e.to_string()));
                    continue;
                }
                return not_converged(cx, id, generation, &e).await;
            }
        }
    }
}

/// Records that node `id` took generation `generation` with `applied`
/// (the networks of `desired` it did not fail are on it).
async fn record(
    cx: &Context,
    id: &str,
    generation: i64,
    desired: Vec<Desired>,
    applied: prism_node_api::DesiredApplied,
    mut refused: Vec<(String, String)>,
) -> Result<Converged> {
    let (mut c, ready) = tally(desired, applied.networks, &mut refused);
    nodes::record_converged(&cx.pool, id, generation, &ready, &refused, cx.now_ms()).await?;
    c.reached = true;
    Ok(c)
}

/// Node `id`'s processing nodes, sent whole under the networks'
/// generation (a node without a processing port is sent nothing, and
/// its processing bookings fail); each booking's outcome recorded, but
/// for a node that did not answer, whose bookings wait for the next pass.
async fn processing_pass(
    cx: &Context,
    id: &str,
    client: &prism_node_api::NodeClient,
    generation: i64,
) -> Result<()> {
    use crate::app::processing;
    let Some(port) = crate::datastore::processing::processing_port_of(&cx.pool, id).await? else {
        return Ok(());
    };
    let desired = processing::desired_on(cx, id, &port).await?;
    let body = processing::whole(u64::try_from(generation).unwrap_or(0), &desired);
    let mut ready = Vec::new();
    let mut refused = Vec::new();
    match client.put_processing(&body).await {
        Ok(a) => {
            for (booking, was_ready, doc) in &desired {
                let got = a.nodes.iter().find(|n| n.name == doc.name);
                if let Some(n) = got.filter(|n| n.error.is_none()) {
                    let store = crate::datastore::processing::set_ssh;
                    store(&cx.pool, booking, n.ssh.as_deref(), &n.host_keys).await?;
                }
                match got {
                    Some(n) if n.error.is_some() => {
                        let why = n.error.as_ref().map(|e| e.to_string()).unwrap_or_default();
                        refused.push((booking.clone(), why));
                    }
                    _ if !was_ready => ready.push(booking.clone()),
                    _ => {}
                }
            }
        }
        // Refused whole: every booking fails, with the node's reason.
        Err(e) if e.api().is_some() => {
            refused.extend(desired.iter().map(|(b, _, _)| (b.clone(), e.to_string())))
        }
        // No answer in time (a first start unpacks its image, which can
        // take longer than a call may) or none at all: the bookings stay
        // as they are, pending or ready, and the next pass asks again.
        Err(e) => {
            let why = format!("processing nodes not confirmed: {e}");
            return nodes::set_last_error(&cx.pool, id, &why).await;
        }
    }
    nodes::record_converged(&cx.pool, id, generation, &ready, &refused, cx.now_ms()).await
}

/// Records why node `id` did not take generation `generation` (`e`),
/// unless another replica or a later pass has sent a newer one since.
async fn not_converged(
    cx: &Context,
    id: &str,
    generation: i64,
    e: &prism_node_api::ClientError,
) -> Result<Converged> {
    let api = e.api();
    if api.is_some_and(|a| a.code == ErrorCode::StaleGeneration)
        && overtaken(cx, id, generation).await?
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
    nodes::set_last_error(&cx.pool, id, &why).await?;
    Ok(Converged::default())
}

/// Which listed network a whole-state refusal names (`networks[3]...`).
fn refused_network(e: &ApiError) -> Option<usize> {
    let f = e.field.as_deref()?.strip_prefix("networks[")?;
    f[..f.find(']')?].parse().ok()
}
