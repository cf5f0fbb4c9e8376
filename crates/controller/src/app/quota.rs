//! Quotas per project: networks per tier, total guaranteed bandwidth and
//! lease-hours, counted over the project's current bookings inside the
//! booking transaction (so parallel requests never over-book).

use crate::app::authz::{Operation, Principal};
use crate::app::context::Context;
use crate::app::projects::{ServiceLevel, project_level_for};
use crate::datastore::bookings;
use crate::error::{Error, QuotaDetail, Result};
use crate::infra::db::Tx;
use prism_placement::Tier;

pub use prism_controller_api::quota::{QuotaUse, QuotaView};

/// Refuses with 409 and the numbers unless `tier` one more network,
/// `mbps` more bandwidth and `lease_s` more hours fit the quota.
pub(crate) async fn check_quota(
    tx: &mut Tx,
    project_id: &str,
    level: &ServiceLevel,
    tier: Option<Tier>,
    mbps: i64,
    lease_s: i64,
) -> Result<()> {
    let (u, h) = bookings::counts(&mut **tx, project_id).await?;
    let mut checks = vec![
        (
            "bandwidth_mbps",
            level.max_bandwidth_mbps,
            u.mbps + h.mbps,
            mbps,
        ),
        (
            "lease_hours",
            level.max_lease_hours,
            u.hours + h.hours,
            hours_up(lease_s * 1000),
        ),
    ];
    match tier {
        Some(Tier::Hardware) => {
            checks.insert(0, ("hw_networks", level.max_hw_networks, u.hw + h.hw, 1))
        }
        Some(Tier::Software) => {
            checks.insert(0, ("sw_networks", level.max_sw_networks, u.sw + h.sw, 1))
        }
        None => {}
    }
    for (resource, limit, used, requested) in checks {
        if requested > 0 && used.saturating_add(requested) > limit {
            return Err(Error::quota(QuotaDetail {
                resource: resource.into(),
                limit,
                used,
                requested,
            }));
        }
    }
    Ok(())
}

pub async fn quota(cx: &Context, p: &Principal, project: &str) -> Result<QuotaView> {
    let (m, level) = project_level_for(cx, p, project, Operation::BookingsRead).await?;
    let (u, h) = bookings::counts(&cx.pool, &m.project_id).await?;
    let q = |used, reserved, limit| QuotaUse {
        used,
        reserved,
        limit,
    };
    Ok(QuotaView {
        service_level: level.name.clone(),
        hw_networks: q(u.hw, h.hw, level.max_hw_networks),
        sw_networks: q(u.sw, h.sw, level.max_sw_networks),
        bandwidth_mbps: q(u.mbps, h.mbps, level.max_bandwidth_mbps),
        lease_hours: q(u.hours, h.hours, level.max_lease_hours),
        public_addresses: q(
            crate::datastore::public_addresses::count_active(&cx.pool, &m.project_id).await?,
            0,
            level.max_public_addresses,
        ),
    })
}

/// Hours, rounded up, of `ms`.
pub(crate) fn hours_up(ms: i64) -> i64 {
    ms.max(0).saturating_add(3_599_999) / 3_600_000
}
