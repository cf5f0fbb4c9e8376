//! Stage 2: network mapping (the design-select table, [`crate::fast::mapping`]).
//!
//! In: a batch after parsing, its headers, packed keys and fates (`net`
//! already set for packets the WAN side terminated). Out: each pending
//! packet's network in `net`, its network's receive counters, and the fate
//! of a packet whose network is missing (`mapping/no-network`), in software
//! (its channel) or reconfiguring (`hardware/reconfiguring`).
//!
//! A table with no LPM form is a rule set: the whole batch's keys are
//! classified at once ([`prism_tables::RuleTable::lookup_batch`]: the
//! decision trees walk several together) before the loop reads each answer.

use super::Pipeline;
use crate::fast::counters::Stage;
use crate::fast::dataplane::{Dataplane, Tier};
use crate::fast::fate::{Fate, NO_NET};
use crate::fast::packet::Packet;
use crate::fast::reasons::{DropReason, HardwareDrop, MapDrop};
use crate::fast::scratch::Scratch;

impl Pipeline {
    /// Stage 2 over `batch` (`s` holds its per-packet arrays); `whole`:
    /// the network every packet maps to, when known up front.
    pub(super) fn map_stage(
        &mut self,
        dp: &Dataplane,
        batch: &[Packet],
        s: &mut Scratch,
        whole: Option<u16>,
        now_ns: u64,
    ) {
        let n = batch.len();
        let seen = match whole {
            Some(id) => self.map_whole(batch, &mut s.net[..n], &s.fate[..n], id),
            None => {
                let by_rules = dp.mapping.rule_table();
                if let Some(t) = by_rules {
                    t.lookup_batch(&s.key[..n], &mut s.matched[..n]);
                }
                let mut seen = (0usize, 0u64);
                for (i, pkt) in batch.iter().enumerate() {
                    if s.fate[i] != Fate::Pending {
                        continue;
                    }
                    seen = (seen.0 + 1, seen.1 + pkt.len() as u64);
                    let id = if s.net[i] != NO_NET {
                        s.net[i] // terminated on the WAN side
                    } else {
                        let chosen = match by_rules {
                            Some(_) => s.matched[i].map(|m| m.action),
                            None => dp.mapping.network(s.info[i].key.dst_ip, &s.key[i]),
                        };
                        chosen.map_or(dp.default_network.unwrap_or(NO_NET), |n| n as u16)
                    };
                    s.fate[i] = self.mapped(dp, id, pkt, &mut s.net[i], now_ns);
                }
                seen
            }
        };
        self.counters.stages[Stage::Mapping as usize].add_batch(seen.0, seen.1);
    }

    /// An empty table sends every packet to the default network, a
    /// hardware one that is not reconfiguring: what the loop would decide
    /// for each packet, decided once, with the network's counters added
    /// once.
    fn map_whole(
        &mut self,
        batch: &[Packet],
        net: &mut [u16],
        fate: &[Fate],
        id: u16,
    ) -> (usize, u64) {
        let mut seen = (0usize, 0u64);
        for ((pkt, net), fate) in batch.iter().zip(net.iter_mut()).zip(fate) {
            if fate.is_pending() {
                seen = (seen.0 + 1, seen.1 + pkt.len() as u64);
                *net = id;
            }
        }
        let c = &mut self.counters.networks[usize::from(id)];
        c.rx_packets += seen.0 as u64;
        c.rx_bytes += seen.1;
        seen
    }

    /// A packet mapped to network `id`: its counters, `net`, and its fate
    /// (still pending unless the network is missing, in software or dark).
    #[inline]
    fn mapped(
        &mut self,
        dp: &Dataplane,
        id: u16,
        pkt: &Packet,
        net: &mut u16,
        now_ns: u64,
    ) -> Fate {
        let Some(network) = dp.fast(id) else {
            return Fate::Drop(NO_NET, DropReason::Map(MapDrop::NoNetwork));
        };
        *net = id;
        let c = &mut self.counters.networks[usize::from(id)];
        c.rx_packets += 1;
        c.rx_bytes += pkt.len() as u64;
        if network.tier == Tier::Software {
            Fate::Software(network.software_channel)
        } else if network.dark_until_ns > now_ns {
            Fate::Drop(id, DropReason::Hardware(HardwareDrop::Reconfiguring))
        } else {
            Fate::Pending
        }
    }
}
