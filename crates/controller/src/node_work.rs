//! Each node's work apart: a pass over a node (its convergence to its
//! desired state, `crate::reconcile`) runs in a task of that node's own,
//! one at a time per node, asked for by a kick. A kick while a pass runs
//! asks for one more pass after it (passes coalesce: ten kicks during a
//! pass make one more, not ten). So a node that is slow or hung, however
//! long its calls take, delays only its own passes: never another node's,
//! nor the reaper, nor the API's answers, which wait for a pass at most a
//! bounded time (`Ticket::wait_at_most`) and otherwise answer with the
//! change recorded and its node's convergence pending.
//!
//! A pass that brings the node to its generation marks done the
//! operations (`crate::operations`) that were started on the node before
//! it read that generation; one that fails leaves them started (the
//! booking shows `converging`, the node its `last_error`) for the next
//! pass, which the reconciler's period asks for.

use crate::controller::Controller;
use crate::datastore::operations as store;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::watch;

/// The passes asked of every node, and which are running.
#[derive(Debug, Default)]
pub(crate) struct NodeWork {
    nodes: Mutex<HashMap<String, Slot>>,
}

#[derive(Debug)]
struct Slot {
    /// Passes asked for so far (a kick's number).
    asked: u64,
    /// Whether a task is carrying out passes for this node.
    running: bool,
    /// The number of the last kick a finished pass covered.
    done: watch::Sender<u64>,
}

/// A kick's claim: the pass that covers it.
#[derive(Debug)]
pub(crate) struct Ticket {
    wanted: u64,
    done: watch::Receiver<u64>,
}

impl Ticket {
    /// Waits until a pass that started after the kick has finished.
    pub async fn wait(mut self) {
        let wanted = self.wanted;
        let _ = self.done.wait_for(|d| *d >= wanted).await;
    }

    /// As [`Self::wait`], for `limit` at most: whether it finished.
    pub async fn wait_at_most(self, limit: Duration) -> bool {
        tokio::time::timeout(limit, self.wait()).await.is_ok()
    }
}

impl NodeWork {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Slot>> {
        self.nodes.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Controller {
    /// Asks for a pass over node `id` (started now if none runs, else
    /// after the running one); the ticket says when it is done.
    pub(crate) fn kick(&self, id: &str) -> Ticket {
        let mut nodes = self.work.lock();
        let slot = nodes.entry(id.to_string()).or_insert_with(|| Slot {
            asked: 0,
            running: false,
            done: watch::channel(0).0,
        });
        slot.asked += 1;
        let ticket = Ticket {
            wanted: slot.asked,
            done: slot.done.subscribe(),
        };
        if !slot.running {
            slot.running = true;
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
            let covers = self.work.lock().get(id).map_or(0, |s| s.asked);
            // In a task of its own: a pass that panicked ends, and the
            // node's next kick is still served.
            let (c, node) = (self.clone(), id.to_string());
            if let Err(e) = tokio::spawn(async move { c.pass(&node).await }).await {
                eprintln!("prism controller: a pass over node {id} failed: {e}");
            }
            let mut nodes = self.work.lock();
            let Some(slot) = nodes.get_mut(id) else {
                return;
            };
            slot.done.send_replace(covers);
            if slot.asked == covers {
                slot.running = false;
                return;
            }
        }
    }

    /// One pass: the node converges; if it took its generation, the
    /// operations started on it before are done.
    async fn pass(&self, id: &str) {
        let started = store::started_on(&self.pool, id).await;
        let reached = self.reconcile_node(id).await.reached;
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
            let tickets: Vec<Ticket> = {
                let nodes = self.work.lock();
                nodes
                    .values()
                    .filter(|s| s.running)
                    .map(|s| Ticket {
                        wanted: s.asked,
                        done: s.done.subscribe(),
                    })
                    .collect()
            };
            if tickets.is_empty() {
                return;
            }
            for t in tickets {
                t.wait().await;
            }
        }
    }
}
