//! Accounting (every allocate, provision, renew, release and expiry, by
//! whom, for how long), usage reports and the audit log of mutating calls.

use crate::app::audit_scope::pending_unwritten;
use crate::app::authz::{Operation, Principal};
use crate::controller::Controller;
use crate::datastore::accounting as store;
use crate::error::{Error, Result};
use crate::infra::db::Tx;
use crate::infra::secrets;
use crate::model::{Booking, Page};

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

impl Controller {
    pub(crate) async fn account(
        &self,
        tx: &mut Tx,
        event: &str,
        b: &Booking,
        project_id: &str,
        user_id: &str,
    ) -> Result<()> {
        let e = store::Event {
            id: &secrets::new_id(),
            now: self.now_ms(),
            event,
            booking: b,
            project_id,
            user_id,
        };
        store::insert_event(tx, &e).await
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
        let rows = store::provisioned_between(&self.pool, &m.project_id, from_ms, to_ms).await?;
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
            let (user, tier, bw, start) = (r.user, r.tier_or_type, r.bandwidth_mbps, r.start_ms);
            let end = r.released_ms.unwrap_or_else(|| now.min(r.expires_ms));
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

    /// An audit entry made now (`anonymous` without a principal).
    pub(crate) fn audit_entry(
        &self,
        principal: Option<&str>,
        method: &str,
        path: &str,
        status: u16,
    ) -> AuditEntry {
        AuditEntry {
            id: secrets::new_id(),
            at_ms: self.now_ms(),
            principal: principal.unwrap_or("anonymous").to_string(),
            method: method.to_string(),
            path: path.to_string(),
            status: i64::from(status),
            note: None,
        }
    }

    pub async fn audit(&self, principal: Option<&str>, method: &str, path: &str, status: u16) {
        self.audit_noted(principal, method, path, status, None)
            .await
    }

    /// An audit entry with a note (`crate::app::audit_scope::note_admin_override`).
    pub async fn audit_noted(
        &self,
        principal: Option<&str>,
        method: &str,
        path: &str,
        status: u16,
        note: Option<String>,
    ) {
        let mut entry = self.audit_entry(principal, method, path, status);
        entry.note = note;
        let r = store::insert_audit(&self.pool, &entry).await;
        if let Err(e) = r {
            eprintln!("prism controller: audit log: {e}");
        }
    }

    /// A page of the audit log (administrators): oldest first, or newest
    /// first with `q.newest_first`; only `q.principal`'s entries, only
    /// those whose path contains `q.path`, when given.
    pub async fn list_audit(&self, p: &Principal, q: &AuditQuery) -> Result<Page<AuditEntry>> {
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
        let mut items = store::audit_page(&self.pool, &slice, limit + 1).await?;
        let next = (items.len() > limit).then(|| {
            items.truncate(limit);
            let l = &items[limit - 1];
            format!("{}.{}", l.at_ms, l.id)
        });
        Ok(Page { items, next })
    }
}

impl Controller {
    /// Records accounting event `event` of booking `b`, then commits `tx`
    /// with the request's audit entry as `Self::commit_audited` does; on
    /// PostgreSQL the event and the entry are one statement (a round trip
    /// less a booking).
    pub(crate) async fn commit_accounted(
        &self,
        mut tx: Tx,
        (event, b): (&str, &crate::model::Booking),
        (project_id, user_id): (&str, &str),
        status: u16,
    ) -> Result<()> {
        let pending = pending_unwritten();
        let (Some(p), crate::infra::db::Engine::Postgres) = (&pending, self.engine) else {
            self.account(&mut tx, event, b, project_id, user_id).await?;
            return self.commit_audited(tx, status).await;
        };
        let mut entry = self.audit_entry(p.principal(), p.method(), p.path(), status);
        entry.note = p.note();
        let e = store::Event {
            id: &crate::infra::secrets::new_id(),
            now: self.now_ms(),
            event,
            booking: b,
            project_id,
            user_id,
        };
        store::insert_event_and_audit_pg(&mut tx, &e, &entry).await?;
        tx.commit().await?;
        p.mark_written(status);
        Ok(())
    }

    /// Commits `tx` with the pending request's audit entry as `status`
    /// (the status the request answers when this change is made), unless
    /// there is none or it is written already.
    pub(crate) async fn commit_audited(&self, mut tx: Tx, status: u16) -> Result<()> {
        let pending = pending_unwritten();
        if let Some(p) = &pending {
            let mut entry = self.audit_entry(p.principal(), p.method(), p.path(), status);
            entry.note = p.note();
            store::insert_audit_in(&mut tx, &entry).await?;
        }
        tx.commit().await?;
        if let Some(p) = pending {
            p.mark_written(status);
        }
        Ok(())
    }
}
