//! `prism tables`: build, check and time the lookup structures on standard data.

use anyhow::{Context, Result};
use prism_io::datasets::{read_filters, read_prefixes, read_trace};
use prism_tables::classbench::TraceEntry;
use prism_tables::{
    Classifier, Ipv4Prefix, Key, LinearClassifier, LpmTable, Match, ReferenceLpm, TreeClassifier,
};
use rand::{Rng, SeedableRng};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `prism tables`: the lookups on standard data, each checkable against
/// its reference.
#[derive(clap::Subcommand, Debug)]
pub enum TablesCmd {
    /// Longest-prefix match over a prefix list (one CIDR a line, .gz allowed).
    Lpm {
        #[arg(long)]
        prefixes: PathBuf,
        #[arg(long, default_value_t = 1_000_000)]
        lookups: usize,
        /// Compare every lookup with the reference implementation.
        #[arg(long)]
        check: bool,
    },
    /// Ternary classification of a ClassBench filter set, optionally over a trace.
    Classify {
        #[arg(long)]
        filters: PathBuf,
        #[arg(long)]
        trace: Option<PathBuf>,
        /// Classify with decision trees (HyperSplit, in batches: 32 keys with AVX-512, else 8)
        /// instead of tuple-space search.
        #[arg(long)]
        tree: bool,
        /// Compare every lookup with the linear reference.
        #[arg(long)]
        check: bool,
        /// Write the matched rule of each trace header (0-based line in the
        /// filter file, or -1) to this file, one per line, for comparison
        /// with other classifiers.
        #[arg(long)]
        matches: Option<PathBuf>,
    },
}

/// Runs `prism tables`.
pub fn run(cmd: TablesCmd) -> Result<()> {
    match cmd {
        TablesCmd::Lpm {
            prefixes,
            lookups,
            check,
        } => lpm(&prefixes, lookups, check),
        TablesCmd::Classify {
            filters,
            trace,
            tree,
            check,
            matches,
        } => classify(&filters, trace.as_deref(), tree, check, matches.as_deref()),
    }
}

/// Reads a prefix list's IPv4 prefixes, decompressing `.gz`.
pub fn load_prefixes(path: &Path) -> Result<Vec<Ipv4Prefix>> {
    Ok(read_prefixes(path)?.0)
}

pub fn build_lpm(prefixes: &[Ipv4Prefix]) -> Result<LpmTable> {
    let mut t = LpmTable::for_routes(prefixes.len());
    for (i, p) in prefixes.iter().enumerate() {
        t.insert(*p, (i as u32) & prism_tables::lpm::MAX_VALUE)?;
    }
    Ok(t)
}

pub fn load_prefixes6(path: &Path) -> Result<Vec<prism_tables::Ipv6Prefix>> {
    Ok(prism_io::datasets::read_prefixes6(path)?)
}

pub fn build_lpm6(prefixes: &[prism_tables::Ipv6Prefix]) -> Result<prism_tables::Lpm6Table> {
    let mut t = prism_tables::Lpm6Table::for_routes(prefixes.len());
    for (i, p) in prefixes.iter().enumerate() {
        t.insert(*p, (i as u32) & prism_tables::lpm6::MAX_VALUE6)?;
    }
    Ok(t)
}

/// IPv6 addresses for timing: inside a random prefix each, or random in
/// 2000::/3 (where every Internet prefix lies: uniform addresses over all
/// of IPv6 would time only the first level's miss).
pub fn addresses6(
    prefixes: &[prism_tables::Ipv6Prefix],
    n: usize,
    in_prefix: bool,
    seed: u64,
) -> Vec<u128> {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    (0..n)
        .map(|_| match in_prefix && !prefixes.is_empty() {
            true => {
                let p = prefixes[rng.random_range(0..prefixes.len())];
                p.addr() | (rng.random::<u128>() & !p.mask())
            }
            false => (rng.random::<u128>() >> 3) | (1 << 125),
        })
        .collect()
}

/// Addresses for timing: uniformly random, or one inside each prefix.
pub fn addresses(prefixes: &[Ipv4Prefix], n: usize, in_prefix: bool, seed: u64) -> Vec<u32> {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            if in_prefix && !prefixes.is_empty() {
                let p = prefixes[rng.random_range(0..prefixes.len())];
                p.addr() | (rng.random::<u32>() & !p.mask())
            } else {
                rng.random()
            }
        })
        .collect()
}

pub fn lpm(prefixes_path: &Path, lookups: usize, check: bool) -> Result<()> {
    let t0 = Instant::now();
    let prefixes = load_prefixes(prefixes_path)?;
    let read = t0.elapsed();
    let t1 = Instant::now();
    let table = build_lpm(&prefixes)?;
    let built = t1.elapsed();
    println!(
        "{}: {} IPv4 prefixes read in {:.2?}; LPM built in {:.2?} (first stride {} bits, {:.1} MiB, {} distinct)",
        prefixes_path.display(),
        prefixes.len(),
        read,
        built,
        table.first_stride(),
        table.memory_bytes() as f64 / 1048576.0,
        table.len()
    );
    for (label, in_prefix) in [
        ("random addresses", false),
        ("addresses inside prefixes", true),
    ] {
        let addrs = addresses(&prefixes, lookups, in_prefix, 42);
        let mut out = vec![None; addrs.len()];
        let t = Instant::now();
        table.lookup_batch(&addrs, &mut out);
        let ns = t.elapsed().as_nanos() as f64 / addrs.len() as f64;
        let hits = out.iter().filter(|o| o.is_some()).count();
        println!(
            "  {label}: {:.1} ns/lookup ({:.1} Mlookup/s), {:.1}% matched",
            ns,
            1e3 / ns,
            100.0 * hits as f64 / addrs.len() as f64
        );
        if check {
            let mut r = ReferenceLpm::new();
            for (i, p) in prefixes.iter().enumerate() {
                r.insert(*p, (i as u32) & prism_tables::lpm::MAX_VALUE);
            }
            let bad = addrs
                .iter()
                .zip(&out)
                .filter(|(a, o)| r.lookup(**a) != **o)
                .count();
            anyhow::ensure!(bad == 0, "{bad} lookups disagree with the reference");
            println!("  checked against the reference: all {} agree", addrs.len());
        }
    }
    Ok(())
}

/// A classifier's answers for a trace's keys.
type LookupAll = dyn Fn(&[Key]) -> Vec<Option<Match>>;

pub fn classify(
    filters: &Path,
    trace: Option<&Path>,
    tree: bool,
    check: bool,
    matches_out: Option<&Path>,
) -> Result<()> {
    let rules = read_filters(filters)?;
    let lookup_all = classifier(filters, &rules, tree);
    let Some(trace) = trace else { return Ok(()) };
    let entries: Vec<TraceEntry> = read_trace(trace)?;
    let keys: Vec<Key> = entries.iter().map(|e| e.key).collect();
    let t = Instant::now();
    let matched = lookup_all(&keys);
    let ns = t.elapsed().as_nanos() as f64 / entries.len().max(1) as f64;
    let hit = matched.iter().filter(|m| m.is_some()).count();
    let earlier = entries
        .iter()
        .zip(&matched)
        .filter(|(e, m)| m.is_some_and(|m| m.id < e.generated_from))
        .count();
    println!(
        "  {}: {} headers, {:.0} ns/lookup ({:.2} Mlookup/s), {} matched; first match earlier than the generating rule for {}",
        trace.display(),
        entries.len(),
        ns,
        1e3 / ns,
        hit,
        earlier
    );
    if let Some(path) = matches_out {
        write_matches(path, &matched)?;
    }
    if check {
        let mut l = LinearClassifier::new();
        for r in &rules {
            l.insert(*r);
        }
        let bad = entries
            .iter()
            .zip(&matched)
            .filter(|(e, m)| l.lookup(&e.key) != **m)
            .count();
        anyhow::ensure!(bad == 0, "{bad} headers disagree with the linear reference");
        println!(
            "  checked against the linear reference: all {} agree",
            entries.len()
        );
    }
    Ok(())
}

/// The classifier `prism tables classify` times, built and described:
/// the decision trees, or the tuple-space classifier.
fn classifier(filters: &Path, rules: &[prism_tables::Rule], tree: bool) -> Box<LookupAll> {
    let t = Instant::now();
    if tree {
        let c = TreeClassifier::build(rules.to_vec());
        println!(
            "{}: {} rules in {} (decision trees), {} leaf entries, built in {:.2?}",
            filters.display(),
            rules.len(),
            c.shape(),
            c.trees().map(|t| t.stored()).sum::<usize>(),
            t.elapsed()
        );
        Box::new(move |keys| {
            let mut out = vec![None; keys.len()];
            c.lookup_batch(keys, &mut out);
            out
        })
    } else {
        let mut c = Classifier::new();
        for r in rules {
            c.insert(*r);
        }
        println!(
            "{}: {} rules, {} tuples, built in {:.2?}",
            filters.display(),
            rules.len(),
            c.tuple_count(),
            t.elapsed()
        );
        Box::new(move |keys| keys.iter().map(|k| c.lookup(k)).collect())
    }
}

/// The rule each header matched, one a line (`-1`: none).
fn write_matches(path: &Path, matched: &[Option<prism_tables::Match>]) -> Result<()> {
    let mut text = String::with_capacity(matched.len() * 6);
    for m in matched {
        match m {
            Some(m) => text.push_str(&m.id.to_string()),
            None => text.push_str("-1"),
        }
        text.push('\n');
    }
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    println!("  matches written to {}", path.display());
    Ok(())
}
