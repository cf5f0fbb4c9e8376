//! Action processing: apply an action result (paper 001 §4.2) to a packet.
//!
//! In: a packet of a known network, its parsed header offsets, and the action
//! result the matching stage chose. Out: a [`Verdict`]: send on a port, hand
//! to a software channel, or drop with an [`ActionDrop`] reason.
//!
//! The action result is the paper's bitmap plus value fields, extended with
//! the layer-3 virtualization of paper 003 (IPIP) and VLAN tags. Operations run
//! in a fixed order: drop; IPIP decapsulation; TTL decrement of the routed
//! header (the inner one of an IPIP packet, which is the outer one after
//! decapsulation) with an RFC 1624 checksum update; payload operation
//! ([`crate::fast::payload`]); tunnel rewrite or IPIP encapsulation; VLAN pop then
//! push; MAC rewrite; output or software.
//!
//! Example (a layer-3 virtual router hop, paper 003 §3.3):
//! `Action { decrement_ttl: true, ipip: IpipOp::Rewrite { src, dst }, out_port: Some(1), .. }`

use crate::fast::packet::Packet;
use crate::fast::payload::{self, PayloadOp, PayloadScratch};
use crate::fast::reasons::ActionDrop;
use prism_wire::{
    EthernetAddress, Ipv4Address, Ipv4Packet, Ipv4Repr, PacketInfo, ethertype, protocol, vlan,
};

/// IPIP operations for layer-3 virtualization.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum IpipOp {
    #[default]
    None,
    /// Wrap the IPv4 packet in an outer header from `src` to `dst`.
    Encap { src: Ipv4Address, dst: Ipv4Address },
    /// Remove the outer header of an IPIP packet.
    Decap,
    /// Rewrite the outer (tunnel) addresses: the next virtual hop.
    Rewrite { src: Ipv4Address, dst: Ipv4Address },
}

/// VLAN tag operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum VlanOp {
    #[default]
    None,
    /// Push a tag (0x8100 on an untagged frame, 0x88a8 over an existing tag).
    Push { vid: u16 },
    /// Remove the outer tag.
    Pop,
    /// Pop the outer tag, then push this one.
    Replace { vid: u16 },
}

/// An action result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Action {
    /// Port-valid bit and port.
    pub out_port: Option<u16>,
    /// Change-MAC bit: new source and destination MAC.
    pub set_src_mac: Option<EthernetAddress>,
    pub set_dst_mac: Option<EthernetAddress>,
    /// TTL bit.
    pub decrement_ttl: bool,
    /// Forward bit deasserted: hand to software on this channel (the DMA id).
    pub to_software: Option<u8>,
    /// Drop bit.
    pub drop: bool,
    pub ipip: IpipOp,
    pub vlan: VlanOp,
    /// A payload operation (encryption, compression) on plain IPv4/UDP.
    pub payload: Option<PayloadOp>,
}

/// Where a packet goes after action processing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Output(u16),
    Software(u8),
    Drop(ActionDrop),
}

const IPV4_HEADER: usize = prism_wire::ipv4::MIN_HEADER_LEN;

/// Applies `action` to `pkt`, whose headers `info` describes.
#[inline]
pub fn apply(
    action: &Action,
    pkt: &mut Packet,
    info: &PacketInfo,
    scratch: &mut PayloadScratch,
) -> Verdict {
    if action.drop {
        return Verdict::Drop(ActionDrop::DropAction);
    }
    let l3 = usize::from(info.l3_offset);
    let is_ipv4 = info.is_ipv4();
    let needs_ipv4 = action.decrement_ttl || action.ipip != IpipOp::None;
    if needs_ipv4 && !is_ipv4 {
        return Verdict::Drop(ActionDrop::NotIpv4);
    }
    // Drop link padding so header pushes and pops keep lengths exact.
    if is_ipv4 {
        pkt.truncate(usize::from(info.l3_end));
    }
    let mut routed = routed_header(info);
    if action.ipip == IpipOp::Decap {
        if !info.is_ipip() {
            return Verdict::Drop(ActionDrop::NotIpip);
        }
        let outer_len = routed - l3;
        pkt.remove_gap(l3, outer_len);
        set_ethertype(pkt, l3, ethertype::IPV4);
        routed = l3;
    }
    if action.decrement_ttl
        && let Err(r) = decrement_ttl(pkt, routed)
    {
        return Verdict::Drop(r);
    }
    if let Some(svc) = &action.payload {
        if action.ipip == IpipOp::Decap {
            return Verdict::Drop(ActionDrop::NotUdp); // offsets of the inner packet are not parsed
        }
        if let Err(r) = payload::apply(svc, pkt, info, scratch) {
            return Verdict::Drop(r);
        }
    }
    match action.ipip {
        IpipOp::Encap { src, dst } => {
            let inner = Ipv4Packet::new_unchecked(&pkt.data()[l3..]);
            let mut outer =
                Ipv4Repr::new(src, dst, protocol::IPIP, 64, usize::from(inner.total_len()));
            outer.dont_frag = inner.dont_frag();
            outer.dscp_ecn = inner.dscp_ecn();
            if !pkt.insert_gap(l3, IPV4_HEADER) {
                return Verdict::Drop(ActionDrop::NoHeadroom);
            }
            if outer.emit(&mut pkt.data_mut()[l3..]).is_err() {
                return Verdict::Drop(ActionDrop::NoHeadroom);
            }
        }
        IpipOp::Rewrite { src, dst } => {
            if !info.is_ipip() {
                return Verdict::Drop(ActionDrop::NotIpip);
            }
            Ipv4Packet::new_unchecked(&mut pkt.data_mut()[l3..]).rewrite_addrs(src, dst);
        }
        IpipOp::None | IpipOp::Decap => {}
    }
    let mut tags = info.vlan_tags;
    if matches!(action.vlan, VlanOp::Pop | VlanOp::Replace { .. }) {
        if tags == 0 {
            return Verdict::Drop(ActionDrop::NotTagged);
        }
        pkt.remove_gap(12, vlan::TAG_LEN);
        tags -= 1;
    }
    if let VlanOp::Push { vid } | VlanOp::Replace { vid } = action.vlan {
        if usize::from(tags) >= prism_wire::key::MAX_VLAN_TAGS {
            return Verdict::Drop(ActionDrop::TooManyTags);
        }
        if !pkt.insert_gap(12, vlan::TAG_LEN) {
            return Verdict::Drop(ActionDrop::NoHeadroom);
        }
        let tpid = if tags == 0 {
            ethertype::VLAN
        } else {
            ethertype::QINQ
        };
        let d = pkt.data_mut();
        d[12..14].copy_from_slice(&tpid.to_be_bytes());
        d[14..16].copy_from_slice(&(vid & 0x0fff).to_be_bytes());
    }
    rewrite_macs(pkt, action.set_dst_mac, action.set_src_mac);
    if let Some(ch) = action.to_software {
        return Verdict::Software(ch);
    }
    match action.out_port {
        Some(p) => Verdict::Output(p),
        None => Verdict::Drop(ActionDrop::NoOutputPort),
    }
}

/// Where the routed IPv4 header starts: the inner one of an IPIP packet.
#[inline]
fn routed_header(info: &PacketInfo) -> usize {
    usize::from(if info.is_ipip() {
        info.inner_l3_offset
    } else {
        info.l3_offset
    })
}

/// Decrements the TTL of the IPv4 header at `routed`, with an RFC 1624
/// checksum update.
#[inline]
fn decrement_ttl(pkt: &mut Packet, routed: usize) -> Result<(), ActionDrop> {
    // The header was validated by the parser: TTL at 8, checksum at 10.
    let Some(h) = pkt
        .data_mut()
        .get_mut(routed..)
        .and_then(|x| x.first_chunk_mut::<12>())
    else {
        return Err(ActionDrop::NotIpv4);
    };
    ttl_step(h)
}

/// Decrements the TTL of `h`, an IPv4 header's first 12 bytes (TTL at 8,
/// checksum at 10), with the checksum updated (RFC 1624).
#[inline(always)]
fn ttl_step(h: &mut [u8; 12]) -> Result<(), ActionDrop> {
    if h[8] <= 1 {
        return Err(ActionDrop::TtlExpired);
    }
    h[8] -= 1;
    let c = prism_wire::checksum::ttl_decremented(u16::from_be_bytes([h[10], h[11]]));
    h[10..12].copy_from_slice(&c.to_be_bytes());
    Ok(())
}

#[inline]
fn rewrite_macs(pkt: &mut Packet, dst: Option<EthernetAddress>, src: Option<EthernetAddress>) {
    if dst.is_none() && src.is_none() {
        return;
    }
    // Every parsed frame has at least its 14-byte Ethernet header.
    if let Some(macs) = pkt.data_mut().first_chunk_mut::<12>() {
        if let Some(m) = dst {
            macs[0..6].copy_from_slice(&m.0);
        }
        if let Some(m) = src {
            macs[6..12].copy_from_slice(&m.0);
        }
    }
}

/// A router hop, the common action result: TTL decrement, MAC rewrite and
/// a port, nothing else. The pipeline compiles each such action into a
/// `Hop` and applies it with [`apply_hop`], which skips the tests for
/// everything a hop does not do (drop, IPIP, services, VLAN, software) and
/// is small enough to inline into the batch loop; [`apply`] remains the
/// reference it must agree with (`tests/pipeline/hop_fast_path.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    pub port: u16,
    pub decrement_ttl: bool,
    pub set_dst_mac: Option<EthernetAddress>,
    pub set_src_mac: Option<EthernetAddress>,
    /// Both MACs as the frame's first 12 bytes, when the hop sets both
    /// (a router's usual hop): written in one move.
    macs: Option<[u8; 12]>,
    /// Into an IPIP tunnel, the VLAN tag off: a span's route to another
    /// part (docs/wan.md).
    tunnel: Option<TunnelHop>,
}

/// A tunnel hop's outer header, compiled: its addresses and the sum of
/// the words that do not change from packet to packet (RFC 1071).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TunnelHop {
    src: [u8; 4],
    dst: [u8; 4],
    sum: u32,
}

impl TunnelHop {
    fn new(src: Ipv4Address, dst: Ipv4Address) -> Self {
        let w = |a: [u8; 4]| {
            u32::from(u16::from_be_bytes([a[0], a[1]]))
                + u32::from(u16::from_be_bytes([a[2], a[3]]))
        };
        // Version and IHL (0x45 above the TOS byte), TTL 64 and protocol 4.
        let sum = 0x4500 + (64 << 8 | u32::from(protocol::IPIP)) + w(src.0) + w(dst.0);
        Self {
            src: src.0,
            dst: dst.0,
            sum,
        }
    }

    /// The outer header for an inner packet of `len` bytes with `tos` and
    /// the don't-fragment bit `df` (0x40 or 0), as [`apply`] emits it.
    #[inline(always)]
    fn header(&self, tos: u8, len: u16, df: u8) -> [u8; IPV4_HEADER] {
        let len = len.wrapping_add(IPV4_HEADER as u16);
        let mut acc = self.sum + u32::from(tos) + u32::from(len) + (u32::from(df) << 8);
        acc = (acc & 0xffff) + (acc >> 16);
        acc = (acc & 0xffff) + (acc >> 16);
        let c = !(acc as u16);
        let [l0, l1] = len.to_be_bytes();
        let [c0, c1] = c.to_be_bytes();
        let (s, d) = (self.src, self.dst);
        [
            0x45,
            tos,
            l0,
            l1,
            0,
            0,
            df,
            0,
            64,
            protocol::IPIP,
            c0,
            c1,
            s[0],
            s[1],
            s[2],
            s[3],
            d[0],
            d[1],
            d[2],
            d[3],
        ]
    }
}

impl Hop {
    /// The hop `action` is, if it is one: a router's hop, or one into an
    /// IPIP tunnel with the VLAN tag popped.
    pub fn of(action: &Action) -> Option<Hop> {
        let plain = Action {
            out_port: action.out_port,
            set_src_mac: action.set_src_mac,
            set_dst_mac: action.set_dst_mac,
            decrement_ttl: action.decrement_ttl,
            ..Action::default()
        };
        let tunnel = match (action.ipip, action.vlan) {
            (IpipOp::Encap { src, dst }, VlanOp::Pop) => Some(TunnelHop::new(src, dst)),
            _ => None,
        };
        let bare = Action {
            ipip: IpipOp::None,
            vlan: VlanOp::None,
            ..*action
        };
        let plain_or_tunnel = plain == *action || (tunnel.is_some() && plain == bare);
        match action.out_port {
            Some(port) if plain_or_tunnel => Some(Hop {
                tunnel,
                port,
                decrement_ttl: action.decrement_ttl,
                set_dst_mac: action.set_dst_mac,
                set_src_mac: action.set_src_mac,
                macs: match (action.set_dst_mac, action.set_src_mac) {
                    (Some(d), Some(s)) => {
                        let mut m = [0; 12];
                        m[..6].copy_from_slice(&d.0);
                        m[6..].copy_from_slice(&s.0);
                        Some(m)
                    }
                    _ => None,
                },
            }),
            _ => None,
        }
    }
}

/// Applies a hop: what [`apply`] does with the same action.
#[inline(always)]
pub fn apply_hop(hop: &Hop, pkt: &mut Packet, info: &PacketInfo) -> Verdict {
    if let Some(t) = &hop.tunnel {
        return apply_tunnel_hop(hop, t, pkt, info);
    }
    let routed = info.is_ipv4().then(|| (info.l3_end, routed_header(info)));
    apply_hop_at(hop, pkt, routed)
}

/// [`apply_hop`] for a frame `prism_wire::plain_ipv4` read: its IPv4
/// header at byte 14, its IPv4 packet ending at `l3_end`.
#[inline(always)]
pub fn apply_hop_plain(hop: &Hop, pkt: &mut Packet, l3_end: u16) -> Verdict {
    if hop.tunnel.is_some() {
        // An untagged frame: the tag to pop is not there.
        let info = match prism_wire::parse_frame(pkt.data(), pkt.port) {
            Ok(info) => info,
            Err(_) => return Verdict::Drop(ActionDrop::NotIpv4),
        };
        return apply_hop(hop, pkt, &info);
    }
    pkt.truncate(usize::from(l3_end));
    // Its Ethernet and IPv4 headers as one 34-byte view, read once: one
    // bounds check, constant offsets after it. `apply_hop_at` with the
    // header at 14 does the same with a check per write (tried: 31.5
    // cycles a 64-byte packet against 29.8).
    let Some(f) = pkt.data_mut().first_chunk_mut::<34>() else {
        return Verdict::Drop(ActionDrop::NotIpv4); // not a plain frame
    };
    if hop.decrement_ttl
        && let Some(ip) = f[14..].first_chunk_mut::<12>()
        && let Err(r) = ttl_step(ip)
    {
        return Verdict::Drop(r);
    }
    match &hop.macs {
        Some(both) => f[..12].copy_from_slice(both),
        None => rewrite_macs(pkt, hop.set_dst_mac, hop.set_src_mac),
    }
    Verdict::Output(hop.port)
}

/// A hop on a frame whose routed IPv4 header starts at `routed.1` and whose
/// IPv4 packet ends at `routed.0` (`None`: not IPv4).
#[inline(always)]
fn apply_hop_at(hop: &Hop, pkt: &mut Packet, routed: Option<(u16, usize)>) -> Verdict {
    if let Some((l3_end, _)) = routed {
        pkt.truncate(usize::from(l3_end));
    }
    if hop.decrement_ttl {
        let Some((_, header)) = routed else {
            return Verdict::Drop(ActionDrop::NotIpv4);
        };
        if let Err(r) = decrement_ttl(pkt, header) {
            return Verdict::Drop(r);
        }
    }
    match (&hop.macs, pkt.data_mut().first_chunk_mut::<12>()) {
        (Some(both), Some(macs)) => *macs = *both,
        _ => rewrite_macs(pkt, hop.set_dst_mac, hop.set_src_mac),
    }
    Verdict::Output(hop.port)
}

/// A hop into a tunnel (see [`Hop::tunnel`]), in [`apply`]'s order: TTL,
/// then the outer header on and the first tag off, in one move of 16
/// bytes into the headroom and one write of the new headers.
#[inline]
fn apply_tunnel_hop(hop: &Hop, t: &TunnelHop, pkt: &mut Packet, info: &PacketInfo) -> Verdict {
    if !info.is_ipv4() {
        return Verdict::Drop(ActionDrop::NotIpv4);
    }
    pkt.truncate(usize::from(info.l3_end));
    if hop.decrement_ttl
        && let Err(r) = decrement_ttl(pkt, routed_header(info))
    {
        return Verdict::Drop(r);
    }
    let tags = usize::from(info.vlan_tags);
    if tags == 0 {
        return Verdict::Drop(ActionDrop::NotTagged);
    }
    let l3 = usize::from(info.l3_offset);
    let d = pkt.data();
    let (tos, len, df) = (
        d[l3 + 1],
        u16::from_be_bytes([d[l3 + 2], d[l3 + 3]]),
        d[l3 + 6] & 0x40,
    );
    // The tags after the first stay (at most one: the parser reads two).
    let keep = (tags - 1) * vlan::TAG_LEN;
    let mut kept = [0u8; vlan::TAG_LEN];
    kept[..keep].copy_from_slice(&d[12 + vlan::TAG_LEN..12 + vlan::TAG_LEN + keep]);
    let grow = IPV4_HEADER - vlan::TAG_LEN;
    if !pkt.insert_gap(0, grow) {
        return Verdict::Drop(ActionDrop::NoHeadroom);
    }
    let d = pkt.data_mut();
    match hop.macs {
        Some(both) => d[..12].copy_from_slice(&both),
        None => {
            d.copy_within(grow..grow + 12, 0);
            if let Some(m) = hop.set_dst_mac {
                d[..6].copy_from_slice(&m.0);
            }
            if let Some(m) = hop.set_src_mac {
                d[6..12].copy_from_slice(&m.0);
            }
        }
    }
    d[12..12 + keep].copy_from_slice(&kept[..keep]);
    let o = 14 + keep;
    d[o - 2..o].copy_from_slice(&ethertype::IPV4.to_be_bytes());
    d[o..o + IPV4_HEADER].copy_from_slice(&t.header(tos, len, df));
    Verdict::Output(hop.port)
}

/// Sets the EtherType that precedes the L3 header at `l3`.
fn set_ethertype(pkt: &mut Packet, l3: usize, t: u16) {
    pkt.data_mut()[l3 - 2..l3].copy_from_slice(&t.to_be_bytes());
}
