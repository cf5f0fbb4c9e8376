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

pub(crate) async fn mark_done(pool: &Pool, id: &str, now: i64) -> Result<()> {
    sqlx::query("UPDATE operations SET state = 'done', finished_ms = $2 WHERE id = $1")
        .bind(id)
        .bind(now)
        .execute(pool)
        .await?;
    Ok(())
}

/// The operations still `started`, oldest first: (id, node id).
pub(crate) async fn unfinished(pool: &Pool) -> Result<Vec<(String, Option<String>)>> {
    let rows = sqlx::query(
        "SELECT id, node_id FROM operations WHERE state = 'started' ORDER BY started_ms",
    )
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect()
}

/// The reaper's `expire` operations on node `node_id` are done.
pub(crate) async fn mark_expiries_done(pool: &Pool, node_id: &str, now: i64) -> Result<()> {
    sqlx::query("UPDATE operations SET state = 'done', finished_ms = $2 WHERE node_id = $1 AND kind = 'expire' AND state = 'started'")
        .bind(node_id)
        .bind(now)
        .execute(pool)
        .await?;
    Ok(())
}
