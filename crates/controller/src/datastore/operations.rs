//! The operation journal's rows: an operation on a booking's node
//! recorded `started` inside the transaction that changes the node's
//! desired state, then marked `done`.

use super::{Pool, Tx};
use crate::error::Result;
use sqlx::Row;

/// Records operation `id` (`kind`) on node `node_id` for booking
/// `booking_id`, started at `now`.
pub(crate) async fn insert_started(
    tx: &mut Tx,
    id: &str,
    booking_id: &str,
    node_id: &str,
    kind: &str,
    now: i64,
) -> Result<()> {
    sqlx::query("INSERT INTO operations (id, booking_id, node_id, kind, state, started_ms) VALUES ($1, $2, $3, $4, 'started', $5)")
        .bind(id)
        .bind(booking_id)
        .bind(node_id)
        .bind(kind)
        .bind(now)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Operations `ids` are done at `now`.
pub(crate) async fn mark_done(pool: &Pool, ids: &[String], now: i64) -> Result<()> {
    let mut tx = crate::infra::db::begin(pool).await?;
    for id in ids {
        sqlx::query("UPDATE operations SET state = 'done', finished_ms = $2 WHERE id = $1")
            .bind(id)
            .bind(now)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// The operations still `started` on node `node_id`.
pub(crate) async fn started_on(pool: &Pool, node_id: &str) -> Result<Vec<String>> {
    let rows = sqlx::query("SELECT id FROM operations WHERE node_id = $1 AND state = 'started'")
        .bind(node_id)
        .fetch_all(pool)
        .await?;
    rows.iter().map(|r| Ok(r.try_get(0)?)).collect()
}

/// The nodes with operations still `started`.
pub(crate) async fn nodes_unfinished(pool: &Pool) -> Result<Vec<String>> {
    let rows = sqlx::query(
        "SELECT DISTINCT node_id FROM operations WHERE state = 'started' AND node_id IS NOT NULL",
    )
    .fetch_all(pool)
    .await?;
    rows.iter().map(|r| Ok(r.try_get(0)?)).collect()
}
