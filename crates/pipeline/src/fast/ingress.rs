//! Stage 1: parse and extract the key.
//!
//! In: a batch of frames. Out: each frame's headers (`PacketInfo`), its
//! packed key when something reads it, and its fate: pending, or dropped
//! by the parser under a `parse/...` reason. A frame from the wide area is
//! terminated here ([`crate::wan::tunnels`]): decapsulated, its network known
//! before the mapping stage (or dropped under a `wan/...` reason).

use crate::fast::counters::{Counters, Stage};
use crate::fast::dataplane::Dataplane;
use crate::fast::fate::{Fate, NO_NET};
use crate::fast::packet::Packet;
use crate::fast::reasons::{DropReason, WanDrop};
use crate::wan::nat::NatTable;
use crate::wan::tunnels::WanTable;
use prism_tables::Key;
use prism_wire::PacketInfo;

/// The per-packet arrays stage 1 fills, by the batch's index.
pub(crate) struct Arrays<'a> {
    pub info: &'a mut [PacketInfo],
    pub key: &'a mut [Key],
    pub net: &'a mut [u16],
    pub fate: &'a mut [Fate],
}

#[inline(always)]
pub(crate) fn parse(
    dp: &Dataplane,
    batch: &mut [Packet],
    a: Arrays<'_>,
    need_key: bool,
    counters: &mut Counters,
    mut nat: Option<&mut NatTable>,
    now_s: u32,
) {
    let n = batch.len();
    let mut rx_bytes = 0u64;
    let wan = dp.wan.any().then_some(&dp.wan);
    for ((((pkt, info), key), net), fate) in batch
        .iter_mut()
        .zip(a.info.iter_mut())
        .zip(a.key.iter_mut())
        .zip(a.net.iter_mut())
        .zip(a.fate.iter_mut())
    {
        rx_bytes += pkt.len() as u64;
        if let Err(m) = prism_wire::parse_frame_into(pkt.data(), pkt.port, info) {
            *fate = Fate::Drop(NO_NET, DropReason::Parse(m));
            continue;
        }
        if let Some(w) = wan
            && w.is_wan(pkt.port)
        {
            match from_wan(w, nat.as_deref_mut(), now_s, pkt, info) {
                Ok((id, false)) => *net = id,
                Ok((id, true)) => {
                    // The gateway's answer, out by the port it came in on.
                    (*net, *fate) = (id, Fate::Output(pkt.port));
                    continue;
                }
                Err(r) => {
                    *fate = Fate::Drop(NO_NET, r);
                    continue;
                }
            }
        }
        if need_key {
            *key = Key::from_flow(&info.key);
        }
    }
    counters.rx_packets += n as u64;
    counters.rx_bytes += rx_bytes;
    counters.stages[Stage::Parse as usize].add_batch(n, rx_bytes);
}

/// A frame from the wide area: a tunnel's, or the gateway's (NAT or a
/// public address), made the network's frame, `(network, false)`; an ARP
/// request the gateway answers, `(network, true)`; or the drop.
#[inline]
fn from_wan(
    w: &WanTable,
    nat: Option<&mut NatTable>,
    now_s: u32,
    pkt: &mut Packet,
    info: &mut PacketInfo,
) -> Result<(u16, bool), DropReason> {
    if let Some(net) = crate::wan::tunnels::terminate(w, pkt, info)? {
        return Ok((net, false));
    }
    if info.key.ethertype == prism_wire::ethertype::ARP {
        let answered = crate::wan::gateway::answer_arp(w, pkt, info);
        return answered
            .map(|net| (net, true))
            .ok_or(DropReason::Wan(WanDrop::Unexpected));
    }
    let (net, vid) = crate::wan::gateway::inbound(nat, w, pkt, info, now_s)?;
    crate::wan::tunnels::retag(pkt, info, 0, vid)?;
    Ok((net, false))
}
