//! Accounting (every allocate, provision, renew, release and expiry, by
//! whom, for how long), usage reports and the audit log of mutating calls.

use crate::app::authz::{Operation, Principal};
use crate::app::context::Context;
use crate::app::projects::project_for;
use crate::app::public::public_usage;
use crate::datastore::accounting as store;
use crate::error::{Error, Result};
use crate::model::Page;

pub use prism_controller_api::accounting::{AuditEntry, AuditQuery, UsageLine, UsageReport};

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

/// The integral of a bucket's size over `[from, to]`, in byte-hours: its
/// size `start` at `from`, then each change `(at, bytes)`.
fn byte_hours((start, steps): (i64, Vec<(i64, i64)>), (from, to): (i64, i64)) -> f64 {
    let (mut at, mut bytes, mut sum) = (from, start, 0f64);
    for (t, b) in steps.into_iter().filter(|(t, _)| *t < to) {
        // Saturating: a period may be asked from i64::MIN (the fuzzer's).
        sum += bytes as f64 * t.saturating_sub(at) as f64;
        (at, bytes) = (t, b);
    }
    sum += bytes as f64 * to.saturating_sub(at).max(0) as f64;
    sum / 3_600_000.0
}

pub async fn usage(
    cx: &Context,
    p: &Principal,
    project: &str,
    from_ms: i64,
    to_ms: i64,
) -> Result<UsageReport> {
    let m = project_for(cx, p, project, Operation::UsageRead).await?;
    if to_ms <= from_ms {
        return Err(Error::invalid("`to_ms` after `from_ms`").with_field("to_ms"));
    }
    let now = cx.now_ms();
    let rows = store::provisioned_between(&cx.pool, &m.project_id, from_ms, to_ms).await?;
    let mut lines: Vec<UsageLine> = Vec::new();
    for (user, kind, hours) in public_usage(cx, &m.project_id, from_ms, to_ms).await? {
        let what = if kind == "mac" {
            "public-mac"
        } else {
            "public-address"
        };
        add_usage(&mut lines, user, what.into(), hours, 0);
    }
    for r in rows {
        let (user, tier, bw, start) = (r.user, r.tier_or_type, r.bandwidth_mbps, r.start_ms);
        let end = r.released_ms.unwrap_or_else(|| now.min(r.expires_ms));
        let (s, e) = (start.max(from_ms), end.min(to_ms));
        let hours = e.saturating_sub(s).max(0) as f64 / 3_600_000.0;
        add_usage(&mut lines, user, tier, hours, bw);
    }
    lines.sort_by(|a, b| (&a.user, &a.tier).cmp(&(&b.user, &b.tier)));
    let storage =
        crate::datastore::storage::steps(&cx.pool, &m.project_id, (from_ms, to_ms)).await?;
    Ok(UsageReport {
        storage_byte_hours: byte_hours(storage, (from_ms, to_ms.min(now.max(from_ms)))),
        project: m.project,
        from_ms,
        to_ms,
        // A fold from 0.0: an empty `sum` of floats is -0.0.
        total_resource_hours: lines.iter().fold(0.0, |a, l| a + l.resource_hours),
        total_bandwidth_mbps_hours: lines.iter().fold(0.0, |a, l| a + l.bandwidth_mbps_hours),
        lines,
    })
}

/// A page of the audit log (administrators): oldest first, or newest
/// first with `q.newest_first`; only `q.principal`'s entries, only
/// those whose path contains `q.path`, when given.
pub async fn list_audit(cx: &Context, p: &Principal, q: &AuditQuery) -> Result<Page<AuditEntry>> {
    p.require_admin()?;
    let bad = || Error::invalid("a cursor from `next`").with_field("after");
    let after = match q.after.as_deref().map(|c| c.split_once('.')) {
        Some(Some((ms, id))) => Some((ms.parse::<i64>().map_err(|_| bad())?, id)),
        Some(None) => return Err(bad()),
        None => None,
    };
    let slice = store::AuditSlice {
        after,
        newest_first: q.newest_first,
        principal: q.principal.as_deref().filter(|s| !s.is_empty()),
        path: q.path.as_deref().filter(|s| !s.is_empty()),
    };
    let limit = q.limit.unwrap_or(100).clamp(1, 1000);
    let mut items = store::audit_page(&cx.pool, &slice, limit + 1).await?;
    let next = (items.len() > limit).then(|| {
        items.truncate(limit);
        let l = &items[limit - 1];
        format!("{}.{}", l.at_ms, l.id)
    });
    Ok(Page { items, next })
}

#[cfg(test)]
mod tests {
    use super::byte_hours;

    #[test]
    fn byte_hours_integrate_the_buckets_steps() {
        const H: i64 = 3_600_000;
        // 1000 bytes for an hour, then 3000 for two, then none.
        let steps = vec![(H, 3000), (3 * H, 0), (9 * H, 50)];
        assert_eq!(
            byte_hours((1000, steps.clone()), (0, 5 * H)),
            1000.0 + 6000.0
        );
        assert_eq!(byte_hours((1000, steps), (0, 2 * H)), 1000.0 + 3000.0);
        assert_eq!(byte_hours((0, Vec::new()), (0, H)), 0.0);
        let whole = byte_hours((1, vec![(0, 1)]), (i64::MIN, i64::MAX));
        assert!(whole.is_finite() && whole > 0.0, "{whole}");
    }
}
