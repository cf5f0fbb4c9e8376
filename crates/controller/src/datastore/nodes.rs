//! Nodes: their rows (as placement sees them, with the WAN side they
//! reported), registration, and what is booked on each.

use super::{Pool, Tx, unique_violation};
use crate::error::{Error, Result};
use prism_controller_api::Heartbeat;
use sqlx::Row;
use std::net::Ipv4Addr;

/// A node as placement sees it.
#[derive(Debug, Clone)]
pub(crate) struct NodeRow {
    pub id: String,
    pub name: String,
    pub address: String,
    pub ports: Vec<String>,
    pub slots: i64,
    pub hw_mbps: i64,
    pub sw_mbps: i64,
    pub last_seen_ms: i64,
    pub wan: Option<NodeWan>,
}

pub(crate) const NODE_COLUMNS: &str =
    "id, name, address, ports, slots, hw_mbps, sw_mbps, last_seen_ms, wan";

pub(crate) fn node_row(r: &sqlx::any::AnyRow) -> Result<NodeRow> {
    Ok(NodeRow {
        id: r.try_get("id")?,
        name: r.try_get("name")?,
        address: r.try_get("address")?,
        ports: serde_json::from_str(&r.try_get::<String, _>("ports")?).unwrap_or_default(),
        slots: r.try_get("slots")?,
        hw_mbps: r.try_get("hw_mbps")?,
        sw_mbps: r.try_get("sw_mbps")?,
        last_seen_ms: r.try_get("last_seen_ms")?,
        wan: node_wan(r)?,
    })
}

/// A node's WAN port as it reported it.
#[derive(Debug, Clone)]
pub(crate) struct NodeWan {
    pub port: String,
    pub address: Ipv4Addr,
    pub mac: String,
    /// The router beyond the port (the gateway's next hop), if reported.
    pub next_hop: Option<String>,
    /// The node's pool of public addresses (network address, length).
    pub public: Option<(Ipv4Addr, u8)>,
    /// The node's pool of public MACs.
    pub public_macs: Option<prism_netdoc::MacBlock>,
}

pub(crate) fn node_wan(r: &sqlx::any::AnyRow) -> Result<Option<NodeWan>> {
    let Some(text) = r.try_get::<Option<String>, _>("wan")? else {
        return Ok(None);
    };
    let w: prism_node_api::WanInfo =
        serde_json::from_str(&text).map_err(|e| Error::internal(e.to_string()))?;
    Ok(w.address.parse().ok().map(|address| NodeWan {
        port: w.port,
        address,
        mac: w.mac,
        next_hop: w.next_hop,
        public: w.public.as_deref().and_then(|p| {
            let (a, l) = p.split_once('/')?;
            Some((a.parse().ok()?, l.parse().ok().filter(|l| *l <= 32)?))
        }),
        public_macs: w.public_macs.as_deref().and_then(|p| p.parse().ok()),
    }))
}

/// What is booked on node `$1`: (tier, Mbit/s) of its own networks and
/// of the parts of spanning networks placed on it.
pub(crate) const NODE_LOAD: &str = "SELECT b.tier, b.bandwidth_mbps FROM bookings b \
     WHERE b.node_id = $1 AND b.released_ms IS NULL \
     AND NOT EXISTS (SELECT 1 FROM booking_parts p WHERE p.booking_id = b.id) \
     UNION ALL SELECT b.tier, b.bandwidth_mbps FROM booking_parts p \
     JOIN bookings b ON b.id = p.booking_id WHERE p.node_id = $1 AND b.released_ms IS NULL";

/// A node's registration, as its own answer gave it.
pub(crate) struct NewNode<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub address: &'a str,
    pub device: &'a str,
    pub slots: i64,
    pub hw_mbps: i64,
    pub sw_mbps: i64,
    pub ports: &'a [String],
    pub now: i64,
}

/// Records node `n` at generation 1, nothing applied; refused at `name` if
/// the name is taken.
pub(crate) async fn insert_node(pool: &Pool, n: &NewNode<'_>) -> Result<()> {
    sqlx::query("INSERT INTO nodes (id, name, address, device, slots, hw_mbps, sw_mbps, ports, generation, applied_generation, last_seen_ms, created_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, 0, $9, $9)")
        .bind(n.id)
        .bind(n.name)
        .bind(n.address)
        .bind(n.device)
        .bind(n.slots)
        .bind(n.hw_mbps)
        .bind(n.sw_mbps)
        .bind(serde_json::to_string(n.ports).unwrap_or_default())
        .bind(n.now)
        .execute(pool)
        .await
        .map_err(|e| {
            if unique_violation(&e) {
                Error::conflict(format!("a node `{}` exists", n.name)).with_field("name")
            } else {
                e.into()
            }
        })?;
    Ok(())
}

pub(crate) async fn node_ids(pool: &Pool) -> Result<Vec<String>> {
    let rows = sqlx::query("SELECT id FROM nodes ORDER BY name")
        .fetch_all(pool)
        .await?;
    rows.iter().map(|r| Ok(r.try_get(0)?)).collect()
}

/// Every node, by name, inside the booking transaction.
pub(crate) async fn nodes(tx: &mut Tx) -> Result<Vec<NodeRow>> {
    let rows = sqlx::query(&format!("SELECT {NODE_COLUMNS} FROM nodes ORDER BY name"))
        .fetch_all(&mut **tx)
        .await?;
    rows.iter().map(node_row).collect()
}

/// Node `id`'s row, inside a booking transaction.
pub(crate) async fn node_row_tx(tx: &mut Tx, id: &str) -> Result<Option<NodeRow>> {
    let r = sqlx::query(&format!("SELECT {NODE_COLUMNS} FROM nodes WHERE id = $1"))
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?;
    r.as_ref().map(node_row).transpose()
}

/// Node `id`'s device profile, in transaction `tx`.
pub(crate) async fn device_tx(tx: &mut Tx, id: &str) -> Result<Option<String>> {
    let r = sqlx::query("SELECT device FROM nodes WHERE id = $1")
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?;
    Ok(r.map(|r| r.try_get("device")).transpose()?)
}

/// A node with what only its view shows: its device, generations, last
/// error and its WAN side as reported.
pub(crate) struct NodeDetail {
    pub row: NodeRow,
    pub device: String,
    pub generation: i64,
    pub applied_generation: i64,
    pub last_error: Option<String>,
    pub wan: Option<prism_node_api::WanInfo>,
}

pub(crate) async fn node_detail(pool: &Pool, id: &str) -> Result<Option<NodeDetail>> {
    let Some(r) = sqlx::query("SELECT * FROM nodes WHERE id = $1")
        .bind(id)
        .fetch_optional(pool)
        .await?
    else {
        return Ok(None);
    };
    Ok(Some(NodeDetail {
        row: node_row(&r)?,
        device: r.try_get("device")?,
        generation: r.try_get("generation")?,
        applied_generation: r.try_get("applied_generation")?,
        last_error: r.try_get("last_error")?,
        wan: r
            .try_get::<Option<String>, _>("wan")?
            .and_then(|w| serde_json::from_str(&w).ok()),
    }))
}

/// What is booked on node `id`: (hardware slots, hardware Mbit/s,
/// software Mbit/s), summed by the database (a booking with no tier
/// counts as software).
pub(crate) async fn usage<'e, E>(ex: E, id: &str) -> Result<(i64, i64, i64)>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let u = sqlx::query(&format!(
        "SELECT CAST(COALESCE(SUM(CASE WHEN tier = 'hardware' THEN 1 ELSE 0 END), 0) AS BIGINT), \
         CAST(COALESCE(SUM(CASE WHEN tier = 'hardware' THEN bandwidth_mbps ELSE 0 END), 0) AS BIGINT), \
         CAST(COALESCE(SUM(CASE WHEN tier = 'hardware' THEN 0 ELSE bandwidth_mbps END), 0) AS BIGINT) \
         FROM ({NODE_LOAD}) AS load"
    ))
    .bind(id)
    .fetch_one(ex)
    .await?;
    Ok((u.try_get(0)?, u.try_get(1)?, u.try_get(2)?))
}

/// The node's row, made at its first heartbeat and updated at each:
/// (id, registered now, moved or rebooted, generation, applied).
pub(crate) async fn upsert_from_heartbeat(
    tx: &mut Tx,
    h: &Heartbeat,
    now: i64,
) -> Result<(String, bool, bool, i64, i64)> {
    let ports = serde_json::to_string(&h.info.ports).unwrap_or_default();
    let slots = i64::from(h.info.hardware_slots.total);
    let old = sqlx::query(
        "SELECT id, address, boot_id, generation, applied_generation FROM nodes WHERE name = $1",
    )
    .bind(&h.name)
    .fetch_optional(&mut **tx)
    .await?;
    Ok(match old {
        None => {
            let id = insert_from_heartbeat(tx, h, (&ports, slots), now).await?;
            (id, true, true, 1, 0)
        }
        Some(r) => {
            let id: String = r.try_get(0)?;
            let moved = r.try_get::<String, _>(1)? != h.address;
            let rebooted = r.try_get::<Option<String>, _>(2)?.as_deref() != Some(&h.boot_id);
            let generation: i64 = r.try_get(3)?;
            let applied: i64 = r.try_get(4)?;
            sqlx::query("UPDATE nodes SET address = $2, device = $3, slots = $4, ports = $5, boot_id = $6, last_seen_ms = $7, hw_mbps = COALESCE($8, hw_mbps), sw_mbps = COALESCE($9, sw_mbps), revoked_ms = NULL, processing_port = $10 WHERE id = $1")
                .bind(&id)
                .bind(&h.address)
                .bind(&h.info.device)
                .bind(slots)
                .bind(&ports)
                .bind(&h.boot_id)
                .bind(now)
                .bind(h.hw_mbps)
                .bind(h.sw_mbps)
                .bind(&h.info.processing_port)
                .execute(&mut **tx)
                .await?;
            (id, false, moved || rebooted, generation, applied)
        }
    })
}

/// Node `h.name`'s row, made at its first heartbeat: its id.
async fn insert_from_heartbeat(
    tx: &mut Tx,
    h: &Heartbeat,
    (ports, slots): (&str, i64),
    now: i64,
) -> Result<String> {
    let id = crate::infra::secrets::new_id();
    sqlx::query("INSERT INTO nodes (id, name, address, device, slots, hw_mbps, sw_mbps, ports, generation, applied_generation, last_seen_ms, created_ms, boot_id, processing_port) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, 0, $9, $9, $10, $11)")
        .bind(&id)
        .bind(&h.name)
        .bind(&h.address)
        .bind(&h.info.device)
        .bind(slots)
        .bind(h.hw_mbps.unwrap_or(1000))
        .bind(h.sw_mbps.unwrap_or(100))
        .bind(ports)
        .bind(now)
        .bind(&h.boot_id)
        .bind(&h.info.processing_port)
        .execute(&mut **tx)
        .await
        .map_err(|e| {
            if unique_violation(&e) {
                Error::conflict("this node was registered meanwhile; send again")
            } else {
                e.into()
            }
        })?;
    Ok(id)
}

/// A new desired state for node `id`, changed in booking `booking`'s
/// network: its generation goes up by one, and the change is recorded
/// under it (`changes_since`).
pub(crate) async fn bump_generation(tx: &mut Tx, id: &str, booking: &str) -> Result<()> {
    sqlx::query("UPDATE nodes SET generation = generation + 1 WHERE id = $1")
        .bind(id)
        .execute(&mut **tx)
        .await?;
    sqlx::query(
        "INSERT INTO node_changes (node_id, generation, booking_id) \
         SELECT id, generation, $2 FROM nodes WHERE id = $1 ON CONFLICT DO NOTHING",
    )
    .bind(id)
    .bind(booking)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// The bookings whose networks on node `id` changed after generation
/// `base`, or `None` when the record does not reach back that far (the
/// node holds a generation older than `changes_from`: send it whole).
pub(crate) async fn changes_since(pool: &Pool, id: &str, base: i64) -> Result<Option<Vec<String>>> {
    let rows = sqlx::query(
        "SELECT n.changes_from, c.booking_id FROM nodes n \
         LEFT JOIN node_changes c ON c.node_id = n.id AND c.generation > $2 WHERE n.id = $1",
    )
    .bind(id)
    .bind(base)
    .fetch_all(pool)
    .await?;
    let Some(first) = rows.first() else {
        return Ok(None);
    };
    if base + 1 < first.try_get::<i64, _>(0)? {
        return Ok(None);
    }
    let mut changed: Vec<String> = Vec::new();
    for r in &rows {
        if let Some(b) = r.try_get::<Option<String>, _>(1)? {
            changed.push(b);
        }
    }
    changed.sort_unstable();
    changed.dedup();
    Ok(Some(changed))
}

/// Forgets the change record of every node more than `keep` generations
/// behind what it has taken (the reaper's; `changes_from` moves past it).
pub(crate) async fn prune_changes(tx: &mut Tx, keep: i64) -> Result<()> {
    sqlx::query(
        "DELETE FROM node_changes WHERE generation < \
         (SELECT n.applied_generation FROM nodes n WHERE n.id = node_changes.node_id) - $1",
    )
    .bind(keep)
    .execute(&mut **tx)
    .await?;
    sqlx::query(
        "UPDATE nodes SET changes_from = applied_generation - $1 \
         WHERE changes_from < applied_generation - $1",
    )
    .bind(keep)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

pub(crate) async fn address_and_generation(pool: &Pool, id: &str) -> Result<(String, String, i64)> {
    let r = sqlx::query("SELECT name, address, generation FROM nodes WHERE id = $1")
        .bind(id)
        .fetch_one(pool)
        .await?;
    Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?))
}

/// Node `id`'s WAN side as it reported it.
pub(crate) async fn wan_of(pool: &Pool, id: &str) -> Result<Option<NodeWan>> {
    let r = sqlx::query("SELECT wan FROM nodes WHERE id = $1")
        .bind(id)
        .fetch_one(pool)
        .await?;
    node_wan(&r)
}

pub(crate) async fn set_last_error(pool: &Pool, id: &str, why: &str) -> Result<()> {
    sqlx::query("UPDATE nodes SET last_error = $2 WHERE id = $1")
        .bind(id)
        .bind(why)
        .execute(pool)
        .await?;
    Ok(())
}

/// Says on node `id` why it is behind (`why`), if it still is and has no
/// other error to show: a change waited for it in vain, its pass goes on.
pub(crate) async fn note_pending(pool: &Pool, id: &str, why: &str) -> Result<()> {
    sqlx::query(
        "UPDATE nodes SET last_error = $2 WHERE id = $1 AND applied_generation < generation \
         AND last_error IS NULL",
    )
    .bind(id)
    .bind(why)
    .execute(pool)
    .await?;
    Ok(())
}

/// Records one convergence pass of node `id` at `now`: its bookings
/// `ready` or failed (`errors`: booking, why), and the generation reached
/// (the one before while any network failed, so the next heartbeat tries
/// again).
pub(crate) async fn record_converged(
    pool: &Pool,
    id: &str,
    generation: i64,
    ready: &[String],
    errors: &[(String, String)],
    now: i64,
) -> Result<()> {
    let mut tx = crate::infra::db::begin(pool).await?;
    // Passes over a spanning network's nodes record one at a time: each
    // sees what the others recorded (two at once would each find the
    // other not yet converged, and neither mark the network ready).
    crate::infra::db::take_lock(&mut tx, "converged").await?;
    // A spanning network is ready when its last node converges: every
    // other part's node has reached its generation.
    for b in ready {
        sqlx::query("UPDATE bookings SET operational_state = 'ready', op_error = NULL WHERE id = $1 AND operational_state <> 'stopped' AND released_ms IS NULL \
             AND NOT EXISTS (SELECT 1 FROM booking_parts p JOIN nodes n ON n.id = p.node_id \
             WHERE p.booking_id = $1 AND p.node_id <> $2 AND n.applied_generation < n.generation)")
            .bind(b)
            .bind(id)
            .execute(&mut *tx)
            .await?;
    }
    for (b, e) in errors {
        sqlx::query("UPDATE bookings SET operational_state = 'failed', op_error = $2 WHERE id = $1 AND released_ms IS NULL")
            .bind(b)
            .bind(e)
            .execute(&mut *tx)
            .await?;
    }
    let error = (!errors.is_empty())
        .then(|| format!("{} network(s) refused; see their bookings", errors.len()));
    // A node whose key was revoked stays down, and says why, whatever it
    // answers.
    sqlx::query(
        "UPDATE nodes SET applied_generation = $2, \
         last_seen_ms = CASE WHEN revoked_ms IS NULL THEN $3 ELSE last_seen_ms END, \
         last_error = CASE WHEN revoked_ms IS NULL THEN $4 ELSE last_error END WHERE id = $1",
    )
    .bind(id)
    .bind(if errors.is_empty() {
        generation
    } else {
        generation - 1
    })
    .bind(now)
    .bind(error)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Node `name`'s last live key was revoked at `now` (if it has no other):
/// it is down at once, and says why, until a heartbeat with a live key.
pub(crate) async fn mark_revoked(tx: &mut Tx, name: &str, now: i64) -> Result<()> {
    sqlx::query(
        "UPDATE nodes SET revoked_ms = $2, last_seen_ms = 0, \
         last_error = 'its node key was revoked: down until it sends a heartbeat with a live key' \
         WHERE name = $1 AND NOT EXISTS \
         (SELECT 1 FROM node_keys WHERE node_name = $1 AND revoked_ms IS NULL)",
    )
    .bind(name)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// The id of the node named `name`.
pub(crate) async fn id_by_name(pool: &Pool, name: &str) -> Result<Option<String>> {
    let r = sqlx::query("SELECT id FROM nodes WHERE name = $1")
        .bind(name)
        .fetch_optional(pool)
        .await?;
    r.map(|r| r.try_get(0)).transpose().map_err(Into::into)
}

/// The node named `name`, inside the booking transaction.
pub(crate) async fn by_name(tx: &mut Tx, name: &str) -> Result<Option<NodeRow>> {
    sqlx::query(&format!("SELECT {NODE_COLUMNS} FROM nodes WHERE name = $1"))
        .bind(name)
        .fetch_optional(&mut **tx)
        .await?
        .as_ref()
        .map(node_row)
        .transpose()
}

/// Node `id`'s port names.
pub(crate) async fn ports(tx: &mut Tx, id: &str) -> Result<Vec<String>> {
    let r = sqlx::query("SELECT ports FROM nodes WHERE id = $1")
        .bind(id)
        .fetch_one(&mut **tx)
        .await?;
    Ok(serde_json::from_str(&r.try_get::<String, _>(0)?).unwrap_or_default())
}
