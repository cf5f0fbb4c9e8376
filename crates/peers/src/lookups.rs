//! Longest-prefix match on the full BGP table: DPDK's rte_fib (DIR-24-8)
//! and, with `--with-rte-lpm`, rte_lpm, both through `dpdk-test-fib`,
//! against Prism's `LpmTable`, on the same 901,899 prefixes and the same
//! addresses (2^20 inside the prefixes, 2^20 uniformly random).
//!
//! `dpdk-test-fib` reads the routes and the addresses from files, looks
//! them up in bursts of 64 and prints the mean TSC cycles per lookup;
//! Prism's figure is the same quantity, measured the same way, for
//! `lookup_batch` on the same core. With `-c` the tool also checks that rte_fib and rte_lpm agree
//! on every address; Prism's table is checked against a reference
//! implementation on this table by the test suite (`tables/tests`).

use crate::{Clock, PeersArgs, Row};
use anyhow::{Context, Result};
use prism_lab::bench::tsc;
use prism_node::pin_to_core;
use prism_tables::{Ipv4Prefix, LpmTable};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{Ordering, fence};

pub(crate) fn write_lines(path: &Path, lines: impl Iterator<Item = String>) -> Result<()> {
    let mut text = String::new();
    for l in lines {
        text.push_str(&l);
        text.push('\n');
    }
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

fn dotted(a: u32) -> String {
    std::net::Ipv4Addr::from(a).to_string()
}

/// Runs dpdk-test-fib; returns (rte_fib cycles, rte_lpm cycles if asked).
fn test_fib(core: usize, routes: &Path, ips: &Path, with_lpm: bool) -> Result<(f64, Option<f64>)> {
    let mut args: Vec<String> = vec!["-l".into(), core.to_string()];
    args.extend(crate::hugepages::eal_memory(2048));
    args.extend(["--no-pci", "--file-prefix", "prism-peers-fib", "--", "-f"].map(String::from));
    args.push(routes.display().to_string());
    args.push("-t".into());
    args.push(ips.display().to_string());
    args.extend(["-g".into(), "65536".into()]);
    if with_lpm {
        args.push("-c".into());
    }
    let out = Command::new("dpdk-test-fib")
        .args(&args)
        .output()
        .context("running dpdk-test-fib (Debian package dpdk)")?;
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let fib = avg(&text, "AVG FIB lookup")
        .with_context(|| format!("dpdk-test-fib printed no lookup figure:\n{}", text.trim()))?;
    if with_lpm && !text.contains("FIB and LPM lookup returns same values") {
        anyhow::bail!(
            "dpdk-test-fib: rte_fib and rte_lpm disagree:\n{}",
            text.trim()
        );
    }
    Ok((fib, avg(&text, "AVG LPM lookup")))
}

/// The figure of dpdk-test-fib's line `KEY 27.3`.
pub(crate) fn avg(text: &str, key: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.trim().parse().ok())
}

/// TSC cycles per lookup of Prism's batch lookup over `addrs`, on `core`,
/// measured as `dpdk-test-fib` measures its own: one pass in bursts of 64
/// into a 64-entry result array, each burst between two fenced TSC reads,
/// the sum over the number of lookups.
fn prism_cycles(table: &LpmTable, addrs: &[u32], core: usize) -> f64 {
    burst_cycles(addrs, core, |chunk, out| table.lookup_batch(chunk, out))
}

/// TSC cycles per element of `lookup` over `addrs` in bursts of 64 (see
/// [`prism_cycles`]), after one untimed pass: a table's untouched pages
/// (its unrouted space, still the kernel's zero page) would charge page
/// faults to the first lookups; DPDK zeroes its memory when it allocates
/// it, so its lookups pay none.
pub(crate) fn burst_cycles<A: Sync>(
    addrs: &[A],
    core: usize,
    lookup: impl Fn(&[A], &mut [Option<u32>]) + Sync,
) -> f64 {
    std::thread::scope(|sc| {
        sc.spawn(|| {
            pin_to_core(core);
            let mut out = [None; 64];
            for chunk in addrs.chunks(64) {
                lookup(chunk, &mut out[..chunk.len()]);
            }
            let mut acc = 0u64;
            for chunk in addrs.chunks(64) {
                fence(Ordering::SeqCst);
                let t = tsc();
                lookup(chunk, &mut out[..chunk.len()]);
                fence(Ordering::SeqCst);
                acc += tsc().wrapping_sub(t);
                std::hint::black_box(&out);
            }
            acc as f64 / addrs.len() as f64
        })
        .join()
        .expect("the measuring thread does not panic")
    })
}

/// The routes file dpdk-test-fib reads: each prefix with a next hop in
/// 1..=65535, within what every DIR-24-8 variant stores.
fn write_routes(work: &Path, prefixes: &[Ipv4Prefix]) -> Result<std::path::PathBuf> {
    let routes = work.join("bgp-routes.txt");
    write_lines(
        &routes,
        prefixes
            .iter()
            .enumerate()
            .map(|(i, p)| format!("{p} {}", i % 65535 + 1)),
    )?;
    Ok(routes)
}

pub fn run(args: &PeersArgs, _clock: &Clock, work: &Path) -> Result<Vec<Row>> {
    let path = args.data.join("bgp/prefixes.txt.gz");
    anyhow::ensure!(
        path.exists(),
        "{} is missing: the lookup workloads need the shared data (--data)",
        path.display()
    );
    let prefixes: Vec<Ipv4Prefix> = prism_lab::bench::tables::load_prefixes(&path)?;
    let table = prism_lab::bench::tables::build_lpm(&prefixes)?;
    let routes = write_routes(work, &prefixes)?;
    let mut rows = Vec::new();
    for (label, in_prefix, seed) in [
        ("addresses inside prefixes", true, 21),
        ("random addresses", false, 22),
    ] {
        let addrs = prism_lab::bench::tables::addresses(&prefixes, 1 << 20, in_prefix, seed);
        let ips = work.join("bgp-ips.txt");
        write_lines(&ips, addrs.iter().map(|a| dotted(*a)))?;
        println!("  lookups, full BGP table, {label}: dpdk-test-fib and Prism in turn ...");
        let (mut fib, mut ours) = (Vec::new(), Vec::new());
        // Cheap rounds, and a noisy measure: more of them than for rates.
        for _ in 0..args.rounds * 2 + 1 {
            fib.push(test_fib(args.core, &routes, &ips, false)?.0);
            ours.push(prism_cycles(&table, &addrs, args.core));
        }
        rows.push(
            Row::cost(
                format!(
                    "LPM lookup, full BGP table ({} prefixes), {label}",
                    prefixes.len()
                ),
                "DPDK rte_fib DIR-24-8 (dpdk-test-fib)",
                &fib,
                &ours,
            )
            .note("bulk lookups, TSC cycles per lookup"),
        );
        // rte_lpm takes minutes to load this table: one run, in-prefix only.
        if args.with_rte_lpm && in_prefix {
            println!("  ... and rte_lpm (loading the table takes 3+ minutes)");
            let (_, lpm) = test_fib(args.core, &routes, &ips, true)?;
            if let Some(l) = lpm {
                rows.push(
                    Row::cost(
                        format!("LPM lookup, full BGP table, {label}"),
                        "DPDK rte_lpm (dpdk-test-fib -c)",
                        &[l],
                        &ours,
                    )
                    .note("one run; rte_lpm and rte_fib agreed on every address"),
                );
            }
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    #[test]
    fn dpdk_test_fib_output_is_read() {
        let t = "AVG FIB add 9947\nAVG FIB lookup 27.3\nAVG LPM lookup 59.3\nFIB and LPM lookup returns same values\n";
        assert_eq!(super::avg(t, "AVG FIB lookup"), Some(27.3));
        assert_eq!(super::avg(t, "AVG LPM lookup"), Some(59.3));
        assert_eq!(
            super::avg("Can not add a route to FIB, err -22", "AVG FIB lookup"),
            None
        );
    }
}
