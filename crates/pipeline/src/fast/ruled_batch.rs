//! Stages 1 to 4 in three passes over a batch whose network is known before
//! any packet is read and classifies by a rule table.
//!
//! In: a batch received while the design-select table is empty and the
//! default network is a hardware one whose table is a rule set, that is not
//! reconfiguring, with no tap armed (what `Pipeline::process` checks before
//! it calls [`classify_whole_batch`]). Out: each packet's fate and network,
//! for stage 5, and the four stages' counters as the staged loops would
//! leave them.
//!
//! Why a second path for rule tables: the decision trees want a batch's
//! keys together (their walk overlaps one key's cache misses with the
//! others'), so a packet cannot go from parse to rewrite in one step as in
//! [`crate::fast::routed_batch`]. But the staged loops carry more than the walk
//! needs: a full header record per packet, a pass per stage testing every
//! fate, the rule answers gathered and scattered. Here a plain frame
//! (untagged IPv4 without options, not IPIP: `prism_wire::plain_ipv4_key`)
//! leaves only its packed key and the end of its IPv4 packet; the keys are
//! walked in place; then each packet's action is applied to it. Any other
//! frame is parsed whole and takes the functions the staged loops call.
//! `tests/pipeline/routed_batch.rs` checks both paths give the same frames,
//! fates and counters.

use crate::fast::action;
use crate::fast::counters::Counters;
use crate::fast::dataplane::{Dataplane, Net};
use crate::fast::fate::Fate;
use crate::fast::matching::{self, Rules};
use crate::fast::packet::Packet;
use crate::fast::payload::PayloadScratch;
use crate::fast::routed_batch::{Missed, Step, act};
use crate::fast::scratch::Scratch;
use prism_tables::Key;

/// Parses the packets of `batch` into keys, classifies them with network
/// `id`'s rule table together, and applies each one's action,
/// writing `s.net` and `s.fate` (all pending) and the counters of stages 1
/// to 4.
#[allow(clippy::too_many_arguments)]
pub(crate) fn classify_whole_batch(
    dp: &Dataplane,
    id: u16,
    f: Net<'_>,
    rules: Rules<'_>,
    batch: &mut [Packet],
    s: &mut Scratch,
    counters: &mut Counters,
    services: &mut PayloadScratch,
) {
    let n = batch.len();
    let mut missed = Missed::default();
    let rx = keys(batch, s, &mut missed, id);
    rules.table.lookup_batch(&s.key[..n], &mut s.matched[..n]);
    for (i, pkt) in batch.iter_mut().enumerate() {
        let (len, end) = (pkt.len() as u64, s.plain_end[i]);
        let step = match s.fate[i] {
            Fate::Drop(_, _) => continue, // the parser's, counted by `keys`
            _ => match matching::rule_action(s.matched[i], rules.default) {
                Err(r) => Step::Unacted(Some(r)),
                Ok(a) if end != 0 => plain(dp, (id, f, a), pkt, end, &mut s.info[i], services),
                Ok(a) => act(dp, id, f, a, pkt, &s.info[i], services),
            },
        };
        missed.settle(step, len, id, &mut s.net[i], &mut s.fate[i]);
    }
    missed.count(counters, id, n, rx);
}

/// Stage 1 for the batch: each packet's packed key into `s.key`; for a
/// plain frame the end of its IPv4 packet into `s.plain_end`, for any other
/// its headers into `s.info` (and 0 into `s.plain_end`), or, if the parser
/// drops it, its fate (settled in `missed`). Returns the batch's bytes.
#[inline(always)]
fn keys(batch: &[Packet], s: &mut Scratch, missed: &mut Missed, id: u16) -> u64 {
    let n = batch.len();
    let mut rx = 0u64;
    for (((((pkt, key), end), info), net), fate) in batch
        .iter()
        .zip(s.key[..n].iter_mut())
        .zip(s.plain_end[..n].iter_mut())
        .zip(s.info[..n].iter_mut())
        .zip(s.net[..n].iter_mut())
        .zip(s.fate[..n].iter_mut())
    {
        rx += pkt.len() as u64;
        if let Some((k, p)) = prism_wire::plain_ipv4_key(pkt.data(), pkt.port) {
            (*key, *end) = (Key::from_flow(&k), p.l3_end);
            continue;
        }
        *end = 0;
        match prism_wire::parse_frame_into(pkt.data(), pkt.port, info) {
            Ok(()) => *key = Key::from_flow(&info.key),
            Err(m) => {
                *key = Key::default();
                missed.settle(Step::Unparsed(m), pkt.len() as u64, id, net, fate);
            }
        }
    }
    rx
}

/// Action `a` applied to a plain frame whose IPv4 packet ends at `end`:
/// a hop rewrites it from that alone; a general action reads its headers,
/// parsed here (a plain frame parses).
#[inline(always)]
fn plain(
    dp: &Dataplane,
    (id, f, a): (u16, Net<'_>, u32),
    pkt: &mut Packet,
    end: u16,
    info: &mut prism_wire::PacketInfo,
    services: &mut PayloadScratch,
) -> Step {
    if let Some(Some(hop)) = f.hop(a) {
        return Step::Done(action::apply_hop_plain(hop, pkt, end));
    }
    match prism_wire::parse_frame_into(pkt.data(), pkt.port, info) {
        Ok(()) => act(dp, id, f, a, pkt, info, services),
        Err(m) => Step::Unparsed(m),
    }
}
