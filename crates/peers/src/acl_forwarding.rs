//! Rule-table forwarding on one core, no NIC: DPDK's l3fwd in ACL mode
//! (`--lookup=acl`, rte_acl) against a Prism `rules` network, on the same
//! ClassBench rules and the same frames (the set's header trace, 64 B).
//!
//! The method is the LPM rows' (`crate::forwarding`): l3fwd replays the
//! frames from a pcap file to a null port and is counted by telemetry,
//! stopped between its windows; Prism runs the whole pipeline on the same
//! core in alternating rounds; medians. Both drop a header no rule
//! matches (l3fwd's ACL mode drops it; the Prism network has no default).
//!
//! The rules go to l3fwd as its rule file: each ClassBench filter as an
//! `R` (route) line to port 1, in the set's order, which is rte_acl's
//! priority order in l3fwd (earlier lines win) and Prism's (higher
//! priority, then lower id). Both then do the same to a frame: l3fwd's
//! ACL path (`send_packets_single`) runs its RFC 1812 checks with the TTL
//! decremented and writes both MACs; Prism's network decrements the TTL
//! (checksum updated) and writes both MACs.

use crate::forwarding::{L3fwd, Lookup, alternate, write_pcap};
use crate::{Clock, PeersArgs, Row};
use anyhow::{Context, Result};
use prism_io::datasets::read_filters;
use prism_lab::bench::rules::{SETS, frames, substrate};
use prism_tables::{Key, Rule};
use std::fmt::Write as _;
use std::path::Path;

/// `a.b.c.d/len` of a prefix held as value and mask.
fn prefix(value: u32, mask: u32) -> String {
    let b = value.to_be_bytes();
    format!(
        "{}.{}.{}.{}/{}",
        b[0],
        b[1],
        b[2],
        b[3],
        mask.leading_ones()
    )
}

/// l3fwd's ACL rule file for `rules`: one route line each, best first.
pub(crate) fn rule_file(rules: &[Rule]) -> String {
    let mut sorted: Vec<&Rule> = rules.iter().collect();
    sorted.sort_by(|a, b| b.priority.cmp(&a.priority).then(a.id.cmp(&b.id)));
    let mut text = String::with_capacity(rules.len() * 64);
    for r in sorted {
        let (v, m) = (r.fields.value, r.fields.mask);
        let proto = ((v[4] >> 48) as u8, (m[4] >> 48) as u8);
        let _ = writeln!(
            text,
            "R{} {} {} : {} {} : {} 0x{:02x}/0x{:02x} 1",
            prefix((v[0] >> 32) as u32, (m[0] >> 32) as u32),
            prefix(v[0] as u32, m[0] as u32),
            r.src_port.lo,
            r.src_port.hi,
            r.dst_port.lo,
            r.dst_port.hi,
            proto.0,
            proto.1
        );
    }
    text
}

/// Frames replayed: l3fwd's pcap device holds the whole file in mbufs of
/// its pool (8,192 a port), so the LPM rows' 4,096 frames.
const FRAMES: usize = 4096;

/// [`FRAMES`] headers spread evenly over the set's headers (its trace, or
/// headers inside its rules where no trace ships: the `classifier` bench's).
fn headers(data: &Path, set: &str, rules: &[Rule]) -> Result<(Vec<Key>, String)> {
    let (all, what) = prism_lab::bench::classify::headers(data, set, rules)?;
    let step = all.len().div_ceil(FRAMES).max(1);
    let picked: Vec<Key> = all.iter().step_by(step).take(FRAMES).copied().collect();
    let what = format!("{} of {} headers, {what}", picked.len(), all.len());
    Ok((picked, what))
}

/// One set: l3fwd and Prism in turn.
fn compare(set: &str, bin: &Path, args: &PeersArgs, clock: &Clock, work: &Path) -> Result<Row> {
    let path = args.data.join(format!("classbench/{set}"));
    let rules = read_filters(&path).with_context(|| format!("reading {}", path.display()))?;
    let (keys, what) = headers(&args.data, set, &rules)?;
    let file = work.join(format!("acl-{set}.cfg"));
    std::fs::write(&file, rule_file(&rules))?;
    let fr = frames(&keys);
    let pcap = work.join(format!("acl-{set}.pcap"));
    write_pcap(&pcap, &fr)?;
    let s = substrate(&rules)?;
    let forwarded = forwarded(&s, &fr);
    println!(
        "  forwarding, rule table {set}, 64 B: starting l3fwd --lookup=acl ({} rules) ...",
        rules.len()
    );
    let l = L3fwd::start(bin, args.core, &pcap, &file, work, Lookup::Acl)?;
    let row = alternate(
        &l,
        &s,
        &fr,
        args,
        clock,
        format!(
            "forwarding, one core, rule table {set} ({} rules), 64 B",
            rules.len()
        ),
        "DPDK l3fwd (ACL, pcap+null vdevs)",
    )?
    .note(format!(
        "frames: {what}; Prism forwards {forwarded} of them"
    ));
    Ok(row)
}

/// Frames of `frames` Prism forwards (one pass): the rate counts every
/// frame processed, l3fwd's only those it sends, so the two must agree.
fn forwarded(s: &prism_pipeline::Substrate, frames: &[Vec<u8>]) -> usize {
    let mut p =
        prism_pipeline::Pipeline::new(s.handle(), prism_pipeline::PipelineConfig::default());
    let (mut batch, mut out) = (Vec::new(), Vec::new());
    prism_lab::bench::forward_pass(&mut p, frames, &mut batch, &mut out)
}

pub fn run(args: &PeersArgs, clock: &Clock, work: &Path) -> Result<Vec<Row>> {
    let Some(bin) = &args.l3fwd else {
        println!("  rule-table forwarding: skipped (no --l3fwd; bench/peers/run builds it)");
        return Ok(Vec::new());
    };
    SETS.iter()
        .map(|set| compare(set, bin, args, clock, work))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use prism_tables::classbench::parse_filter;

    #[test]
    fn a_classbench_filter_becomes_an_l3fwd_route_line() {
        let r = parse_filter(
            "@10.1.0.0/16\t192.168.1.0/24\t0 : 65535\t80 : 80\t0x06/0xFF\t0x0000/0x0000",
            0,
            9,
        )
        .unwrap();
        assert_eq!(
            rule_file(&[r]),
            "R10.1.0.0/16 192.168.1.0/24 0 : 65535 80 : 80 0x06/0xff 1\n"
        );
    }
}
