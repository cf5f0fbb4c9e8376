//! Stage 3: action matching (the network's forwarding table,
//! [`crate::fast::matching`]).
//!
//! In: a batch after mapping, its headers, packed keys, networks and
//! fates. Out: each pending packet's action index in `action`, or its fate:
//! flooded (a bridge), or dropped under a `matching/` reason.
//!
//! Packets of a network whose table is a rule set are classified first, a
//! network's packets of the batch at a time ([`prism_tables::RuleTable::lookup_batch`]):
//! the decision trees walk eight keys at once, 32 with AVX-512, each
//! level's cache miss overlapped with the others'; key by key, every miss
//! is waited for. The loop then takes those answers and asks each other
//! network's table per packet.

use super::Pipeline;
use crate::fast::bridge::FLOOD;
use crate::fast::counters::Stage;
use crate::fast::dataplane::Dataplane;
use crate::fast::fate::{Fate, NO_NET};
use crate::fast::matching;
use crate::fast::packet::Packet;
use crate::fast::reasons::DropReason;
use crate::fast::scratch::Scratch;

/// A network with fewer of a batch's packets than this is looked up key
/// by key: a batch walk of so few keys saves nothing.
const BATCH_MIN: usize = 4;

impl Pipeline {
    /// Stage 3 over `batch`; `whole`: the network every packet maps to,
    /// when stage 2 decided it once.
    pub(super) fn match_stage(
        &mut self,
        dp: &Dataplane,
        batch: &[Packet],
        s: &mut Scratch,
        whole: Option<u16>,
        now_s: u32,
    ) {
        let n = batch.len();
        let ruled = dp.has_rule_tables();
        if ruled {
            classify_rule_tables(dp, s, n);
        }
        // When stage 2 mapped the whole batch at once, every packet still
        // pending is of that one network: its record is read once.
        let one = whole.and_then(|id| dp.fast(id));
        let mut seen = (0usize, 0u64);
        for (i, pkt) in batch.iter().enumerate() {
            if s.fate[i] != Fate::Pending {
                continue;
            }
            let net = s.net[i];
            let Some(network) = one.or_else(|| dp.fast(net)) else {
                continue;
            };
            seen = (seen.0 + 1, seen.1 + pkt.len() as u64);
            let early = if ruled { s.decided[i].take() } else { None };
            let decision = match early {
                Some(d) => Some(d),
                None => self.decide(dp, net, network.fast, pkt, (&s.info[i], &s.key[i]), now_s),
            };
            match decision {
                Some(Ok(FLOOD)) => s.fate[i] = Fate::Flood,
                Some(Ok(a)) => s.action[i] = a,
                Some(Err(r)) => s.fate[i] = Fate::Drop(net, DropReason::Match(r)),
                None => {}
            }
        }
        self.counters.stages[Stage::Matching as usize].add_batch(seen.0, seen.1);
    }
}

/// Decides, into `s.decided`, every pending packet of the batch's first
/// `n` whose network's table is a rule set, a network at a time: its
/// packets' keys gathered, walked together, the answers scattered back.
fn classify_rule_tables(dp: &Dataplane, s: &mut Scratch, n: usize) {
    s.decided[..n].fill(None);
    let mut start = 0;
    while start < n {
        let id = s.net[start];
        let todo = s.fate[start] == Fate::Pending && s.decided[start].is_none() && id != NO_NET;
        let table = todo
            .then(|| dp.network(id))
            .flatten()
            .and_then(|net| matching::rules_batch(&net.forwarding));
        let Some(matching::Rules { table, default }) = table else {
            start += 1;
            continue;
        };
        s.rule_index.clear();
        for i in start..n {
            if s.net[i] == id && s.fate[i] == Fate::Pending {
                s.rule_index.push(i as u32);
            }
        }
        let m = s.rule_index.len();
        if m == n {
            // The whole batch (l3fwd's case): its keys are in place.
            table.lookup_batch(&s.key[..n], &mut s.matched[..n]);
        } else if m >= BATCH_MIN {
            s.rule_keys.clear();
            s.rule_keys
                .extend(s.rule_index.iter().map(|&i| s.key[i as usize]));
            table.lookup_batch(&s.rule_keys, &mut s.matched[..m]);
        } else {
            for (&i, found) in s.rule_index.iter().zip(&mut s.matched[..m]) {
                *found = table.lookup(&s.key[i as usize]);
            }
        }
        for (&i, found) in s.rule_index.iter().zip(&s.matched[..m]) {
            s.decided[i as usize] = Some(matching::rule_action(*found, default));
        }
        start += 1;
    }
}
