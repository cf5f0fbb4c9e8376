//! The WAN side of a node: the substrate's IPIP termination on the node's
//! uplink to the wide area (paper 002 §5, Fig. 7; paper 003 §3.3's IPIP
//! layer-3 virtualization, across nodes).
//!
//! In: a parsed frame that arrived on a WAN port. Out: the network it
//! belongs to, with the frame decapsulated (any WAN VLAN tags and the
//! outer IPv4 header removed) and tagged with that network's VLAN, as if it
//! had arrived on the network's own side; or a named drop. A frame on a WAN
//! port never reaches the design-select table or the default network:
//! what no tunnel claims is dropped, so nothing from the wide area enters a
//! network it was not sent to.
//!
//! A bridged network's 802.1ad frames are its by their S-tag, which is
//! popped: what remains is the frame as the network's side carries it
//! (its C-tag, any EtherType).
//!
//! Config: every network's tunnels, `(outer source, outer destination) →
//! (network, VLAN)` and `S-tag → network`, exact match, one per key across the node
//! ([`crate::Substrate`] refuses a second claim). The controller gives each
//! part of a network spanning nodes its own tunnel source address, so two
//! experiments between the same two nodes on the same inner addresses stay
//! apart.

use crate::packet::Packet;
use crate::reasons::{DropReason, WanDrop};
use crate::spec::TunnelSpec;
use prism_wire::{PacketInfo, ethertype, vlan};

/// One IPIP tunnel's key: outer source in the high 32 bits, destination low.
fn key(src: u32, dst: u32) -> u64 {
    (u64::from(src) << 32) | u64::from(dst)
}

/// Whether two tunnels claim the same frames.
pub fn same_key(a: &TunnelSpec, b: &TunnelSpec) -> bool {
    match (a, b) {
        (TunnelSpec::Ipip { src, dst, .. }, TunnelSpec::Ipip { src: s, dst: d, .. }) => {
            (src, dst) == (s, d)
        }
        (TunnelSpec::QinQ { s_tag }, TunnelSpec::QinQ { s_tag: t }) => s_tag == t,
        _ => false,
    }
}

/// The WAN side's table, part of the published data plane.
#[derive(Debug, Clone, Default)]
pub struct WanTable {
    /// Per port: is it a WAN port.
    wan_port: Vec<bool>,
    /// Whether any port is: read once a batch.
    any: bool,
    /// IPIP tunnels, sorted by key: (key, network id, VLAN to push or 0).
    tunnels: Vec<(u64, u16, u16)>,
    /// S-tags, sorted: (S-tag, network id).
    s_tags: Vec<(u16, u16)>,
}

impl WanTable {
    /// `wan_ports`: the ports that face the wide area; `tunnels`: each
    /// network's ways in, with its id. A key given twice keeps its first
    /// network (the substrate refuses that before).
    pub fn new(
        ports: u16,
        wan_ports: &[u16],
        tunnels: impl IntoIterator<Item = (TunnelSpec, u16)>,
    ) -> Self {
        let mut wan_port = vec![false; usize::from(ports)];
        for p in wan_ports {
            if let Some(w) = wan_port.get_mut(usize::from(*p)) {
                *w = true;
            }
        }
        let (mut ipip, mut s_tags) = (Vec::new(), Vec::new());
        for (t, net) in tunnels {
            match t {
                TunnelSpec::Ipip { src, dst, vlan } => ipip.push((
                    key(u32::from_be_bytes(src.0), u32::from_be_bytes(dst.0)),
                    net,
                    vlan.unwrap_or(0),
                )),
                TunnelSpec::QinQ { s_tag } => s_tags.push((s_tag & 0x0fff, net)),
            }
        }
        ipip.sort_by_key(|t| t.0);
        ipip.dedup_by_key(|t| t.0);
        s_tags.sort_by_key(|t| t.0);
        s_tags.dedup_by_key(|t| t.0);
        Self {
            any: wan_port.contains(&true),
            wan_port,
            tunnels: ipip,
            s_tags,
        }
    }

    /// Whether the node has a WAN port at all.
    #[inline]
    pub fn any(&self) -> bool {
        self.any
    }

    #[inline(always)]
    pub fn is_wan(&self, port: u16) -> bool {
        self.wan_port
            .get(usize::from(port))
            .copied()
            .unwrap_or(false)
    }

    /// The network and VLAN of tunnel `src → dst`.
    pub fn tunnel(&self, src: u32, dst: u32) -> Option<(u16, u16)> {
        let k = key(src, dst);
        self.tunnels
            .binary_search_by_key(&k, |t| t.0)
            .ok()
            .map(|i| (self.tunnels[i].1, self.tunnels[i].2))
    }

    /// The network of S-tag `vid`.
    pub fn s_tag(&self, vid: u16) -> Option<u16> {
        self.s_tags
            .binary_search_by_key(&vid, |t| t.0)
            .ok()
            .map(|i| self.s_tags[i].1)
    }

    pub fn tunnels(&self) -> usize {
        self.tunnels.len() + self.s_tags.len()
    }
}

/// Terminates a frame that arrived on a WAN port (see the module text):
/// `Ok(network)` with `pkt` rewritten and `info` parsed again, or the drop.
pub fn terminate(t: &WanTable, pkt: &mut Packet, info: &mut PacketInfo) -> Result<u16, DropReason> {
    let outer_tpid = pkt
        .data()
        .get(12..14)
        .map_or(0, |b| u16::from_be_bytes([b[0], b[1]]));
    if outer_tpid == ethertype::QINQ {
        return pop_s_tag(t, pkt, info);
    }
    if !info.is_ipv4() {
        return Err(DropReason::Wan(WanDrop::Unexpected));
    }
    if !info.is_ipip() {
        return Err(DropReason::Wan(WanDrop::NotLeased));
    }
    let Some((net, vid)) = t.tunnel(info.key.src_ip, info.key.dst_ip) else {
        return Err(DropReason::Wan(WanDrop::UnknownTunnel));
    };
    // Outer header off, then the WAN's own tags: the frame becomes
    // Ethernet + inner IPv4, as the network's side would carry it.
    let l3 = usize::from(info.l3_offset);
    pkt.truncate(usize::from(info.l3_end));
    pkt.remove_gap(l3, usize::from(info.inner_l3_offset) - l3);
    let tags = usize::from(info.vlan_tags) * vlan::TAG_LEN;
    if tags > 0 {
        pkt.remove_gap(12, tags);
    }
    let d = pkt.data_mut();
    d[12..14].copy_from_slice(&ethertype::IPV4.to_be_bytes());
    if vid != 0 {
        if !pkt.insert_gap(12, vlan::TAG_LEN) {
            return Err(DropReason::Action(crate::reasons::ActionDrop::NoHeadroom));
        }
        let d = pkt.data_mut();
        d[12..14].copy_from_slice(&ethertype::VLAN.to_be_bytes());
        d[14..16].copy_from_slice(&(vid & 0x0fff).to_be_bytes());
    }
    pkt.charge_as_is();
    prism_wire::parse_frame_into(pkt.data(), pkt.port, info).map_err(DropReason::Parse)?;
    Ok(net)
}

/// A bridged network's frame: its S-tag popped, the frame left as the
/// network's side carries it (its own C-tag and any EtherType).
fn pop_s_tag(t: &WanTable, pkt: &mut Packet, info: &mut PacketInfo) -> Result<u16, DropReason> {
    let vid = pkt
        .data()
        .get(14..16)
        .map_or(0, |b| u16::from_be_bytes([b[0], b[1]]) & 0x0fff);
    let Some(net) = t.s_tag(vid) else {
        return Err(DropReason::Wan(WanDrop::UnknownSTag));
    };
    pkt.remove_gap(12, vlan::TAG_LEN);
    pkt.charge_as_is();
    prism_wire::parse_frame_into(pkt.data(), pkt.port, info).map_err(DropReason::Parse)?;
    Ok(net)
}
