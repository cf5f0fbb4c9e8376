//! Criterion benches of the lookup tables. The full-table figures for the
//! record come from `prism bench` (docs/performance.md); these track changes.
//! Uses the shared BGP table and ClassBench set when present, else says so
//! and benches a synthetic table.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use prism_tables::classbench::{parse_filters, parse_prefixes, parse_prefixes6, parse_trace};
use prism_tables::lpm6::MAX_VALUE6;
use prism_tables::{Classifier, Ipv4Prefix, Lpm6Table, LpmTable};
use rand::{Rng, SeedableRng};
use std::hint::black_box;
use std::path::PathBuf;

fn shared(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!(
            "note: {} is missing; benching synthetic data instead",
            p.display()
        );
        None
    }
}

fn lpm(c: &mut Criterion) {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
    let prefixes: Vec<Ipv4Prefix> = match shared("bgp/prefixes.txt.gz") {
        Some(p) => {
            let f = std::fs::File::open(p).unwrap();
            let r = std::io::BufReader::new(flate2::read::GzDecoder::new(f));
            parse_prefixes(r, "bgp").unwrap().0
        }
        None => (0..500_000)
            .map(|_| Ipv4Prefix::new(rng.random(), rng.random_range(8..=32)))
            .collect(),
    };
    let mut t = LpmTable::for_routes(prefixes.len());
    for (i, p) in prefixes.iter().enumerate() {
        t.insert(*p, i as u32 & 0xff_ffff).unwrap();
    }
    let addrs: Vec<u32> = (0..4096).map(|_| rng.random()).collect();
    let mut out = vec![None; addrs.len()];
    let mut g = c.benchmark_group("lpm");
    g.throughput(Throughput::Elements(addrs.len() as u64));
    g.bench_function(format!("{}-prefixes/random/batch", prefixes.len()), |b| {
        b.iter(|| t.lookup_batch(black_box(&addrs), &mut out))
    });
    g.bench_function(format!("{}-prefixes/random/single", prefixes.len()), |b| {
        b.iter(|| {
            addrs
                .iter()
                .fold(0u32, |a, x| a.wrapping_add(t.lookup(*x).unwrap_or(0)))
        })
    });
    g.finish();
}

/// The shared table's IPv6 prefixes: the build, and lookups at addresses
/// inside the prefixes and at random in 2000::/3 (as `dpdk-test-fib -6`
/// draws them; uniform addresses over all of IPv6 would test only the
/// first level's miss).
fn lpm6(c: &mut Criterion) {
    let Some(path) = shared("bgp/prefixes.txt.gz") else {
        return;
    };
    let f = std::fs::File::open(path).unwrap();
    let r = std::io::BufReader::new(flate2::read::GzDecoder::new(f));
    let prefixes = parse_prefixes6(r, "bgp").unwrap();
    let build = || {
        let mut t = Lpm6Table::for_routes(prefixes.len());
        for (i, p) in prefixes.iter().enumerate() {
            t.insert(*p, i as u32 & MAX_VALUE6).unwrap();
        }
        t
    };
    let t = build();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(6);
    let inside: Vec<u128> = (0..4096)
        .map(|_| {
            let p = prefixes[rng.random_range(0..prefixes.len())];
            p.addr() | (rng.random::<u128>() & !p.mask())
        })
        .collect();
    let random: Vec<u128> = (0..4096)
        .map(|_| (rng.random::<u128>() >> 3) | (1 << 125))
        .collect();
    let mut g = c.benchmark_group("lpm6");
    g.sample_size(10);
    g.bench_function(format!("{}-prefixes/build", prefixes.len()), |b| {
        b.iter(build)
    });
    g.sample_size(100);
    g.throughput(Throughput::Elements(4096));
    for (name, addrs) in [("in-prefixes", &inside), ("random-2000::/3", &random)] {
        g.bench_function(format!("{}-prefixes/{name}", prefixes.len()), |b| {
            b.iter(|| {
                addrs.iter().fold(0u32, |a, x| {
                    a.wrapping_add(t.lookup(black_box(*x)).unwrap_or(0))
                })
            })
        });
    }
    g.finish();
}

fn classifier(c: &mut Criterion) {
    let (Some(f), Some(tr)) = (
        shared("classbench/fw1_1k"),
        shared("classbench/fw1_1k_trace"),
    ) else {
        return;
    };
    let open = |p: &PathBuf| std::io::BufReader::new(std::fs::File::open(p).unwrap());
    let rules = parse_filters(open(&f), "filters").unwrap();
    let trace = parse_trace(open(&tr), "trace").unwrap();
    let mut cl = Classifier::new();
    for r in &rules {
        cl.insert(*r);
    }
    let mut g = c.benchmark_group("classifier");
    g.throughput(Throughput::Elements(trace.len() as u64));
    g.bench_function("fw1_1k/trace", |b| {
        b.iter(|| {
            trace.iter().fold(0u32, |a, e| {
                a.wrapping_add(cl.lookup(&e.key).map_or(0, |m| m.action))
            })
        })
    });
    g.finish();
}

criterion_group!(benches, lpm, lpm6, classifier);
criterion_main!(benches);
