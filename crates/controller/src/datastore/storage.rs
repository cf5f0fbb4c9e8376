//! The storage service's SQL: keys, shares, and the bytes each project's
//! bucket holds (reserved before an upload, given back after a delete),
//! with the history the usage report integrates.

use super::Pool;
use crate::error::Result;
use prism_controller_api::StorageKeyView;
use sqlx::Row;

pub(crate) async fn insert_key(
    pool: &Pool,
    id: &str,
    (project_id, user_id): (&str, &str),
    now: i64,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO storage_keys (id, project_id, user_id, created_ms) VALUES ($1, $2, $3, $4)",
    )
    .bind(id)
    .bind(project_id)
    .bind(user_id)
    .bind(now)
    .execute(pool)
    .await?;
    Ok(())
}

/// The project's live keys (their secrets are not here to show).
pub(crate) async fn keys_of(pool: &Pool, project_id: &str) -> Result<Vec<StorageKeyView>> {
    let rows = sqlx::query(
        "SELECT k.id, u.name AS user_name, k.created_ms FROM storage_keys k \
         JOIN users u ON u.id = k.user_id \
         WHERE k.project_id = $1 AND k.revoked_ms IS NULL ORDER BY k.created_ms, k.id",
    )
    .bind(project_id)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(StorageKeyView {
                access_key: r.try_get("id")?,
                user: r.try_get("user_name")?,
                created_ms: r.try_get("created_ms")?,
                secret_key: None,
            })
        })
        .collect()
}

/// User `user_id`'s oldest live key in project `project_id`.
pub(crate) async fn oldest_key_of(
    pool: &Pool,
    project_id: &str,
    user_id: &str,
) -> Result<Option<String>> {
    let r = sqlx::query(
        "SELECT id FROM storage_keys WHERE project_id = $1 AND user_id = $2 \
         AND revoked_ms IS NULL ORDER BY created_ms, id LIMIT 1",
    )
    .bind(project_id)
    .bind(user_id)
    .fetch_optional(pool)
    .await?;
    r.map(|r| Ok(r.try_get(0)?)).transpose()
}

/// Key `id` of project `project_id` and its user, if live.
pub(crate) async fn key_user(pool: &Pool, project_id: &str, id: &str) -> Result<Option<String>> {
    let r = sqlx::query(
        "SELECT user_id FROM storage_keys WHERE id = $1 AND project_id = $2 AND revoked_ms IS NULL",
    )
    .bind(id)
    .bind(project_id)
    .fetch_optional(pool)
    .await?;
    r.map(|r| Ok(r.try_get(0)?)).transpose()
}

pub(crate) async fn revoke_key(pool: &Pool, id: &str, now: i64) -> Result<()> {
    sqlx::query("UPDATE storage_keys SET revoked_ms = $2 WHERE id = $1 AND revoked_ms IS NULL")
        .bind(id)
        .bind(now)
        .execute(pool)
        .await?;
    Ok(())
}

/// The project (id, name) live key `id` belongs to.
pub(crate) async fn key_project(pool: &Pool, id: &str) -> Result<Option<(String, String)>> {
    let r = sqlx::query(
        "SELECT p.id, p.name FROM storage_keys k JOIN projects p ON p.id = k.project_id \
         WHERE k.id = $1 AND k.revoked_ms IS NULL",
    )
    .bind(id)
    .fetch_optional(pool)
    .await?;
    r.map(|r| Ok((r.try_get(0)?, r.try_get(1)?))).transpose()
}

/// Projects (id, name) whose buckets are shared with `project_id`.
pub(crate) async fn shared_with(pool: &Pool, project_id: &str) -> Result<Vec<(String, String)>> {
    let rows = sqlx::query(
        "SELECT p.id, p.name FROM storage_shares s JOIN projects p ON p.id = s.project_id \
         WHERE s.with_project_id = $1 ORDER BY p.name",
    )
    .bind(project_id)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect()
}

/// The projects `project_id` shares its bucket with, by name.
pub(crate) async fn shares_of(pool: &Pool, project_id: &str) -> Result<Vec<String>> {
    let rows = sqlx::query(
        "SELECT p.name FROM storage_shares s JOIN projects p ON p.id = s.with_project_id \
         WHERE s.project_id = $1 ORDER BY p.name",
    )
    .bind(project_id)
    .fetch_all(pool)
    .await?;
    rows.iter().map(|r| Ok(r.try_get(0)?)).collect()
}

pub(crate) async fn share(pool: &Pool, project_id: &str, with: &str, now: i64) -> Result<()> {
    sqlx::query(
        "INSERT INTO storage_shares (project_id, with_project_id, created_ms) VALUES ($1, $2, $3) \
         ON CONFLICT DO NOTHING",
    )
    .bind(project_id)
    .bind(with)
    .bind(now)
    .execute(pool)
    .await?;
    Ok(())
}

pub(crate) async fn unshare(pool: &Pool, project_id: &str, with: &str) -> Result<bool> {
    let r =
        sqlx::query("DELETE FROM storage_shares WHERE project_id = $1 AND with_project_id = $2")
            .bind(project_id)
            .bind(with)
            .execute(pool)
            .await?;
    Ok(r.rows_affected() == 1)
}

/// Projects (id, name) whose name or id is `bucket`.
pub(crate) async fn bucket_candidates(pool: &Pool, bucket: &str) -> Result<Vec<(String, String)>> {
    let rows = sqlx::query("SELECT id, name FROM projects WHERE name = $1 OR id = $1")
        .bind(bucket)
        .fetch_all(pool)
        .await?;
    rows.iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect()
}

/// The bytes project `project_id`'s bucket holds and may hold.
pub(crate) async fn used_and_quota(pool: &Pool, project_id: &str) -> Result<(i64, i64)> {
    let r = sqlx::query(
        "SELECT COALESCE(u.bytes, 0) AS used, l.max_storage_bytes AS quota FROM projects p \
         JOIN service_levels l ON l.name = p.service_level \
         LEFT JOIN storage_usage u ON u.project_id = p.id WHERE p.id = $1",
    )
    .bind(project_id)
    .fetch_one(pool)
    .await?;
    Ok((r.try_get("used")?, r.try_get("quota")?))
}

/// Adds `delta` bytes to the project's (never below 0), if a growth stays
/// within its service level's quota; the new total, recorded with its
/// time, or `None` (refused, nothing changed).
pub(crate) async fn add_bytes(
    pool: &Pool,
    project_id: &str,
    delta: i64,
    now: i64,
) -> Result<Option<i64>> {
    let mut tx = crate::infra::db::begin(pool).await?;
    sqlx::query(
        "INSERT INTO storage_usage (project_id, bytes) VALUES ($1, 0) ON CONFLICT DO NOTHING",
    )
    .bind(project_id)
    .execute(&mut *tx)
    .await?;
    let r = sqlx::query(
        "UPDATE storage_usage SET bytes = CASE WHEN bytes + $2 < 0 THEN 0 ELSE bytes + $2 END \
         WHERE project_id = $1 AND ($2 <= 0 OR bytes + $2 <= (SELECT l.max_storage_bytes \
         FROM projects p JOIN service_levels l ON l.name = p.service_level WHERE p.id = $1)) \
         RETURNING bytes",
    )
    .bind(project_id)
    .bind(delta)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(r) = r else { return Ok(None) };
    let bytes: i64 = r.try_get(0)?;
    sqlx::query("INSERT INTO storage_usage_events (project_id, at_ms, bytes) VALUES ($1, $2, $3)")
        .bind(project_id)
        .bind(now)
        .bind(bytes)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(Some(bytes))
}

/// The project's bytes at `from_ms` (the last change before it) and each
/// change after it until `to_ms`: the steps the usage report integrates.
pub(crate) async fn steps(
    pool: &Pool,
    project_id: &str,
    (from_ms, to_ms): (i64, i64),
) -> Result<(i64, Vec<(i64, i64)>)> {
    let before = sqlx::query(
        "SELECT bytes FROM storage_usage_events WHERE project_id = $1 AND at_ms <= $2 \
         ORDER BY at_ms DESC LIMIT 1",
    )
    .bind(project_id)
    .bind(from_ms)
    .fetch_optional(pool)
    .await?;
    let start = before.map(|r| r.try_get(0)).transpose()?.unwrap_or(0);
    let rows = sqlx::query(
        "SELECT at_ms, bytes FROM storage_usage_events WHERE project_id = $1 \
         AND at_ms > $2 AND at_ms < $3 ORDER BY at_ms",
    )
    .bind(project_id)
    .bind(from_ms)
    .bind(to_ms)
    .fetch_all(pool)
    .await?;
    let steps = rows
        .iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect::<Result<_>>()?;
    Ok((start, steps))
}
