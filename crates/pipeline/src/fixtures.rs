//! Fixtures: ready-made substrates and traffic for benchmarks, tests and
//! the fuzz targets (not the `prism-lab` crate, which builds hosts): N hardware
//! networks, each selected by its VLAN and routing by destination over its
//! own table, and frames spread over them.

use crate::control::device;
use crate::control::substrate::{ForwardingSpec, MappingRule, NetworkSpec, Substrate};
use crate::fast::action::{Action, VlanOp};
use crate::fast::dataplane::Tier;
use crate::traffic::{FrameSpec, build};
use prism_tables::{Ipv4Prefix, PortRange, Ternary};
use prism_wire::{EthernetAddress, Ipv4Address};

/// A hardware network mapped by its VLAN, as the controller books one:
/// `forwarding` its table, `tunnels` its ways in from the wide area.
pub fn on_vlan(
    name: &str,
    vlan: u16,
    forwarding: ForwardingSpec,
    tunnels: Vec<crate::control::spec::TunnelSpec>,
) -> NetworkSpec {
    NetworkSpec {
        name: name.into(),
        tier: Tier::Hardware,
        mapping: vec![MappingRule {
            priority: 1,
            fields: Ternary::ANY.vlan(Some(vlan)),
            src_port: PortRange::ANY,
            dst_port: PortRange::ANY,
        }],
        forwarding,
        rate_limit: None,
        software_channel: None,
        quantum: 1514,
        tunnels,
        program: None,
    }
}

/// Hardware network `net{i}`, selected by `fields`, routing `routes`
/// prefixes of length `len` from `base` with TTL decrement, MAC rewrite and
/// `vlan`, out of port 1.
fn routed(i: u16, fields: Ternary, base: u32, len: u8, routes: u32, vlan: VlanOp) -> NetworkSpec {
    let action = Action {
        out_port: Some(1),
        decrement_ttl: true,
        set_src_mac: Some(EthernetAddress([2, 0, 0, 0, 0xfe, 1])),
        set_dst_mac: Some(EthernetAddress([2, 0, 0, 0, 0xfe, 2])),
        vlan,
        ..Default::default()
    };
    let len = len.min(32);
    let table = (0..routes.max(1))
        .map(|r| {
            (
                Ipv4Prefix::new(base | (r << (32 - u32::from(len))), len),
                action,
            )
        })
        .collect();
    NetworkSpec {
        name: format!("net{i}"),
        tier: Tier::Hardware,
        mapping: vec![MappingRule {
            priority: 1,
            fields,
            src_port: PortRange::ANY,
            dst_port: PortRange::ANY,
        }],
        forwarding: ForwardingSpec::Destination(table),
        rate_limit: None,
        software_channel: None,
        quantum: 1514,
        tunnels: Vec::new(),
        program: None,
    }
}

/// `networks` hardware networks on the 1024-slot `nac-tcam` profile; network
/// i takes VLAN i+1 and routes 10.i.0.0/16 split into `routes` prefixes,
/// with TTL decrement, MAC rewrite and VLAN pop, out of port 1.
pub fn vlan_networks(networks: u16, routes: u32) -> Substrate {
    let mut s = Substrate::new(
        device::profile("nac-tcam")
            .expect("built-in profile")
            .clone(),
        2,
    );
    for i in 0..networks {
        let base = (10u32 << 24) | (u32::from(i & 0xff) << 16);
        let len = 16 + routes.max(1).next_power_of_two().trailing_zeros() as u8;
        let spec = routed(
            i,
            Ternary::ANY.vlan(Some(i + 1)),
            base,
            len,
            routes,
            VlanOp::Pop,
        );
        s.add_network(spec).expect("the nac-tcam profile has room");
    }
    s
}

/// `count` frames of `frame_len` bytes spread round-robin over the networks
/// of [`vlan_networks`], destinations spread over each network's routes.
pub fn vlan_traffic(networks: u16, count: usize, frame_len: usize) -> Vec<Vec<u8>> {
    (0..count)
        .map(|k| {
            let i = (k % usize::from(networks)) as u16;
            let host = (k as u32).wrapping_mul(2_654_435_761) & 0xffff;
            let dst = (10u32 << 24) | (u32::from(i & 0xff) << 16) | host;
            let spec = FrameSpec {
                vlan: Some(i + 1),
                dst: Ipv4Address::from_u32(dst),
                src: Ipv4Address([10, 200, 0, 1]),
                frame_len,
                ..Default::default()
            };
            build(&spec, b"bench")
        })
        .collect()
}

/// A device with room for `networks` data planes and their mapping rules:
/// paper 001's NAC card (1024 data planes sharing one pipeline) scaled up.
/// Synthetic, for the many-networks benchmark: no real card is claimed.
pub fn many_networks_profile(networks: u16) -> device::DeviceProfile {
    let mut p = device::profile("nac-tcam")
        .expect("built-in profile")
        .clone();
    p.name = "nac-tcam-scaled";
    p.description = "the NAC card's shared pipeline with room for more data planes (synthetic)";
    p.slots = p.slots.max(networks);
    p.mapping_entries = p.mapping_entries.max(u32::from(networks));
    p
}

/// The /24 network `i` of [`prefix_networks`] owns: 10.(i/256).(i%256).0/24.
fn owned(i: u16) -> u32 {
    (10u32 << 24) | (u32::from(i) << 8)
}

/// `networks` hardware networks (up to 65,535) selected by destination, as
/// a provider maps customers' address blocks to their virtual networks:
/// network i owns 10.(i/256).(i%256).0/24 and routes it split into `routes`
/// prefixes, with TTL decrement and MAC rewrite, out of port 1.
pub fn prefix_networks(networks: u16, routes: u32) -> Substrate {
    let mut s = Substrate::new(many_networks_profile(networks), 2);
    let routes = routes.clamp(1, 256).next_power_of_two();
    let len = 24 + routes.trailing_zeros() as u8;
    s.batch(|s| {
        for i in 0..networks {
            let fields = Ternary::ANY.dst_ip(Ipv4Prefix::new(owned(i), 24));
            let spec = routed(i, fields, owned(i), len, routes, VlanOp::None);
            s.add_network(spec).expect("the scaled profile has room");
        }
    });
    s
}

/// `count` frames of `frame_len` bytes spread round-robin over the networks
/// of [`prefix_networks`], to hosts spread over each network's /24.
pub fn prefix_traffic(networks: u16, count: usize, frame_len: usize) -> Vec<Vec<u8>> {
    (0..count)
        .map(|k| {
            let i = (k % usize::from(networks)) as u16;
            let host = (k as u32).wrapping_mul(2_654_435_761) >> 24;
            let spec = FrameSpec {
                dst: Ipv4Address::from_u32(owned(i) | host),
                src: Ipv4Address([172, 16, 0, 1]),
                frame_len,
                ..Default::default()
            };
            build(&spec, b"bench")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Packet, Pipeline, PipelineConfig};

    /// Every frame through one batch; what left on port 1.
    fn forward(s: &Substrate, frames: &[Vec<u8>]) -> (Pipeline, Vec<Packet>) {
        let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
        let mut batch: Vec<_> = frames
            .iter()
            .map(|f| p.pool.packet(f, 0, 0).unwrap())
            .collect();
        p.process(&mut batch, 0);
        let mut out = Vec::new();
        p.transmit(1, usize::MAX, &mut out);
        (p, out)
    }

    #[test]
    fn every_frame_is_forwarded() {
        let (p, out) = forward(&vlan_networks(16, 64), &vlan_traffic(16, 256, 64));
        assert_eq!(out.len(), 256);
        assert!(
            p.counters()
                .networks
                .iter()
                .all(|c| c.tx_packets == 16 && c.dropped() == 0)
        );
        assert_eq!(out[0].len(), 60, "VLAN popped from a 64-byte frame");
    }

    #[test]
    fn prefix_networks_each_take_their_own_frames() {
        let (p, out) = forward(&prefix_networks(300, 16), &prefix_traffic(300, 600, 64));
        assert_eq!(out.len(), 600);
        let c = &p.counters().networks;
        assert_eq!(c.len(), 300);
        assert!(c.iter().all(|c| c.tx_packets == 2 && c.dropped() == 0));
    }
}
