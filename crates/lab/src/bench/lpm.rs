//! The BGP table's rows: LPM lookups on random and in-prefix addresses,
//! in batches and one at a time, and one hardware network routing on the
//! whole table.

use super::{BenchArgs, Figure, bench_pipeline, data, measure, wanted};
use crate::bench::tables as tables_cmd;
use anyhow::{Context, Result};
use prism_pipeline::{Substrate, Tier};
use std::hint::black_box;

pub fn run(args: &BenchArgs, reps: usize, push: &mut impl FnMut(Figure)) -> Result<()> {
    // The rows' names hold the table's size, known once it is loaded: load
    // it for any filter that may name one of them (`lpm/bgp`, `bgp-901k`).
    let need_bgp = args.only.as_deref().is_none_or(|o| {
        ["lpm/bgp-", "pipeline/bgp-"]
            .iter()
            .any(|p| p.contains(o) || o.starts_with(p))
            || o.contains("bgp")
    });
    if need_bgp {
        let path = data(args, "bgp/prefixes.txt.gz")?;
        let prefixes = tables_cmd::load_prefixes(&path)?;
        let table = tables_cmd::build_lpm(&prefixes)?;
        let n = 1 << 20;
        for (label, in_prefix) in [("random", false), ("in-prefix", true)] {
            let addrs = tables_cmd::addresses(&prefixes, n, in_prefix, 7);
            let name = format!("lpm/bgp-{}k/{label}/batch", prefixes.len() / 1000);
            if wanted(args, &name) {
                let mut out = vec![None; addrs.len()];
                push(measure(
                    &name,
                    n as u64,
                    reps,
                    "lookup_batch, 64 at a time",
                    || {
                        table.lookup_batch(&addrs, &mut out);
                        black_box(&out);
                    },
                ));
            }
            let name = format!("lpm/bgp-{}k/{label}/single", prefixes.len() / 1000);
            if wanted(args, &name) {
                push(measure(
                    &name,
                    n as u64,
                    reps,
                    "lookup() one address at a time",
                    || {
                        let mut acc = 0u32;
                        for a in &addrs {
                            acc = acc.wrapping_add(table.lookup(*a).unwrap_or(0));
                        }
                        black_box(acc);
                    },
                ));
            }
        }
        pipeline_row(args, reps, push, &prefixes)?;
    }
    Ok(())
}

/// The pipeline's row on the full table: one hardware network routing
/// 64 B frames to addresses inside its prefixes.
fn pipeline_row(
    args: &BenchArgs,
    reps: usize,
    push: &mut impl FnMut(Figure),
    prefixes: &[prism_tables::Ipv4Prefix],
) -> Result<()> {
    let name = format!("pipeline/bgp-{}k-routes/64B", prefixes.len() / 1000);
    if wanted(args, &name) {
        let s = bgp_substrate(prefixes)?;
        let addrs = tables_cmd::addresses(prefixes, 4096, true, 9);
        let frames: Vec<Vec<u8>> = addrs
            .iter()
            .map(|a| {
                let spec = prism_pipeline::traffic::FrameSpec {
                    dst: prism_wire::Ipv4Address::from_u32(*a),
                    ..Default::default()
                };
                prism_pipeline::traffic::build(&spec, b"bgp")
            })
            .collect();
        push(bench_pipeline(
            &name,
            &s,
            &frames,
            args.quick,
            reps,
            "one hardware network routing on the full table",
        ));
    }
    Ok(())
}

/// One hardware network whose routes are the whole table, its actions
/// to port 1.
fn bgp_substrate(prefixes: &[prism_tables::Ipv4Prefix]) -> Result<Substrate> {
    let mut s = Substrate::new(
        prism_pipeline::control::device::profile("alveo-u280")
            .context("profile")?
            .clone(),
        2,
    );
    let action = prism_pipeline::Action {
        out_port: Some(1),
        decrement_ttl: true,
        ..Default::default()
    };
    let spec = prism_pipeline::NetworkSpec {
        name: "internet".into(),
        tier: Tier::Hardware,
        mapping: vec![],
        forwarding: prism_pipeline::ForwardingSpec::Destination(
            prefixes.iter().map(|p| (*p, action)).collect(),
        ),
        rate_limit: None,
        software_channel: None,
        quantum: 1514,
        tunnels: Vec::new(),
        program: None,
    };
    s.add_network(spec)?;
    s.set_default_network(Some("internet"))?;
    Ok(s)
}
