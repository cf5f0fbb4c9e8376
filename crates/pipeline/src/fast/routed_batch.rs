//! Stages 1 to 4 in one pass over each packet, for a batch whose network is
//! known before any packet is read.
//!
//! In: a batch received while the design-select table is empty and the
//! default network is a hardware one routing by destination in the
//! dataplane's arena, that is not reconfiguring, with no tap armed and no
//! consumer of packed keys (what `Pipeline::process` checks before it calls
//! [`route_whole_batch`]). Out: each packet's fate (output port, software
//! channel, or drop with its named reason) and its network, for stage 5,
//! and the four stages' counters as the staged loops would leave them.
//!
//! Why a second path: the staged loops (`crate::fast::stages`) carry each
//! packet's parse result, action and fate through arrays from one stage to
//! the next, and test every packet's fate at the top of every stage. When
//! the network is known up front, as for DPDK l3fwd's workload, a packet can
//! go from parse to rewrite while its header is in registers: the parse
//! result stays a local that the compiler keeps in registers (only the
//! fields the lookup and the rewrite read are ever written), and each
//! packet's fate is written once. The decisions are the same functions the
//! staged loops call; `tests/pipeline/routed_batch.rs` checks both paths give the
//! same frames, fates and counters.

use crate::fast::action::{self, Verdict};
use crate::fast::counters::{Counters, Stage};
use crate::fast::dataplane::{Dataplane, DestinationTable, Net};
use crate::fast::fate::{Fate, NO_NET};
use crate::fast::packet::Packet;
use crate::fast::payload::PayloadScratch;
use crate::fast::reasons::{DropReason, MatchDrop};
use prism_tables::Key;
use prism_wire::{Malformed, PacketInfo, PlainIpv4};

/// Parses, maps to network `id` (whose fast record is `f` and destination
/// table `table`), looks up and applies the action of every packet of `batch`, writing `net` and `fate`
/// (both as long as the batch, `fate` all pending) and the counters of
/// stages 1 to 4.
#[allow(clippy::too_many_arguments)]
pub(crate) fn route_whole_batch(
    dp: &Dataplane,
    id: u16,
    f: Net<'_>,
    table: DestinationTable<'_>,
    batch: &mut [Packet],
    net: &mut [u16],
    fate: &mut [Fate],
    counters: &mut Counters,
    services: &mut PayloadScratch,
) {
    let mut rx = 0u64;
    let mut missed = Missed::default();
    for ((pkt, net), fate) in batch.iter_mut().zip(net.iter_mut()).zip(fate.iter_mut()) {
        rx += pkt.len() as u64;
        let plain = prism_wire::plain_ipv4(pkt.data());
        let step = match plain {
            Some(p) => plain_hop(dp, f, table, pkt, p),
            None => Step::General,
        };
        let step = match step {
            Step::General => general(dp, id, f, pkt, services),
            done => done,
        };
        missed.settle(step, pkt.len() as u64, id, net, fate);
    }
    missed.count(counters, id, batch.len(), rx);
}

/// Packets and bytes of a one-pass batch that some stage did not see:
/// counted on the rare paths only, so the common one adds nothing per
/// packet.
#[derive(Default, Clone, Copy)]
pub(crate) struct Missed {
    /// Dropped by the parser (not mapped).
    unparsed: Count,
    /// Mapped, but not seen by stage 4: dropped by the lookup, or the
    /// action it named is missing.
    unacted: Count,
}

impl Missed {
    /// Writes a packet's `step` as its fate (and its network, when it was
    /// mapped), counting what its stages missed.
    #[inline(always)]
    pub(crate) fn settle(&mut self, step: Step, len: u64, id: u16, net: &mut u16, fate: &mut Fate) {
        // The common outcome first, by a branch rather than the jump table
        // the match compiles to (2% of a 64-byte packet's cycles).
        if let Step::Done(Verdict::Output(port)) = step {
            (*net, *fate) = (id, Fate::Output(port));
            return;
        }
        match step {
            Step::Unparsed(m) => {
                self.unparsed.add(len);
                *fate = Fate::Drop(NO_NET, DropReason::Parse(m));
                return;
            }
            Step::Unacted(r) => {
                self.unacted.add(len);
                if let Some(r) = r {
                    *fate = Fate::Drop(id, DropReason::Match(r));
                }
            }
            Step::Done(v) => *fate = Fate::of(v, id),
            Step::General => unreachable!("taken by the general path first"),
        }
        *net = id;
    }

    /// Stages 1 to 4's counters for a batch of `n` packets and `rx` bytes,
    /// all for network `id`, as the staged loops would leave them.
    pub(crate) fn count(&self, counters: &mut Counters, id: u16, n: usize, rx: u64) {
        counters.rx_packets += n as u64;
        counters.rx_bytes += rx;
        counters.stages[Stage::Parse as usize].add_batch(n, rx);
        let mapped = (n - self.unparsed.0, rx - self.unparsed.1);
        let c = &mut counters.networks[usize::from(id)];
        c.rx_packets += mapped.0 as u64;
        c.rx_bytes += mapped.1;
        counters.stages[Stage::Mapping as usize].add_batch(mapped.0, mapped.1);
        counters.stages[Stage::Matching as usize].add_batch(mapped.0, mapped.1);
        let acted = (mapped.0 - self.unacted.0, mapped.1 - self.unacted.1);
        counters.stages[Stage::Action as usize].add_batch(acted.0, acted.1);
    }
}

#[derive(Default, Clone, Copy)]
struct Count(usize, u64);

impl Count {
    #[inline(always)]
    fn add(&mut self, bytes: u64) {
        self.0 += 1;
        self.1 += bytes;
    }
}

/// How far one packet got.
pub(crate) enum Step {
    /// The parser dropped it.
    Unparsed(Malformed),
    /// Mapped, but no action ran: the lookup dropped it (`Some`), or the
    /// action it named is missing (`None`: left pending, as stage 4 leaves it).
    Unacted(Option<MatchDrop>),
    /// Its action's verdict.
    Done(Verdict),
    /// Not for the plain path: the general one takes it.
    General,
}

/// A plain frame (`p`, read by `prism_wire::plain_ipv4`) whose route is a
/// plain hop, with no `PacketInfo` built: the common case.
#[inline(always)]
fn plain_hop(
    dp: &Dataplane,
    f: Net<'_>,
    table: DestinationTable<'_>,
    pkt: &mut Packet,
    p: PlainIpv4,
) -> Step {
    match dp.route(table, p.dst_ip) {
        Ok(a) => match f.hop(a) {
            Some(Some(hop)) => Step::Done(action::apply_hop_plain(hop, pkt, p.l3_end)),
            _ => Step::General,
        },
        Err(r) => Step::Unacted(Some(r)),
    }
}

/// Any frame, through the functions the staged loops call.
#[inline(never)]
fn general(
    dp: &Dataplane,
    id: u16,
    f: Net<'_>,
    pkt: &mut Packet,
    services: &mut PayloadScratch,
) -> Step {
    let mut info = PacketInfo::default();
    if let Err(m) = prism_wire::parse_frame_into(pkt.data(), pkt.port, &mut info) {
        return Step::Unparsed(m);
    }
    match dp.decide(id, f.fast, &info, &Key::default()) {
        Some(Ok(a)) => act(dp, id, f, a, pkt, &info, services),
        Some(Err(r)) => Step::Unacted(Some(r)),
        None => Step::Unacted(None),
    }
}

/// Applies action `a` of network `id` (record `f`) to a parsed packet:
/// its hop form where it has one, else the general action.
#[inline(never)]
pub(crate) fn act(
    dp: &Dataplane,
    id: u16,
    f: Net<'_>,
    a: u32,
    pkt: &mut Packet,
    info: &PacketInfo,
    services: &mut PayloadScratch,
) -> Step {
    let Some(hop) = f.hop(a) else {
        return Step::Unacted(None);
    };
    Step::Done(match hop {
        Some(hop) => action::apply_hop(hop, pkt, info),
        None => match dp.network(id).and_then(|n| n.actions.get(a as usize)) {
            Some(general) => action::apply(general, pkt, info, services),
            None => return Step::Unacted(None),
        },
    })
}
