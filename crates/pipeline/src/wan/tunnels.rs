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
//! (its C-tag, any EtherType). The C-tag must be the network's own VLAN
//! when the tunnel names it (the controller's parts always do): one
//! S-tag on the wide area reaches one network's VLAN, not every VLAN on
//! the node's side ports.
//!
//! Config: every network's tunnels, `(outer source, outer destination) →
//! (network, VLAN)` and `S-tag → network`, exact match, one per key across the node
//! ([`crate::Substrate`] refuses a second claim). The controller gives each
//! part of a network spanning nodes its own tunnel source address, so two
//! experiments between the same two nodes on the same inner addresses stay
//! apart.

use crate::fast::packet::Packet;
use crate::fast::reasons::{DropReason, WanDrop};
use prism_wire::{PacketInfo, ethertype, protocol, vlan};

/// A way into a network from the wide area ([`WanTable`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TunnelSpec {
    /// IPIP from `src` to `dst` arriving on a WAN port is this network's,
    /// decapsulated and tagged with `vlan` (if any): a part of a network
    /// spanning nodes over IP.
    Ipip {
        src: prism_wire::Ipv4Address,
        dst: prism_wire::Ipv4Address,
        vlan: Option<u16>,
    },
    /// An 802.1ad frame whose S-tag is `s_tag` arriving on a WAN port is
    /// this network's, the S-tag popped: a bridged network over a
    /// wide-area Ethernet. With `c_tag`, only a frame whose one C-tag is
    /// `c_tag` is (the network's own VLAN: anything else under the S-tag
    /// is dropped, `wan/wrong-c-tag`), so an S-tag reaches its network's
    /// VLAN alone.
    QinQ { s_tag: u16, c_tag: Option<u16> },
    /// IPv4 to the public address `public` arriving on a WAN port is this
    /// network's, its destination rewritten to `internal` and tagged with
    /// `vlan`; what `internal` sends out through NAT leaves from `public`
    /// (the gateway service's public address, [`crate::wan::gateway`]).
    Public {
        public: prism_wire::Ipv4Address,
        internal: prism_wire::Ipv4Address,
        vlan: Option<u16>,
    },
    /// What comes back in this network's NAT flows is tagged with `vlan`.
    Nat { vlan: Option<u16> },
    /// An untagged frame to MAC `public` arriving on a WAN port is this
    /// network's, its destination rewritten to `internal` and tagged with
    /// `vlan`; what `internal` sends out of a WAN port untagged leaves from
    /// `public` ([`crate::wan::public_mac`]).
    PublicMac {
        public: prism_wire::EthernetAddress,
        internal: prism_wire::EthernetAddress,
        vlan: Option<u16>,
    },
}

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
        (TunnelSpec::QinQ { s_tag, .. }, TunnelSpec::QinQ { s_tag: t, .. }) => s_tag == t,
        (TunnelSpec::Public { public, .. }, TunnelSpec::Public { public: p, .. }) => public == p,
        (TunnelSpec::PublicMac { public, .. }, TunnelSpec::PublicMac { public: p, .. }) => {
            public == p
        }
        _ => false,
    }
}

/// A host of a network: (network id, MAC).
type NetMac = (u16, [u8; 6]);

/// The WAN side's table, part of the published data plane.
#[derive(Debug, Clone, Default)]
pub struct WanTable {
    /// Per port: is it a WAN port.
    wan_port: Vec<bool>,
    /// Whether any port is: read once a batch.
    any: bool,
    /// IPIP tunnels, sorted by key: (key, network id, VLAN to push or 0).
    tunnels: Vec<(u64, u16, u16)>,
    /// S-tags, sorted: (S-tag, network id, the C-tag its frames must
    /// carry or 0 for any).
    s_tags: Vec<(u16, u16, u16)>,
    /// The node's WAN address (NAT's external address), 0 when none, and
    /// the WAN port's MAC (what the gateway answers ARP with).
    address: u32,
    mac: [u8; 6],
    /// Public addresses, sorted: (public, network id, internal, VLAN or 0).
    publics: Vec<(u32, u16, u32, u16)>,
    /// The same by (network id, internal): the public address.
    public_of: Vec<((u16, u32), u32)>,
    /// Networks whose NAT flows come back, sorted: (network id, VLAN or 0).
    nat: Vec<(u16, u16)>,
    /// Public MACs, sorted: (public, network id, internal, VLAN or 0).
    public_macs: Vec<([u8; 6], u16, [u8; 6], u16)>,
    /// The same by (network id, internal): the public MAC.
    public_mac_of: Vec<(NetMac, [u8; 6])>,
}

/// `v` sorted by `key`, the first of each key kept: the tables are
/// binary-searched by it.
fn by_first<T, K: Ord + Copy>(mut v: Vec<T>, key: impl Fn(&T) -> K) -> Vec<T> {
    v.sort_by_key(|t| key(t));
    v.dedup_by_key(|t| key(t));
    v
}

impl WanTable {
    /// `wan_ports`: the ports that face the wide area; `tunnels`: each
    /// network's ways in, with its id. A key given twice keeps its first
    /// network (the substrate refuses that before).
    pub fn new(
        ports: u16,
        wan_ports: &[u16],
        address: Option<(prism_wire::Ipv4Address, prism_wire::EthernetAddress)>,
        tunnels: impl IntoIterator<Item = (TunnelSpec, u16)>,
    ) -> Self {
        let wan_port: Vec<bool> = (0..ports).map(|p| wan_ports.contains(&p)).collect();
        let (mut ipip, mut s_tags) = (Vec::new(), Vec::new());
        let (mut publics, mut nat, mut macs) = (Vec::new(), Vec::new(), Vec::new());
        for (t, net) in tunnels {
            match t {
                TunnelSpec::Ipip { src, dst, vlan } => ipip.push((
                    key(u32::from_be_bytes(src.0), u32::from_be_bytes(dst.0)),
                    net,
                    vlan.unwrap_or(0),
                )),
                TunnelSpec::QinQ { s_tag, c_tag } => {
                    s_tags.push((s_tag & 0x0fff, net, c_tag.unwrap_or(0) & 0x0fff))
                }
                TunnelSpec::Public {
                    public,
                    internal,
                    vlan,
                } => publics.push((
                    u32::from_be_bytes(public.0),
                    net,
                    u32::from_be_bytes(internal.0),
                    vlan.unwrap_or(0),
                )),
                TunnelSpec::Nat { vlan } => nat.push((net, vlan.unwrap_or(0))),
                TunnelSpec::PublicMac {
                    public,
                    internal,
                    vlan,
                } => macs.push((public.0, net, internal.0, vlan.unwrap_or(0))),
            }
        }
        let macs = by_first(macs, |m| m.0);
        let public_mac_of = by_first(macs.iter().map(|m| ((m.1, m.2), m.0)).collect(), |m| m.0);
        let publics = by_first(publics, |p| p.0);
        let public_of = by_first(publics.iter().map(|p| ((p.1, p.2), p.0)).collect(), |p| p.0);
        Self {
            any: wan_port.contains(&true),
            wan_port,
            tunnels: by_first(ipip, |t| t.0),
            s_tags: by_first(s_tags, |t| t.0),
            address: address.map_or(0, |a| u32::from_be_bytes(a.0.0)),
            mac: address.map_or([0; 6], |a| a.1.0),
            publics,
            public_of,
            nat: by_first(nat, |n| n.0),
            public_macs: macs,
            public_mac_of,
        }
    }

    /// Public MAC `mac`: (network, internal MAC, VLAN or 0).
    pub fn public_mac(&self, mac: [u8; 6]) -> Option<(u16, [u8; 6], u16)> {
        let i = self.public_macs.binary_search_by_key(&mac, |m| m.0).ok()?;
        let m = self.public_macs[i];
        Some((m.1, m.2, m.3))
    }

    /// The public MAC of network `net`'s host `internal`.
    pub fn public_mac_of(&self, net: u16, internal: [u8; 6]) -> Option<[u8; 6]> {
        let i = self
            .public_mac_of
            .binary_search_by_key(&(net, internal), |m| m.0)
            .ok()?;
        Some(self.public_mac_of[i].1)
    }

    /// Whether network `net` holds public MACs.
    pub fn has_public_macs(&self, net: u16) -> bool {
        let i = self.public_mac_of.partition_point(|m| m.0.0 < net);
        self.public_mac_of.get(i).is_some_and(|m| m.0.0 == net)
    }

    /// Whether any network holds a public MAC.
    pub fn any_public_mac(&self) -> bool {
        !self.public_macs.is_empty()
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

    /// The network of S-tag `vid`, and the C-tag its frames must carry
    /// (0: any).
    pub fn s_tag(&self, vid: u16) -> Option<(u16, u16)> {
        self.s_tags
            .binary_search_by_key(&vid, |t| t.0)
            .ok()
            .map(|i| (self.s_tags[i].1, self.s_tags[i].2))
    }

    pub fn tunnels(&self) -> usize {
        self.tunnels.len() + self.s_tags.len() + self.publics.len() + self.public_macs.len()
    }

    /// The node's WAN address, NAT's external address.
    pub fn address(&self) -> Option<u32> {
        (self.address != 0).then_some(self.address)
    }

    /// The WAN port's MAC.
    pub fn mac(&self) -> [u8; 6] {
        self.mac
    }

    /// The network ARP for `addr` on the WAN side is answered for: the
    /// network holding public address `addr`, or for the node's WAN
    /// address, the first network with NAT; none when no one uses it.
    pub fn arp_owner(&self, addr: u32) -> Option<u16> {
        match self.public(addr) {
            Some((net, ..)) => Some(net),
            None if self.address() == Some(addr) => self.nat.first().map(|n| n.0),
            None => None,
        }
    }

    /// Public address `addr`: (network, internal address, VLAN or 0).
    pub fn public(&self, addr: u32) -> Option<(u16, u32, u16)> {
        let i = self.publics.binary_search_by_key(&addr, |p| p.0).ok()?;
        let p = self.publics[i];
        Some((p.1, p.2, p.3))
    }

    /// The public address of network `net`'s host `internal`.
    pub fn public_of(&self, net: u16, internal: u32) -> Option<u32> {
        let i = self
            .public_of
            .binary_search_by_key(&(net, internal), |p| p.0)
            .ok()?;
        Some(self.public_of[i].1)
    }

    /// The VLAN (0: none) network `net`'s NAT flows come back with, if it
    /// has NAT.
    pub fn nat_vlan(&self, net: u16) -> Option<u16> {
        let i = self.nat.binary_search_by_key(&net, |n| n.0).ok()?;
        Some(self.nat[i].1)
    }

    /// Whether network `net` goes out through the gateway (NAT or a
    /// public address).
    pub fn has_gateway(&self, net: u16) -> bool {
        let i = self.public_of.partition_point(|p| p.0.0 < net);
        self.nat_vlan(net).is_some() || self.public_of.get(i).is_some_and(|p| p.0.0 == net)
    }

    /// Whether any network goes out through NAT or a public address.
    pub fn gateway(&self) -> bool {
        !self.nat.is_empty() || !self.publics.is_empty()
    }
}

/// Terminates a frame that arrived on a WAN port (see the module text):
/// `Ok(Some(network))` with `pkt` rewritten and `info` parsed again, or the
/// drop; `Ok(None)` for IPv4 that is not IPIP (its link padding cut) and
/// for ARP: the gateway's ([`crate::wan::gateway`]).
pub(crate) fn terminate(
    t: &WanTable,
    pkt: &mut Packet,
    info: &mut PacketInfo,
) -> Result<Option<u16>, DropReason> {
    let outer_tpid = pkt
        .data()
        .get(12..14)
        .map_or(0, |b| u16::from_be_bytes([b[0], b[1]]));
    if outer_tpid == ethertype::QINQ {
        return pop_s_tag(t, pkt, info).map(Some);
    }
    if info.vlan_tags == 0
        && let Some((net, internal, vid)) = pkt
            .data()
            .first_chunk::<6>()
            .and_then(|dst| t.public_mac(*dst))
    {
        crate::wan::public_mac::inbound(pkt, info, (internal, vid))?;
        return Ok(Some(net));
    }
    if info.key.ethertype == ethertype::ARP {
        return Ok(None);
    }
    if !info.is_ipv4() {
        return Err(DropReason::Wan(WanDrop::Unexpected));
    }
    pkt.truncate(usize::from(info.l3_end));
    if !info.is_ipip() {
        return Ok(None);
    }
    let Some((net, vid)) = t.tunnel(info.key.src_ip, info.key.dst_ip) else {
        return Err(DropReason::Wan(WanDrop::UnknownTunnel));
    };
    if !decap_and_tag(pkt, info, vid) {
        let l3 = usize::from(info.l3_offset);
        retag(pkt, info, usize::from(info.inner_l3_offset) - l3, vid)?;
    }
    Ok(Some(net))
}

/// Removes `outer` bytes of outer header after the Ethernet header's tags,
/// then the WAN's own tags, and tags the frame with `vid` (0: none): it
/// becomes Ethernet + IPv4 as the network's side would carry it.
pub(crate) fn retag(
    pkt: &mut Packet,
    info: &mut PacketInfo,
    outer: usize,
    vid: u16,
) -> Result<(), DropReason> {
    let l3 = usize::from(info.l3_offset);
    if outer > 0 {
        pkt.remove_gap(l3, outer);
    }
    let tags = usize::from(info.vlan_tags) * vlan::TAG_LEN;
    if tags > 0 {
        pkt.remove_gap(12, tags);
    }
    let d = pkt.data_mut();
    d[12..14].copy_from_slice(&ethertype::IPV4.to_be_bytes());
    if vid != 0 && !pkt.push_c_tag(vid) {
        return Err(DropReason::Action(
            crate::fast::reasons::ActionDrop::NoHeadroom,
        ));
    }
    pkt.charge_as_is();
    prism_wire::parse_frame_into(pkt.data(), pkt.port, info).map_err(DropReason::Parse)
}

/// The common shape of [`retag`] made cheap: IPIP that came untagged
/// with a 20-byte outer header, tagged `vid` on the way in. The outer
/// header's 20 bytes go and the tag's 4 come in one move of the MACs, and
/// the headers are read again from what the parser read (it checked the
/// inner header already). False, nothing done, for any other shape.
#[inline]
fn decap_and_tag(pkt: &mut Packet, info: &mut PacketInfo, vid: u16) -> bool {
    let (l3, inner) = (
        usize::from(info.l3_offset),
        usize::from(info.inner_l3_offset),
    );
    let d = pkt.data();
    if info.vlan_tags != 0 || vid == 0 || inner != l3 + 20 || d[inner + 9] == protocol::IPIP {
        return false;
    }
    let (proto, len) = (
        d[inner + 9],
        u16::from_be_bytes([d[inner + 2], d[inner + 3]]),
    );
    let macs: [u8; 12] = d[..12].try_into().unwrap_or([0; 12]);
    let shrink = 20 - vlan::TAG_LEN;
    if !pkt.remove_gap(0, shrink) {
        return false;
    }
    let d = pkt.data_mut();
    d[..12].copy_from_slice(&macs);
    d[12..14].copy_from_slice(&ethertype::VLAN.to_be_bytes());
    d[14..16].copy_from_slice(&(vid & 0x0fff).to_be_bytes());
    d[16..18].copy_from_slice(&ethertype::IPV4.to_be_bytes());
    let k = &mut info.key;
    (k.vlan, k.proto) = (prism_wire::VLAN_PRESENT | (vid & 0x0fff), proto);
    (k.src_ip, k.dst_ip) = (k.inner_src_ip, k.inner_dst_ip);
    (k.inner_src_ip, k.inner_dst_ip) = (0, 0);
    (info.vlan_tags, info.l3_offset, info.inner_l3_offset) = (1, 18, 0);
    info.l3_end = 18 + len;
    pkt.charge_as_is();
    debug_assert_eq!(Ok(*info), prism_wire::parse_frame(pkt.data(), pkt.port));
    true
}

/// A bridged network's frame: its S-tag popped, the frame left as the
/// network's side carries it (its own C-tag and any EtherType).
fn pop_s_tag(t: &WanTable, pkt: &mut Packet, info: &mut PacketInfo) -> Result<u16, DropReason> {
    let vid = pkt
        .data()
        .get(14..16)
        .map_or(0, |b| u16::from_be_bytes([b[0], b[1]]) & 0x0fff);
    let Some((net, c_tag)) = t.s_tag(vid) else {
        return Err(DropReason::Wan(WanDrop::UnknownSTag));
    };
    pkt.remove_gap(12, vlan::TAG_LEN);
    pkt.charge_as_is();
    prism_wire::parse_frame_into(pkt.data(), pkt.port, info).map_err(DropReason::Parse)?;
    let carried = info.key.vlan & 0x0fff;
    let tagged = info.key.vlan & prism_wire::VLAN_PRESENT != 0;
    if c_tag != 0 && (info.vlan_tags != 1 || !tagged || carried != c_tag) {
        return Err(DropReason::Wan(WanDrop::WrongCTag));
    }
    Ok(net)
}
