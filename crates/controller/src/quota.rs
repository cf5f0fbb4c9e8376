//! Quotas per project: networks per tier, total guaranteed bandwidth and
//! lease-hours, counted over the project's current bookings inside the
//! booking transaction (so parallel requests never over-book).

use crate::authz::{Operation, Principal};
use crate::bookings::hours_up;
use crate::controller::Controller;
use crate::db::Tx;
use crate::error::{Error, QuotaDetail, Result};
use crate::projects::ServiceLevel;
use prism_placement::Tier;
use serde::{Deserialize, Serialize};
use sqlx::Row;
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

#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    hw: i64,
    sw: i64,
    mbps: i64,
    hours: i64,
}

/// Per state (provisioned, or held): networks per tier, Mbit/s and
/// lease-hours (each booking's rounded up), summed by the database.
async fn counts<'e, E>(ex: E, project_id: &str) -> Result<(Counts, Counts)>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let rows = sqlx::query(
        "SELECT CASE WHEN allocation_state = 'provisioned' THEN 1 ELSE 0 END AS used, \
         CAST(SUM(CASE WHEN tier = 'hardware' THEN 1 ELSE 0 END) AS BIGINT), \
         CAST(SUM(CASE WHEN tier = 'software' THEN 1 ELSE 0 END) AS BIGINT), \
         CAST(SUM(bandwidth_mbps) AS BIGINT), \
         CAST(SUM(CASE WHEN provisioned_ms IS NULL THEN (lease_s * 1000 + 3599999) / 3600000 \
                       ELSE (expires_ms - provisioned_ms + 3599999) / 3600000 END) AS BIGINT) \
         FROM bookings WHERE project_id = $1 AND released_ms IS NULL \
         GROUP BY CASE WHEN allocation_state = 'provisioned' THEN 1 ELSE 0 END",
    )
    .bind(project_id)
    .fetch_all(ex)
    .await?;
    let (mut used, mut held) = (Counts::default(), Counts::default());
    for r in rows {
        let c = Counts {
            hw: r.try_get(1)?,
            sw: r.try_get(2)?,
            mbps: r.try_get(3)?,
            hours: r.try_get(4)?,
        };
        if r.try_get::<i64, _>(0)? == 1 {
            used = c;
        } else {
            held = c;
        }
    }
    Ok((used, held))
}

impl Controller {
    /// Refuses with 409 and the numbers unless `tier` one more network,
    /// `mbps` more bandwidth and `lease_s` more hours fit the quota.
    pub(crate) async fn check_quota(
        &self,
        tx: &mut Tx,
        project_id: &str,
        level: &ServiceLevel,
        tier: Option<Tier>,
        mbps: i64,
        lease_s: i64,
    ) -> Result<()> {
        let (u, h) = counts(&mut **tx, project_id).await?;
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

    pub async fn quota(&self, p: &Principal, project: &str) -> Result<QuotaView> {
        let (m, level) = self
            .project_level_for(p, project, Operation::BookingsRead)
            .await?;
        let (u, h) = counts(&self.pool, &m.project_id).await?;
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
                self.public_count(&self.pool, &m.project_id).await?,
                0,
                level.max_public_addresses,
            ),
        })
    }
}
