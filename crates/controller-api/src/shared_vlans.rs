//! Shared VLANs (VANI's fabric: experiments that agree intercommunicate
//! over a shared virtual LAN): a booking of type `shared-vlan`, the
//! projects its owner invites, and what an invited project sees of it.
//! Processing nodes of the owner and of the invited projects attach to
//! it; frames cross between them and nowhere else.

use crate::bookings::BookingRequest;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The resource type's name.
pub const SHARED_VLAN: &str = "shared-vlan";

/// A shared VLAN's parameters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SharedVlanSpec {
    /// The node it is on (one that runs processing nodes); the first by
    /// name that does when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
}

/// The type's JSON Schema, as the registry lists it.
pub fn schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {"node": {"type": "string"}}
    })
}

/// A project invited to a shared VLAN, as its owner sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct VlanMember {
    /// The invited project's name.
    pub project: String,
    /// Who invited it (a user of the owning project).
    pub invited_by: String,
    pub invited_ms: i64,
}

/// A shared VLAN a project is invited to, as the invited project sees
/// it: enough to attach to it (`spec.attach[].network` =
/// `OWNER/NAME`), nothing else of the owner's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SharedVlanView {
    /// The shared VLAN's booking id.
    pub id: String,
    /// Its name in the owning project.
    pub name: String,
    /// The owning project's name.
    pub owner: String,
    /// What a processing booking attaches to: `OWNER/NAME`.
    pub attach_as: String,
    /// The node it is on.
    pub node: Option<String>,
    pub vlan: Option<i64>,
    pub invited_ms: i64,
}

impl BookingRequest {
    /// A shared VLAN's booking, provisioned at once.
    pub fn shared_vlan(name: &str, node: Option<&str>, lease_s: Option<i64>) -> Self {
        let spec = SharedVlanSpec {
            node: node.map(str::to_string),
        };
        Self {
            name: name.to_string(),
            resource_type: SHARED_VLAN.into(),
            spec: serde_json::to_value(spec).unwrap_or_default(),
            bandwidth_mbps: 0,
            lease_s,
            provision: true,
            parts: Vec::new(),
            nat: false,
        }
    }
}
