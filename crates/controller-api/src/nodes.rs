//! The nodes' bodies: registration by address, and a node as the
//! administrators see it.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeRequest {
    pub name: String,
    /// The node API's TCP address (`prism node --api-listen`).
    pub address: String,
    /// Aggregate bandwidth of its hardware and software tiers, Mbit/s
    /// (paper 000: 1000 and 100).
    #[serde(default = "default_hw")]
    pub hw_mbps: i64,
    #[serde(default = "default_sw")]
    pub sw_mbps: i64,
}

fn default_hw() -> i64 {
    1000
}
fn default_sw() -> i64 {
    100
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NodeView {
    pub id: String,
    pub name: String,
    pub address: String,
    /// The node's device profile (a model of an FPGA).
    pub device: String,
    pub slots: i64,
    pub hw_mbps: i64,
    pub sw_mbps: i64,
    pub ports: Vec<String>,
    /// Desired state's generation, and the last the node converged to.
    pub generation: i64,
    pub applied_generation: i64,
    pub last_seen_ms: i64,
    /// Heard from within the node timeout.
    pub up: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// Its uplink to the wide area, as it reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wan: Option<prism_node_api::WanInfo>,
    /// Booked on it: hardware slots, and Mbit/s per tier.
    pub used_slots: i64,
    pub used_hw_mbps: i64,
    pub used_sw_mbps: i64,
}
