//! Packet classification on ClassBench rule sets: DPDK's rte_acl
//! (`dpdk-test-acl`) against Prism's two classifiers, tuple-space search
//! (`Classifier`, key by key) and the decision trees (`TreeClassifier`,
//! keys in batches, as rte_acl classifies a burst), on the same rules
//! and the same headers, after checking that all three pick the same rule
//! for every header.
//!
//! `dpdk-test-acl` reads ClassBench filter and trace files. Its trace buffer
//! holds `--tracenum` headers (65,536 by default); a longer trace overruns it
//! (it crashes), so the run passes the trace's length.
//! With `--verbose=3` it prints the matched rule of each header, numbered
//! from 0 in file order as Prism numbers them (0 also stands for "none",
//! which the ClassBench sets, ending in a catch-all rule, never give).
//! acl1_10k ships without a trace: both read the same generated one, a
//! header inside each rule.

use crate::{Clock, PeersArgs, Row};
use anyhow::{Context, Result, bail};
use prism_io::datasets::{read_filters, read_trace};
use prism_lab::bench::tsc;
use prism_node::pin_to_core;
use prism_tables::Key;
use prism_tables::{Classifier, TreeClassifier};
use std::path::{Path, PathBuf};
use std::process::Command;

fn test_acl(
    core: usize,
    rules: &Path,
    trace: &Path,
    n: usize,
    iter: usize,
    verbose: u8,
) -> Result<String> {
    let out = Command::new("dpdk-test-acl")
        .args(["-l", &core.to_string()])
        .args(crate::hugepages::eal_memory(1024))
        .args([
            "--no-pci",
            "--file-prefix",
            "prism-peers-acl",
            "--",
            &format!("--rulesf={}", rules.display()),
            &format!("--tracef={}", trace.display()),
            &format!("--tracenum={}", n + 1),
            &format!("--iter={iter}"),
            &format!("--verbose={verbose}"),
        ])
        .output()
        .context("running dpdk-test-acl (Debian package dpdk)")?;
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        bail!("dpdk-test-acl failed ({}):\n{}", out.status, tail(&text));
    }
    Ok(text)
}

fn tail(t: &str) -> String {
    let l: Vec<&str> = t.lines().collect();
    l[l.len().saturating_sub(12)..].join("\n")
}

/// "... 663.97 cycles/pkt ..." → 663.97.
fn cycles_per_pkt(text: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.contains("cycles/pkt"))?
        .split(',')
        .find(|f| f.contains("cycles/pkt"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// "ipv4_5tuple: N, category: 0, result: R" lines → R, in order.
fn matches(text: &str) -> Vec<u32> {
    text.lines()
        .filter(|l| l.starts_with("ipv4_5tuple:"))
        .filter_map(|l| l.rsplit("result:").next()?.trim().parse().ok())
        .collect()
}

/// Writes a ClassBench trace of one header inside each rule, the same
/// headers as `bench::in_rule_headers` (the last column is the rule).
fn write_trace(path: &Path, rules: &[prism_tables::Rule]) -> Result<()> {
    let mut text = String::new();
    for r in rules {
        let f = r.fields;
        text.push_str(&format!(
            "{} {} {} {} {} 0 {}\n",
            (f.value[0] >> 32) as u32,
            f.value[0] as u32,
            r.src_port.lo,
            r.dst_port.lo,
            (f.value[4] >> 48) & 0xff,
            r.id
        ));
    }
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// Mean TSC cycles per key of `passes` passes of `pass` (one pass over
/// all `keys`) on `core`, after one pass of warm-up. The run gives it as
/// many passes as dpdk-test-acl's `--iter`, so both time the same number
/// of lookups.
fn prism_cycles(keys: &[Key], core: usize, passes: usize, mut pass: impl FnMut() + Send) -> f64 {
    std::thread::scope(|sc| {
        sc.spawn(|| {
            pin_to_core(core);
            pass();
            let t = tsc();
            for _ in 0..passes {
                pass();
            }
            tsc().wrapping_sub(t) as f64 / (passes * keys.len()) as f64
        })
        .join()
        .expect("the measuring thread does not panic")
    })
}

fn tss_pass<'a>(c: &'a Classifier, keys: &'a [Key]) -> impl FnMut() + Send + 'a {
    move || {
        let mut acc = 0u32;
        for k in keys {
            acc = acc.wrapping_add(c.lookup(k).map_or(0, |m| m.action));
        }
        std::hint::black_box(acc);
    }
}

fn tree_pass<'a>(t: &'a TreeClassifier, keys: &'a [Key]) -> impl FnMut() + Send + 'a {
    let mut out = vec![None; keys.len()];
    move || {
        t.lookup_batch(std::hint::black_box(keys), &mut out);
        std::hint::black_box(&out);
    }
}

pub fn run(args: &PeersArgs, _clock: &Clock, work: &Path) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for set in ["fw1_10k", "ipc1_10k", "acl1_10k"] {
        let rules_path = args.data.join(format!("classbench/{set}"));
        anyhow::ensure!(
            rules_path.exists(),
            "{} is missing: the classification workloads need the shared data (--data)",
            rules_path.display()
        );
        let rules = read_filters(&rules_path)?;
        let mut c = Classifier::new();
        for r in &rules {
            c.insert(*r);
        }
        let tree = TreeClassifier::build(rules.clone());
        let (trace, keys, what) = headers(args, work, set, &rules)?;
        println!(
            "  classification, {set} ({} headers): matches first ...",
            keys.len()
        );
        let w = Workload {
            rules: &rules_path,
            trace: &trace,
            keys: &keys,
        };
        let differ = differences(args, set, &w, &c, &tree)?;
        let [peer, ours, trees] = cycles(args, &w, &c, &tree)?;
        let agree = if differ == 0 {
            format!("same rule for all {} headers", keys.len())
        } else {
            format!("MATCHES DIFFER for {differ} of {} headers", keys.len())
        };
        let note = format!("{} rules, {what}; {agree}", rules.len());
        let peer_name = "DPDK rte_acl (dpdk-test-acl)";
        let title = format!("classification, ClassBench {set}");
        rows.push(Row::cost(title.clone(), peer_name, &peer, &ours).note(note.clone()));
        rows.push(
            Row::cost(format!("{title}, decision trees"), peer_name, &peer, &trees).note(format!(
                "{note}; {}, {}",
                tree.shape(),
                tree.batch_walk()
            )),
        );
    }
    Ok(rows)
}

/// One rule set's run as both sides see it: the rule file, the trace file
/// dpdk-test-acl reads and the same headers in memory.
struct Workload<'a> {
    rules: &'a Path,
    trace: &'a Path,
    keys: &'a [Key],
}

/// The headers to classify: the shipped ClassBench trace, or one header
/// inside each rule (written for dpdk-test-acl) where there is none.
fn headers(
    args: &PeersArgs,
    work: &Path,
    set: &str,
    rules: &[prism_tables::Rule],
) -> Result<(PathBuf, Vec<Key>, &'static str)> {
    let shipped = args.data.join(format!("classbench/{set}_trace"));
    if shipped.exists() {
        let keys = read_trace(&shipped)?.into_iter().map(|e| e.key).collect();
        return Ok((shipped, keys, "ClassBench trace"));
    }
    let keys = prism_lab::bench::in_rule_headers(rules);
    let p = work.join(format!("{set}_trace"));
    write_trace(&p, rules)?;
    Ok((p, keys, "a header inside each rule"))
}

/// Headers on which the tuple-space classifier or the trees answer
/// another rule than rte_acl.
fn differences(
    args: &PeersArgs,
    set: &str,
    w: &Workload,
    c: &Classifier,
    tree: &TreeClassifier,
) -> Result<usize> {
    let n = w.keys.len();
    let theirs = matches(&test_acl(args.core, w.rules, w.trace, n, 1, 3)?);
    if theirs.len() != n {
        bail!(
            "{set}: dpdk-test-acl printed {} results for {n} headers",
            theirs.len()
        );
    }
    let mut out = vec![None; n];
    tree.lookup_batch(w.keys, &mut out);
    Ok(w.keys
        .iter()
        .zip(&theirs)
        .zip(&out)
        .filter(|((k, d), t)| {
            c.lookup(k).map_or(0, |m| m.id) != **d || t.map_or(0, |m| m.id) != **d
        })
        .count())
}

/// Cycles per header, a figure per round: rte_acl, the tuple-space
/// classifier, the decision trees (alternating, on the same core).
fn cycles(
    args: &PeersArgs,
    w: &Workload,
    c: &Classifier,
    tree: &TreeClassifier,
) -> Result<[Vec<f64>; 3]> {
    // Enough passes for about half a second of dpdk-test-acl's own timing.
    let iter = (2_000_000 / w.keys.len()).max(1);
    let (mut peer, mut ours, mut trees) = (Vec::new(), Vec::new(), Vec::new());
    // Cheap rounds, and a noisy measure: more of them than for rates.
    for _ in 0..args.rounds * 2 + 1 {
        let t = test_acl(args.core, w.rules, w.trace, w.keys.len(), iter, 0)?;
        peer.push(
            cycles_per_pkt(&t)
                .with_context(|| format!("dpdk-test-acl printed no cycles/pkt:\n{}", tail(&t)))?,
        );
        ours.push(prism_cycles(w.keys, args.core, iter, tss_pass(c, w.keys)));
        trees.push(prism_cycles(
            w.keys,
            args.core,
            iter,
            tree_pass(tree, w.keys),
        ));
    }
    Ok([peer, ours, trees])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dpdk_test_acl_output_is_read() {
        let text = "ipv4_5tuple: 1, category: 0, result: 238\nipv4_5tuple: 2, category: 0, result: 0\n\
            search_ip5tuples  @lcore 1: 20 iterations, 1883640 pkts, 1 categories, 1250684649 cycles (0.51 sec), 663.97 cycles/pkt, 3689913.36 pkt/sec\n";
        assert_eq!(matches(text), vec![238, 0]);
        assert_eq!(cycles_per_pkt(text), Some(663.97));
        assert_eq!(cycles_per_pkt("no figure"), None);
    }
}
