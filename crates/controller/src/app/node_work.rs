//! Each node's work apart: a pass over a node (its convergence to its
//! desired state, `crate::app::desired`) runs in a task of that node's own,
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

use crate::controller::Controller;
use crate::datastore::operations as store;
use crate::infra::work_queue::Ticket;

impl Controller {
    /// Asks for a pass over node `id` (started now if none runs, else
    /// after the running one); the ticket says when it is done.
    pub(crate) fn kick(&self, id: &str) -> Ticket {
        let (ticket, start) = self.work.ask(id);
        if start {
            let (c, id) = (self.clone(), id.to_string());
            tokio::spawn(async move { c.work_on(&id).await });
        }
        ticket
    }

    /// Asks for a pass over every node in `ids`.
    pub(crate) fn kick_all<'a>(&self, ids: impl IntoIterator<Item = &'a String>) -> Vec<Ticket> {
        ids.into_iter().map(|id| self.kick(id)).collect()
    }

    /// Passes over node `id` until no kick is left unserved.
    async fn work_on(&self, id: &str) {
        loop {
            let covers = self.work.asked(id);
            // In a task of its own: a pass that panicked ends, and the
            // node's next kick is still served.
            let (c, node) = (self.clone(), id.to_string());
            if let Err(e) = tokio::spawn(async move { c.pass(&node).await }).await {
                eprintln!("prism controller: a pass over node {id} failed: {e}");
            }
            if !self.work.finished(id, covers) {
                return;
            }
        }
    }

    /// One pass: the node converges; if it took its generation, the
    /// operations started on it before are done.
    async fn pass(&self, id: &str) {
        let started = store::started_on(&self.pool, id).await;
        let reached = self.converge_node(id).await.reached;
        match started {
            Ok(ops) if reached && !ops.is_empty() => {
                if let Err(e) = store::mark_done(&self.pool, &ops, self.now_ms()).await {
                    eprintln!("prism controller: marking operations on node {id} done: {e}");
                }
            }
            Ok(_) => {}
            Err(e) => eprintln!("prism controller: operations on node {id}: {e}"),
        }
    }

    /// Waits until no node has a pass asked for or running (tests, and a
    /// replica stepping down).
    pub async fn settle(&self) {
        loop {
            let tickets = self.work.running();
            if tickets.is_empty() {
                return;
            }
            for t in tickets {
                t.wait().await;
            }
        }
    }
}
