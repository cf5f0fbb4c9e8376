//! Packet trace and capture, in the style of VPP's `trace add`: armed for
//! the next `count` packets of one network (or of any), it records what
//! each stage decided for each packet entering the pipeline (the parsed
//! key, the mapping rule and network, the route's action, the verdict) and,
//! for a capture, copies of the frames at ingress and at egress.
//!
//! In: the batch's per-packet decisions, from [`crate::Pipeline::process`]
//! after stage 4, and frames leaving for the wire. Out: [`TapRecord`]s.
//! Config: [`TapRequest`].
//!
//! Off (the normal case) it costs one branch per batch: the pipeline holds
//! an `Option` and looks at nothing else. On, it allocates a record (and a
//! frame copy) per matching packet, until `count` are taken.

use crate::fast::action::Action;
use crate::fast::dataplane::{Dataplane, Tier};
use crate::fast::fate::{Fate, NO_NET};
use crate::fast::packet::Packet;
use crate::fast::reasons::DropReason;
use prism_tables::Key;
use prism_wire::{Ipv4Address, PacketInfo};
use serde::{Deserialize, Serialize};

/// What to record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TapRequest {
    /// Only this network's packets (`None`: every packet, unmapped ones
    /// included).
    pub network: Option<u16>,
    /// Records to take (ingress and egress each count one; a capture takes
    /// at most half of them at ingress, rounded up).
    pub count: usize,
    /// Copy frames (a capture) at ingress and egress; else trace decisions
    /// at ingress only.
    pub capture: bool,
    /// Bytes of each frame kept (a capture).
    pub snaplen: usize,
}

/// Where a record was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum TapPoint {
    /// Entering the pipeline from a wire port.
    Ingress,
    /// Leaving on a wire port.
    Egress,
}

/// One packet seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct TapRecord {
    pub point: TapPoint,
    /// Receive time (ingress) or send time (egress), ns on the caller's clock.
    pub timestamp_ns: u64,
    /// Input port at ingress, output port at egress.
    pub port: u16,
    /// The network, once mapped.
    pub network: Option<u16>,
    /// The frame's length on the wire.
    pub len: usize,
    /// The frame (a capture), at most the snap length, as hex.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub data: String,
    /// Each stage's decision (ingress).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stages: Vec<StageDecision>,
}

/// One stage's decision for one packet: `stage` as the counters name
/// stages, `decision` in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct StageDecision {
    pub stage: String,
    pub decision: String,
}

/// An armed tap collecting records.
#[derive(Debug)]
pub struct Tap {
    pub req: TapRequest,
    pub records: Vec<TapRecord>,
    /// Ingress records taken: a capture's ingress takes at most half of
    /// its count, so that the same packets' frames at egress have room
    /// (a burst of `count` frames in one batch would otherwise fill it with
    /// ingress alone).
    ingress: usize,
}

impl Tap {
    pub fn new(req: TapRequest) -> Self {
        Self {
            req,
            records: Vec::with_capacity(req.count.min(65_536)),
            ingress: 0,
        }
    }

    pub fn full(&self) -> bool {
        self.records.len() >= self.req.count
    }

    /// Whether a packet of `network` is wanted (and room is left).
    pub fn wants(&self, network: Option<u16>) -> bool {
        !self.full() && self.req.network.is_none_or(|n| network == Some(n))
    }

    /// Whether a packet of `network` entering the pipeline is wanted: as
    /// [`Tap::wants`], and for a capture, while ingress holds less than
    /// half of the count (rounded up).
    pub fn wants_ingress(&self, network: Option<u16>) -> bool {
        let room = !self.req.capture || self.ingress < self.req.count.div_ceil(2);
        room && self.wants(network)
    }

    /// The frame as the record keeps it.
    pub fn data(&self, frame: &[u8]) -> String {
        if !self.req.capture {
            return String::new();
        }
        hex(&frame[..frame.len().min(self.req.snaplen)])
    }
}

impl Tap {
    /// After mapping: a record (with the frame as received, for a capture)
    /// for each wanted packet; `marks` gets their batch and record indices.
    pub(crate) fn ingress_pre(
        &mut self,
        batch: &[Packet],
        net: &[u16],
        marks: &mut Vec<(usize, usize)>,
    ) {
        marks.clear();
        for (i, (p, &n)) in batch.iter().zip(net).enumerate() {
            let network = (n != NO_NET).then_some(n);
            if !self.wants_ingress(network) {
                continue;
            }
            self.ingress += 1;
            marks.push((i, self.records.len()));
            self.records.push(TapRecord {
                point: TapPoint::Ingress,
                timestamp_ns: p.timestamp_ns,
                port: p.port,
                network,
                len: p.len(),
                data: self.data(p.data()),
                stages: Vec::new(),
            });
        }
    }

    /// After action processing: each marked packet's stage decisions.
    pub(crate) fn ingress_post(
        &mut self,
        dp: &Dataplane,
        d: &Decided<'_>,
        marks: &[(usize, usize)],
    ) {
        for &(i, r) in marks {
            let stages = decisions(dp, d, i);
            if let Some(rec) = self.records.get_mut(r) {
                rec.stages = stages;
            }
        }
    }

    /// Frames leaving for the wire (a capture).
    pub fn egress(&mut self, out: &[Packet], now_ns: u64) {
        if !self.req.capture {
            return;
        }
        for p in out {
            if !self.wants(Some(p.network)) {
                continue;
            }
            self.records.push(TapRecord {
                point: TapPoint::Egress,
                timestamp_ns: now_ns,
                port: p.port,
                network: Some(p.network),
                len: p.len(),
                data: self.data(p.data()),
                stages: Vec::new(),
            });
        }
    }
}

/// A batch's per-packet state after stage 4.
pub(crate) struct Decided<'a> {
    pub info: &'a [PacketInfo],
    pub key: &'a [Key],
    pub net: &'a [u16],
    pub action: &'a [u32],
    pub fate: &'a [Fate],
}

fn stage(stage: &str, decision: String) -> StageDecision {
    StageDecision {
        stage: stage.into(),
        decision,
    }
}

const FLOODED: &str = "bridge: broadcast, multicast or unknown destination -> flood to \
                       every member but the one it came in by";

/// What each stage decided for packet `i`, as far as it went.
fn decisions(dp: &Dataplane, d: &Decided<'_>, i: usize) -> Vec<StageDecision> {
    let mut v = Vec::new();
    let fate = d.fate[i];
    if let Fate::Drop(_, r @ DropReason::Parse(_)) = fate {
        v.push(stage("parse", format!("dropped: {r}")));
        return v;
    }
    v.push(stage("parse", parsed(&d.info[i].key)));
    let net = d.net[i];
    v.push(stage("mapping", mapped(dp, &d.key[i], net)));
    if net == NO_NET {
        return v;
    }
    match fate {
        Fate::Software(ch) if dp.network(net).is_some_and(|n| n.tier == Tier::Software) => {
            v.push(stage(
                "software",
                format!("software tier: to channel {ch}, the network's router"),
            ));
            return v;
        }
        Fate::Drop(_, r @ DropReason::Match(_)) => {
            v.push(stage("matching", format!("dropped: {r}")));
            return v;
        }
        Fate::Flood => {
            v.push(stage("matching", FLOODED.into()));
            return v;
        }
        _ => {}
    }
    let a = d.action[i];
    let act = dp.network(net).and_then(|n| n.actions.get(a as usize));
    v.push(stage(
        "matching",
        format!("action {a} of the network's table"),
    ));
    v.push(stage(
        "action",
        match (fate, act) {
            (Fate::Drop(_, r), _) => format!("dropped: {r}"),
            (Fate::Output(p), Some(a)) => format!("{}; out port {p}", describe(a)),
            (Fate::Software(ch), Some(a)) => format!("{}; to software channel {ch}", describe(a)),
            _ => "none".into(),
        },
    ));
    v
}

/// What the parse stage read of a frame, in words.
fn parsed(k: &prism_wire::FlowKey) -> String {
    format!(
        "ethertype {:#06x}{} {} -> {} proto {} ports {} -> {}",
        k.ethertype,
        if k.vlan != 0 {
            format!(" vlan {}", k.vlan & 0xfff)
        } else {
            String::new()
        },
        Ipv4Address::from_u32(k.src_ip),
        Ipv4Address::from_u32(k.dst_ip),
        k.proto,
        k.src_port,
        k.dst_port
    )
}

/// Which network the mapping stage chose for `key`, and by which rule.
fn mapped(dp: &Dataplane, key: &Key, net: u16) -> String {
    let name = |n: u16| dp.network(n).map_or("?".to_string(), |x| x.name.clone());
    match (dp.mapping.lookup(key), net) {
        (_, NO_NET) => "dropped: mapping/no-network (no rule matched, no default network)".into(),
        (Some(m), n) => format!(
            "rule {} (priority {}) -> network `{}`",
            m.id,
            m.priority,
            name(n)
        ),
        (None, n) => format!("no rule matched -> default network `{}`", name(n)),
    }
}

/// An action's bits, in words.
fn describe(a: &Action) -> String {
    let mut w = Vec::new();
    if a.decrement_ttl {
        w.push("ttl-1".to_string());
    }
    if let Some(m) = a.set_src_mac {
        w.push(format!("src mac {m}"));
    }
    if let Some(m) = a.set_dst_mac {
        w.push(format!("dst mac {m}"));
    }
    if a.ipip != Default::default() {
        w.push(format!("{:?}", a.ipip).to_lowercase());
    }
    if a.vlan != Default::default() {
        w.push(format!("{:?}", a.vlan).to_lowercase());
    }
    if let Some(s) = &a.payload {
        w.push(format!("{s:?}").to_lowercase());
    }
    if w.is_empty() {
        "forward".into()
    } else {
        w.join(", ")
    }
}

/// Lower-case hex of `b`.
pub fn hex(b: &[u8]) -> String {
    ::hex::encode(b)
}

/// The bytes of hex text `s`, or `None` if it is not hex of whole bytes.
pub fn unhex(s: &str) -> Option<Vec<u8>> {
    ::hex::decode(s).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_refuses_odd_text() {
        let b = [0u8, 1, 0xab, 0xff];
        assert_eq!(hex(&b), "0001abff");
        assert_eq!(unhex("0001abff").unwrap(), b);
        assert_eq!(unhex("0001ABFF").unwrap(), b);
        assert!(unhex("abc").is_none());
        assert!(unhex("zz").is_none());
    }

    /// Two VLAN networks; a trace of network 1 takes its packets only, with
    /// each stage's decision, and a capture keeps the frame as received and
    /// as sent (TTL and MACs rewritten, VLAN popped).
    #[test]
    fn the_pipeline_traces_and_captures_one_networks_packets() {
        use crate::{Pipeline, PipelineConfig, fixtures};
        let s = fixtures::vlan_networks(2, 4);
        let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
        let frames = fixtures::vlan_traffic(2, 6, 64);
        let run = |p: &mut Pipeline| {
            let mut batch: Vec<Packet> = frames
                .iter()
                .enumerate()
                .map(|(i, f)| p.pool.packet(f, 0, 100 + i as u64).unwrap())
                .collect();
            p.process(&mut batch, 1000);
            let mut out = Vec::new();
            p.transmit(1, usize::MAX, &mut out);
            p.tap_egress(&out, 2000);
            out.len()
        };
        // Off: nothing recorded, all forwarded.
        assert!(!p.tapping());
        assert_eq!(run(&mut p), 6);
        assert!(p.take_tap().is_empty());

        p.arm_tap(TapRequest {
            network: Some(1),
            count: 2,
            capture: false,
            snaplen: 0,
        });
        run(&mut p);
        assert!(p.tap_full());
        let t = p.take_tap();
        assert!(!p.tapping());
        assert_eq!(t.len(), 2);
        for r in &t {
            assert_eq!(
                (r.point, r.network, r.data.as_str()),
                (TapPoint::Ingress, Some(1), "")
            );
            let names: Vec<&str> = r.stages.iter().map(|s| s.stage.as_str()).collect();
            assert_eq!(names, ["parse", "mapping", "matching", "action"], "{r:?}");
            assert!(r.stages[0].decision.contains("vlan 2"), "{r:?}");
            assert!(r.stages[1].decision.contains("network `net1`"), "{r:?}");
            assert!(
                r.stages[3].decision.contains("ttl-1")
                    && r.stages[3].decision.contains("out port 1"),
                "{r:?}"
            );
        }
        // Frames 1, 3, 5 are network 1's.
        assert_eq!((t[0].timestamp_ns, t[1].timestamp_ns), (101, 103));

        p.arm_tap(TapRequest {
            network: Some(0),
            count: 100,
            capture: true,
            snaplen: 2048,
        });
        run(&mut p);
        let t = p.take_tap();
        let ins: Vec<_> = t.iter().filter(|r| r.point == TapPoint::Ingress).collect();
        let outs: Vec<_> = t.iter().filter(|r| r.point == TapPoint::Egress).collect();
        assert_eq!((ins.len(), outs.len()), (3, 3));
        assert_eq!(unhex(&ins[0].data).unwrap(), frames[0]);
        let sent = unhex(&outs[0].data).unwrap();
        assert_eq!(sent.len(), frames[0].len() - 4, "the VLAN tag popped");
        assert_eq!(&sent[..6], &[2, 0, 0, 0, 0xfe, 2]);
        assert_eq!((outs[0].port, outs[0].timestamp_ns), (1, 2000));
    }

    /// A capture of 4 records over a burst of 6 of its network's packets in
    /// one batch: 2 at ingress, 2 at egress (not 4 at ingress and none out).
    #[test]
    fn a_capture_of_a_burst_keeps_room_for_its_frames_at_egress() {
        use crate::{Pipeline, PipelineConfig, fixtures};
        let s = fixtures::vlan_networks(1, 4);
        let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
        let mut batch: Vec<Packet> = fixtures::vlan_traffic(1, 6, 64)
            .iter()
            .map(|f| p.pool.packet(f, 0, 100).unwrap())
            .collect();
        p.arm_tap(TapRequest {
            network: Some(0),
            count: 4,
            capture: true,
            snaplen: 64,
        });
        p.process(&mut batch, 1000);
        let mut out = Vec::new();
        p.transmit(1, usize::MAX, &mut out);
        p.tap_egress(&out, 2000);
        let points: Vec<TapPoint> = p.take_tap().iter().map(|r| r.point).collect();
        use TapPoint::{Egress, Ingress};
        assert_eq!(points, [Ingress, Ingress, Egress, Egress]);
    }

    #[test]
    fn a_tap_takes_its_networks_packets_until_full() {
        let mut t = Tap::new(TapRequest {
            network: Some(3),
            count: 1,
            capture: true,
            snaplen: 2,
        });
        assert!(!t.wants(Some(2)) && !t.wants(None) && t.wants(Some(3)));
        assert_eq!(t.data(&[1, 2, 3]), "0102");
        t.records.push(TapRecord {
            point: TapPoint::Ingress,
            timestamp_ns: 0,
            port: 0,
            network: Some(3),
            len: 3,
            data: String::new(),
            stages: vec![],
        });
        assert!(t.full() && !t.wants(Some(3)));
    }
}
