//! `pipeline/rules-SET/64B`: a rule-table network of a ClassBench set (the
//! workload of DPDK l3fwd's ACL mode), frames of the set's header trace
//! through the whole pipeline: parse, the packed key, the decision trees'
//! batch walk, TTL and both MACs rewritten, out by port 1. Reached by default, as
//! l3fwd maps nothing. `bench/peers/run` runs this substrate and these
//! frames beside l3fwd `--lookup=acl`.

use super::{BenchArgs, Figure, bench_pipeline, classify, data, wanted};
use anyhow::{Context, Result};
use prism_io::datasets::read_filters;
use prism_pipeline::traffic::{FrameSpec, build};
use prism_pipeline::{Action, ForwardingSpec, NetworkSpec, RuleSpec, Substrate, Tier};
use prism_tables::{Key, Rule};
use prism_wire::{EthernetAddress, Ipv4Address, Ipv4Packet};

/// The sets the peers table reports.
pub const SETS: [&str; 3] = ["fw1_10k", "ipc1_10k", "acl1_10k"];

/// One network whose table is `rules`, every rule forwarding to port 1
/// with the TTL decremented (checksum updated) and both MACs rewritten, as
/// l3fwd's ACL path does (`rfc1812_process`, then the MACs) (a header no rule matches is dropped, as
/// l3fwd drops it), reached by default.
pub fn substrate(rules: &[Rule]) -> Result<Substrate> {
    let profile = prism_pipeline::control::device::profile("nac-tcam").context("profile")?;
    let mut s = Substrate::new(profile.clone(), 2);
    let action = Action {
        out_port: Some(1),
        decrement_ttl: true,
        set_src_mac: Some(EthernetAddress([2, 0, 0, 0, 0, 0xfe])),
        set_dst_mac: Some(EthernetAddress(super::l3fwd::DST_MAC)),
        ..Action::default()
    };
    let rules = rules
        .iter()
        .map(|r| RuleSpec {
            priority: r.priority,
            fields: r.fields,
            src_port: r.src_port,
            dst_port: r.dst_port,
            action,
        })
        .collect();
    s.add_network(NetworkSpec {
        name: "acl".into(),
        tier: Tier::Hardware,
        mapping: vec![],
        forwarding: ForwardingSpec::Rules {
            rules,
            default: None,
        },
        rate_limit: None,
        software_channel: None,
        quantum: 1514,
        tunnels: Vec::new(),
        program: None,
    })?;
    s.set_default_network(Some("acl"))?;
    Ok(s)
}

/// A 64-byte frame (FCS included) for each header: its addresses, ports
/// and protocol (a UDP frame with the protocol field set to the header's,
/// the ports where TCP's and UDP's are).
pub fn frames(headers: &[Key]) -> Vec<Vec<u8>> {
    headers
        .iter()
        .map(|k| {
            let w = k.0;
            let mut f = build(
                &FrameSpec {
                    src: Ipv4Address::from_u32((w[0] >> 32) as u32),
                    dst: Ipv4Address::from_u32(w[0] as u32),
                    src_port: (w[2] >> 48) as u16,
                    dst_port: (w[2] >> 32) as u16,
                    frame_len: 60,
                    ..FrameSpec::default()
                },
                b"PRSM",
            );
            f[14 + 9] = (w[4] >> 48) as u8;
            if let Ok(mut ip) = Ipv4Packet::new_checked(&mut f[14..]) {
                ip.fill_checksum();
            }
            f
        })
        .collect()
}

pub fn run(args: &BenchArgs, reps: usize, push: &mut impl FnMut(Figure)) -> Result<()> {
    for set in SETS {
        let name = format!("pipeline/rules-{set}/64B");
        if !wanted(args, &name) {
            continue;
        }
        let rules = read_filters(&data(args, &format!("classbench/{set}"))?)?;
        let (headers, what) = classify::headers(&args.data, set, &rules)?;
        let t0 = std::time::Instant::now();
        let s = substrate(&rules)?;
        let build_ms = t0.elapsed().as_secs_f64() * 1e3;
        let dp = s.handle().load_full();
        let kind = dp
            .network(0)
            .and_then(|n| prism_pipeline::fast::matching::rules_batch(&n.forwarding))
            .map_or("no rule table", |r| r.table.kind());
        let note = format!(
            "{} rules ({kind}, compiled in {build_ms:.0} ms), {what}: parse+key+rules+TTL/MACs+out",
            rules.len()
        );
        push(bench_pipeline(
            &name,
            &s,
            &frames(&headers),
            args.quick,
            reps,
            &note,
        ));
    }
    Ok(())
}
