//! Certificates issued to nodes (`crate::app::node_identity`): the SQL.

use super::{Pool, Tx};
use crate::error::Result;
use sqlx::Row;

pub(crate) struct NewCertificate<'a> {
    pub fingerprint: &'a str,
    pub node: &'a str,
    pub key_id: &'a str,
    pub issued_ms: i64,
    pub not_after_ms: i64,
}

pub(crate) async fn insert(tx: &mut Tx, c: &NewCertificate<'_>) -> Result<()> {
    sqlx::query(
        "INSERT INTO node_certificates (fingerprint, node, key_id, issued_ms, not_after_ms) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(c.fingerprint)
    .bind(c.node)
    .bind(c.key_id)
    .bind(c.issued_ms)
    .bind(c.not_after_ms)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// What the controller holds of node `node`'s certificates at `now_ms`:
/// the fingerprints of the live ones (neither revoked nor ended), and
/// whether it was ever issued one.
pub(crate) async fn of_node(pool: &Pool, node: &str, now_ms: i64) -> Result<(Vec<String>, bool)> {
    let rows = sqlx::query(
        "SELECT fingerprint, not_after_ms, revoked_ms FROM node_certificates WHERE node = $1",
    )
    .bind(node)
    .fetch_all(pool)
    .await?;
    let mut live = Vec::new();
    for r in &rows {
        let revoked: Option<i64> = r.try_get("revoked_ms")?;
        if revoked.is_none() && r.try_get::<i64, _>("not_after_ms")? > now_ms {
            live.push(r.try_get("fingerprint")?);
        }
    }
    Ok((live, !rows.is_empty()))
}

/// Revokes every certificate issued under node key `key_id`.
pub(crate) async fn revoke_for_key(tx: &mut Tx, key_id: &str, now_ms: i64) -> Result<u64> {
    let r = sqlx::query(
        "UPDATE node_certificates SET revoked_ms = $2 WHERE key_id = $1 AND revoked_ms IS NULL",
    )
    .bind(key_id)
    .bind(now_ms)
    .execute(&mut **tx)
    .await?;
    Ok(r.rows_affected())
}
