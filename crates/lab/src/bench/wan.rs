//! The cost of crossing the wide area in the hardware tier (docs/wan.md):
//! one network mapped by its VLAN, as the controller books it, forwarding
//! 64-byte frames three ways, each timed as `pipeline/...` is:
//! - `wan/plain-hop`: LAN to LAN (TTL, both MACs, the tag kept): a part's
//!   local route, the single-node path;
//! - `wan/encap`: LAN to the WAN port (TTL, tag popped, IPIP pushed, both
//!   MACs): a route to another part;
//! - `wan/decap`: arriving on the WAN port as IPIP (84 bytes on the wire),
//!   terminated (outer header off, the VLAN pushed), then the local route.
//!
//! The ratio of the plain hop's time to the others' is the cross-node rate
//! per core against the single-node one.

use super::{BenchArgs, Figure, bench_pipeline, wanted};
use anyhow::{Context, Result};
use prism_pipeline::traffic::{FrameSpec, build};
use prism_pipeline::{
    Action, ForwardingSpec, IpipOp, MappingRule, NetworkSpec, Substrate, Tier, TunnelSpec, VlanOp,
};
use prism_tables::{PortRange, Ternary};
use prism_wire::{EthernetAddress, Ipv4Address};

pub(super) const VLAN: u16 = 100;
const ME: Ipv4Address = Ipv4Address([198, 18, 0, 1]);
const FAR: Ipv4Address = Ipv4Address([198, 18, 0, 2]);
const WAN_ADDR: Ipv4Address = Ipv4Address([203, 0, 113, 1]);

/// The network: 10.1.0.0/16 to port 1 by `action`; from the WAN (port
/// `wan`, if any) the far part's tunnel.
pub(super) fn substrate(action: Action, wan: Option<u16>) -> Result<Substrate> {
    let mut s = Substrate::new(
        prism_pipeline::control::device::profile("alveo-u280")
            .context("profile")?
            .clone(),
        2,
    );
    if let Some(p) = wan {
        s.set_wan_ports(&[p])?;
    }
    s.add_network(NetworkSpec {
        name: "part".into(),
        tier: Tier::Hardware,
        mapping: vec![MappingRule {
            priority: 1,
            fields: Ternary::ANY.vlan(Some(VLAN)),
            src_port: PortRange::ANY,
            dst_port: PortRange::ANY,
        }],
        forwarding: ForwardingSpec::Destination(vec![("10.1.0.0/16".parse()?, action)]),
        rate_limit: None,
        software_channel: None,
        quantum: 1514,
        tunnels: vec![TunnelSpec::Ipip {
            src: FAR,
            dst: WAN_ADDR,
            vlan: Some(VLAN),
        }],
        program: None,
    })?;
    Ok(s)
}

fn frames(tunnel: bool) -> Vec<Vec<u8>> {
    (0..4096u32)
        .map(|i| {
            let spec = FrameSpec {
                vlan: (!tunnel).then_some(VLAN),
                src: Ipv4Address([10, 2, 0, 2]),
                dst: Ipv4Address([10, 1, (i >> 8) as u8, i as u8]),
                tunnel: tunnel.then_some((FAR, WAN_ADDR)),
                frame_len: if tunnel { 84 } else { 64 },
                ..FrameSpec::default()
            };
            build(&spec, b"")
        })
        .collect()
}

pub(crate) fn run(args: &BenchArgs, reps: usize, push: &mut impl FnMut(Figure)) -> Result<()> {
    let hop = Action {
        out_port: Some(1),
        decrement_ttl: true,
        set_src_mac: Some(EthernetAddress([2, 0, 0, 0, 0, 0xfe])),
        set_dst_mac: Some(EthernetAddress([2, 0, 0, 0, 0, 1])),
        ..Action::default()
    };
    let encap = Action {
        ipip: IpipOp::Encap {
            src: ME,
            dst: Ipv4Address([203, 0, 113, 2]),
        },
        vlan: VlanOp::Pop,
        ..hop
    };
    let cases = [
        (
            "wan/plain-hop/64B",
            hop,
            None,
            false,
            "LAN to LAN: TTL, MACs",
        ),
        (
            "wan/encap/64B",
            encap,
            Some(1),
            false,
            "LAN to WAN: TTL, tag off, IPIP on, MACs",
        ),
        (
            "wan/decap/64B",
            hop,
            Some(0),
            true,
            "WAN to LAN: IPIP off, tag on, TTL, MACs (84 B in)",
        ),
    ];
    for (name, action, wan, tunnel, note) in cases {
        if !wanted(args, name) {
            continue;
        }
        let s = substrate(action, wan)?;
        push(bench_pipeline(
            name,
            &s,
            &frames(tunnel),
            args.quick,
            reps,
            note,
        ));
    }
    Ok(())
}
