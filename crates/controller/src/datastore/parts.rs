//! A spanning network's parts, and the pools they take from: tunnel
//! addresses and S-tags. The SQL and the row mapping.

use super::Tx;
use super::nodes::{NodeWan, node_wan};
use crate::error::{Error, Result};
use prism_netdoc::RouteDoc;
use sqlx::Row;
use std::collections::HashMap;
use std::net::Ipv4Addr;

/// One part as stored: its node, routes and tunnel address.
#[derive(Debug, Clone)]
pub(crate) struct Part {
    pub node_id: String,
    pub node: String,
    pub route: Vec<RouteDoc>,
    /// Its tunnel source address (none for a bridged network's part).
    pub tunnel: Option<Ipv4Addr>,
    pub wan: Option<NodeWan>,
    /// A bridged network's port for its side.
    pub port: Option<String>,
}

/// The parts of booking `id`, in order (none for one node's network).
pub(crate) async fn parts<'e, E>(ex: E, id: &str) -> Result<Vec<Part>>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let rows = sqlx::query(
        "SELECT p.node_id, n.name, p.route, p.tunnel, n.wan, p.port FROM booking_parts p \
         JOIN nodes n ON n.id = p.node_id WHERE p.booking_id = $1 ORDER BY p.part",
    )
    .bind(id)
    .fetch_all(ex)
    .await?;
    rows.iter().map(|r| part_of(r, 0)).collect()
}

/// A part from a row whose columns from `at` are node id, node name,
/// routes, tunnel, then `wan` and `port` by name.
fn part_of(r: &sqlx::any::AnyRow, at: usize) -> Result<Part> {
    Ok(Part {
        node_id: r.try_get(at)?,
        node: r.try_get(at + 1)?,
        route: serde_json::from_str(&r.try_get::<String, _>(at + 2)?)
            .map_err(|e| Error::internal(e.to_string()))?,
        tunnel: r.try_get::<String, _>(at + 3)?.parse().ok(),
        wan: node_wan(r)?,
        port: r.try_get("port")?,
    })
}

/// The parts of every spanning booking with a part on node `node_id`, by
/// booking, each booking's in order: one query for a node's whole desired
/// state, not one a booking.
pub(crate) async fn parts_by_booking_on(
    pool: &super::Pool,
    node_id: &str,
    only: Option<&[String]>,
) -> Result<HashMap<String, Vec<Part>>> {
    let (and_only, ids) = super::only_ids("p.booking_id", only, 2);
    let sql = format!(
        "SELECT p.booking_id, p.node_id, n.name, p.route, p.tunnel, n.wan, p.port FROM booking_parts p \
         JOIN nodes n ON n.id = p.node_id \
         WHERE p.booking_id IN (SELECT booking_id FROM booking_parts WHERE node_id = $1){and_only} \
         ORDER BY p.booking_id, p.part"
    );
    let mut q = sqlx::query(&sql).bind(node_id);
    for b in ids {
        q = q.bind(b);
    }
    let rows = q.fetch_all(pool).await?;
    let mut by = HashMap::<String, Vec<Part>>::new();
    for r in &rows {
        let booking: String = r.try_get(0)?;
        by.entry(booking).or_default().push(part_of(r, 1)?);
    }
    Ok(by)
}

/// The S-tags of the bookings with a part on node `node_id`, by booking.
pub(crate) async fn s_tags_on(
    pool: &super::Pool,
    node_id: &str,
    only: Option<&[String]>,
) -> Result<HashMap<String, i64>> {
    let (and_only, ids) = super::only_ids("booking_id", only, 2);
    let sql = format!(
        "SELECT booking_id, tag FROM s_tags \
         WHERE booking_id IN (SELECT booking_id FROM booking_parts WHERE node_id = $1){and_only}"
    );
    let mut q = sqlx::query(&sql).bind(node_id);
    for b in ids {
        q = q.bind(b);
    }
    let rows = q.fetch_all(pool).await?;
    rows.iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect()
}

/// Part `i` of booking `id` on the node named `node`: its routes (JSON),
/// tunnel address (empty for a bridge) and port.
pub(crate) async fn insert_part(
    tx: &mut Tx,
    id: &str,
    i: usize,
    route: &str,
    tunnel: &str,
    node: &str,
    port: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO booking_parts (booking_id, part, node_id, route, tunnel, port) \
         SELECT $1, $2, id, $3, $4, $6 FROM nodes WHERE name = $5",
    )
    .bind(id)
    .bind(i as i64)
    .bind(route)
    .bind(tunnel)
    .bind(node)
    .bind(port)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// The nodes of booking `id`'s parts.
pub(crate) async fn part_nodes<'e, E>(ex: E, id: &str) -> Result<Vec<String>>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    Ok(
        sqlx::query("SELECT node_id FROM booking_parts WHERE booking_id = $1 ORDER BY part")
            .bind(id)
            .fetch_all(ex)
            .await?
            .iter()
            .filter_map(|r| r.try_get::<String, _>(0).ok())
            .collect(),
    )
}

/// The tunnel addresses in use, sorted.
pub(crate) async fn used_tunnels(tx: &mut Tx) -> Result<Vec<u32>> {
    let mut used: Vec<u32> = sqlx::query("SELECT address FROM tunnel_addresses")
        .fetch_all(&mut **tx)
        .await?
        .iter()
        .filter_map(|r| r.try_get::<String, _>(0).ok()?.parse::<Ipv4Addr>().ok())
        .map(u32::from)
        .collect();
    used.sort_unstable();
    Ok(used)
}

pub(crate) async fn insert_tunnel(tx: &mut Tx, a: Ipv4Addr, booking: &str) -> Result<()> {
    sqlx::query("INSERT INTO tunnel_addresses (address, booking_id) VALUES ($1, $2)")
        .bind(a.to_string())
        .bind(booking)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

pub(crate) async fn insert_s_tag(tx: &mut Tx, tag: i64, booking: &str) -> Result<()> {
    sqlx::query("INSERT INTO s_tags (tag, booking_id) VALUES ($1, $2)")
        .bind(tag)
        .bind(booking)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Booking `id`'s S-tag, if it is a bridged network spanning nodes.
pub(crate) async fn s_tag_of<'e, E>(ex: E, id: &str) -> Result<Option<i64>>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    Ok(sqlx::query("SELECT tag FROM s_tags WHERE booking_id = $1")
        .bind(id)
        .fetch_optional(ex)
        .await?
        .map(|r| r.try_get::<i64, _>(0))
        .transpose()?)
}

/// Frees the tunnel addresses and the S-tag of booking `id`, released at
/// `now` (to the back of their pools).
pub(crate) async fn free_tunnels(tx: &mut Tx, id: &str, now: i64) -> Result<()> {
    use super::pool_releases::{S_TAGS, TUNNELS, Whose, release};
    for t in [TUNNELS, S_TAGS] {
        release(tx, t, Whose::Booking(id), now).await?;
    }
    Ok(())
}

/// Removes booking `id`'s parts (their tunnel addresses stay taken).
pub(crate) async fn delete_parts(tx: &mut Tx, id: &str) -> Result<()> {
    sqlx::query("DELETE FROM booking_parts WHERE booking_id = $1")
        .bind(id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Frees tunnel address `a`, released at `now` (to the back of the pool).
pub(crate) async fn free_tunnel(tx: &mut Tx, a: Ipv4Addr, now: i64) -> Result<()> {
    use super::pool_releases::{TUNNELS, Whose, release};
    release(tx, TUNNELS, Whose::Value(&a.to_string()), now).await
}

/// Makes node `node` (by name) booking `id`'s own: its first part's.
pub(crate) async fn set_first_node(tx: &mut Tx, id: &str, node: &str) -> Result<()> {
    sqlx::query(
        "UPDATE bookings SET node_id = (SELECT id FROM nodes WHERE name = $2) WHERE id = $1",
    )
    .bind(id)
    .bind(node)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Records the WAN side node `id` reports; when it changed, every node
/// holding a part of a live network with a part on it gets a new
/// generation (their tunnels to it change). Whether it changed.
pub(crate) async fn set_wan(
    tx: &mut Tx,
    id: &str,
    wan: Option<&prism_node_api::WanInfo>,
) -> Result<bool> {
    let new = wan.and_then(|w| serde_json::to_string(w).ok());
    let old: Option<String> = sqlx::query("SELECT wan FROM nodes WHERE id = $1")
        .bind(id)
        .fetch_one(&mut **tx)
        .await?
        .try_get(0)?;
    if old == new {
        return Ok(false);
    }
    sqlx::query("UPDATE nodes SET wan = $2 WHERE id = $1")
        .bind(id)
        .bind(&new)
        .execute(&mut **tx)
        .await?;
    sqlx::query(
        "UPDATE nodes SET generation = generation + 1 WHERE id IN (\
         SELECT q.node_id FROM booking_parts p JOIN booking_parts q ON q.booking_id = p.booking_id \
         JOIN bookings b ON b.id = p.booking_id WHERE p.node_id = $1 AND b.released_ms IS NULL)",
    )
    .bind(id)
    .execute(&mut **tx)
    .await?;
    sqlx::query(
        "INSERT INTO node_changes (node_id, generation, booking_id) \
         SELECT q.node_id, n.generation, q.booking_id FROM booking_parts p \
         JOIN booking_parts q ON q.booking_id = p.booking_id JOIN bookings b ON b.id = p.booking_id \
         JOIN nodes n ON n.id = q.node_id WHERE p.node_id = $1 AND b.released_ms IS NULL \
         ON CONFLICT DO NOTHING",
    )
    .bind(id)
    .execute(&mut **tx)
    .await?;
    Ok(true)
}
