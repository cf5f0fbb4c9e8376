//! Counters per network and per stage.
//!
//! The fast path increments plain integers owned by its pipeline: no atomics,
//! no locks. Readers get a [`CounterSnapshot`] copied between batches.

use crate::fast::reasons::DropReason;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Counters of one network.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct NetworkCounters {
    pub rx_packets: u64,
    pub rx_bytes: u64,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub to_software: u64,
    pub from_software: u64,
    #[serde(skip, default = "no_drops")]
    pub drops: [u64; DropReason::COUNT],
}

fn no_drops() -> [u64; DropReason::COUNT] {
    [0; DropReason::COUNT]
}

impl Default for NetworkCounters {
    fn default() -> Self {
        Self {
            rx_packets: 0,
            rx_bytes: 0,
            tx_packets: 0,
            tx_bytes: 0,
            to_software: 0,
            from_software: 0,
            drops: [0; DropReason::COUNT],
        }
    }
}

impl NetworkCounters {
    #[inline]
    pub fn drop(&mut self, r: DropReason) {
        self.drops[r.index()] += 1;
    }

    /// Counts `n` drops for `r` at once.
    pub fn drop_n(&mut self, r: DropReason, n: u64) {
        self.drops[r.index()] += n;
    }

    pub fn dropped(&self) -> u64 {
        self.drops.iter().sum()
    }

    /// Non-zero drop counters by name (`stage/reason`).
    pub fn drop_list(&self) -> BTreeMap<String, u64> {
        DropReason::all()
            .filter(|r| self.drops[r.index()] > 0)
            .map(|r| (r.to_string(), self.drops[r.index()]))
            .collect()
    }
}

/// The pipeline's stages, for per-stage counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Parse,
    Mapping,
    Matching,
    Action,
    Software,
    Output,
}

impl Stage {
    pub const ALL: [Stage; 6] = [
        Stage::Parse,
        Stage::Mapping,
        Stage::Matching,
        Stage::Action,
        Stage::Software,
        Stage::Output,
    ];
    pub const fn as_str(self) -> &'static str {
        match self {
            Stage::Parse => "parse",
            Stage::Mapping => "mapping",
            Stage::Matching => "matching",
            Stage::Action => "action",
            Stage::Software => "software",
            Stage::Output => "output",
        }
    }
}

/// Packets and bytes that entered a stage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct StageCount {
    pub packets: u64,
    pub bytes: u64,
}

impl StageCount {
    #[inline]
    pub fn add(&mut self, bytes: usize) {
        self.packets += 1;
        self.bytes += bytes as u64;
    }

    /// A batch's worth at once: the fast path sums its stage's packets in
    /// registers and writes the counter once per batch.
    #[inline]
    pub fn add_batch(&mut self, packets: usize, bytes: u64) {
        self.packets += packets as u64;
        self.bytes += bytes;
    }
}

/// All counters of a pipeline.
#[derive(Debug, Clone, Default)]
pub struct Counters {
    /// What entered each stage, indexed by `Stage as usize`.
    pub stages: [StageCount; 6],
    /// Frames received, before parsing.
    pub rx_packets: u64,
    pub rx_bytes: u64,
    /// Drops before a network was known (parse, mapping).
    pub unmapped: NetworkCounters,
    /// By network id.
    pub networks: Vec<NetworkCounters>,
}

impl Counters {
    pub fn ensure(&mut self, networks: usize) {
        if self.networks.len() < networks {
            self.networks
                .resize_with(networks, NetworkCounters::default);
        }
    }

    /// Total drops per reason over everything.
    pub fn drops_by_reason(&self) -> Vec<(DropReason, u64)> {
        DropReason::all()
            .map(|r| {
                (
                    r,
                    self.unmapped.drops[r.index()]
                        + self
                            .networks
                            .iter()
                            .map(|n| n.drops[r.index()])
                            .sum::<u64>(),
                )
            })
            .filter(|(_, n)| *n > 0)
            .collect()
    }
}

/// A copy of the counters with network names, for reports.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct CounterSnapshot {
    pub rx_packets: u64,
    pub rx_bytes: u64,
    pub networks: Vec<NamedCounters>,
    /// Drops before a network was known, by `stage/reason`.
    pub unmapped_drops: BTreeMap<String, u64>,
    /// Per stage: name, packets and bytes that entered it, and drops.
    pub stages: Vec<StageReport>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct StageReport {
    pub stage: String,
    pub packets: u64,
    pub bytes: u64,
    pub dropped: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct NamedCounters {
    pub id: u16,
    pub name: String,
    pub tier: String,
    #[serde(flatten)]
    pub counters: NetworkCounters,
    pub dropped: u64,
    /// Drops by `stage/reason`.
    pub drops: BTreeMap<String, u64>,
}

fn merge_named(into: &mut BTreeMap<String, u64>, from: &BTreeMap<String, u64>) {
    for (name, n) in from {
        *into.entry(name.clone()).or_default() += n;
    }
}

impl CounterSnapshot {
    /// Adds `other` (another pipeline of the same node) into `self`.
    pub fn merge(&mut self, other: &CounterSnapshot) {
        self.rx_packets += other.rx_packets;
        self.rx_bytes += other.rx_bytes;
        for o in &other.networks {
            match self.networks.iter_mut().find(|n| n.id == o.id) {
                Some(n) => {
                    let (a, b) = (&mut n.counters, &o.counters);
                    a.rx_packets += b.rx_packets;
                    a.rx_bytes += b.rx_bytes;
                    a.tx_packets += b.tx_packets;
                    a.tx_bytes += b.tx_bytes;
                    a.to_software += b.to_software;
                    a.from_software += b.from_software;
                    for (x, y) in a.drops.iter_mut().zip(b.drops.iter()) {
                        *x += y;
                    }
                    n.dropped += o.dropped;
                    merge_named(&mut n.drops, &o.drops);
                }
                None => self.networks.push(o.clone()),
            }
        }
        merge_named(&mut self.unmapped_drops, &other.unmapped_drops);
        for (s, o) in self.stages.iter_mut().zip(other.stages.iter()) {
            s.packets += o.packets;
            s.bytes += o.bytes;
            s.dropped += o.dropped;
        }
    }
}
