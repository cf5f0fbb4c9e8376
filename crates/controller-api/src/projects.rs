//! The bodies of the projects API: service levels, projects and members
//! (shared by the application layer and the datastore).

use crate::bookings::Role;
use crate::operation::Operation;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A service level: allowed operations and quotas.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ServiceLevel {
    pub name: String,
    pub operations: Vec<Operation>,
    /// Networks in the hardware tier (one slot each).
    pub max_hw_networks: i64,
    pub max_sw_networks: i64,
    /// Total guaranteed bandwidth of the project's current bookings.
    pub max_bandwidth_mbps: i64,
    /// Hours booked by the project's current bookings, added up (FABRIC's
    /// quotas in resource-hours).
    pub max_lease_hours: i64,
    /// The longest a lease may run from now (a renewal is clamped to it).
    pub max_lease_s: i64,
    pub default_lease_s: i64,
    /// Public addresses the project holds at once (the gateway service).
    #[serde(default = "default_public_addresses")]
    pub max_public_addresses: i64,
    /// Bytes the project's bucket holds at most (the storage service).
    #[serde(default = "default_storage_bytes")]
    pub max_storage_bytes: i64,
}

fn default_public_addresses() -> i64 {
    4
}

fn default_storage_bytes() -> i64 {
    10 << 30
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProjectRequest {
    pub name: String,
    pub service_level: String,
    /// The user who becomes its owner.
    pub owner: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ProjectView {
    pub id: String,
    pub name: String,
    pub service_level: String,
    /// The caller's role (absent for an administrator who is not a member).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    pub created_ms: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MemberRequest {
    pub role: Role,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MemberView {
    pub user: String,
    pub role: Role,
}

/// The service level every new controller has.
pub const STANDARD: &str = "standard";

impl ServiceLevel {
    pub fn standard() -> Self {
        Self {
            name: STANDARD.into(),
            operations: Operation::ALL.to_vec(),
            max_hw_networks: 4,
            max_sw_networks: 16,
            max_bandwidth_mbps: 1000,
            max_lease_hours: 24 * 60,
            // FABRIC: 24 h by default, at most 15 days.
            max_lease_s: 15 * 24 * 3600,
            default_lease_s: 24 * 3600,
            max_public_addresses: default_public_addresses(),
            max_storage_bytes: default_storage_bytes(),
        }
    }
}
