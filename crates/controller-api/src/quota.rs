//! A project's quota as it stands.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// OpenStack's quota detail: in use (provisioned), held (allocated, not
/// yet provisioned) and the limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct QuotaUse {
    pub used: i64,
    pub reserved: i64,
    pub limit: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct QuotaView {
    pub service_level: String,
    pub hw_networks: QuotaUse,
    pub sw_networks: QuotaUse,
    pub bandwidth_mbps: QuotaUse,
    pub lease_hours: QuotaUse,
    /// Public addresses held (the gateway service).
    pub public_addresses: QuotaUse,
}
