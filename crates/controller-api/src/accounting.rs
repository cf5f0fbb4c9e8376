//! The bodies of the accounting API: usage reports and the audit log.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One line of a usage report: a user's bookings of one tier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct UsageLine {
    pub user: String,
    /// `hardware`, `software`, or the resource type for other bookings.
    pub tier: String,
    pub bookings: i64,
    /// Hours provisioned, within the report's range.
    pub resource_hours: f64,
    /// Mbit/s × hours guaranteed, within the range.
    pub bandwidth_mbps_hours: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct UsageReport {
    pub project: String,
    pub from_ms: i64,
    pub to_ms: i64,
    pub lines: Vec<UsageLine>,
    pub total_resource_hours: f64,
    pub total_bandwidth_mbps_hours: f64,
    /// The project's bucket on the storage service: bytes held over the
    /// period, in byte-hours (the integral of its size).
    #[serde(default)]
    pub storage_byte_hours: f64,
}

impl UsageReport {
    pub fn to_csv(&self) -> String {
        let mut s =
            String::from("project,user,tier,bookings,resource_hours,bandwidth_mbps_hours\n");
        for l in &self.lines {
            s.push_str(&format!(
                "{},{},{},{},{:.4},{:.4}\n",
                self.project, l.user, l.tier, l.bookings, l.resource_hours, l.bandwidth_mbps_hours
            ));
        }
        s
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AuditEntry {
    pub id: String,
    pub at_ms: i64,
    /// The user name, or `anonymous`.
    pub principal: String,
    pub method: String,
    pub path: String,
    pub status: i64,
    /// What the call was beyond its method and path: `admin-override:
    /// project P, RESOURCE` when an administrator acted in a project
    /// beyond what a membership of theirs would allow (not a member, a
    /// role without the operation, not the resource's creator or an
    /// owner).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Which page of the audit log (`GET /v1/audit`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    /// The `next` of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// Entries per page (1-1000, default 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// Newest first (default: oldest first).
    #[serde(default)]
    pub newest_first: bool,
    /// Only this principal's entries (a user's name, `anonymous`, `node:NAME`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub principal: Option<String>,
    /// Only entries whose path contains this (any case).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}
