//! The fast tables against their references on the shared standard data:
//! every ClassBench filter set with its trace (tuple-space search and the
//! decision trees), and the full BGP table.
//!
//! The data lives in `../shared/data` beside the repository (never copied
//! in); set PRISM_SHARED to point elsewhere. A missing file skips the test
//! locally, saying where it was looked for, and fails it where every
//! prerequisite is required (CI; `prism_testkit::gates`).

use prism_tables::classbench::{parse_filters, parse_prefixes, parse_prefixes6, parse_trace};
use prism_tables::lpm6::MAX_VALUE6;
use prism_tables::{
    Classifier, Ipv4Prefix, LinearClassifier, LpmTable, ReferenceLpm, TreeClassifier,
};
use prism_tables::{Lpm6Table, ReferenceLpm6};
use rand::{Rng, SeedableRng};
use std::io::BufReader;
use std::path::Path;

fn reader(p: &Path) -> BufReader<std::fs::File> {
    BufReader::new(std::fs::File::open(p).unwrap())
}

fn check_set(filters: &str, trace: Option<&str>) {
    let Some(file) = prism_testkit::shared_data(filters, &format!("classbench/{filters}")) else {
        return;
    };
    let rules = parse_filters(reader(&file), filters).unwrap();
    let mut fast = Classifier::new();
    let mut slow = LinearClassifier::new();
    for r in &rules {
        fast.insert(*r);
        slow.insert(*r);
    }
    let keys: Vec<_> = match trace {
        Some(t) => {
            let Some(file) = prism_testkit::shared_data(t, &format!("classbench/{t}")) else {
                return;
            };
            parse_trace(reader(&file), t).unwrap()
        }
        None => {
            // No trace ships for this set: probe with headers drawn inside each rule.
            let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
            rules
                .iter()
                .map(|r| {
                    let f = r.fields;
                    let src = ((f.value[0] >> 32) as u32)
                        | (rng.random::<u32>() & !((f.mask[0] >> 32) as u32));
                    let dst = (f.value[0] as u32) | (rng.random::<u32>() & !(f.mask[0] as u32));
                    let sp = rng.random_range(r.src_port.lo..=r.src_port.hi);
                    let dp = rng.random_range(r.dst_port.lo..=r.dst_port.hi);
                    let key = prism_wire::FlowKey {
                        src_ip: src,
                        dst_ip: dst,
                        src_port: sp,
                        dst_port: dp,
                        proto: 6,
                        ..Default::default()
                    };
                    prism_tables::classbench::TraceEntry {
                        key: prism_tables::Key::from_flow(&key),
                        generated_from: r.id,
                    }
                })
                .collect()
        }
    };
    // The decision trees too, by the batched lookup the benchmarks time.
    let trees = TreeClassifier::build(rules.clone());
    let mut batched = vec![None; keys.len()];
    let all: Vec<_> = keys.iter().map(|e| e.key).collect();
    trees.lookup_batch(&all, &mut batched);
    let mut earlier = 0;
    for (i, e) in keys.iter().enumerate() {
        let want = slow.lookup(&e.key);
        assert_eq!(fast.lookup(&e.key), want, "{filters}: trace line {}", i + 1);
        assert_eq!(batched[i], want, "{filters}: trees, trace line {}", i + 1);
        if trace.is_some() {
            let m =
                want.unwrap_or_else(|| panic!("{filters}: trace line {} matches no rule", i + 1));
            // The generating rule matches, so the first match is it or earlier.
            assert!(
                m.id <= e.generated_from,
                "{filters}: line {} matched {} after generator {}",
                i + 1,
                m.id,
                e.generated_from
            );
            earlier += usize::from(m.id < e.generated_from);
        }
    }
    eprintln!(
        "{filters}: {} rules, {} tuples, {} headers agree ({} first-match earlier than ruleIdx)",
        rules.len(),
        fast.tuple_count(),
        keys.len(),
        earlier
    );
}

#[test]
fn classbench_acl1() {
    check_set("acl1_1k", Some("acl1_1k_trace"));
    check_set("acl1_10k", None);
}

#[test]
fn classbench_fw1() {
    check_set("fw1_1k", Some("fw1_1k_trace"));
    check_set("fw1_10k", Some("fw1_10k_trace"));
}

#[test]
fn classbench_ipc1() {
    check_set("ipc1_1k", Some("ipc1_1k_trace"));
    check_set("ipc1_10k", Some("ipc1_10k_trace"));
}

fn bgp() -> Option<Vec<Ipv4Prefix>> {
    let file = prism_testkit::shared_data("the BGP table", "bgp/prefixes.txt.gz")?;
    let f = std::fs::File::open(file).unwrap();
    let (v4, v6) = parse_prefixes(
        BufReader::new(flate2::read::GzDecoder::new(f)),
        "bgp/prefixes.txt.gz",
    )
    .unwrap();
    assert!(
        v4.len() > 800_000 && v6 > 100_000,
        "unexpected BGP file: {} v4, {v6} v6",
        v4.len()
    );
    Some(v4)
}

/// The shared table's IPv6 prefixes in a table and in the reference: the
/// same answer inside every prefix (its first, last and one random
/// address), at a million addresses drawn from 2000::/3 (where every
/// shared prefix lies), and again after a third is removed.
#[test]
fn lpm6_full_bgp_table() {
    let Some(file) = prism_testkit::shared_data("the BGP table", "bgp/prefixes.txt.gz") else {
        return;
    };
    let f = BufReader::new(flate2::read::GzDecoder::new(
        std::fs::File::open(file).unwrap(),
    ));
    let prefixes = parse_prefixes6(f, "bgp/prefixes.txt.gz").unwrap();
    assert!(prefixes.len() > 150_000, "{} IPv6 prefixes", prefixes.len());
    let started = std::time::Instant::now();
    let mut fast = Lpm6Table::for_routes(prefixes.len());
    for (i, p) in prefixes.iter().enumerate() {
        fast.insert(*p, (i as u32) & MAX_VALUE6).unwrap();
    }
    eprintln!(
        "{} IPv6 prefixes built in {:?}, {} MiB",
        prefixes.len(),
        started.elapsed(),
        fast.memory_bytes() >> 20
    );
    let mut slow = ReferenceLpm6::default();
    for (i, p) in prefixes.iter().enumerate() {
        slow.insert(*p, (i as u32) & MAX_VALUE6);
    }
    let mut rng = rand::rngs::SmallRng::seed_from_u64(6);
    let check =
        |fast: &Lpm6Table, slow: &ReferenceLpm6, rng: &mut rand::rngs::SmallRng, n: usize| {
            for p in &prefixes {
                let inside = p.addr() | (rng.random::<u128>() & !p.mask());
                for a in [p.addr(), p.addr() | !p.mask(), inside] {
                    assert_eq!(fast.lookup(a), slow.lookup(a), "address {a:#x} in {p}");
                }
            }
            for _ in 0..n {
                let a = (rng.random::<u128>() >> 3) | (1 << 125);
                assert_eq!(fast.lookup(a), slow.lookup(a), "random address {a:#x}");
            }
        };
    check(&fast, &slow, &mut rng, 1_000_000);
    for p in prefixes.iter().step_by(3) {
        assert!(fast.remove(*p).is_some());
        slow.remove(*p);
    }
    check(&fast, &slow, &mut rng, 100_000);
}

#[test]
fn lpm_full_bgp_table() {
    let Some(prefixes) = bgp() else {
        return;
    };
    let mut fast = LpmTable::for_routes(prefixes.len());
    let mut slow = ReferenceLpm::new();
    for (i, p) in prefixes.iter().enumerate() {
        let v = (i as u32) & 0xff_ffff;
        fast.insert(*p, v).unwrap();
        slow.insert(*p, v);
    }
    assert_eq!(fast.first_stride(), 24);
    // Inside every prefix: its first, last and one random address.
    let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
    for p in &prefixes {
        for a in [
            p.addr(),
            p.addr() | !p.mask(),
            p.addr() | (rng.random::<u32>() & !p.mask()),
        ] {
            assert_eq!(fast.lookup(a), slow.lookup(a), "address {a:#x} in {p}");
        }
    }
    for _ in 0..1_000_000 {
        let a = rng.random::<u32>();
        assert_eq!(fast.lookup(a), slow.lookup(a), "random address {a:#x}");
    }
    // Delete a third of the table and check again.
    for p in prefixes.iter().step_by(3) {
        assert!(fast.remove(*p).is_some());
        slow.remove(*p);
    }
    for p in prefixes.iter().take(300_000) {
        let a = p.addr() | (rng.random::<u32>() & !p.mask());
        assert_eq!(
            fast.lookup(a),
            slow.lookup(a),
            "after deletes, address {a:#x} in {p}"
        );
    }
}
