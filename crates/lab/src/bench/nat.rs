//! The gateway's outgoing NAT (docs/wan.md), two ways:
//! - `wan/nat/64B`: 64-byte frames of 4,096 flows, each already in the flow
//!   table, LAN to the WAN port (TTL, tag off, MACs, source address and
//!   port translated with their checksums), timed as `wan/plain-hop` is;
//! - `nat/new-flows`: 1 Mi new flows into one flow table (the work of a
//!   first packet: a port found, two index entries made), timed per flow;
//!   the note gives the table's reserved bytes and the process's resident
//!   growth with the 1 Mi flows in it.

use super::wan::{VLAN, substrate};
use super::{BenchArgs, Figure, bench_pipeline, tsc, wanted};
use anyhow::Result;
use prism_pipeline::traffic::{FrameSpec, build};
use prism_pipeline::wan::nat::{NatConfig, NatTable, Outbound};
use prism_pipeline::{Action, TunnelSpec, VlanOp};
use prism_wire::{EthernetAddress, Ipv4Address};
use std::time::Instant;

const FLOWS: u32 = 1 << 20;

fn frames() -> Vec<Vec<u8>> {
    (0..4096u32)
        .map(|i| {
            build(
                &FrameSpec {
                    vlan: Some(VLAN),
                    src: Ipv4Address([10, 2, 0, 2]),
                    dst: Ipv4Address([10, 1, (i >> 8) as u8, i as u8]),
                    frame_len: 64,
                    ..FrameSpec::default()
                },
                b"",
            )
        })
        .collect()
}

/// Resident set size of this process, bytes.
fn rss() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

fn new_flows() -> Figure {
    let before = rss();
    let mut t = NatTable::new(NatConfig {
        capacity: FLOWS,
        ..NatConfig::default()
    });
    let (start, c) = (Instant::now(), tsc());
    for i in 0..FLOWS {
        let k = Outbound {
            net: 1,
            proto: 17,
            int_ip: 0x0a00_0000 | (i >> 4),
            int_port: 1024 + (i & 0xf) as u16,
            rem_ip: 0xc000_0200 | (i & 0xff),
            rem_port: 53,
        };
        t.outbound(k, 0).expect("room for every flow");
    }
    let (ns, cyc) = (
        start.elapsed().as_nanos() as f64,
        tsc().wrapping_sub(c) as f64,
    );
    let grown = rss().saturating_sub(before);
    let per = ns / f64::from(FLOWS);
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    Figure {
        name: "nat/new-flows".into(),
        items: u64::from(FLOWS),
        mpps: 1e3 / per,
        ns_per_item: per,
        tsc_cycles_per_item: cyc / f64::from(FLOWS),
        note: format!(
            "{} concurrent flows: table reserved {:.0} MiB, resident +{:.0} MiB",
            t.stats().live,
            mib(t.reserved_bytes() as u64),
            mib(grown)
        ),
    }
}

pub(crate) fn run(args: &BenchArgs, reps: usize, push: &mut impl FnMut(Figure)) -> Result<()> {
    if wanted(args, "wan/nat/64B") {
        let out = Action {
            out_port: Some(1),
            decrement_ttl: true,
            vlan: VlanOp::Pop,
            set_src_mac: Some(EthernetAddress([2, 0, 0, 0, 0, 0xfe])),
            set_dst_mac: Some(EthernetAddress([2, 0, 0, 0, 0, 1])),
            ..Action::default()
        };
        let mut s = substrate(out, Some(1))?;
        s.set_wan_address(Some((
            Ipv4Address([203, 0, 113, 1]),
            EthernetAddress([2, 0, 0, 0, 0, 0xfe]),
        )));
        let mut spec = s.spec("part").cloned().expect("the network");
        spec.tunnels.push(TunnelSpec::Nat { vlan: Some(VLAN) });
        s.replace_network(spec)?;
        let note = "LAN to WAN: TTL, tag off, MACs, NAT of an established flow";
        push(bench_pipeline(
            "wan/nat/64B",
            &s,
            &frames(),
            args.quick,
            reps,
            note,
        ));
    }
    if wanted(args, "nat/new-flows") {
        push(new_flows());
    }
    Ok(())
}
