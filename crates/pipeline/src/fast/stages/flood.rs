//! Stage 3's decision (a bridge network's with the pipeline's learned
//! table, [`crate::fast::bridge`]) and stage 5 for a frame a bridge floods.
//!
//! In (stage 5): a frame the bridge floods, its parsed headers, its
//! network. Out: a copy to every member of the network but the one it came
//! in by, each with that member's action applied (its port, and across the
//! WAN its S-tag), the last member taking the frame itself; a copy the
//! pool cannot give is `output/no-buffer` for that member. A frame with no
//! other member to go to is `matching/same-port`.

use super::Pipeline;
use crate::fast::action::{self, Verdict};
use crate::fast::bridge::BridgeState;
use crate::fast::dataplane::{Dataplane, NetFast, Network};
use crate::fast::packet::Packet;
use crate::fast::reasons::{DropReason, MatchDrop, OutputDrop};
use prism_tables::Key;
use prism_wire::PacketInfo;

impl Pipeline {
    /// Makes the learned table when the first bridge network comes, and
    /// forgets what was learned in a network id that no longer holds the
    /// same bridge network.
    pub(super) fn adopt_bridges(&mut self, dp: &Dataplane) {
        if dp.has_bridges() && self.bridges.is_none() {
            self.bridges = Some(Box::new(BridgeState::new(self.bridge_macs)));
        }
        let old = &self.current;
        if let Some(b) = self.bridges.as_deref_mut() {
            b.forget_unless(|id| {
                dp.bridge(id).is_some()
                    && dp.network(id).map(|n| &n.name) == old.network(id).map(|n| &n.name)
            });
        }
    }

    /// Stage 3's decision for one packet of network `net`: a bridge's
    /// with its learned table (learning the source; a member or
    /// [`crate::fast::bridge::FLOOD`]), any other network's by its table.
    #[inline(always)]
    pub(super) fn decide(
        &mut self,
        dp: &Dataplane,
        net: u16,
        network: &NetFast,
        pkt: &Packet,
        (info, key): (&PacketInfo, &Key),
        now_s: u32,
    ) -> Option<Result<u32, MatchDrop>> {
        if !network.bridge {
            return dp.decide(net, network, info, key);
        }
        let b = dp.bridge(net)?;
        let learned = self.bridges.as_deref_mut()?;
        Some(learned.decide(net, b, pkt.data(), info.key.in_port, now_s))
    }

    /// Stage 5 for a flooded frame (the module's header).
    pub(super) fn flood(&mut self, dp: &Dataplane, pkt: Packet, info: &PacketInfo, now_ns: u64) {
        let net = pkt.network;
        let (Some(b), Some(network)) = (dp.bridge(net), dp.network(net)) else {
            return self.drop_packet(pkt, Some(net), DropReason::Match(MatchDrop::NoRoute));
        };
        let from = b.member_of(info.key.in_port).map(usize::from);
        let mut last = None;
        for i in (0..b.members()).filter(|i| Some(*i) != from) {
            let Some(prev) = last.replace(i) else {
                continue;
            };
            match self.pool.duplicate(&pkt) {
                Some(copy) => self.send_to_member(network, net, b.member(prev), copy, info, now_ns),
                None => self.counters.networks[usize::from(net)]
                    .drop(DropReason::Output(OutputDrop::NoBuffer)),
            }
        }
        match last {
            Some(i) => self.send_to_member(network, net, b.member(i), pkt, info, now_ns),
            None => self.drop_packet(pkt, Some(net), DropReason::Match(MatchDrop::SamePort)),
        }
    }

    /// A flooded frame (or its copy) to one member: its action, then out.
    fn send_to_member(
        &mut self,
        network: &Network,
        net: u16,
        member: Option<(u16, u32)>,
        mut pkt: Packet,
        info: &PacketInfo,
        now_ns: u64,
    ) {
        let Some(a) = member.and_then(|(_, a)| network.actions.get(a as usize)) else {
            return self.drop_packet(pkt, Some(net), DropReason::Match(MatchDrop::NoRoute));
        };
        match action::apply(a, &mut pkt, info, &mut self.services) {
            Verdict::Output(port) => {
                pkt.port = port;
                self.send_to_output(pkt, now_ns);
            }
            Verdict::Software(ch) => self.hand_to_software(pkt, ch),
            Verdict::Drop(r) => self.drop_packet(pkt, Some(net), DropReason::Action(r)),
        }
    }
}
