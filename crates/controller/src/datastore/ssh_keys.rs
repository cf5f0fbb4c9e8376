//! Users' ssh public keys: the SQL.

use super::Pool;
use crate::error::{Error, Result};
use prism_controller_api::SshKeyView;
use sqlx::Row;

pub(crate) async fn of_user(pool: &Pool, user_id: &str) -> Result<Vec<SshKeyView>> {
    let rows = sqlx::query(
        "SELECT id, name, public_key, fingerprint, created_ms FROM ssh_keys \
         WHERE user_id = $1 ORDER BY created_ms, id",
    )
    .bind(user_id)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(SshKeyView {
                id: r.try_get("id")?,
                name: r.try_get("name")?,
                public_key: r.try_get("public_key")?,
                fingerprint: r.try_get("fingerprint")?,
                created_ms: r.try_get("created_ms")?,
            })
        })
        .collect()
}

/// Stores key `k` of user `user_id`, unless it has `max` keys or one of
/// that name already. The user's row is locked first: concurrent adds
/// count one after another (PostgreSQL's READ COMMITTED would let each
/// count the keys before the others' inserts; SQLite writes one at a time).
pub(crate) async fn insert(pool: &Pool, user_id: &str, k: &SshKeyView, max: i64) -> Result<()> {
    let mut tx = crate::infra::db::begin(pool).await?;
    sqlx::query("UPDATE users SET id = id WHERE id = $1")
        .bind(user_id)
        .execute(&mut *tx)
        .await?;
    let done = sqlx::query(
        "INSERT INTO ssh_keys (id, user_id, name, public_key, fingerprint, created_ms) \
         SELECT $1, $2, $3, $4, $5, $6 WHERE (SELECT COUNT(*) FROM ssh_keys WHERE user_id = $2) < $7",
    )
    .bind(&k.id)
    .bind(user_id)
    .bind(&k.name)
    .bind(&k.public_key)
    .bind(&k.fingerprint)
    .bind(k.created_ms)
    .bind(max)
    .execute(&mut *tx)
    .await
    .map_err(|e| match super::unique_violation(&e) {
        true => {
            Error::conflict(format!("you have an ssh key named `{}`", k.name)).with_field("name")
        }
        false => e.into(),
    })?;
    if done.rows_affected() == 0 {
        return Err(Error::conflict(format!("at most {max} ssh keys")));
    }
    tx.commit().await?;
    Ok(())
}

/// Deletes user `user_id`'s key `id`; whether there was one.
pub(crate) async fn delete(pool: &Pool, user_id: &str, id: &str) -> Result<bool> {
    let r = sqlx::query("DELETE FROM ssh_keys WHERE id = $1 AND user_id = $2")
        .bind(id)
        .bind(user_id)
        .execute(pool)
        .await?;
    Ok(r.rows_affected() > 0)
}
