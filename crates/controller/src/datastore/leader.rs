//! Leases that make one replica the leader of some work: the SQL.

use super::Pool;
use crate::error::Result;
use sqlx::Row;

/// Takes or keeps lease `name` for `holder` until `until`, if it is free,
/// expired at `now` or already `holder`'s: its fencing token (raised at
/// each change of holder). `None`: another replica holds it.
pub(crate) async fn claim(
    pool: &Pool,
    name: &str,
    holder: &str,
    now: i64,
    until: i64,
) -> Result<Option<i64>> {
    // One statement, so two replicas claiming at once cannot both win:
    // the row's lock orders them, and the second sees the first's holder.
    let row = sqlx::query(
        "INSERT INTO leader_leases (name, holder, token, expires_ms) VALUES ($1, $2, 1, $3) \
         ON CONFLICT (name) DO UPDATE SET \
           token = CASE WHEN leader_leases.holder = excluded.holder \
                   THEN leader_leases.token ELSE leader_leases.token + 1 END, \
           holder = excluded.holder, \
           expires_ms = excluded.expires_ms \
         WHERE leader_leases.holder = excluded.holder OR leader_leases.expires_ms < $4 \
         RETURNING token",
    )
    .bind(name)
    .bind(holder)
    .bind(until)
    .bind(now)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| r.try_get::<i64, _>("token")).transpose()?)
}

/// Ends `holder`'s lease `name` now, so another replica takes it at once.
pub(crate) async fn give_up(pool: &Pool, name: &str, holder: &str) -> Result<()> {
    sqlx::query("UPDATE leader_leases SET expires_ms = 0 WHERE name = $1 AND holder = $2")
        .bind(name)
        .bind(holder)
        .execute(pool)
        .await?;
    Ok(())
}

/// Who holds lease `name`: (holder, token, expires_ms).
pub(crate) async fn holder(pool: &Pool, name: &str) -> Result<Option<(String, i64, i64)>> {
    let Some(r) =
        sqlx::query("SELECT holder, token, expires_ms FROM leader_leases WHERE name = $1")
            .bind(name)
            .fetch_optional(pool)
            .await?
    else {
        return Ok(None);
    };
    Ok(Some((
        r.try_get("holder")?,
        r.try_get("token")?,
        r.try_get("expires_ms")?,
    )))
}
