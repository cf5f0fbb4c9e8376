//! The workload of DPDK's l3fwd (LPM mode), for Prism alone: one network
//! reached by default (l3fwd maps nothing), routing to port 1 with the TTL
//! decremented (checksum updated) and both MACs rewritten, as l3fwd's
//! RFC 1812 path does. `bench/peers/run` runs this same substrate and these
//! same frames beside l3fwd; `prism bench --only pipeline/l3fwd` times it
//! alone, for profiling between peers runs (`valgrind --tool=callgrind`).

use super::{BenchArgs, Figure, bench_pipeline, wanted};
use anyhow::{Context, Result};
use prism_pipeline::traffic::{FrameSpec, build};
use prism_pipeline::{Action, ForwardingSpec, NetworkSpec, Substrate, Tier};
use prism_tables::Ipv4Prefix;
use prism_wire::{EthernetAddress, Ipv4Address};

/// The MACs l3fwd writes: its null port's address is random, and its
/// default destination for port 1 is 02:00:00:00:00:01.
pub const DST_MAC: [u8; 6] = [2, 0, 0, 0, 0, 1];

/// l3fwd's own IPv4 table: 198.18.0.0/24 .. 198.18.15.0/24.
pub fn routes() -> Vec<Ipv4Prefix> {
    (0..16u32)
        .map(|i| Ipv4Prefix::new(0xc612_0000 | (i << 8), 24))
        .collect()
}

/// One network routing `routes` to port 1 as l3fwd does (TTL, both MACs),
/// reached by default.
pub fn substrate(routes: &[Ipv4Prefix]) -> Result<Substrate> {
    let mut s = Substrate::new(
        prism_pipeline::control::device::profile("alveo-u280")
            .context("profile")?
            .clone(),
        2,
    );
    let action = Action {
        out_port: Some(1),
        decrement_ttl: true,
        set_src_mac: Some(EthernetAddress([2, 0, 0, 0, 0, 0xfe])),
        set_dst_mac: Some(EthernetAddress(DST_MAC)),
        ..Action::default()
    };
    s.add_network(NetworkSpec {
        name: "l3fwd".into(),
        tier: Tier::Hardware,
        mapping: vec![],
        forwarding: ForwardingSpec::Destination(routes.iter().map(|p| (*p, action)).collect()),
        rate_limit: None,
        software_channel: None,
        quantum: 1514,
        tunnels: Vec::new(),
        program: None,
    })?;
    s.set_default_network(Some("l3fwd"))?;
    Ok(s)
}

/// UDP frames of `size` bytes on the wire (FCS included, as l3fwd's
/// figures count them) to each of `dsts`.
pub fn frames(dsts: &[u32], size: usize) -> Vec<Vec<u8>> {
    dsts.iter()
        .map(|d| {
            build(
                &FrameSpec {
                    src_mac: EthernetAddress([2, 0, 0, 0, 0, 2]),
                    dst_mac: EthernetAddress([2, 0, 0, 0, 0, 3]),
                    src: Ipv4Address([10, 0, 0, 1]),
                    dst: Ipv4Address::from_u32(*d),
                    frame_len: size - 4, // the FCS is the NIC's
                    ..FrameSpec::default()
                },
                b"PRSM",
            )
        })
        .collect()
}

/// `pipeline/l3fwd-16-routes/{64,512,1518}B`: the peers harness's 16-route
/// workload, timed alone.
pub fn run(args: &BenchArgs, reps: usize, push: &mut impl FnMut(Figure)) -> Result<()> {
    let routes = routes();
    let mut s = None;
    for size in [64usize, 512, 1518] {
        let name = format!("pipeline/l3fwd-16-routes/{size}B");
        if !wanted(args, &name) {
            continue;
        }
        let s = match &mut s {
            Some(s) => s,
            None => s.insert(substrate(&routes)?),
        };
        let dsts = crate::bench::tables::addresses(&routes, 4096, true, 11);
        push(bench_pipeline(
            &name,
            s,
            &frames(&dsts, size),
            args.quick,
            reps,
            "l3fwd's workload: copy-in+parse+LPM+TTL/MACs+out",
        ));
    }
    Ok(())
}
