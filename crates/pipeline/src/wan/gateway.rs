//! The gateway service's translations (paper 002 §5.1, Fig. 7): outgoing
//! NAT and public addresses, in the hardware tier's pipeline.
//!
//! Going out — in: a frame of a network with a gateway entry (`nat` or a
//! public address, [`crate::control::spec::TunnelSpec`]) leaving by a WAN port as
//! plain IPv4 (untagged, not IPIP: a span's tunnels and a bridge's frames
//! pass untouched), from either tier: a hardware network's action or a
//! software network's router put it there. Out: its source rewritten to
//! the network's public address for that host (1:1, stateless), or else
//! to the node's WAN address and its flow's external port
//! ([`crate::wan::nat`]); checksums updated (RFC 1624); or a `nat/...` drop.
//!
//! Coming back — in: an IPv4 packet on a WAN port that is not a tunnel, its
//! WAN tags still on. Out: its destination rewritten to the internal host
//! (and for an ICMP error, the packet it quotes: RFC 5508 §4.2), with the
//! network and the VLAN to tag it with; or a drop: `wan/not-leased` for an
//! address that is neither the node's nor leased, `nat/no-flow` for the
//! node's address in no flow.
//!
//! Config: the WAN side's table ([`crate::wan::tunnels::WanTable`]: the node's WAN
//! address, each network's public addresses and NAT VLAN) and the
//! pipeline's flow table. What is not translated: ICMP errors sent out by
//! a NATed host (about a packet that came in through NAT) are dropped as
//! `nat/protocol`; fragments after the first as `nat/fragment`.

use crate::fast::dataplane::Dataplane;
use crate::fast::packet::Packet;
use crate::fast::reasons::{DropReason, NatDrop, WanDrop};
use crate::wan::nat::{Inbound, NatConfig, NatTable, Outbound};
use crate::wan::tunnels::WanTable;
use prism_wire::checksum::{checksum, update16, update32};
use prism_wire::{PacketInfo, ethertype, protocol, vlan};
use std::sync::Arc;

const TCP_FIN_RST: u8 = 0x01 | 0x04;
const ICMP_ECHO_REPLY: u8 = 0;
const ICMP_ECHO_REQUEST: u8 = 8;

fn be16(d: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([d[at], d[at + 1]])
}

fn be32(d: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([d[at], d[at + 1], d[at + 2], d[at + 3]])
}

fn put16(d: &mut [u8], at: usize, v: u16) {
    d[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

fn put32(d: &mut [u8], at: usize, v: u32) {
    d[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

/// Whether an ICMP type is an error quoting the packet that caused it.
fn is_icmp_error(t: u8) -> bool {
    matches!(t, 3 | 4 | 5 | 11 | 12)
}

/// An IPv4 packet's layout in a frame.
#[derive(Clone, Copy)]
struct Ip {
    l3: usize,
    l4: usize,
    end: usize,
    proto: u8,
    /// A fragment after the first.
    later_fragment: bool,
}

impl Ip {
    /// The IPv4 packet at `l3` (validated by the parser for what arrives;
    /// checked here again for what an action reshaped).
    fn at(d: &[u8], l3: usize) -> Option<Ip> {
        if d.len() < l3 + 20 {
            return None;
        }
        let ihl = usize::from(d[l3] & 0x0f) * 4;
        let end = (l3 + usize::from(be16(d, l3 + 2))).min(d.len());
        (ihl >= 20 && l3 + ihl <= end).then(|| Ip {
            l3,
            l4: l3 + ihl,
            end,
            proto: d[l3 + 9],
            later_fragment: be16(d, l3 + 6) & 0x1fff != 0,
        })
    }

    /// Where the transport checksum is, if it covers the addresses and
    /// is in use (a UDP checksum of 0 is none).
    fn pseudo_checksum(&self, d: &[u8]) -> Option<usize> {
        let at = match self.proto {
            protocol::TCP => self.l4 + 16,
            protocol::UDP => self.l4 + 6,
            _ => return None,
        };
        (at + 2 <= self.end && !(self.proto == protocol::UDP && be16(d, at) == 0)).then_some(at)
    }

    /// Rewrites the address at `field` (12 source, 16 destination) and the
    /// port at `port` (an offset from L4, if any), checksums updated.
    fn rewrite(&self, d: &mut [u8], field: usize, ip: u32, port: Option<(usize, u16)>) {
        // Read once, before any update: a UDP checksum of 0 is "none".
        let pseudo = self.pseudo_checksum(d);
        let l4sum = match self.proto {
            protocol::ICMP => Some(self.l4 + 2),
            _ => pseudo,
        };
        let old = be32(d, self.l3 + field);
        put32(d, self.l3 + field, ip);
        put16(d, self.l3 + 10, update32(be16(d, self.l3 + 10), old, ip));
        if let Some(c) = pseudo {
            put16(d, c, update32(be16(d, c), old, ip));
        }
        if let Some((off, new)) = port {
            let at = self.l4 + off;
            let old = be16(d, at);
            put16(d, at, new);
            if let Some(c) = l4sum {
                put16(d, c, update16(be16(d, c), old, new));
            }
        }
        if self.proto == protocol::UDP
            && let Some(c) = pseudo
            && be16(d, c) == 0
        {
            put16(d, c, 0xffff); // RFC 768: a computed 0 is sent as all ones
        }
    }

    /// Bytes of transport header a translation reads.
    fn has_l4(&self, n: usize) -> bool {
        self.l4 + n <= self.end
    }
}

/// The first IPv4 header after the Ethernet header and its tags.
fn l3_of(d: &[u8]) -> Option<usize> {
    let mut at = 12;
    if d.len() < at + 2 {
        return None;
    }
    while matches!(be16(d, at), ethertype::VLAN | ethertype::QINQ) {
        at += vlan::TAG_LEN;
        if at + 2 > d.len() {
            return None;
        }
    }
    (be16(d, at) == ethertype::IPV4).then_some(at + 2)
}

/// Rewrites an ICMP error's quoted packet: its `field` address (12 source,
/// 16 destination) to `ip` and the matching port or echo identifier to
/// `port`, then the ICMP checksum over the whole message.
fn rewrite_quoted(d: &mut [u8], outer: &Ip, field: usize, ip: u32, port: Option<u16>) {
    if let Some(q) = Ip::at(&d[..outer.end], outer.l4 + 8) {
        let port_at = match (q.proto, field) {
            (protocol::ICMP, _) => 4,
            (_, 12) => 0,
            _ => 2,
        };
        // The quote is cut short: its transport checksum may lie beyond
        // the end, and then only what is there is rewritten.
        let port = port.filter(|_| q.has_l4(port_at + 2)).map(|p| (port_at, p));
        q.rewrite(d, field, ip, port);
    }
    put16(d, outer.l4 + 2, 0);
    let sum = checksum(&d[outer.l4..outer.end]);
    put16(d, outer.l4 + 2, sum);
}

/// The gateway's state in a pipeline: its flow table, made when a data
/// plane first has a gateway and a WAN address.
#[derive(Debug)]
pub(crate) struct GatewayState {
    cfg: NatConfig,
    nat: Option<NatTable>,
    /// Some network has a gateway entry: frames to a WAN port are looked at.
    on: bool,
}

/// Slots of the flow table the sweep looks at per batch.
const SWEEP_PER_BATCH: usize = 64;

impl GatewayState {
    pub(crate) fn new(cfg: NatConfig) -> Self {
        Self {
            cfg,
            nat: None,
            on: false,
        }
    }

    /// A new data plane: the table made if now needed; the flows of a
    /// network that is gone, renamed or without NAT ended.
    pub(crate) fn adopt(&mut self, old: &Dataplane, new: &Dataplane) {
        self.on = new.wan.gateway() || new.wan.any_public_mac();
        if new.wan.gateway() && new.wan.address().is_some() && self.nat.is_none() {
            self.nat = Some(NatTable::new(self.cfg));
        }
        let Some(nat) = self.nat.as_mut() else {
            return;
        };
        // While the WAN side is the same, no network's NAT changed (a
        // change to one builds the WAN side again): nothing to forget.
        if Arc::ptr_eq(&old.wan, &new.wan) {
            return;
        }
        for id in 0..old.len() as u16 {
            let Some(was) = old.network(id) else {
                continue;
            };
            let kept = new.network(id).is_some_and(|n| n.name == was.name);
            if !(kept && new.wan.nat_vlan(id).is_some()) {
                nat.forget(id);
            }
        }
    }

    pub(crate) fn nat(&mut self) -> Option<&mut NatTable> {
        self.nat.as_mut()
    }

    pub(crate) fn stats(&self) -> Option<crate::wan::nat::NatStats> {
        self.nat.as_ref().map(NatTable::stats)
    }

    /// A frame of network `net` about to be queued on its port: translated
    /// when it leaves through the gateway (see the module text).
    ///
    /// The test whether the frame leaves by a WAN port at all is inlined
    /// into the caller, the rest is not: a call taking the packet by
    /// reference for every frame had its fields stored to the stack and
    /// read back wider than written (a store-forwarding stall, ~20 cycles
    /// a frame in `prism bench --only scale/`, same instruction count).
    #[inline(always)]
    pub(crate) fn out(
        &mut self,
        wan: &WanTable,
        net: u16,
        pkt: &mut Packet,
        now_ns: u64,
    ) -> Result<(), DropReason> {
        if !self.on || !wan.is_wan(pkt.port) {
            return Ok(());
        }
        self.out_by_wan(wan, net, pkt, now_ns)
    }

    #[inline(never)]
    fn out_by_wan(
        &mut self,
        wan: &WanTable,
        net: u16,
        pkt: &mut Packet,
        now_ns: u64,
    ) -> Result<(), DropReason> {
        if wan.has_public_macs(net) {
            return crate::wan::public_mac::outbound(pkt, |m| wan.public_mac_of(net, m));
        }
        if !wan.has_gateway(net) {
            return Ok(());
        }
        let d = pkt.data();
        let plain_ipv4 = d.len() >= 34 && be16(d, 12) == ethertype::IPV4 && d[23] != protocol::IPIP;
        if !plain_ipv4 {
            return Ok(());
        }
        outbound(self.nat.as_mut(), wan, net, pkt, seconds(now_ns))
    }

    /// Once a batch: a few slots of the flow table looked at for flows
    /// past their time.
    pub(crate) fn tick(&mut self, now_ns: u64) {
        if let Some(nat) = self.nat.as_mut() {
            nat.sweep(seconds(now_ns), SWEEP_PER_BATCH);
        }
    }
}

/// The flow table's clock: seconds of the caller's.
pub(crate) fn seconds(now_ns: u64) -> u32 {
    (now_ns / 1_000_000_000) as u32
}

/// Translates a packet of network `net` going out through the gateway
/// (see the module text).
fn outbound(
    nat: Option<&mut NatTable>,
    wan: &WanTable,
    net: u16,
    pkt: &mut Packet,
    now_s: u32,
) -> Result<(), DropReason> {
    let d = pkt.data_mut();
    let ip = l3_of(d)
        .and_then(|l3| Ip::at(d, l3))
        .ok_or(DropReason::Nat(NatDrop::Protocol))?;
    let src = be32(d, ip.l3 + 12);
    if let Some(public) = wan.public_of(net, src) {
        let icmp_error = ip.proto == protocol::ICMP && ip.has_l4(8) && is_icmp_error(d[ip.l4]);
        ip.rewrite(d, 12, public, None);
        if icmp_error {
            rewrite_quoted(d, &ip, 16, public, None);
        }
        return Ok(());
    }
    let no_address = DropReason::Nat(NatDrop::NoAddress);
    let ext_ip = wan.address().ok_or(no_address)?;
    let nat = nat
        .filter(|_| wan.nat_vlan(net).is_some())
        .ok_or(no_address)?;
    if ip.later_fragment {
        return Err(DropReason::Nat(NatDrop::Fragment));
    }
    let (port_at, closing) = match ip.proto {
        protocol::TCP if ip.has_l4(20) => (0, d[ip.l4 + 13] & TCP_FIN_RST != 0),
        protocol::UDP if ip.has_l4(8) => (0, false),
        protocol::ICMP if ip.has_l4(8) && d[ip.l4] == ICMP_ECHO_REQUEST => (4, false),
        _ => return Err(DropReason::Nat(NatDrop::Protocol)),
    };
    let k = Outbound {
        net,
        proto: ip.proto,
        int_ip: src,
        int_port: be16(d, ip.l4 + port_at),
        rem_ip: be32(d, ip.l3 + 16),
        rem_port: if port_at == 0 { be16(d, ip.l4 + 2) } else { 0 },
    };
    let ext_port = nat.outbound(k, now_s).map_err(DropReason::Nat)?;
    if closing {
        nat.closing(k);
    }
    ip.rewrite(d, 12, ext_ip, Some((port_at, ext_port)));
    Ok(())
}

/// Translates an IPv4 packet (not IPIP) that arrived on a WAN port, at
/// `info`'s offsets: `(network, VLAN to tag it with)` (see the module
/// text). The frame's WAN tags are left for the caller.
pub(crate) fn inbound(
    nat: Option<&mut NatTable>,
    wan: &WanTable,
    pkt: &mut Packet,
    info: &PacketInfo,
    now_s: u32,
) -> Result<(u16, u16), DropReason> {
    let d = pkt.data_mut();
    let ip = Ip::at(d, usize::from(info.l3_offset)).ok_or(DropReason::Nat(NatDrop::Protocol))?;
    let dst = be32(d, ip.l3 + 16);
    let icmp_error = ip.proto == protocol::ICMP && ip.has_l4(8) && is_icmp_error(d[ip.l4]);
    if let Some((net, internal, vid)) = wan.public(dst) {
        ip.rewrite(d, 16, internal, None);
        if icmp_error {
            rewrite_quoted(d, &ip, 12, internal, None);
        }
        return Ok((net, vid));
    }
    if wan.address() != Some(dst) {
        return Err(DropReason::Wan(WanDrop::NotLeased));
    }
    let nat = nat.ok_or(DropReason::Nat(NatDrop::NoFlow))?;
    if ip.later_fragment {
        return Err(DropReason::Nat(NatDrop::Fragment));
    }
    let src = be32(d, ip.l3 + 12);
    let no_flow = DropReason::Nat(NatDrop::NoFlow);
    let flow = if icmp_error {
        let q = Ip::at(&d[..ip.end], ip.l4 + 8).ok_or(no_flow)?;
        let k = quoted_key(d, &q).ok_or(DropReason::Nat(NatDrop::Protocol))?;
        let f = nat.peek(&k, now_s).ok_or(no_flow)?;
        ip.rewrite(d, 16, f.int_ip, None);
        rewrite_quoted(d, &ip, 12, f.int_ip, Some(f.int_port));
        f
    } else {
        let (port_at, closing) = match ip.proto {
            protocol::TCP if ip.has_l4(20) => (2, d[ip.l4 + 13] & TCP_FIN_RST != 0),
            protocol::UDP if ip.has_l4(8) => (2, false),
            protocol::ICMP if ip.has_l4(8) && d[ip.l4] == ICMP_ECHO_REPLY => (4, false),
            _ => return Err(DropReason::Nat(NatDrop::Protocol)),
        };
        let k = Inbound {
            proto: ip.proto,
            rem_ip: src,
            rem_port: if port_at == 2 { be16(d, ip.l4) } else { 0 },
            ext_port: be16(d, ip.l4 + port_at),
        };
        let f = nat.inbound(&k, closing, now_s).ok_or(no_flow)?;
        ip.rewrite(d, 16, f.int_ip, Some((port_at, f.int_port)));
        f
    };
    let vid = wan.nat_vlan(flow.net).ok_or(no_flow)?;
    Ok((flow.net, vid))
}

/// Answers an ARP request on the WAN side for the node's WAN address or a
/// leased public address, in place: `Some(network)` (the one the answer
/// is counted to, [`WanTable::arp_owner`]) with `pkt` now the reply, to
/// leave by the port it came in on; `None` for any other ARP (dropped as
/// `wan/unexpected`).
pub(crate) fn answer_arp(wan: &WanTable, pkt: &mut Packet, info: &PacketInfo) -> Option<u16> {
    use prism_wire::arp::{ArpPacket, ArpRepr, PACKET_LEN};
    let l3 = usize::from(info.l3_offset);
    let d = pkt.data_mut();
    let req = ArpRepr::parse(&ArpPacket::new_checked(d.get(l3..)?).ok()?).ok()?;
    if req.operation != ArpRepr::REQUEST {
        return None;
    }
    let net = wan.arp_owner(u32::from_be_bytes(req.target_protocol_addr.0))?;
    let mac = prism_wire::EthernetAddress(wan.mac());
    let reply = ArpRepr {
        operation: ArpRepr::REPLY,
        sender_hardware_addr: mac,
        sender_protocol_addr: req.target_protocol_addr,
        target_hardware_addr: req.sender_hardware_addr,
        target_protocol_addr: req.sender_protocol_addr,
    };
    reply.emit(&mut d[l3..l3 + PACKET_LEN]).ok()?;
    d[0..6].copy_from_slice(&req.sender_hardware_addr.0);
    d[6..12].copy_from_slice(&mac.0);
    Some(net)
}

/// The flow an ICMP error's quoted packet (one that went out through NAT:
/// from the external address and port, to the remote end) belongs to.
fn quoted_key(d: &[u8], q: &Ip) -> Option<Inbound> {
    match q.proto {
        protocol::TCP | protocol::UDP if q.has_l4(4) => Some(Inbound {
            proto: q.proto,
            rem_ip: be32(d, q.l3 + 16),
            rem_port: be16(d, q.l4 + 2),
            ext_port: be16(d, q.l4),
        }),
        protocol::ICMP if q.has_l4(8) && d[q.l4] == ICMP_ECHO_REQUEST => Some(Inbound {
            proto: q.proto,
            rem_ip: be32(d, q.l3 + 16),
            rem_port: 0,
            ext_port: be16(d, q.l4 + 4),
        }),
        _ => None,
    }
}
