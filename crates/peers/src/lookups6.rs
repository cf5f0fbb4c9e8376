//! IPv6 longest-prefix match on the full table: DPDK's rte_fib6 (its
//! `trie`, `dpdk-test-fib -6`) against Prism's `Lpm6Table`, on the same
//! 160,147 prefixes and the same addresses (2^20 inside the prefixes,
//! 2^20 random in 2000::/3, where every shared prefix lies), measured as
//! `lookups` measures IPv4: TSC cycles per lookup over bursts of 64.
//! Prism's table is checked against a reference on this table by the
//! test suite (`tables/tests/shared_data.rs`).

use crate::{Clock, PeersArgs, Row};
use anyhow::{Context, Result};
use prism_tables::Lpm6Table;
use std::path::Path;
use std::process::Command;

/// rte_fib6's cycles per lookup (its trie, 4-byte entries).
fn test_fib6(core: usize, routes: &Path, ips: &Path) -> Result<f64> {
    let mut args: Vec<String> = vec!["-l".into(), core.to_string()];
    args.extend(crate::hugepages::eal_memory(2048));
    args.extend(
        [
            "--no-pci",
            "--file-prefix",
            "prism-peers-fib6",
            "--",
            "-6",
            "-f",
        ]
        .map(String::from),
    );
    args.push(routes.display().to_string());
    args.push("-t".into());
    args.push(ips.display().to_string());
    args.extend(["-b", "trie", "-g", "524288"].map(String::from));
    let out = Command::new("dpdk-test-fib")
        .args(&args)
        .output()
        .context("running dpdk-test-fib (Debian package dpdk-dev)")?;
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    crate::lookups::avg(&text, "AVG FIB lookup").with_context(|| {
        format!(
            "dpdk-test-fib -6 printed no lookup figure:\n{}",
            text.trim()
        )
    })
}

/// Prism's cycles per lookup over `addrs`, on `core`, as `dpdk-test-fib`
/// measures its own (`lookups::burst_cycles`).
fn prism_cycles(table: &Lpm6Table, addrs: &[u128], core: usize) -> f64 {
    crate::lookups::burst_cycles(addrs, core, |chunk, out| table.lookup_batch(chunk, out))
}

pub fn run(args: &PeersArgs, _clock: &Clock, work: &Path) -> Result<Vec<Row>> {
    let path = args.data.join("bgp/prefixes.txt.gz");
    anyhow::ensure!(path.exists(), "{} is missing (--data)", path.display());
    let prefixes = prism_lab::bench::tables::load_prefixes6(&path)?;
    let table = prism_lab::bench::tables::build_lpm6(&prefixes)?;
    let routes = work.join("bgp6-routes.txt");
    let lines = prefixes
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{p} {}", i % 65535 + 1));
    crate::lookups::write_lines(&routes, lines)?;
    let mut rows = Vec::new();
    for (label, in_prefix, seed) in [
        ("addresses inside prefixes", true, 61),
        ("random addresses in 2000::/3", false, 62),
    ] {
        let addrs = prism_lab::bench::tables::addresses6(&prefixes, 1 << 20, in_prefix, seed);
        let ips = work.join("bgp6-ips.txt");
        let text = addrs
            .iter()
            .map(|a| std::net::Ipv6Addr::from(*a).to_string());
        crate::lookups::write_lines(&ips, text)?;
        println!("  IPv6 lookups, full table, {label}: dpdk-test-fib -6 and Prism in turn ...");
        let (mut fib, mut ours) = (Vec::new(), Vec::new());
        for _ in 0..args.rounds * 2 + 1 {
            fib.push(test_fib6(args.core, &routes, &ips)?);
            ours.push(prism_cycles(&table, &addrs, args.core));
        }
        let what = format!(
            "IPv6 LPM lookup, full table ({} prefixes), {label}",
            prefixes.len()
        );
        rows.push(
            Row::cost(what, "DPDK rte_fib6 trie (dpdk-test-fib -6)", &fib, &ours)
                .note("bulk lookups, TSC cycles per lookup"),
        );
    }
    Ok(rows)
}
