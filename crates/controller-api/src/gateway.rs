//! The bodies of the gateway API: leasing public addresses (and MACs).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Lease a public address for a host of a booking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PublicAddressRequest {
    /// The booking's id (a provisioned network of the project).
    pub booking: String,
    /// The host inside the network the address stands for: its IPv4
    /// address (a routed network: a public address) or its MAC (a bridge
    /// network on one node: a public MAC, from the node's MAC pool).
    pub internal: String,
    /// The node whose pool the address comes from: for a network spanning
    /// nodes, the node of the part the host is on (required); else the
    /// booking's node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The lease's length (default and most: to the booking's end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_s: Option<i64>,
}

/// A public address's lease.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PublicAddress {
    /// An IPv4 address (`kind` "ipv4"), or a MAC (`kind` "mac": a public
    /// MAC standing for a bridge network's host).
    pub address: String,
    pub kind: String,
    pub booking: String,
    pub node: String,
    pub internal: String,
    pub user: String,
    pub created_ms: i64,
    pub expires_ms: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub released_ms: Option<i64>,
}
