//! Counters and traces as the API reports them: the node converts its
//! pipelines' counters and tap records into these (the fast path's own
//! types keep their drop arrays and port numbers), so the API, its
//! clients and its spec link no pipeline.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use utoipa::ToSchema;

/// Counters of one network.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct NetworkCounters {
    pub rx_packets: u64,
    pub rx_bytes: u64,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub to_software: u64,
    pub from_software: u64,
}

/// A copy of the counters with network names, for reports.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CounterSnapshot {
    pub rx_packets: u64,
    pub rx_bytes: u64,
    pub networks: Vec<NamedCounters>,
    /// Drops before a network was known, by `stage/reason`.
    pub unmapped_drops: BTreeMap<String, u64>,
    /// Per stage: name, packets and bytes that entered it, and drops.
    pub stages: Vec<StageReport>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct StageReport {
    pub stage: String,
    pub packets: u64,
    pub bytes: u64,
    pub dropped: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
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

/// Where a record was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TapPoint {
    /// Entering the pipeline from a wire port.
    Ingress,
    /// Leaving on a wire port.
    Egress,
}

/// One stage's decision for one packet: `stage` as the counters name
/// stages, `decision` in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct StageDecision {
    pub stage: String,
    pub decision: String,
}
