//! Each node's work apart: a pass over a node (its convergence to its
//! desired state, `crate::app::converge`) runs in a task of that node's own,
//! one at a time per node, asked for by a kick. A kick while a pass runs
//! asks for one more pass after it (passes coalesce: ten kicks during a
//! pass make one more, not ten). So a node that is slow or hung, however
//! long its calls take, delays only its own passes: never another node's,
//! nor the reaper, nor the API's answers, which wait for a pass at most a
//! bounded time (`Ticket::wait_at_most`) and otherwise answer with the
//! change recorded and its node's convergence pending.
//!
//! A pass that brings the node to its generation marks done the
//! operations (`crate::app::operations`) that were started on the node before
//! it read that generation; one that fails leaves them started (the
//! booking shows `converging`, the node its `last_error`) for the next
//! pass, which the convergence period asks for.

use crate::app::context::Context;
use crate::app::converge::converge_node;
use crate::app::node_identity::{node_call_timeout, node_connect_timeout};
use crate::datastore::nodes;
use crate::datastore::operations as store;
use crate::infra::work_queue::Ticket;

/// Asks for a pass over node `id` (started now if none runs, else
/// after the running one); the ticket says when it is done.
pub(crate) fn kick(cx: &Context, id: &str) -> Ticket {
    let (ticket, start) = cx.work.ask(id);
    if start {
        let (c, id) = (cx.clone(), id.to_string());
        tokio::spawn(async move { work_on(&c, &id).await });
    }
    ticket
}

/// Asks for a pass over every node in `ids`.
pub(crate) fn kick_all<'a>(cx: &Context, ids: impl IntoIterator<Item = &'a String>) -> Vec<Ticket> {
    ids.into_iter().map(|id| kick(cx, id)).collect()
}

/// Passes over node `id` until no kick is left unserved.
async fn work_on(cx: &Context, id: &str) {
    loop {
        let covers = cx.work.asked(id);
        // In a task of its own: a pass that panicked ends, and the
        // node's next kick is still served.
        let (c, node) = (cx.clone(), id.to_string());
        if let Err(e) = tokio::spawn(async move { pass(&c, &node).await }).await {
            eprintln!("prism controller: a pass over node {id} failed: {e}");
        }
        if !cx.work.finished(id, covers) {
            return;
        }
    }
}

/// One pass: the node converges; if it took its generation, the
/// operations started on it before are done.
async fn pass(cx: &Context, id: &str) {
    let started = store::started_on(&cx.pool, id).await;
    let reached = converge_node(cx, id).await.reached;
    match started {
        Ok(ops) if reached && !ops.is_empty() => {
            if let Err(e) = store::mark_done(&cx.pool, &ops, cx.now_ms()).await {
                eprintln!("prism controller: marking operations on node {id} done: {e}");
            }
        }
        Ok(_) => {}
        Err(e) => eprintln!("prism controller: operations on node {id}: {e}"),
    }
}

/// Waits until no node has a pass asked for or running (tests, and a
/// replica stepping down).
pub async fn settle(cx: &Context) {
    loop {
        let tickets = cx.work.running();
        if tickets.is_empty() {
            return;
        }
        for t in tickets {
            t.wait().await;
        }
    }
}

/// Asks for a pass over every node, each in its own task
/// (`crate::app::node_work`): the background loop's period.
pub(crate) async fn kick_every_node(cx: &Context) -> Vec<crate::infra::work_queue::Ticket> {
    match nodes::node_ids(&cx.pool).await {
        Ok(ids) => kick_all(cx, &ids),
        Err(e) => {
            eprintln!("prism controller: converging nodes: {e}");
            Vec::new()
        }
    }
}

/// A pass over every node, side by side; returns when all are done.
pub async fn converge_all(cx: &Context) {
    for t in kick_every_node(cx).await {
        t.wait().await;
    }
}

/// How long a call that needs its node's answer (a provision, a
/// start, a public address) waits for the pass over it: as long as
/// one pass can take, so a failing node's own error is recorded
/// first; no longer, whatever passes are queued before it.
pub(crate) fn pass_wait(cx: &Context) -> std::time::Duration {
    node_connect_timeout(cx) + node_call_timeout(cx) + std::time::Duration::from_millis(500)
}
