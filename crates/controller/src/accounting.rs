//! Accounting (every allocate, provision, renew, release and expiry, by
//! whom, for how long), usage reports and the audit log of mutating calls.

use crate::authz::{Operation, Principal};
use crate::controller::Controller;
use crate::db::Tx;
use crate::error::{Error, Result};
use crate::model::{Booking, Page};
use crate::secrets;
use serde::{Deserialize, Serialize};
use sqlx::Row;
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
}

/// Adds one booking's (or public address's) `hours` at `bw` Mbit/s to
/// the line of its user and tier.
fn add_usage(lines: &mut Vec<UsageLine>, user: String, tier: String, hours: f64, bw: i64) {
    let i = match lines.iter().position(|l| l.user == user && l.tier == tier) {
        Some(i) => i,
        None => {
            lines.push(UsageLine {
                user,
                tier,
                bookings: 0,
                resource_hours: 0.0,
                bandwidth_mbps_hours: 0.0,
            });
            lines.len() - 1
        }
    };
    let l = &mut lines[i];
    l.bookings += 1;
    l.resource_hours += hours;
    l.bandwidth_mbps_hours += hours * bw as f64;
}

impl Controller {
    pub(crate) async fn account(
        &self,
        tx: &mut Tx,
        event: &str,
        b: &Booking,
        project_id: &str,
        user_id: &str,
    ) -> Result<()> {
        let node_id = b.ids.node.clone();
        sqlx::query("INSERT INTO accounting (id, at_ms, event, booking_id, user_id, project_id, node_id, tier, bandwidth_mbps, start_ms, end_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)")
            .bind(secrets::new_id())
            .bind(self.now_ms())
            .bind(event)
            .bind(&b.id)
            .bind(user_id)
            .bind(project_id)
            .bind(node_id)
            .bind(b.tier.map(prism_placement::Tier::as_str))
            .bind(b.bandwidth_mbps)
            .bind(b.provisioned_ms.unwrap_or(b.created_ms))
            .bind(b.released_ms.unwrap_or(b.expires_ms))
            .execute(&mut **tx)
            .await?;
        Ok(())
    }

    pub async fn usage(
        &self,
        p: &Principal,
        project: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<UsageReport> {
        let m = self.project_for(p, project, Operation::UsageRead).await?;
        if to_ms <= from_ms {
            return Err(Error::invalid("`to_ms` after `from_ms`").with_field("to_ms"));
        }
        let now = self.now_ms();
        let rows = sqlx::query(
            "SELECT u.name, COALESCE(b.tier, b.resource_type), b.bandwidth_mbps, b.provisioned_ms, b.released_ms, b.expires_ms \
             FROM bookings b JOIN users u ON u.id = b.user_id \
             WHERE b.project_id = $1 AND b.provisioned_ms IS NOT NULL AND b.provisioned_ms < $3 \
             AND (b.released_ms IS NULL OR b.released_ms > $2) ORDER BY u.name",
        )
        .bind(&m.project_id)
        .bind(from_ms)
        .bind(to_ms)
        .fetch_all(&self.pool)
        .await?;
        let mut lines: Vec<UsageLine> = Vec::new();
        for (user, kind, hours) in self.public_usage(&m.project_id, from_ms, to_ms).await? {
            let what = if kind == "mac" {
                "public-mac"
            } else {
                "public-address"
            };
            add_usage(&mut lines, user, what.into(), hours, 0);
        }
        for r in rows {
            let user: String = r.try_get(0)?;
            let tier: String = r.try_get(1)?;
            let bw: i64 = r.try_get(2)?;
            let start: i64 = r.try_get(3)?;
            let end = r
                .try_get::<Option<i64>, _>(4)?
                .unwrap_or_else(|| now.min(r.try_get::<i64, _>(5).unwrap_or(now)));
            let (s, e) = (start.max(from_ms), end.min(to_ms));
            let hours = e.saturating_sub(s).max(0) as f64 / 3_600_000.0;
            add_usage(&mut lines, user, tier, hours, bw);
        }
        lines.sort_by(|a, b| (&a.user, &a.tier).cmp(&(&b.user, &b.tier)));
        Ok(UsageReport {
            project: m.project,
            from_ms,
            to_ms,
            // A fold from 0.0: an empty `sum` of floats is -0.0.
            total_resource_hours: lines.iter().fold(0.0, |a, l| a + l.resource_hours),
            total_bandwidth_mbps_hours: lines.iter().fold(0.0, |a, l| a + l.bandwidth_mbps_hours),
            lines,
        })
    }

    pub async fn audit(&self, principal: Option<&str>, method: &str, path: &str, status: u16) {
        let r = sqlx::query("INSERT INTO audit (id, at_ms, principal, method, path, status) VALUES ($1, $2, $3, $4, $5, $6)")
            .bind(secrets::new_id())
            .bind(self.now_ms())
            .bind(principal.unwrap_or("anonymous"))
            .bind(method)
            .bind(path)
            .bind(status as i64)
            .execute(&self.pool)
            .await;
        if let Err(e) = r {
            eprintln!("prism controller: audit log: {e}");
        }
    }

    pub async fn list_audit(
        &self,
        p: &Principal,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Page<AuditEntry>> {
        p.require_admin()?;
        let (after_ms, after_id) = match after.and_then(|c| c.split_once('.')) {
            Some((ms, id)) => (
                ms.parse::<i64>()
                    .map_err(|_| Error::invalid("a cursor from `next`").with_field("after"))?,
                id.to_string(),
            ),
            None if after.is_some() => {
                return Err(Error::invalid("a cursor from `next`").with_field("after"));
            }
            None => (i64::MIN, String::new()),
        };
        let limit = limit.clamp(1, 1000);
        let rows = sqlx::query("SELECT id, at_ms, principal, method, path, status FROM audit WHERE at_ms > $1 OR (at_ms = $1 AND id > $2) ORDER BY at_ms, id LIMIT $3")
            .bind(after_ms)
            .bind(&after_id)
            .bind(limit as i64 + 1)
            .fetch_all(&self.pool)
            .await?;
        let mut items = rows
            .iter()
            .map(|r| {
                Ok(AuditEntry {
                    id: r.try_get(0)?,
                    at_ms: r.try_get(1)?,
                    principal: r.try_get(2)?,
                    method: r.try_get(3)?,
                    path: r.try_get(4)?,
                    status: r.try_get(5)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let next = (items.len() > limit).then(|| {
            items.truncate(limit);
            let l = &items[limit - 1];
            format!("{}.{}", l.at_ms, l.id)
        });
        Ok(Page { items, next })
    }
}
