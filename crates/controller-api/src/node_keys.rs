//! The bodies of the node-key API: the keys nodes register with.

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
