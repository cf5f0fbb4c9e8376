//! Node keys (kept as digests): the SQL and the row mapping.

use super::{Pool, Tx};
use crate::error::Result;
use prism_controller_api::node_keys::NodeKeyView;
use sqlx::Row;

fn key_view(r: &sqlx::any::AnyRow) -> Result<NodeKeyView> {
    Ok(NodeKeyView {
        id: r.try_get("id")?,
        node: r.try_get("node_name")?,
        created_ms: r.try_get("created_ms")?,
        last_used_ms: r.try_get("last_used_ms")?,
        revoked_ms: r.try_get("revoked_ms")?,
        key: None,
    })
}

pub(crate) async fn insert(
    pool: &Pool,
    id: &str,
    node: &str,
    digest: &str,
    created_by: &str,
    now: i64,
) -> Result<()> {
    sqlx::query("INSERT INTO node_keys (id, node_name, digest, created_by, created_ms) VALUES ($1, $2, $3, $4, $5)")
        .bind(id)
        .bind(node)
        .bind(digest)
        .bind(created_by)
        .bind(now)
        .execute(pool)
        .await?;
    Ok(())
}

pub(crate) async fn all(pool: &Pool) -> Result<Vec<NodeKeyView>> {
    sqlx::query("SELECT * FROM node_keys ORDER BY node_name, created_ms, id")
        .fetch_all(pool)
        .await?
        .iter()
        .map(key_view)
        .collect()
}

/// Revokes key `id` at `now`: the node it was for, or `None` if there is
/// no such live key.
pub(crate) async fn revoke(tx: &mut super::Tx, id: &str, now: i64) -> Result<Option<String>> {
    let r = sqlx::query(
        "UPDATE node_keys SET revoked_ms = $2 WHERE id = $1 AND revoked_ms IS NULL RETURNING node_name",
    )
    .bind(id)
    .bind(now)
    .fetch_optional(&mut **tx)
    .await?;
    Ok(match r {
        Some(r) => Some(r.try_get(0)?),
        None => None,
    })
}

/// The key whose secret has `digest`: (id, node name, revoked).
pub(crate) async fn by_digest(pool: &Pool, digest: &str) -> Result<Option<(String, String, bool)>> {
    let Some(r) = sqlx::query("SELECT id, node_name, revoked_ms FROM node_keys WHERE digest = $1")
        .bind(digest)
        .fetch_optional(pool)
        .await?
    else {
        return Ok(None);
    };
    Ok(Some((
        r.try_get(0)?,
        r.try_get(1)?,
        r.try_get::<Option<i64>, _>(2)?.is_some(),
    )))
}

/// Key `id` was used at `now`.
pub(crate) async fn touch(tx: &mut Tx, id: &str, now: i64) -> Result<()> {
    sqlx::query("UPDATE node_keys SET last_used_ms = $2 WHERE id = $1")
        .bind(id)
        .bind(now)
        .execute(&mut **tx)
        .await?;
    Ok(())
}
