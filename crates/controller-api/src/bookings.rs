//! The bookings' bodies: requests, views, states, parts, pages and the
//! registry's resource types.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// GENI AM API v3's allocation states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum AllocationState {
    /// Held for a short time (`hold`): capacity and quota are taken.
    Allocated,
    /// Applied to a node.
    Provisioned,
    /// Released or expired: nothing is held.
    Unallocated,
}

/// GENI AM API v3's operational states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum OperationalState {
    /// Not yet on a node, or being applied.
    Pending,
    /// Forwarding on its node.
    Ready,
    /// Stopped by its users (`stop`): booked, not on the node.
    Stopped,
    /// The node refused or could not be reached; `error` says why.
    Failed,
}

macro_rules! str_enum {
    ($t:ty { $($v:ident = $s:literal),* $(,)? }) => {
        impl $t {
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$v => $s),* }
            }
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($s => Some(Self::$v),)* _ => None }
            }
        }
    };
}
str_enum!(AllocationState { Allocated = "allocated", Provisioned = "provisioned", Unallocated = "unallocated" });
str_enum!(OperationalState { Pending = "pending", Ready = "ready", Stopped = "stopped", Failed = "failed" });

/// A member's role in a project (VANI's plan administrator levels).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Everything in the project, other members' bookings included.
    Owner,
    /// Books, and renews, stops and releases their own bookings.
    Member,
    /// Reads bookings and usage.
    Viewer,
}
str_enum!(Role { Owner = "owner", Member = "member", Viewer = "viewer" });

/// A booking: a lease on a resource, with a UUID.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Booking {
    pub id: String,
    pub project: String,
    /// The user who booked it.
    pub user: String,
    pub name: String,
    /// A registered resource type (`network`).
    #[serde(rename = "type")]
    pub resource_type: String,
    pub allocation_state: AllocationState,
    pub operational_state: OperationalState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `hardware` or `software`, once placed (an `auto` request is placed
    /// by the placement library).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<prism_placement::Tier>,
    /// The guaranteed bandwidth, enforced as the node's rate limit.
    pub bandwidth_mbps: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The network's name on its node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_network: Option<String>,
    /// The project's VLAN that maps packets to this network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vlan: Option<i64>,
    /// Unix ms.
    pub created_ms: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioned_ms: Option<i64>,
    /// The lease's end (Unix ms); an allocated booking's hold ends earlier.
    pub expires_ms: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub released_ms: Option<i64>,
    /// The resource's parameters (for a network, its document as asked).
    pub spec: serde_json::Value,
    /// Its generation: 1 as booked, one more for each change accepted
    /// (`PATCH`; the history at `…/changes`).
    #[serde(default = "first_generation")]
    pub generation: i64,
    /// A network spanning nodes: its parts (`node` is the first part's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<PartView>,
    /// A bridged network's S-tag on the wide area (802.1ad), unique.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub s_tag: Option<i64>,
    /// Outgoing NAT through its node's gateway.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nat: bool,
    /// A change to it (provision, start, stop, release, expiry) is not yet
    /// taken by its node(s): a released network may still be on its node
    /// (the node's `last_error` says why); the controller converges the
    /// node in the background.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub converging: bool,
    /// A processing node's ssh, through its node (`host:port`;
    /// `prism ctl ssh BOOKING`), as its node last reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ssh: Option<String>,
    /// A processing node's own host keys (`ssh-ed25519 AAAA…`): the first
    /// connection checks them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub host_keys: Vec<String>,
    /// Internal ids (not in the API): the booker's, the project's, the node's;
    /// and the lease asked for, which provisioning starts.
    #[serde(skip)]
    #[doc(hidden)]
    pub ids: BookingIds,
}

fn first_generation() -> i64 {
    1
}

/// A booking's internal ids (the controller's, never in the API).
#[doc(hidden)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BookingIds {
    pub user: String,
    pub project: String,
    pub node: Option<String>,
    pub lease_s: i64,
}

/// A booking request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BookingRequest {
    /// Unique among the project's current bookings.
    pub name: String,
    #[serde(rename = "type", default = "network_type")]
    pub resource_type: String,
    /// For a network: the fields of a network document without `name`;
    /// the controller adds its VLAN mapping and rate limit.
    pub spec: serde_json::Value,
    /// The bandwidth to guarantee, Mbit/s (at least 1).
    pub bandwidth_mbps: i64,
    /// The lease's length in seconds (default: the service level's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_s: Option<i64>,
    /// Apply it to a node now (allocate and provision in one call).
    #[serde(default)]
    pub provision: bool,
    /// A network spanning nodes over the wide area: one part per node
    /// (docs/wan.md); none for a network on one node placed by the controller.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<PartRequest>,
    /// The gateway service's outgoing NAT (docs/wan.md): the network's
    /// hosts reach the wide area from their node's WAN address, by a
    /// default route the controller adds unless the spec routes
    /// 0.0.0.0/0 itself. Its node (each part's) needs a gateway: a WAN
    /// port with a router beyond it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nat: bool,
}

impl BookingRequest {
    /// A network on one node placed by the controller, allocated only
    /// (`provision` to apply it at once), with the service level's lease.
    pub fn network(name: impl Into<String>, spec: serde_json::Value, bandwidth_mbps: i64) -> Self {
        Self {
            name: name.into(),
            resource_type: network_type(),
            spec,
            bandwidth_mbps,
            lease_s: None,
            provision: false,
            parts: Vec::new(),
            nat: false,
        }
    }
}

fn network_type() -> String {
    "network".into()
}

/// A part of a network that spans nodes, as asked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PartRequest {
    /// The node's name; absent (or empty): the controller chooses one, up,
    /// with a WAN port and room, named by no other part, the least loaded
    /// first.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub node: String,
    /// The part's own routes (the network document's `route` entries):
    /// their prefixes are what the other parts send to this one. None for
    /// a bridged network (`forwarding = "bridge"`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub route: Vec<prism_netdoc::RouteDoc>,
    /// A bridged network's port on the node for its frames (default: the
    /// node's first port that is not its WAN port).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
}

impl BookingRequest {
    /// A network's booking from the spec file `file` (`prism ctl book`),
    /// an error naming the file (and its line and field).
    pub fn from_spec_file(
        name: &str,
        file: &std::path::Path,
        bandwidth_mbps: i64,
        lease_s: Option<i64>,
    ) -> Result<Self, String> {
        let at = file.display().to_string();
        let text = std::fs::read_to_string(file).map_err(|e| format!("reading {at}: {e}"))?;
        let spec = prism_netdoc::from_file_text(&at, &text).map_err(|e| format!("{at}: {e}"))?;
        Self::from_spec(name, spec, bandwidth_mbps, lease_s).map_err(|e| format!("{at}: {e}"))
    }

    /// A network's booking from a spec file's body (`prism ctl book`): the
    /// network document, whose `part` entries (`[[part]]` in TOML) are
    /// taken out as the booking's parts (docs/wan.md).
    pub fn from_spec(
        name: &str,
        mut spec: serde_json::Value,
        bandwidth_mbps: i64,
        lease_s: Option<i64>,
    ) -> Result<Self, prism_netdoc::DocError> {
        let parts = match spec.as_object_mut().and_then(|o| o.remove("part")) {
            Some(p) => serde_json::from_value(p)
                .map_err(|e| prism_netdoc::DocError::new("part", e.to_string()))?,
            None => Vec::new(),
        };
        Ok(Self {
            name: name.to_string(),
            resource_type: "network".into(),
            spec,
            bandwidth_mbps,
            lease_s,
            provision: true,
            parts,
            nat: false,
        })
    }
}

/// A part of a booked network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PartView {
    pub node: String,
    /// The prefixes the other parts route to it.
    pub prefixes: Vec<String>,
    /// Its tunnel source address on the wide area (a routed network's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tunnel: Option<String>,
}

/// A renewal: a new end, in seconds from now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RenewRequest {
    pub lease_s: i64,
}

/// What a renewal granted: the service level may clamp it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Renewed {
    pub expires_ms: i64,
    /// Whether the end granted is earlier than asked.
    pub clamped: bool,
}

/// An operational action (GENI's PerformOperationalAction).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Start,
    Stop,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionRequest {
    pub action: Action,
}

/// A page of a list: `next` is the cursor for `?after=`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Page<T> {
    pub items: Vec<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// VANI's generic interface: every type is got and released; `program`
/// loads a configuration; `operate` is a generic operation with free-form
/// parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum GenericOp {
    Get,
    Release,
    Program,
    Operate,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResourceType {
    pub name: String,
    pub description: String,
    /// A JSON Schema (draft 2020-12 unless `$schema` says otherwise) that a
    /// booking's `spec` must satisfy.
    pub schema: serde_json::Value,
    pub operations: Vec<GenericOp>,
    /// Built into the controller (not removable).
    #[serde(default)]
    pub builtin: bool,
}

/// What a provisioned booking's network has forwarded on its node, read
/// by the controller with its own credential for the node: counters since
/// the network was placed there (a rate is two readings' difference over
/// `at_ms`'s).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct BookingCounters {
    /// The node read.
    pub node: String,
    /// The network's name on that node.
    pub network: String,
    /// When the controller had the node's answer (Unix ms).
    pub at_ms: i64,
    pub rx_packets: u64,
    pub rx_bytes: u64,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    /// Packets dropped, all reasons together.
    pub dropped: u64,
    /// Packets dropped by `stage/reason` (the node's named drop reasons).
    pub drops: std::collections::BTreeMap<String, u64>,
}

/// Which of a project's bookings to list (`GET …/bookings`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Released bookings too.
    #[serde(default)]
    pub all: bool,
    /// The `next` of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// Items per page (1-1000, default 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// Only bookings whose name contains this (any case).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Only bookings in this allocation or operational state (`ready`,
    /// `stopped`, `failed`, `allocated`, …; `unallocated` lists released ones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
}
