//! `control/rule-churn/fw1_10k`: a rule-table network of fw1_10k's 9,416
//! rules forwarding the set's header trace on one thread (the pipeline
//! reading the published data plane each batch, as a node's worker does)
//! while the control thread changes rules at 10,000 a second (the target:
//! the lookup rate within 10% of the static one). Each change rewrites one
//! rule's action; the changes due while one publication was being made
//! are handed over together in the next whole document, as a node
//! coalesces changes that queue behind one being applied: one publication
//! as soon as the last is out, or one when 10 ms of changes are due.
//! Reported: the forwarding rate with no change and under each, the
//! changes made a second, the publications, and how long a change waited
//! for its publication.

use super::{BenchArgs, Figure, data, rules, wanted};
use prism_io::datasets::read_filters;
use prism_pipeline::{ForwardingSpec, Pipeline, Substrate};
use prism_wire::EthernetAddress;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

const NAME: &str = "control/rule-churn/fw1_10k";
/// Changes a second asked of the control thread.
const CHANGES_PER_S: u64 = 10_000;

pub fn run(args: &BenchArgs, push: &mut impl FnMut(Figure)) -> anyhow::Result<()> {
    if !wanted(args, NAME) {
        return Ok(());
    }
    let rules = read_filters(&data(args, "classbench/fw1_10k")?)?;
    let (headers, _) = super::classify::headers(&args.data, "fw1_10k", &rules)?;
    let frames = rules::frames(&headers);
    let mut s = rules::substrate(&rules)?;
    let secs = if args.quick { 1.0 } else { 3.0 };
    let forwarded = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let worker = {
        let (handle, forwarded, stop) = (s.handle(), forwarded.clone(), stop.clone());
        std::thread::spawn(move || forward(handle, &frames, &forwarded, &stop))
    };
    // Warm, then the rate with no change, then under the changes.
    std::thread::sleep(Duration::from_millis(500));
    let still = rate(&forwarded, || {
        std::thread::sleep(Duration::from_secs_f64(secs))
    });
    let mut figures = vec![(
        format!("{NAME}/still"),
        still,
        "forwarding, no change".to_string(),
    )];
    for (tag, window_s) in [("asap", 0.0), ("10ms", 0.010)] {
        let mut m = Made::default();
        let busy = rate(&forwarded, || m = change_for(&mut s, secs, window_s));
        let what = format!(
            "{:.0} rule changes/s ({CHANGES_PER_S} asked) in {:.0} publications/s ({}), \
             a change published {:.0} ms after due (mean; longest {:.0} ms): forwarding at {:.1}% of still",
            m.changes as f64 / secs,
            m.publications as f64 / secs,
            if window_s > 0.0 {
                "one when 10 ms of changes are due"
            } else {
                "one as soon as the last is out"
            },
            m.wait_sum_s / m.changes.max(1) as f64 * 1e3,
            m.wait_max_s * 1e3,
            busy / still * 1e2
        );
        figures.push((format!("{NAME}/changing-{tag}"), busy, what));
    }
    stop.store(true, Ordering::Relaxed);
    let _ = worker.join();
    for (name, pps, note) in figures {
        push(Figure {
            name,
            items: 0,
            mpps: pps / 1e6,
            ns_per_item: 1e9 / pps,
            tsc_cycles_per_item: 0.0,
            note,
        });
    }
    Ok(())
}

/// Packets a second forwarded while `during` runs.
fn rate(forwarded: &AtomicU64, during: impl FnOnce()) -> f64 {
    let (n0, t0) = (forwarded.load(Ordering::Relaxed), Instant::now());
    during();
    (forwarded.load(Ordering::Relaxed) - n0) as f64 / t0.elapsed().as_secs_f64()
}

/// The worker: every frame through the pipeline, again and again, the
/// data plane loaded each batch; counts what left.
fn forward(
    handle: Arc<arc_swap::ArcSwap<prism_pipeline::Dataplane>>,
    frames: &[Vec<u8>],
    forwarded: &AtomicU64,
    stop: &AtomicBool,
) {
    let mut p = Pipeline::new(handle, crate::bench::bench_config());
    let mut batch = Vec::with_capacity(32);
    let mut out = Vec::with_capacity(64);
    while !stop.load(Ordering::Relaxed) {
        let n = crate::bench::forward_pass(&mut p, frames, &mut batch, &mut out);
        forwarded.fetch_add(n as u64, Ordering::Relaxed);
    }
}

/// What the control thread did: changes made, publications, and how long
/// a change waited from when it was due to its publication (mean over
/// changes, and the longest).
#[derive(Default)]
struct Made {
    changes: u64,
    publications: u64,
    wait_sum_s: f64,
    wait_max_s: f64,
}

/// Changes rules for `secs` at [`CHANGES_PER_S`]: each publication takes
/// every change due by then, once `window_s` of them are due.
fn change_for(s: &mut Substrate, secs: f64, window_s: f64) -> Made {
    let mut spec = s.spec("acl").cloned().expect("the network");
    let (start, mut m, mut k) = (Instant::now(), Made::default(), 0usize);
    let rate = CHANGES_PER_S as f64;
    while start.elapsed().as_secs_f64() < secs {
        let due = (start.elapsed().as_secs_f64() * rate) as u64;
        if due <= m.changes || (due - m.changes) as f64 / rate < window_s {
            std::thread::sleep(Duration::from_micros(50));
            continue;
        }
        if let ForwardingSpec::Rules { rules, .. } = &mut spec.forwarding {
            for _ in m.changes..due {
                let i = k % rules.len();
                k = k.wrapping_add(7919);
                rules[i].action.set_dst_mac =
                    Some(EthernetAddress([2, 0, 0, 2, (k >> 8) as u8, k as u8]));
            }
        }
        if s.replace_network(spec.clone()).is_ok() {
            // Changes m.changes..due fell due evenly between these times.
            let (first, last) = (m.changes as f64 / rate, due as f64 / rate);
            let done = start.elapsed().as_secs_f64();
            m.wait_sum_s += (done - (first + last) / 2.0) * (due - m.changes) as f64;
            m.wait_max_s = m.wait_max_s.max(done - first);
            m.publications += 1;
            m.changes = due;
        }
    }
    m
}
