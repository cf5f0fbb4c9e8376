//! The bodies of the node-key API: the keys nodes register with; and the
//! controller's own client certificates, which nodes accept it by.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeKeyRequest {
    /// The name the node will register under (`prism node --node-name`).
    pub node: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NodeKeyView {
    pub id: String,
    pub node: String,
    pub created_ms: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_used_ms: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked_ms: Option<i64>,
    /// The key itself (`prn_…`): in the answer that makes it, never again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// A client certificate a controller replica presents to nodes (made by
/// the CA, remade daily): revoke one whose key may have leaked, and every
/// node refuses it within a heartbeat (the revocation list the heartbeat
/// carries); the replica using it takes a new one at once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ControllerCertView {
    /// Its serial number, in hex.
    pub serial: String,
    /// The replica that made it (a UUID of its process).
    pub replica: String,
    pub created_ms: i64,
    pub not_after_ms: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked_ms: Option<i64>,
}
