//! Traces and captures across a node's workers.
//!
//! A tap request goes to every worker (each has its own pipeline and sees
//! its own share of the packets); each answers when it has `count` records
//! or the time is up, and the answers are merged in time order and cut to
//! `count`. One tap at a time: a second waits for the first.
//!
//! The API server reaches the workers through [`TapSource`] (on Linux,
//! `linux::taps::WorkerTaps`), so the API's logic is tested without
//! threads or sockets.

use prism_pipeline::{TapRecord, TapRequest};
use std::time::Duration;

/// Where a node's taps are armed.
pub trait TapSource: Send + Sync + std::fmt::Debug {
    /// Records per `req`, waiting at most `wait`; `true` if the time ran out
    /// before `count` records came.
    fn tap(&self, req: TapRequest, wait: Duration) -> Result<(Vec<TapRecord>, bool), String>;
}

/// In time order (ingress before egress at equal times), at most `count`;
/// and whether fewer than `count` came.
pub fn merge(mut all: Vec<TapRecord>, count: usize) -> (Vec<TapRecord>, bool) {
    all.sort_by_key(|r| (r.timestamp_ns, r.point == prism_pipeline::TapPoint::Egress));
    let short = all.len() < count;
    all.truncate(count);
    (all, short)
}

/// Writes a capture's frames (`TapAnswer` with `capture`) to `path` as
/// pcapng (`prism_wire::pcapng`: a port an interface, each
/// frame's direction); returns how many frames were written.
pub fn write_pcapng(
    answer: &prism_node_api::TapAnswer,
    path: &std::path::Path,
) -> anyhow::Result<usize> {
    use anyhow::Context;
    let bytes = answer
        .frames()
        .and_then(|f| prism_wire::pcapng::write(&f))
        .map_err(|e| anyhow::anyhow!(e))?;
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))?;
    Ok(answer.packets.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use prism_pipeline::TapPoint;

    fn rec(t: u64, point: TapPoint) -> TapRecord {
        TapRecord {
            point,
            timestamp_ns: t,
            port: 0,
            network: None,
            len: 0,
            data: String::new(),
            stages: vec![],
        }
    }

    #[test]
    fn answers_merge_in_time_order_and_are_cut_to_count() {
        let all = vec![
            rec(5, TapPoint::Egress),
            rec(5, TapPoint::Ingress),
            rec(1, TapPoint::Ingress),
            rec(9, TapPoint::Ingress),
        ];
        let (m, short) = merge(all.clone(), 3);
        let order: Vec<_> = m.iter().map(|r| (r.timestamp_ns, r.point)).collect();
        assert_eq!(
            order,
            [
                (1, TapPoint::Ingress),
                (5, TapPoint::Ingress),
                (5, TapPoint::Egress)
            ]
        );
        assert!(!short);
        assert!(merge(all, 5).1);
    }
}
