//! Failed logins by key (`user:NAME`, `addr:IP`): the SQL.

use super::{Pool, Tx};
use crate::error::Result;
use sqlx::Row;

/// The latest end of a block among `keys`, if any row has one.
pub(crate) async fn blocked_until(pool: &Pool, keys: &[String]) -> Result<Option<i64>> {
    let mut latest = None;
    for k in keys {
        let r = sqlx::query("SELECT blocked_until_ms FROM login_strikes WHERE key = $1")
            .bind(k)
            .fetch_optional(pool)
            .await?;
        if let Some(r) = r {
            latest = latest.max(Some(r.try_get::<i64, _>("blocked_until_ms")?));
        }
    }
    Ok(latest)
}

/// Reserves one more failure of `key` at `now`, unless it is blocked:
/// the failures now counted, or `None` (blocked: nothing counted). One
/// statement, so attempts on replicas at once are each counted once, and
/// in the caller's transaction, which holds the row until it blocks it.
pub(crate) async fn reserve_failure(tx: &mut Tx, key: &str, now: i64) -> Result<Option<i64>> {
    let r = sqlx::query(
        "INSERT INTO login_strikes (key, failures, blocked_until_ms, last_ms) VALUES ($1, 1, 0, $2) \
         ON CONFLICT (key) DO UPDATE SET failures = login_strikes.failures + 1, last_ms = $2 \
         WHERE login_strikes.blocked_until_ms <= $2 \
         RETURNING failures",
    )
    .bind(key)
    .bind(now)
    .fetch_optional(&mut **tx)
    .await?;
    Ok(match r {
        Some(r) => Some(r.try_get("failures")?),
        None => None,
    })
}

/// Blocks `key` until `until` (never shortening a longer block).
pub(crate) async fn block(tx: &mut Tx, key: &str, until: i64) -> Result<()> {
    sqlx::query(
        "UPDATE login_strikes SET blocked_until_ms = $2 WHERE key = $1 AND blocked_until_ms < $2",
    )
    .bind(key)
    .bind(until)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Forgets `keys` (a login succeeded).
pub(crate) async fn clear(pool: &Pool, keys: &[String]) -> Result<()> {
    for k in keys {
        sqlx::query("DELETE FROM login_strikes WHERE key = $1")
            .bind(k)
            .execute(pool)
            .await?;
    }
    Ok(())
}

/// Forgets keys not failed since `before` and not blocked at `now` (the
/// reaper's pass; the table stays the size of recent guessing).
pub(crate) async fn prune(pool: &Pool, before: i64, now: i64) -> Result<u64> {
    let done =
        sqlx::query("DELETE FROM login_strikes WHERE last_ms < $1 AND blocked_until_ms <= $2")
            .bind(before)
            .bind(now)
            .execute(pool)
            .await?;
    Ok(done.rows_affected())
}
