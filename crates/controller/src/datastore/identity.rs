//! Users and credentials (session tokens and API keys, kept as digests):
//! the SQL and the row mapping.

use super::{Pool, unique_violation};
use super::{ops_from_json, ops_to_json};
use crate::error::{Error, Result};
use prism_controller_api::identity::{ApiKeyView, UserView};
use sqlx::Row;

pub(crate) async fn count_admins(pool: &Pool) -> Result<i64> {
    Ok(sqlx::query("SELECT COUNT(*) FROM users WHERE is_admin = 1")
        .fetch_one(pool)
        .await?
        .try_get(0)?)
}

/// Inserts user `u` with its password's hash; refused at `name` if taken.
pub(crate) async fn insert_user(pool: &Pool, u: &UserView, hash: &str) -> Result<()> {
    sqlx::query("INSERT INTO users (id, name, password_hash, is_admin, created_ms) VALUES ($1, $2, $3, $4, $5)")
        .bind(&u.id)
        .bind(&u.name)
        .bind(hash)
        .bind(u.admin as i64)
        .bind(u.created_ms)
        .execute(pool)
        .await
        .map_err(|e| {
            if unique_violation(&e) {
                Error::conflict(format!("a user `{}` exists", u.name)).with_field("name")
            } else {
                e.into()
            }
        })?;
    Ok(())
}

pub(crate) async fn users(pool: &Pool) -> Result<Vec<UserView>> {
    let rows = sqlx::query("SELECT id, name, is_admin, created_ms FROM users ORDER BY name")
        .fetch_all(pool)
        .await?;
    rows.iter()
        .map(|r| {
            Ok(UserView {
                id: r.try_get(0)?,
                name: r.try_get(1)?,
                admin: r.try_get::<i64, _>(2)? != 0,
                created_ms: r.try_get(3)?,
            })
        })
        .collect()
}

pub(crate) async fn user_id(pool: &Pool, name: &str) -> Result<Option<String>> {
    Ok(sqlx::query("SELECT id FROM users WHERE name = $1")
        .bind(name)
        .fetch_optional(pool)
        .await?
        .map(|r| r.try_get(0))
        .transpose()?)
}

/// User `name`'s (id, password hash).
pub(crate) async fn password_hash(pool: &Pool, name: &str) -> Result<Option<(String, String)>> {
    let row = sqlx::query("SELECT id, password_hash FROM users WHERE name = $1")
        .bind(name)
        .fetch_optional(pool)
        .await?;
    Ok(match row {
        Some(r) => Some((r.try_get(0)?, r.try_get(1)?)),
        None => None,
    })
}

/// A credential as stored: a session (`name` "login", no operations) or
/// an API key.
pub(crate) struct NewCredential<'a> {
    pub id: &'a str,
    pub digest: &'a str,
    pub kind: &'a str,
    pub name: &'a str,
    pub user_id: &'a str,
    pub project_id: Option<&'a str>,
    pub operations: Option<&'a [prism_controller_api::Operation]>,
    pub created_ms: i64,
    pub expires_ms: Option<i64>,
}

pub(crate) async fn insert_credential(pool: &Pool, c: &NewCredential<'_>) -> Result<()> {
    sqlx::query("INSERT INTO credentials (id, digest, kind, name, user_id, project_id, operations, created_ms, expires_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)")
        .bind(c.id)
        .bind(c.digest)
        .bind(c.kind)
        .bind(c.name)
        .bind(c.user_id)
        .bind(c.project_id)
        .bind(c.operations.map(ops_to_json))
        .bind(c.created_ms)
        .bind(c.expires_ms)
        .execute(pool)
        .await?;
    Ok(())
}

/// A credential found by its secret's digest, with its user.
#[derive(Debug, Clone)]
pub(crate) struct CredentialRow {
    pub id: String,
    pub user_id: String,
    pub user: String,
    pub is_admin: bool,
    pub project_id: Option<String>,
    pub operations: Option<Vec<prism_controller_api::Operation>>,
    pub expires_ms: Option<i64>,
    pub revoked_ms: Option<i64>,
}

pub(crate) async fn credential_by_digest(
    pool: &Pool,
    digest: &str,
) -> Result<Option<CredentialRow>> {
    let row = sqlx::query(
        "SELECT c.id, c.user_id, u.name, u.is_admin, c.project_id, c.operations, c.expires_ms, c.revoked_ms \
         FROM credentials c JOIN users u ON u.id = c.user_id WHERE c.digest = $1",
    )
    .bind(digest)
    .fetch_optional(pool)
    .await?;
    let Some(r) = row else { return Ok(None) };
    Ok(Some(CredentialRow {
        id: r.try_get(0)?,
        user_id: r.try_get(1)?,
        user: r.try_get(2)?,
        is_admin: r.try_get::<i64, _>(3)? != 0,
        project_id: r.try_get(4)?,
        operations: r
            .try_get::<Option<String>, _>(5)?
            .as_deref()
            .map(ops_from_json),
        expires_ms: r.try_get(6)?,
        revoked_ms: r.try_get(7)?,
    }))
}

/// The credential of `digest` with project `project` as its user sees it,
/// in one query (a request's path names its project: the two reads every
/// project call makes, as one round trip).
pub(crate) async fn credential_in_project(
    pool: &Pool,
    digest: &str,
    project: &str,
) -> Result<Option<(CredentialRow, super::projects::ProjectSeen)>> {
    let row = sqlx::query(
        "SELECT c.id AS cred_id, c.user_id AS cred_user_id, u.name AS user_name, \
           u.is_admin AS user_is_admin, c.project_id AS cred_project_id, \
           c.operations AS cred_operations, c.expires_ms AS cred_expires_ms, \
           c.revoked_ms AS cred_revoked_ms, p.id AS project_id, m.role AS role, s.* \
         FROM credentials c JOIN users u ON u.id = c.user_id \
         LEFT JOIN projects p ON p.name = $2 \
         LEFT JOIN service_levels s ON s.name = p.service_level \
         LEFT JOIN members m ON m.project_id = p.id AND m.user_id = c.user_id \
         WHERE c.digest = $1",
    )
    .bind(digest)
    .bind(project)
    .fetch_optional(pool)
    .await?;
    let Some(r) = row else { return Ok(None) };
    let c = CredentialRow {
        id: r.try_get("cred_id")?,
        user_id: r.try_get("cred_user_id")?,
        user: r.try_get("user_name")?,
        is_admin: r.try_get::<i64, _>("user_is_admin")? != 0,
        project_id: r.try_get("cred_project_id")?,
        operations: r
            .try_get::<Option<String>, _>("cred_operations")?
            .as_deref()
            .map(ops_from_json),
        expires_ms: r.try_get("cred_expires_ms")?,
        revoked_ms: r.try_get("cred_revoked_ms")?,
    };
    Ok(Some((c, super::projects::project_of_row(&r, project)?)))
}

/// Revokes credential `id` at `now` (again if it was revoked before: a
/// logout twice is one logout).
pub(crate) async fn revoke(pool: &Pool, id: &str, now: i64) -> Result<()> {
    sqlx::query("UPDATE credentials SET revoked_ms = $1 WHERE id = $2")
        .bind(now)
        .bind(id)
        .execute(pool)
        .await?;
    Ok(())
}

pub(crate) async fn project_name(pool: &Pool, id: &str) -> Result<Option<String>> {
    Ok(sqlx::query("SELECT name FROM projects WHERE id = $1")
        .bind(id)
        .fetch_optional(pool)
        .await?
        .map(|r| r.try_get(0))
        .transpose()?)
}

/// Project `project_id`'s API keys, oldest first (no secrets: only their
/// digests are stored).
pub(crate) async fn api_keys(pool: &Pool, project_id: &str) -> Result<Vec<ApiKeyView>> {
    let rows = sqlx::query(
        "SELECT c.id, c.name, u.name, c.operations, c.created_ms, c.expires_ms, c.revoked_ms \
         FROM credentials c JOIN users u ON u.id = c.user_id \
         WHERE c.kind = 'api_key' AND c.project_id = $1 ORDER BY c.created_ms, c.id",
    )
    .bind(project_id)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(ApiKeyView {
                id: r.try_get(0)?,
                name: r.try_get(1)?,
                user: r.try_get(2)?,
                operations: ops_from_json(&r.try_get::<String, _>(3)?),
                created_ms: r.try_get(4)?,
                expires_ms: r.try_get(5)?,
                revoked_ms: r.try_get(6)?,
                key: None,
            })
        })
        .collect()
}

/// The user who created API key `id` of project `project_id`.
pub(crate) async fn api_key_creator(
    pool: &Pool,
    id: &str,
    project_id: &str,
) -> Result<Option<String>> {
    Ok(sqlx::query(
        "SELECT user_id FROM credentials WHERE id = $1 AND project_id = $2 AND kind = 'api_key'",
    )
    .bind(id)
    .bind(project_id)
    .fetch_optional(pool)
    .await?
    .map(|r| r.try_get(0))
    .transpose()?)
}

/// Revokes API key `id` at `now`, unless it was revoked before.
pub(crate) async fn revoke_api_key(pool: &Pool, id: &str, now: i64) -> Result<()> {
    sqlx::query("UPDATE credentials SET revoked_ms = $1 WHERE id = $2 AND revoked_ms IS NULL")
        .bind(now)
        .bind(id)
        .execute(pool)
        .await?;
    Ok(())
}
