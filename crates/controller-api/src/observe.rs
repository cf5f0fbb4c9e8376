//! Seeing into what runs: a node's hardware tier as the portal draws it,
//! its event log, and a booking's packets traced through the stages.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One slot (region) of a node's device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SlotView {
    pub slot: usize,
    /// `active` (a network's module), `loading` (a module being loaded:
    /// a reconfiguration started and not yet done), `gated` (a module no
    /// network uses, clock-gated) or `blank`.
    pub state: String,
    /// The network in it, by its name on the node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<String>,
    /// The booking and project of that network, when the controller booked it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub booking: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// The module: the network's forwarding (`destination`, `rules`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    /// The region's power, mW (the device profile's model).
    pub mw: f64,
}

/// A node's hardware tier now. Power is the device profile's model, never
/// measured: Prism runs no FPGA.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NodeHardware {
    pub node: String,
    pub device: String,
    pub slots: Vec<SlotView>,
    /// The whole device, mW (model).
    pub total_mw: f64,
    /// The device's static power and its static region's, mW (model).
    pub device_static_mw: f64,
    pub static_region_mw: f64,
    /// Where the model's figures come from.
    pub source: String,
}

/// Trace the next packets of a booking's network.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceRequest {
    /// Packets (1 to 1,000).
    pub count: usize,
    /// How long to wait for them, ms (default 5,000, at most 30,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// Capture the next frames of a booking's network (a pcapng file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CaptureRequest {
    /// Frames (1 to 1,000); ingress and egress count one each, at most
    /// half of them (rounded up) at ingress.
    pub count: usize,
    /// Bytes kept a frame (default and at most 2,048).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snaplen: Option<usize>,
    /// How long to wait for them, ms (default 5,000, at most 30,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}
