//! The operation journal: a multi-step node operation is recorded in the
//! transaction that changes a node's desired state, carried out (the node
//! converges), then marked done; a controller killed in between finds it
//! `started` when it next leads (`crate::app::leader::resume`) and finishes it (omicron's sagas, in their
//! simplest form: every step here is idempotent convergence).

use crate::app::context::Context;
use crate::app::node_work::kick_all;
use crate::app::placement::node_ids_of;
use crate::datastore::operations as store;
use crate::error::Result;
use crate::infra::db::Tx;
use crate::infra::secrets;
use crate::model::Booking;
use std::time::Duration;

/// A node operation recorded before it starts.
#[derive(Debug, Clone)]
pub(crate) struct OpRecord {
    /// (operation id, node id): one per node the booking is on.
    pub steps: Vec<(String, String)>,
}

/// Records a node operation on booking `b`'s node, in the transaction
/// that changes the node's desired state (nothing when it has no node:
/// there is nothing to resume).
pub(crate) async fn begin_operation(
    cx: &Context,
    tx: &mut Tx,
    b: &Booking,
    kind: &str,
) -> Result<Option<OpRecord>> {
    begin_operation_on(cx, tx, (b, kind), &[]).await
}

/// [`begin_operation`], on `more` nodes too (those that lose a part of the
/// booking in the same transaction).
pub(crate) async fn begin_operation_on(
    cx: &Context,
    tx: &mut Tx,
    (b, kind): (&Booking, &str),
    more: &[String],
) -> Result<Option<OpRecord>> {
    let mut nodes = node_ids_of(tx, b).await?;
    nodes.extend(
        more.iter()
            .filter(|n| !nodes.contains(n))
            .cloned()
            .collect::<Vec<_>>(),
    );
    if nodes.is_empty() {
        return Ok(None);
    }
    let mut steps = Vec::new();
    for node in nodes {
        let id = secrets::new_id();
        store::insert_started(tx, &id, &b.id, &node, kind, cx.now_ms()).await?;
        steps.push((id, node));
    }
    Ok(Some(OpRecord { steps }))
}

/// Carries out a recorded operation: its nodes are asked for a pass
/// (`crate::app::node_work`), which marks it done once the node has taken
/// the desired state its transaction changed; waits for those passes
/// at most `wait`. Whether they finished (the booking's operational
/// state says how the node took it; if not, it is `converging`).
pub(crate) async fn node_changed(cx: &Context, op: Option<OpRecord>, wait: Duration) -> bool {
    let Some(op) = op else { return true };
    let tickets = kick_all(cx, op.steps.iter().map(|(_, node)| node));
    // The passes run side by side; waiting for each in turn takes as
    // long as the slowest.
    let all = async {
        for t in tickets {
            t.wait().await;
        }
    };
    if tokio::time::timeout(wait, all).await.is_ok() {
        return true;
    }
    let why = format!(
        "convergence pending: the node has not taken its desired state within {wait:?}; \
         its pass goes on in the background"
    );
    for (_, node) in &op.steps {
        let _ = crate::datastore::nodes::note_pending(&cx.pool, node, &why).await;
    }
    false
}
