//! Each node's passes asked for and running, apart from what a pass does
//! (`crate::app::node_work`): a kick's number per node, whether a task serves
//! it, and the last kick a finished pass covered, which tickets wait for.

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

impl Slot {
    fn ticket(&self) -> Ticket {
        Ticket {
            wanted: self.asked,
            done: self.done.subscribe(),
        }
    }
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

    /// Asks for a pass over node `id`: its ticket, and whether the caller
    /// must start a task to serve the node (none runs).
    pub(crate) fn ask(&self, id: &str) -> (Ticket, bool) {
        let mut nodes = self.lock();
        let slot = nodes.entry(id.to_string()).or_insert_with(|| Slot {
            asked: 0,
            running: false,
            done: watch::channel(0).0,
        });
        slot.asked += 1;
        let start = !slot.running;
        slot.running = true;
        (slot.ticket(), start)
    }

    /// The kicks a pass starting now over node `id` covers.
    pub(crate) fn asked(&self, id: &str) -> u64 {
        self.lock().get(id).map_or(0, |s| s.asked)
    }

    /// Records that a pass covering kicks up to `covers` finished: whether
    /// another is asked for (else the node's task ends).
    pub(crate) fn finished(&self, id: &str, covers: u64) -> bool {
        let mut nodes = self.lock();
        let Some(slot) = nodes.get_mut(id) else {
            return false;
        };
        slot.done.send_replace(covers);
        if slot.asked == covers {
            slot.running = false;
            return false;
        }
        true
    }

    /// A ticket for every node with a pass running.
    pub(crate) fn running(&self) -> Vec<Ticket> {
        self.lock()
            .values()
            .filter(|s| s.running)
            .map(Slot::ticket)
            .collect()
    }
}
