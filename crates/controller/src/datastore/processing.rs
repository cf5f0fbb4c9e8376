//! Processing bookings' SQL: the ones a node runs, their node's processing
//! port, and the ssh door and host keys its node reported.

use super::bookings::{BOOKING_SELECT, booking_of};
use super::{Pool, Tx};
use crate::error::Result;
use crate::model::{Booking, PROCESSING};
use sqlx::Row;

/// The processing bookings node `id` should run: provisioned, neither
/// released nor stopped.
pub(crate) async fn running_on(pool: &Pool, id: &str) -> Result<Vec<Booking>> {
    let sql = format!(
        "{BOOKING_SELECT} WHERE b.node_id = $1 AND b.resource_type = $2 \
         AND b.allocation_state = 'provisioned' AND b.released_ms IS NULL \
         AND b.operational_state <> 'stopped' ORDER BY b.created_ms, b.id"
    );
    let rows = sqlx::query(&sql)
        .bind(id)
        .bind(PROCESSING)
        .fetch_all(pool)
        .await?;
    rows.iter().map(booking_of).collect()
}

/// The port node `id`'s processing nodes are behind, if it runs them.
pub(crate) async fn processing_port(tx: &mut Tx, id: &str) -> Result<Option<String>> {
    let r = sqlx::query("SELECT processing_port FROM nodes WHERE id = $1")
        .bind(id)
        .fetch_one(&mut **tx)
        .await?;
    Ok(r.try_get(0)?)
}

/// Records the port node `id` reports its processing nodes behind.
pub(crate) async fn set_processing_port(tx: &mut Tx, id: &str, port: Option<&str>) -> Result<()> {
    sqlx::query("UPDATE nodes SET processing_port = $2 WHERE id = $1")
        .bind(id)
        .bind(port)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// The same, on the pool.
pub(crate) async fn processing_port_of(pool: &Pool, id: &str) -> Result<Option<String>> {
    let r = sqlx::query("SELECT processing_port FROM nodes WHERE id = $1")
        .bind(id)
        .fetch_one(pool)
        .await?;
    Ok(r.try_get(0)?)
}

/// Records processing booking `id`'s ssh door and host keys as its node
/// reported them.
pub(crate) async fn set_ssh(
    pool: &Pool,
    id: &str,
    ssh: Option<&str>,
    host_keys: &[String],
) -> Result<()> {
    let keys = serde_json::to_string(host_keys).unwrap_or_default();
    sqlx::query("UPDATE bookings SET ssh = $2, host_keys = $3 WHERE id = $1")
        .bind(id)
        .bind(ssh)
        .bind(keys)
        .execute(pool)
        .await?;
    Ok(())
}
