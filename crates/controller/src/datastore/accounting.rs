//! Accounting events, the bookings a usage report covers, and the audit
//! log: the SQL and the row mapping.

use super::{Pool, Tx};
use crate::error::Result;
use crate::model::Booking;
use prism_controller_api::accounting::AuditEntry;
use sqlx::Row;

/// An accounting event: `event` (allocate, provision, renew, release,
/// expire) of `booking`, by `user_id` of `project_id`, at `now`.
pub(crate) struct Event<'a> {
    pub id: &'a str,
    pub now: i64,
    pub event: &'a str,
    pub booking: &'a Booking,
    pub project_id: &'a str,
    pub user_id: &'a str,
}

const INSERT_EVENT: &str = "INSERT INTO accounting (id, at_ms, event, booking_id, user_id, project_id, node_id, tier, bandwidth_mbps, start_ms, end_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";

/// Records event `e` of its booking, with the span it covers.
pub(crate) async fn insert_event(tx: &mut Tx, e: &Event<'_>) -> Result<()> {
    event_query(INSERT_EVENT, e).execute(&mut **tx).await?;
    Ok(())
}

/// Records event `e` and audit entry `a` in one statement (one round
/// trip): PostgreSQL only (a data-modifying `WITH`, which SQLite lacks).
pub(crate) async fn insert_event_and_audit_pg(
    tx: &mut Tx,
    e: &Event<'_>,
    a: &AuditEntry,
) -> Result<()> {
    const BOTH: &str = "WITH e AS (INSERT INTO accounting (id, at_ms, event, booking_id, user_id, project_id, node_id, tier, bandwidth_mbps, start_ms, end_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING 1) \
        INSERT INTO audit (id, at_ms, principal, method, path, status, note) VALUES ($12, $13, $14, $15, $16, $17, $18)";
    event_query(BOTH, e)
        .bind(&a.id)
        .bind(a.at_ms)
        .bind(&a.principal)
        .bind(&a.method)
        .bind(&a.path)
        .bind(a.status)
        .bind(&a.note)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// `sql` with event `e`'s eleven parameters bound.
fn event_query<'q>(
    sql: &'q str,
    e: &'q Event<'q>,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    let b = e.booking;
    sqlx::query(sql)
        .bind(e.id)
        .bind(e.now)
        .bind(e.event)
        .bind(&b.id)
        .bind(e.user_id)
        .bind(e.project_id)
        .bind(b.ids.node.clone())
        .bind(b.tier.map(prism_placement::Tier::as_str))
        .bind(b.bandwidth_mbps)
        .bind(b.provisioned_ms.unwrap_or(b.created_ms))
        .bind(b.released_ms.unwrap_or(b.expires_ms))
}

/// A provisioned booking as a usage report counts it.
pub(crate) struct UsedBooking {
    pub user: String,
    /// The tier of a network, else the resource type.
    pub tier_or_type: String,
    pub bandwidth_mbps: i64,
    pub start_ms: i64,
    pub released_ms: Option<i64>,
    pub expires_ms: i64,
}

/// Project `project_id`'s bookings provisioned before `to_ms` and not
/// released before `from_ms`, by user.
pub(crate) async fn provisioned_between(
    pool: &Pool,
    project_id: &str,
    from_ms: i64,
    to_ms: i64,
) -> Result<Vec<UsedBooking>> {
    let rows = sqlx::query(
        "SELECT u.name, COALESCE(b.tier, b.resource_type), b.bandwidth_mbps, b.provisioned_ms, b.released_ms, b.expires_ms \
         FROM bookings b JOIN users u ON u.id = b.user_id \
         WHERE b.project_id = $1 AND b.provisioned_ms IS NOT NULL AND b.provisioned_ms < $3 \
         AND (b.released_ms IS NULL OR b.released_ms > $2) ORDER BY u.name",
    )
    .bind(project_id)
    .bind(from_ms)
    .bind(to_ms)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(UsedBooking {
                user: r.try_get(0)?,
                tier_or_type: r.try_get(1)?,
                bandwidth_mbps: r.try_get(2)?,
                start_ms: r.try_get(3)?,
                released_ms: r.try_get(4)?,
                expires_ms: r.try_get(5)?,
            })
        })
        .collect()
}

const INSERT_AUDIT: &str = "INSERT INTO audit (id, at_ms, principal, method, path, status, note) VALUES ($1, $2, $3, $4, $5, $6, $7)";

fn audit_query(e: &AuditEntry) -> sqlx::query::Query<'_, sqlx::Any, sqlx::any::AnyArguments<'_>> {
    sqlx::query(INSERT_AUDIT)
        .bind(&e.id)
        .bind(e.at_ms)
        .bind(&e.principal)
        .bind(&e.method)
        .bind(&e.path)
        .bind(e.status)
        .bind(&e.note)
}

pub(crate) async fn insert_audit(pool: &Pool, e: &AuditEntry) -> Result<()> {
    audit_query(e).execute(pool).await?;
    Ok(())
}

/// The same inside a change's transaction (`crate::app::audit_scope`).
pub(crate) async fn insert_audit_in(tx: &mut Tx, e: &AuditEntry) -> Result<()> {
    audit_query(e).execute(&mut **tx).await?;
    Ok(())
}

/// Which audit entries a page holds: where it starts (a cursor of at_ms
/// and id, exclusive), which way it goes, who made them, what path.
#[derive(Debug, Clone, Default)]
pub(crate) struct AuditSlice<'a> {
    pub after: Option<(i64, &'a str)>,
    pub newest_first: bool,
    pub principal: Option<&'a str>,
    /// Entries whose path contains this.
    pub path: Option<&'a str>,
}

/// The statement of an audit page: its filters and its order, each value
/// a numbered bind parameter (`$1`, …, bound in that order by `audit_page`).
fn audit_sql(slice: &AuditSlice<'_>) -> String {
    let (cmp, order) = if slice.newest_first {
        ("<", "DESC")
    } else {
        (">", "ASC")
    };
    let mut sql = String::from(
        "SELECT id, at_ms, principal, method, path, status, note FROM audit WHERE 1 = 1",
    );
    let mut n = 0;
    let mut next = || {
        n += 1;
        format!("${n}")
    };
    if slice.after.is_some() {
        let (a, b, c) = (next(), next(), next());
        sql.push_str(&format!(
            " AND (at_ms {cmp} {a} OR (at_ms = {b} AND id {cmp} {c}))"
        ));
    }
    if slice.principal.is_some() {
        sql.push_str(&format!(" AND principal = {}", next()));
    }
    if slice.path.is_some() {
        sql.push_str(&format!(
            " AND LOWER(path) LIKE LOWER({}) ESCAPE '\\'",
            next()
        ));
    }
    sql.push_str(&format!(
        " ORDER BY at_ms {order}, id {order} LIMIT {}",
        next()
    ));
    sql
}

/// Up to `limit` audit entries of `slice`, in its order.
pub(crate) async fn audit_page(
    pool: &Pool,
    slice: &AuditSlice<'_>,
    limit: usize,
) -> Result<Vec<AuditEntry>> {
    let sql = audit_sql(slice);
    let mut q = sqlx::query(&sql);
    if let Some((ms, id)) = slice.after {
        q = q.bind(ms).bind(ms).bind(id.to_string());
    }
    if let Some(p) = slice.principal {
        q = q.bind(p.to_string());
    }
    if let Some(p) = slice.path {
        q = q.bind(super::like_contains(p));
    }
    let rows = q.bind(limit as i64).fetch_all(pool).await?;
    rows.iter()
        .map(|r| {
            Ok(AuditEntry {
                id: r.try_get(0)?,
                at_ms: r.try_get(1)?,
                principal: r.try_get(2)?,
                method: r.try_get(3)?,
                path: r.try_get(4)?,
                status: r.try_get(5)?,
                note: r.try_get(6)?,
            })
        })
        .collect()
}
