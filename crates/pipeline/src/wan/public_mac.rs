//! Public MACs (paper 002 §2.2, Fig. 8: "where the WAN carries no Q-in-Q"):
//! a MAC leased on the WAN side that stands for one host of a bridge
//! network, as a public address stands for one host of a routed one.
//!
//! Coming in — in: an untagged frame on a WAN port whose destination is a
//! leased public MAC. Out: the frame with its destination set to the
//! host's internal MAC (and an ARP packet's target hardware address, where
//! it names the public MAC), tagged with the network's VLAN: the network's
//! frame, as if it had come by the network's own side.
//!
//! Going out — in: an untagged frame of a network with public MACs leaving
//! by a WAN port (a bridge member that pops the VLAN tag; a member under
//! an S-tag is left alone). Out: its source set to the host's public MAC
//! (and an ARP packet's sender hardware address, where it names the
//! internal MAC); a frame from a host with no public MAC is
//! `wan/no-public-mac`: it has no name on the wide area.
//!
//! What it does not do: a broadcast from the WAN names no public MAC and
//! stays `wan/unexpected` (an inside host that sends an ARP request first
//! is known to the far host by its public MAC, and the answer comes back).
//!
//! Config: the WAN side's table ([`crate::wan::tunnels::WanTable`]), read by the
//! callers.

use crate::fast::packet::Packet;
use crate::fast::reasons::{DropReason, WanDrop};
use prism_wire::{PacketInfo, ethertype};

/// Where an Ethernet/IPv4 ARP packet's sender and target hardware
/// addresses lie, after an untagged Ethernet header (RFC 826).
const ARP_SHA: usize = 14 + 8;
const ARP_THA: usize = 14 + 18;
const ARP_LEN: usize = 14 + 28;

fn is_arp(d: &[u8]) -> bool {
    d.len() >= ARP_LEN
        && d[12..14] == ethertype::ARP.to_be_bytes()
        && d[14..20] == [0, 1, 8, 0, 6, 4]
}

/// A frame to public MAC `public` made its network's (the module text).
pub(crate) fn inbound(
    pkt: &mut Packet,
    info: &mut PacketInfo,
    (internal, vid): ([u8; 6], u16),
) -> Result<(), DropReason> {
    let d = pkt.data_mut();
    let public: [u8; 6] = d[..6].try_into().unwrap_or_default();
    d[..6].copy_from_slice(&internal);
    if is_arp(d) && d[ARP_THA..ARP_THA + 6] == public {
        d[ARP_THA..ARP_THA + 6].copy_from_slice(&internal);
    }
    if vid != 0 && !pkt.push_c_tag(vid) {
        return Err(DropReason::Action(
            crate::fast::reasons::ActionDrop::NoHeadroom,
        ));
    }
    pkt.charge_as_is();
    prism_wire::parse_frame_into(pkt.data(), pkt.port, info).map_err(DropReason::Parse)
}

/// A frame leaving by a WAN port, renamed to its host's public MAC as
/// `public_of` (its network's table) gives it (the module text).
pub(crate) fn outbound(
    pkt: &mut Packet,
    public_of: impl Fn([u8; 6]) -> Option<[u8; 6]>,
) -> Result<(), DropReason> {
    let d = pkt.data_mut();
    if d.len() < 14 {
        return Err(DropReason::Wan(WanDrop::NoPublicMac));
    }
    let tpid = u16::from_be_bytes([d[12], d[13]]);
    if tpid == ethertype::VLAN || tpid == ethertype::QINQ {
        return Ok(()); // under a tag: a span's S-tag member, not a public MAC's
    }
    let internal: [u8; 6] = d[6..12].try_into().unwrap_or_default();
    let public = public_of(internal).ok_or(DropReason::Wan(WanDrop::NoPublicMac))?;
    d[6..12].copy_from_slice(&public);
    if is_arp(d) && d[ARP_SHA..ARP_SHA + 6] == internal {
        d[ARP_SHA..ARP_SHA + 6].copy_from_slice(&public);
    }
    Ok(())
}
