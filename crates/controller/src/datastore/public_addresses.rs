//! Public addresses (and public MACs) leased from a node's pool: the SQL
//! and the row mapping.

use super::{Pool, Tx, unique_violation};
use crate::error::{Error, Result};
use prism_controller_api::gateway::PublicAddress;
use sqlx::Row;

const PUBLIC_SELECT: &str = "SELECT a.address, a.kind, a.booking_id, n.name AS node_name, a.internal, \
     u.name AS user_name, a.created_ms, a.expires_ms, a.released_ms, a.node_id, a.user_id \
     FROM public_addresses a JOIN nodes n ON n.id = a.node_id JOIN users u ON u.id = a.user_id";

fn public_of(r: &sqlx::any::AnyRow) -> Result<PublicAddress> {
    Ok(PublicAddress {
        address: r.try_get("address")?,
        kind: r.try_get("kind")?,
        booking: r.try_get("booking_id")?,
        node: r.try_get("node_name")?,
        internal: r.try_get("internal")?,
        user: r.try_get("user_name")?,
        created_ms: r.try_get("created_ms")?,
        expires_ms: r.try_get("expires_ms")?,
        released_ms: r.try_get("released_ms")?,
    })
}

/// The public addresses `(public, internal)` held on node `node_id`, by
/// booking: one query for a node's whole desired state.
pub(crate) async fn publics_by_booking_on(
    pool: &Pool,
    node_id: &str,
    only: Option<&[String]>,
) -> Result<std::collections::HashMap<String, Vec<(String, String)>>> {
    let (and_only, ids) = super::only_ids("booking_id", only, 2);
    let sql = format!(
        "SELECT booking_id, address, internal FROM public_addresses \
         WHERE node_id = $1 AND released_ms IS NULL{and_only} ORDER BY booking_id, address"
    );
    let mut q = sqlx::query(&sql).bind(node_id);
    for b in ids {
        q = q.bind(b);
    }
    let rows = q.fetch_all(pool).await?;
    let mut by = std::collections::HashMap::<String, Vec<(String, String)>>::new();
    for r in &rows {
        by.entry(r.try_get(0)?)
            .or_default()
            .push((r.try_get(1)?, r.try_get(2)?));
    }
    Ok(by)
}

/// Active public addresses of a project.
pub(crate) async fn count_active<'e, E>(ex: E, project_id: &str) -> Result<i64>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    Ok(sqlx::query(
        "SELECT COUNT(*) FROM public_addresses WHERE project_id = $1 AND released_ms IS NULL",
    )
    .bind(project_id)
    .fetch_one(ex)
    .await?
    .try_get(0)?)
}

/// A lease as stored; `node` by name.
pub(crate) struct NewPublic<'a> {
    pub id: &'a str,
    pub address: &'a str,
    pub node: &'a str,
    pub project_id: &'a str,
    pub user_id: &'a str,
    pub booking_id: &'a str,
    pub internal: &'a str,
    pub kind: &'a str,
    pub created_ms: i64,
    pub expires_ms: i64,
}

/// Records lease `a`; refused (409) if its address was taken meanwhile.
pub(crate) async fn insert(tx: &mut Tx, a: &NewPublic<'_>) -> Result<()> {
    sqlx::query("INSERT INTO public_addresses (id, address, node_id, project_id, user_id, booking_id, internal, created_ms, expires_ms, kind) \
         SELECT $1, $2, id, $3, $4, $5, $6, $7, $8, $10 FROM nodes WHERE name = $9")
        .bind(a.id)
        .bind(a.address)
        .bind(a.project_id)
        .bind(a.user_id)
        .bind(a.booking_id)
        .bind(a.internal)
        .bind(a.created_ms)
        .bind(a.expires_ms)
        .bind(a.node)
        .bind(a.kind)
        .execute(&mut **tx)
        .await
        .map_err(|e| match unique_violation(&e) {
            true => Error::conflict("the address was taken meanwhile; lease again"),
            false => e.into(),
        })?;
    Ok(())
}

/// The leases held on node `node_id`: (address, booking, internal host).
pub(crate) async fn held_on(tx: &mut Tx, node_id: &str) -> Result<Vec<(String, String, String)>> {
    let rows = sqlx::query(
        "SELECT address, booking_id, internal FROM public_addresses WHERE node_id = $1 AND released_ms IS NULL",
    )
    .bind(node_id)
    .fetch_all(&mut **tx)
    .await?;
    rows.iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))
        .collect()
}

/// The node and booking of the active lease of `address`.
pub(crate) async fn active_node_of(tx: &mut Tx, address: &str) -> Result<(String, String)> {
    let r = sqlx::query(
        "SELECT node_id, booking_id FROM public_addresses WHERE address = $1 AND released_ms IS NULL",
    )
    .bind(address)
    .fetch_one(&mut **tx)
    .await?;
    Ok((r.try_get(0)?, r.try_get(1)?))
}

/// The project's latest lease of `address`.
pub(crate) async fn latest(
    pool: &Pool,
    project_id: &str,
    address: &str,
) -> Result<Option<PublicAddress>> {
    sqlx::query(&format!(
        "{PUBLIC_SELECT} WHERE a.project_id = $1 AND a.address = $2 ORDER BY a.created_ms DESC LIMIT 1"
    ))
    .bind(project_id)
    .bind(address)
    .fetch_optional(pool)
    .await?
    .as_ref()
    .map(public_of)
    .transpose()
}

/// The project's leases held now (with `all`, released too).
pub(crate) async fn list(pool: &Pool, project_id: &str, all: bool) -> Result<Vec<PublicAddress>> {
    let rows = sqlx::query(&format!(
        "{PUBLIC_SELECT} WHERE a.project_id = $1 AND ($2 = 1 OR a.released_ms IS NULL) ORDER BY a.created_ms, a.address"
    ))
    .bind(project_id)
    .bind(all as i64)
    .fetch_all(pool)
    .await?;
    rows.iter().map(public_of).collect()
}

/// The project's active lease of `address`, with the id of the user who
/// holds it.
pub(crate) async fn active(
    pool: &Pool,
    project_id: &str,
    address: &str,
) -> Result<Option<(PublicAddress, String)>> {
    let Some(r) = sqlx::query(&format!(
        "{PUBLIC_SELECT} WHERE a.project_id = $1 AND a.address = $2 AND a.released_ms IS NULL"
    ))
    .bind(project_id)
    .bind(address)
    .fetch_optional(pool)
    .await?
    else {
        return Ok(None);
    };
    Ok(Some((public_of(&r)?, r.try_get("user_id")?)))
}

pub(crate) async fn set_expires(pool: &Pool, address: &str, expires_ms: i64) -> Result<()> {
    sqlx::query(
        "UPDATE public_addresses SET expires_ms = $2 WHERE address = $1 AND released_ms IS NULL",
    )
    .bind(address)
    .bind(expires_ms)
    .execute(pool)
    .await?;
    Ok(())
}

pub(crate) async fn release(tx: &mut Tx, address: &str, now: i64) -> Result<()> {
    sqlx::query(
        "UPDATE public_addresses SET released_ms = $2 WHERE address = $1 AND released_ms IS NULL",
    )
    .bind(address)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Releases the leases of booking `id` (being released).
pub(crate) async fn release_of_booking(tx: &mut Tx, id: &str, now: i64) -> Result<()> {
    sqlx::query("UPDATE public_addresses SET released_ms = $2 WHERE booking_id = $1 AND released_ms IS NULL")
        .bind(id)
        .bind(now)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Releases at `now` the leases past their end, or whose booking is
/// released or past its end, raising their nodes' generations: the
/// nodes, and how many leases.
pub(crate) async fn expire_due(tx: &mut Tx, now: i64) -> Result<(Vec<String>, usize)> {
    const DUE: &str = "released_ms IS NULL AND (expires_ms <= $1 OR booking_id IN \
         (SELECT id FROM bookings WHERE released_ms IS NOT NULL OR expires_ms <= $1))";
    let nodes: Vec<String> = sqlx::query(&format!(
        "SELECT DISTINCT node_id FROM public_addresses WHERE {DUE}"
    ))
    .bind(now)
    .fetch_all(&mut **tx)
    .await?
    .iter()
    .map(|r| r.try_get(0))
    .collect::<std::result::Result<_, _>>()?;
    if nodes.is_empty() {
        return Ok((nodes, 0));
    }
    sqlx::query(&format!("UPDATE nodes SET generation = generation + 1 WHERE id IN (SELECT node_id FROM public_addresses WHERE {DUE})"))
        .bind(now)
        .execute(&mut **tx)
        .await?;
    // Each address's booking is a change of its node's new generation.
    sqlx::query(&format!(
        "INSERT INTO node_changes (node_id, generation, booking_id) \
         SELECT n.id, n.generation, a.booking_id FROM public_addresses a JOIN nodes n ON n.id = a.node_id \
         WHERE a.id IN (SELECT id FROM public_addresses WHERE {DUE}) ON CONFLICT DO NOTHING"
    ))
    .bind(now)
    .execute(&mut **tx)
    .await?;
    let n = sqlx::query(&format!(
        "UPDATE public_addresses SET released_ms = $1 WHERE {DUE}"
    ))
    .bind(now)
    .execute(&mut **tx)
    .await?
    .rows_affected();
    Ok((nodes, n as usize))
}

/// A lease as a usage report counts it.
pub(crate) struct HeldLease {
    pub user: String,
    pub created_ms: i64,
    pub released_ms: Option<i64>,
    pub expires_ms: i64,
    pub kind: String,
}

/// The project's leases within `[from_ms, to_ms)`.
pub(crate) async fn held_between(
    pool: &Pool,
    project_id: &str,
    from_ms: i64,
    to_ms: i64,
) -> Result<Vec<HeldLease>> {
    let rows = sqlx::query(
        "SELECT u.name, a.created_ms, a.released_ms, a.expires_ms, a.kind FROM public_addresses a \
         JOIN users u ON u.id = a.user_id WHERE a.project_id = $1 AND a.created_ms < $3 \
         AND (a.released_ms IS NULL OR a.released_ms > $2) ORDER BY u.name",
    )
    .bind(project_id)
    .bind(from_ms)
    .bind(to_ms)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(HeldLease {
                user: r.try_get(0)?,
                created_ms: r.try_get(1)?,
                released_ms: r.try_get(2)?,
                expires_ms: r.try_get(3)?,
                kind: r.try_get(4)?,
            })
        })
        .collect()
}
