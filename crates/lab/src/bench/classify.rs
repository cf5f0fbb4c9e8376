//! `prism bench --only classifier`: the two classifiers on ClassBench sets.
//!
//! - `classifier/SET`: tuple-space search ([`Classifier`]), key by key.
//! - `classifier-tree/SET`: the decision trees ([`TreeClassifier`]), keys
//!   in batches (its `lookup_batch`).
//! - `classifier-tree/SET/updates`: rules taken out and put back, one
//!   change per item, the rebuilds every `rebuild_after` changes included:
//!   the update rate beside the lookup rate (rte_acl rebuilds its whole
//!   context on any change).
//!
//! Every set is first checked: both classifiers give the same rule for
//! every header, else the benchmark fails.

use super::{BenchArgs, Figure, data, in_rule_headers, measure, wanted};
use anyhow::{Result, ensure};
use prism_io::datasets::{read_filters, read_trace};
use prism_tables::classbench::TraceEntry;
use prism_tables::{Classifier, Key, Match, Rule, TreeClassifier};
use std::hint::black_box;
use std::path::Path;

pub fn run(args: &BenchArgs, reps: usize, push: &mut impl FnMut(Figure)) -> Result<()> {
    for set in ["fw1_10k", "ipc1_10k", "acl1_10k"] {
        let names = [
            format!("classifier/{set}"),
            format!("classifier-tree/{set}"),
            format!("classifier-tree/{set}/updates"),
        ];
        if !names.iter().any(|n| wanted(args, n)) {
            continue;
        }
        let rules = read_filters(&data(args, &format!("classbench/{set}"))?)?;
        let mut c = Classifier::new();
        for r in &rules {
            c.insert(*r);
        }
        let t0 = std::time::Instant::now();
        let tree = TreeClassifier::build(rules.clone());
        let build_ms = t0.elapsed().as_secs_f64() * 1e3;
        let (keys, what) = headers(&args.data, set, &rules)?;
        let mut out = vec![None; keys.len()];
        tree.lookup_batch(&keys, &mut out);
        agree(set, &c, &keys, &out)?;
        if wanted(args, &names[0]) {
            let note = format!("{} rules, {} tuples, {what}", rules.len(), c.tuple_count());
            push(measure(&names[0], keys.len() as u64, reps, &note, || {
                let mut acc = 0u32;
                for k in &keys {
                    acc = acc.wrapping_add(c.lookup(k).map_or(0, |m| m.action));
                }
                black_box(acc);
            }));
        }
        if wanted(args, &names[1]) {
            let stored: usize = tree.trees().map(|t| t.stored()).sum();
            let bytes: usize = tree.trees().map(|t| t.bytes()).sum();
            let note = format!(
                "{} rules in {}, {stored} leaf entries, {} KiB, built in {build_ms:.0} ms; {what}; {}",
                rules.len(),
                tree.shape(),
                bytes / 1024,
                tree.batch_walk()
            );
            push(measure(&names[1], keys.len() as u64, reps, &note, || {
                tree.lookup_batch(black_box(&keys), &mut out);
                black_box(&out);
            }));
        }
        if wanted(args, &names[2]) {
            push(updates(&names[2], &tree, &rules, reps));
        }
    }
    Ok(())
}

/// Refuses a benchmark whose tree answers `out` for `keys` where the
/// tuple-space search answers otherwise.
fn agree(set: &str, c: &Classifier, keys: &[Key], out: &[Option<Match>]) -> Result<()> {
    let differ = keys
        .iter()
        .zip(out)
        .filter(|(k, o)| **o != c.lookup(k))
        .count();
    ensure!(
        differ == 0,
        "{set}: the tree and tuple-space search differ on {differ} headers"
    );
    Ok(())
}

/// The headers to classify for `set` (its rules `rules`), from the shared
/// data in `data`: the shipped ClassBench trace, or one header inside each
/// rule where none ships; and which of the two, for reports.
pub fn headers(data: &Path, set: &str, rules: &[Rule]) -> Result<(Vec<Key>, &'static str)> {
    let trace_path = data.join(format!("classbench/{set}_trace"));
    Ok(if trace_path.exists() {
        let t: Vec<TraceEntry> = read_trace(&trace_path)?;
        let k: Vec<Key> = t.into_iter().map(|e| e.key).collect();
        (k, "ClassBench trace")
    } else {
        (
            in_rule_headers(rules),
            "one header inside each rule (no trace ships)",
        )
    })
}

/// Updates to the trees: a rule removed and put back, rebuilds included.
fn updates(name: &str, tree: &TreeClassifier, rules: &[Rule], reps: usize) -> Figure {
    let mut t = tree.clone();
    let n = 2 * t.rebuild_after() as u64;
    let mut i = 0usize;
    let note = format!(
        "a rule removed, then put back: {n} changes a pass, a rebuild every {}",
        t.rebuild_after()
    );
    measure(name, n, reps, &note, || {
        for _ in 0..n / 2 {
            let r = rules[i % rules.len()];
            i += 7919;
            black_box(t.remove(r.id));
            black_box(t.insert(r));
        }
    })
}
