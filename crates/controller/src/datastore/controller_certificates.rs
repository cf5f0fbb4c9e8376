//! The controller replicas' client certificates: the SQL.

use super::Pool;
use crate::error::Result;
use prism_controller_api::ControllerCertView;
use sqlx::Row;

/// Records certificate `serial` of `replica` (once).
pub(crate) async fn record(
    pool: &Pool,
    serial: &str,
    replica: &str,
    now: i64,
    not_after_ms: i64,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO controller_certificates (serial, replica, created_ms, not_after_ms) \
         VALUES ($1, $2, $3, $4) ON CONFLICT (serial) DO NOTHING",
    )
    .bind(serial)
    .bind(replica)
    .bind(now)
    .bind(not_after_ms)
    .execute(pool)
    .await?;
    Ok(())
}

/// Whether certificate `serial` is revoked.
pub(crate) async fn is_revoked(pool: &Pool, serial: &str) -> Result<bool> {
    let r = sqlx::query("SELECT revoked_ms FROM controller_certificates WHERE serial = $1")
        .bind(serial)
        .fetch_optional(pool)
        .await?;
    Ok(match r {
        Some(r) => r.try_get::<Option<i64>, _>(0)?.is_some(),
        None => false,
    })
}

/// Revokes certificate `serial` at `now`: false if there is no such live one.
pub(crate) async fn revoke(pool: &Pool, serial: &str, now: i64) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE controller_certificates SET revoked_ms = $2 WHERE serial = $1 AND revoked_ms IS NULL",
    )
    .bind(serial)
    .bind(now)
    .execute(pool)
    .await?;
    Ok(done.rows_affected() > 0)
}

/// The revoked certificates not yet ended at `now`: (serial, revoked at),
/// by serial.
pub(crate) async fn revoked_live(pool: &Pool, now: i64) -> Result<Vec<(String, i64)>> {
    let rows = sqlx::query(
        "SELECT serial, revoked_ms FROM controller_certificates \
         WHERE revoked_ms IS NOT NULL AND not_after_ms > $1 ORDER BY serial",
    )
    .bind(now)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect()
}

/// Every certificate, newest first.
pub(crate) async fn all(pool: &Pool) -> Result<Vec<ControllerCertView>> {
    let rows = sqlx::query(
        "SELECT serial, replica, created_ms, not_after_ms, revoked_ms \
         FROM controller_certificates ORDER BY created_ms DESC, serial",
    )
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(ControllerCertView {
                serial: r.try_get(0)?,
                replica: r.try_get(1)?,
                created_ms: r.try_get(2)?,
                not_after_ms: r.try_get(3)?,
                revoked_ms: r.try_get(4)?,
            })
        })
        .collect()
}
