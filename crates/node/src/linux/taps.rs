//! [`TapSource`] over a live node's workers: the request goes to every
//! worker by its command channel (see `crate::taps`).

use super::worker::WorkerCmd;
use crate::taps::{TapSource, merge};
use prism_pipeline::{TapRecord, TapRequest};
use std::sync::Mutex;
use std::sync::mpsc::{Sender, channel};
use std::time::{Duration, Instant};

/// The workers of a live node.
#[derive(Debug)]
pub struct WorkerTaps {
    workers: Mutex<Vec<Sender<WorkerCmd>>>,
}

impl WorkerTaps {
    pub fn new(workers: Vec<Sender<WorkerCmd>>) -> Self {
        Self {
            workers: Mutex::new(workers),
        }
    }
}

impl TapSource for WorkerTaps {
    fn tap(&self, req: TapRequest, wait: Duration) -> Result<(Vec<TapRecord>, bool), String> {
        // Held for the whole tap: one at a time.
        let workers = self.workers.lock().unwrap_or_else(|e| e.into_inner());
        let until = Instant::now() + wait;
        let mut answers = Vec::new();
        for w in workers.iter() {
            let (done, rx) = channel();
            w.send(WorkerCmd::Tap { req, until, done })
                .map_err(|_| "a worker has stopped".to_string())?;
            answers.push(rx);
        }
        let mut all = Vec::new();
        for rx in answers {
            // A worker answers by `until`; the margin covers its idle wait.
            let left = until.saturating_duration_since(Instant::now()) + Duration::from_secs(2);
            all.extend(
                rx.recv_timeout(left)
                    .map_err(|_| "a worker did not answer the tap".to_string())?,
            );
        }
        Ok(merge(all, req.count))
    }
}
