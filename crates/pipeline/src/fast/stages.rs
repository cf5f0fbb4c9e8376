//! The hardware-tier pipeline: batches in, verdicts out, no I/O, no clock.
//!
//! Stages per packet, run to completion over a batch:
//! 1. parse: header checks and key extraction (`prism_wire::parse_frame`);
//! 2. network mapping: the design-select classifier picks the network;
//! 3. action matching: the network's table picks an action result
//!    ([`crate::fast::matching`]);
//! 4. action processing ([`crate::fast::action`]);
//! 5. software hand-off ([`crate::software::channels`]) or output ([`crate::fast::output`]).
//!
//! Software-tier networks skip 3 and 4 in the pipeline: their packets go to
//! their software channel, and the software router returns them through
//! [`Pipeline::from_software`]. The configuration is read from an
//! `ArcSwap<Dataplane>` once per batch.

use crate::fast::action;
use crate::fast::bridge::BridgeState;
use crate::fast::counters::{Counters, Stage};
use crate::fast::dataplane::{Dataplane, Tier};
use crate::fast::fate::{Fate, NO_NET};
use crate::fast::output::{OutputConfig, OutputStage};
use crate::fast::packet::{Packet, PacketPool};
use crate::fast::payload::PayloadScratch;
use crate::fast::reasons::{DropReason, MapDrop, SoftwareDrop};
use crate::fast::routed_batch;
use crate::fast::ruled_batch;
use crate::fast::scratch::Scratch;
use crate::fast::tap::{Decided, Tap, TapRecord, TapRequest};
use crate::software::channels::SoftwareChannels;
use crate::wan::gateway::GatewayState;
use arc_swap::ArcSwap;
use std::sync::Arc;

mod exits;
mod flood;
mod map_stage;
mod match_stage;
mod program_stage;
mod report;

/// Sizes of the pipeline's buffers and queues.
#[derive(Debug, Clone, Copy)]
pub struct PipelineConfig {
    /// Distinct per pipeline of a node: it seeds AEAD nonces.
    pub pipeline_id: u32,
    pub pool_packets: usize,
    pub queue_limit: usize,
    pub channel_capacity: usize,
    /// The gateway's flow table ([`crate::wan::nat`]).
    pub nat: crate::wan::nat::NatConfig,
    /// MACs a bridge network's learned table holds ([`crate::fast::bridge`]),
    /// over all bridge networks; allocated once the first one comes.
    pub bridge_macs: usize,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        Self {
            pipeline_id: 0,
            pool_packets: 16_384,
            queue_limit: 1024,
            channel_capacity: 1024,
            nat: crate::wan::nat::NatConfig::default(),
            bridge_macs: 1 << 16,
        }
    }
}

#[derive(Debug)]
pub struct Pipeline {
    scratch: Scratch,
    services: PayloadScratch,
    published: Arc<ArcSwap<Dataplane>>,
    current: Arc<Dataplane>,
    pub pool: PacketPool,
    counters: Counters,
    channels: SoftwareChannels,
    output: OutputStage,
    /// A trace or capture, when armed ([`crate::fast::tap`]); `None` costs one
    /// branch per batch.
    tap: Option<Box<Tap>>,
    /// Batch and record indices of the packets the tap took.
    tap_marks: Vec<(usize, usize)>,
    /// The configuration in force reads packed keys (it has mapping rules
    /// or a rule table); without, the parser does not build them.
    needs_key: bool,
    gateway: GatewayState,
    /// Learned MACs, once a bridge network came ([`crate::fast::bridge`]).
    bridges: Option<Box<BridgeState>>,
    bridge_macs: usize,
    /// The stack researchers' programs run on ([`prism_program`]).
    programs: prism_program::Scratch,
}

impl Pipeline {
    pub fn new(published: Arc<ArcSwap<Dataplane>>, cfg: PipelineConfig) -> Self {
        let current = published.load_full();
        let mut p = Self {
            output: OutputStage::new(current.ports, cfg.queue_limit),
            published,
            current: Arc::new(Dataplane::empty(0)),
            pool: PacketPool::new(cfg.pool_packets),
            counters: Counters::default(),
            channels: SoftwareChannels::new(cfg.channel_capacity),
            scratch: Scratch::default(),
            services: PayloadScratch::new(cfg.pipeline_id),
            tap: None,
            tap_marks: Vec::new(),
            needs_key: true,
            gateway: GatewayState::new(cfg.nat),
            bridges: None,
            bridge_macs: cfg.bridge_macs,
            programs: prism_program::Scratch::default(),
        };
        p.adopt(current);
        p
    }

    /// The configuration in force.
    pub fn dataplane(&self) -> &Arc<Dataplane> {
        &self.current
    }

    /// Takes `dp` in force: what it costs grows with the networks that
    /// changed since the data plane of now, not with those held.
    fn adopt(&mut self, dp: Arc<Dataplane>) {
        self.counters.ensure(dp.len());
        let cfg = |id: u16| {
            let n = dp.network(id);
            let c = OutputConfig {
                quantum: n.map_or(1514, |n| n.quantum as usize),
                rate: n.and_then(|n| n.rate_limit),
            };
            (usize::from(id), c)
        };
        (self.output).configure_some(dp.len(), dp.changed_since(&self.current).map(cfg));
        self.needs_key =
            !(dp.mapping.is_empty() || dp.mapping.by_destination()) || dp.has_rule_tables();
        self.gateway.adopt(&self.current, &dp);
        self.adopt_bridges(&dp);
        self.current = dp;
    }

    /// Picks up a newly published configuration, if any.
    #[inline]
    fn refresh(&mut self) {
        let g = self.published.load();
        if g.generation != self.current.generation {
            let dp = arc_swap::Guard::into_inner(g);
            self.adopt(dp);
        }
    }

    #[inline]
    fn drop_packet(&mut self, pkt: Packet, net: Option<u16>, r: DropReason) {
        match net {
            Some(n) => self.counters.networks[usize::from(n)].drop(r),
            None => self.counters.unmapped.drop(r),
        }
        self.pool.recycle(pkt);
    }

    /// Counts a packet of network `net` (`None`: not yet mapped) that the
    /// node's I/O dropped for `r` after the pipeline let it go, and takes
    /// its buffer back.
    pub fn io_drop(&mut self, pkt: Packet, net: Option<u16>, r: crate::fast::reasons::IoDrop) {
        self.io_drops(net, r, 1);
        self.pool.recycle(pkt);
    }

    /// Counts `n` packets of network `net` (`None`: of no one network)
    /// the node's I/O could not send, for `r`; their buffers went back
    /// with the rest of their batch.
    pub fn io_drops(&mut self, net: Option<u16>, r: crate::fast::reasons::IoDrop, n: u64) {
        let net = net.filter(|n| usize::from(*n) < self.counters.networks.len());
        let r = DropReason::Io(r);
        match net {
            Some(k) => self.counters.networks[usize::from(k)].drop_n(r, n),
            None => self.counters.unmapped.drop_n(r, n),
        }
    }

    /// Runs a batch of received packets through the pipeline. Every packet
    /// ends queued for output, queued on a software channel, or dropped and
    /// counted. `batch` is left empty.
    ///
    /// Each stage runs over the whole batch before the next starts (as VPP
    /// does): the loops stay small and branch-predictable, and the table
    /// reads of different packets are independent, so their cache misses
    /// overlap instead of queueing one behind another. When the batch's
    /// network is known before any packet is read (no mapping rule, a
    /// hardware default network routing by destination, no tap), stages 1
    /// to 4 run in one pass per packet instead ([`crate::fast::routed_batch`]).
    pub fn process(&mut self, batch: &mut Vec<Packet>, now_ns: u64) {
        self.refresh();
        let dp = self.current.clone();
        let mut s = std::mem::take(&mut self.scratch);
        let n = batch.len();
        s.reset(n);
        // The packed key is built only where something reads it: a mapping
        // rule, a rule table, a tap.
        let need_key = self.needs_key || self.tap.is_some();
        let whole = self.whole_batch_network(&dp, now_ns);
        // A batch of one network, known up front, with no tap to report each
        // stage: the network's table alone reads keys, so a destination
        // table takes one pass per packet and a rule table three passes.
        let one_pass = whole.filter(|id| self.tap.is_none() && !dp.runs_program(*id));
        match one_pass.and_then(|id| Some((id, dp.fast(id)?))) {
            Some((id, f)) if let Some(table) = dp.destination_table(id, f.fast) => {
                routed_batch::route_whole_batch(
                    &dp,
                    id,
                    f,
                    table,
                    batch,
                    &mut s.net[..n],
                    &mut s.fate[..n],
                    &mut self.counters,
                    &mut self.services,
                )
            }
            Some((id, f)) if let Some(rules) = dp.rule_table(id) => {
                ruled_batch::classify_whole_batch(
                    &dp,
                    id,
                    f,
                    rules,
                    batch,
                    &mut s,
                    &mut self.counters,
                    &mut self.services,
                )
            }
            _ => self.stages(&dp, batch, &mut s, whole, need_key, now_ns),
        }
        let (net, fate, info) = (&s.net[..n], &s.fate[..n], &s.info[..n]);
        // Stage 5: software hand-off or output queue. One network's batch
        // bound whole for one port is queued in one move when the output
        // would put each packet at the end of the port-wide queue anyway.
        if let Some(id) = whole
            && let Some(&Fate::Output(port)) = fate.first()
            && fate.iter().all(|f| *f == Fate::Output(port))
        {
            let mut bytes = 0;
            for pkt in batch.iter_mut() {
                pkt.network = id;
                pkt.port = port;
                bytes += pkt.len();
            }
            if self.output.enqueue_batch(port, id, batch, bytes) {
                self.counters.stages[Stage::Output as usize].add_batch(n, bytes as u64);
            }
        }
        for (((mut pkt, net), fate), info) in batch.drain(..).zip(net).zip(fate).zip(info) {
            pkt.network = *net;
            match *fate {
                Fate::Flood => self.flood(&dp, pkt, info, now_ns),
                Fate::Output(port) => {
                    pkt.port = port;
                    self.send_to_output(pkt, now_ns);
                }
                Fate::Software(ch) => self.hand_to_software(pkt, ch),
                Fate::Drop(net, r) => self.drop_packet(pkt, (net != NO_NET).then_some(net), r),
                // Unreachable by construction; counted rather than lost.
                Fate::Pending => self.drop_packet(pkt, None, DropReason::Map(MapDrop::NoNetwork)),
            }
        }
        self.gateway.tick(now_ns);
        self.scratch = s;
    }

    /// Stages 1, 2 and 2b (parsing, mapping, the networks' programs).
    fn parse_map_and_program(
        &mut self,
        dp: &Dataplane,
        batch: &mut [Packet],
        s: &mut Scratch,
        (whole, need_key): (Option<u16>, bool),
        now_ns: u64,
    ) {
        let n = batch.len();
        let arrays = crate::fast::ingress::Arrays {
            info: &mut s.info[..n],
            key: &mut s.key[..n],
            net: &mut s.net[..n],
            fate: &mut s.fate[..n],
        };
        let nat = self.gateway.nat();
        let now_s = crate::wan::gateway::seconds(now_ns);
        crate::fast::ingress::parse(dp, batch, arrays, need_key, &mut self.counters, nat, now_s);
        self.map_stage(dp, batch, s, whole, now_ns);
        self.program_stage(dp, batch, s, need_key);
    }

    /// Stages 1 to 4, each over the whole batch before the next starts;
    /// `whole`: the network every packet maps to, when known up front.
    fn stages(
        &mut self,
        dp: &Dataplane,
        batch: &mut [Packet],
        s: &mut Scratch,
        whole: Option<u16>,
        need_key: bool,
        now_ns: u64,
    ) {
        let n = batch.len();
        let now_s = crate::wan::gateway::seconds(now_ns);
        self.parse_map_and_program(dp, batch, s, (whole, need_key), now_ns);
        if let Some(t) = self.tap.as_deref_mut() {
            t.ingress_pre(batch, &s.net[..n], &mut self.tap_marks);
        }
        self.match_stage(dp, batch, s, whole, now_s);
        // Zipped slices: the loop below indexes nothing, so carries no
        // bounds checks.
        let (info, key, net, action, fate) = (
            &mut s.info[..n],
            &mut s.key[..n],
            &mut s.net[..n],
            &mut s.action[..n],
            &mut s.fate[..n],
        );
        let one = whole.and_then(|id| dp.fast(id));
        // Stage 4: action processing.
        let mut seen = (0usize, 0u64);
        for ((((pkt, info), net), action), fate) in batch
            .iter_mut()
            .zip(info.iter())
            .zip(net.iter())
            .zip(action.iter())
            .zip(fate.iter_mut())
        {
            if *fate != Fate::Pending {
                continue;
            }
            let Some(hop) = one.or_else(|| dp.fast(*net)).and_then(|f| f.hop(*action)) else {
                continue;
            };
            seen = (seen.0 + 1, seen.1 + pkt.len() as u64);
            let verdict = match hop {
                Some(hop) => action::apply_hop(hop, pkt, info),
                None => match dp
                    .network(*net)
                    .and_then(|n| n.actions.get(*action as usize))
                {
                    Some(general) => action::apply(general, pkt, info, &mut self.services),
                    None => continue,
                },
            };
            *fate = Fate::of(verdict, *net);
        }
        self.counters.stages[Stage::Action as usize].add_batch(seen.0, seen.1);
        if let Some(t) = self.tap.as_deref_mut() {
            let d = Decided {
                info,
                key,
                net,
                action,
                fate,
            };
            t.ingress_post(dp, &d, &self.tap_marks);
        }
    }

    /// The network every packet of a batch maps to, when that needs no
    /// look at any packet: an empty design-select table and a default
    /// network in hardware that is not reconfiguring.
    #[inline]
    fn whole_batch_network(&self, dp: &Dataplane, now_ns: u64) -> Option<u16> {
        if !dp.mapping.is_empty() || dp.wan.any() {
            return None;
        }
        let id = dp.default_network?;
        let f = dp.fast(id)?;
        (f.tier == Tier::Hardware
            && f.dark_until_ns <= now_ns
            && usize::from(id) < self.counters.networks.len())
        .then_some(id)
    }

    #[inline]
    fn hand_to_software(&mut self, pkt: Packet, channel: u8) {
        let net = pkt.network;
        self.counters.stages[Stage::Software as usize].add(pkt.len());
        match self.channels.push(channel, pkt) {
            Ok(()) => self.counters.networks[usize::from(net)].to_software += 1,
            Err(pkt) => self.drop_packet(
                pkt,
                Some(net),
                DropReason::Software(SoftwareDrop::ChannelFull),
            ),
        }
    }

    #[inline(always)]
    fn send_to_output(&mut self, mut pkt: Packet, now_ns: u64) {
        let net = pkt.network;
        if let Err(r) = self.gateway.out(&self.current.wan, net, &mut pkt, now_ns) {
            return self.drop_packet(pkt, Some(net), r);
        }
        self.counters.stages[Stage::Output as usize].add(pkt.len());
        if let Err((pkt, r)) = self.output.enqueue(pkt, now_ns) {
            self.drop_packet(pkt, Some(net), DropReason::Output(r));
        }
    }
}
