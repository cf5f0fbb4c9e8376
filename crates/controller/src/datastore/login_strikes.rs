//! Failed logins by key (`user:NAME`, `addr:IP`): the SQL.

use super::Pool;
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

/// Counts one more failure of `key` at `now`: the failures now counted.
/// One statement, so failures on replicas at once are all counted.
pub(crate) async fn count_failure(pool: &Pool, key: &str, now: i64) -> Result<i64> {
    let r = sqlx::query(
        "INSERT INTO login_strikes (key, failures, blocked_until_ms, last_ms) VALUES ($1, 1, 0, $2) \
         ON CONFLICT (key) DO UPDATE SET failures = login_strikes.failures + 1, last_ms = $2 \
         RETURNING failures",
    )
    .bind(key)
    .bind(now)
    .fetch_one(pool)
    .await?;
    Ok(r.try_get("failures")?)
}

/// Blocks `key` until `until` (never shortening a longer block).
pub(crate) async fn block(pool: &Pool, key: &str, until: i64) -> Result<()> {
    sqlx::query(
        "UPDATE login_strikes SET blocked_until_ms = $2 WHERE key = $1 AND blocked_until_ms < $2",
    )
    .bind(key)
    .bind(until)
    .execute(pool)
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
