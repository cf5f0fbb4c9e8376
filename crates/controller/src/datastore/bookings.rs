//! Bookings' rows: reading a booking (its project's, user's and node's
//! names joined), a project's page, the name and VLAN checks, and each
//! state change's update. Parts, tags and public addresses are read by
//! their own modules.

use super::{Pool, Tx};
use crate::error::{Error, Result};
use crate::model::NETWORK;
use crate::model::{
    AllocationState, Booking, BookingIds, BookingRequest, OperationalState, node_network_name,
};
use prism_placement::Tier;
use sqlx::Row;

pub(crate) const BOOKING_SELECT: &str = "SELECT b.*, p.name AS project_name, u.name AS user_name, n.name AS node_name, \
     CAST(CASE WHEN EXISTS (SELECT 1 FROM operations o WHERE o.booking_id = b.id AND o.state = 'started') \
     THEN 1 ELSE 0 END AS BIGINT) AS converging \
     FROM bookings b JOIN projects p ON p.id = b.project_id JOIN users u ON u.id = b.user_id \
     LEFT JOIN nodes n ON n.id = b.node_id";

pub(crate) fn booking_of(r: &sqlx::any::AnyRow) -> Result<Booking> {
    let id: String = r.try_get("id")?;
    let node: Option<String> = r.try_get("node_name")?;
    let rtype: String = r.try_get("resource_type")?;
    Ok(Booking {
        node_network: (node.is_some() && rtype == NETWORK).then(|| node_network_name(&id)),
        id,
        project: r.try_get("project_name")?,
        user: r.try_get("user_name")?,
        name: r.try_get("name")?,
        resource_type: rtype,
        allocation_state: AllocationState::parse(&r.try_get::<String, _>("allocation_state")?)
            .unwrap_or(AllocationState::Unallocated),
        operational_state: OperationalState::parse(&r.try_get::<String, _>("operational_state")?)
            .unwrap_or(OperationalState::Failed),
        error: r.try_get("op_error")?,
        tier: r
            .try_get::<Option<String>, _>("tier")?
            .as_deref()
            .and_then(Tier::parse),
        bandwidth_mbps: r.try_get("bandwidth_mbps")?,
        node,
        vlan: r.try_get("vlan")?,
        created_ms: r.try_get("created_ms")?,
        provisioned_ms: r.try_get("provisioned_ms")?,
        expires_ms: r.try_get("expires_ms")?,
        released_ms: r.try_get("released_ms")?,
        spec: serde_json::from_str(&r.try_get::<String, _>("spec")?).unwrap_or_default(),
        generation: r.try_get("generation")?,
        parts: Vec::new(),
        s_tag: None,
        nat: r.try_get::<i64, _>("nat")? != 0,
        converging: r.try_get::<i64, _>("converging")? != 0,
        ssh: r.try_get("ssh")?,
        host_keys: (r.try_get::<Option<String>, _>("host_keys")?)
            .and_then(|k| serde_json::from_str(&k).ok())
            .unwrap_or_default(),
        ids: BookingIds {
            user: r.try_get("user_id")?,
            project: r.try_get("project_id")?,
            node: r.try_get("node_id")?,
            lease_s: r.try_get("lease_s")?,
        },
    })
}

/// What a new booking's row holds besides the request.
pub(crate) struct NewBooking<'a> {
    pub id: &'a str,
    pub project_id: &'a str,
    pub user_id: &'a str,
    pub resource_type: &'a str,
    pub tier: Option<Tier>,
    pub lease_s: i64,
    pub node_id: Option<&'a str>,
    pub vlan: Option<i64>,
}

/// A project's ceilings on bandwidth and lease-hours (its service
/// level's), and what a booking asks of each: checked by the insert
/// itself (`insert_within`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ceiling {
    pub max_mbps: i64,
    pub mbps: i64,
    pub max_hours: i64,
    pub hours: i64,
}

/// Inserts the booking's row, `allocated` and `pending`, held until
/// `held_until`, and its VLAN's row; with a `ceiling`, only if the project's live
/// bookings and it stay within `ceiling`: the quota check and the write
/// in one statement (a round trip less). Whether it was inserted.
pub(crate) async fn insert_within(
    tx: &mut Tx,
    b: &NewBooking<'_>,
    r: &BookingRequest,
    (now, held_until): (i64, i64),
    ceiling: Option<Ceiling>,
) -> Result<bool> {
    let sql = insert_sql(ceiling.is_some());
    let mut q = sqlx::query(&sql)
        .bind(b.id)
        .bind(b.project_id)
        .bind(b.user_id)
        .bind(&r.name)
        .bind(b.resource_type)
        .bind(b.tier.map(Tier::as_str))
        .bind(r.bandwidth_mbps)
        .bind(b.lease_s)
        .bind(b.node_id)
        .bind(b.vlan)
        .bind(r.spec.to_string())
        .bind(now)
        .bind(held_until)
        .bind(i64::from(r.nat));
    if let Some(c) = ceiling {
        q = q
            .bind(c.mbps)
            .bind(c.max_mbps)
            .bind(c.hours)
            .bind(c.max_hours);
    }
    let done = q
        .execute(&mut **tx)
        .await
        // The id is new and random: the violation is the live name's
        // (index `bookings_active_name`).
        .map_err(|e| match super::unique_violation(&e) {
            true => Error::conflict(format!("the project has a booking `{}`", r.name))
                .with_field("name"),
            false => e.into(),
        })?;
    if done.rows_affected() == 0 {
        return Ok(false);
    }
    if let Some(v) = b.vlan {
        sqlx::query("INSERT INTO vlans (vlan, project_id, booking_id) VALUES ($1, $2, $3)")
            .bind(v)
            .bind(b.project_id)
            .bind(b.id)
            .execute(&mut **tx)
            .await?;
    }
    Ok(true)
}

/// A booking's insert; `within`: only if the project's bandwidth and
/// lease-hours stay within their ceilings (`$15`..`$18`), read in the same
/// statement.
fn insert_sql(within: bool) -> String {
    const COLUMNS: &str = "INSERT INTO bookings (id, project_id, user_id, name, resource_type, tier, bandwidth_mbps, lease_s, node_id, vlan, spec, allocation_state, operational_state, created_ms, expires_ms, nat)";
    const VALUES: &str = "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'allocated', 'pending', $12, $13, $14)";
    const WITHIN: &str = "SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'allocated', 'pending', $12, $13, $14 \
        WHERE ($15 = 0 OR (SELECT COALESCE(SUM(bandwidth_mbps), 0) FROM bookings \
                           WHERE project_id = $2 AND released_ms IS NULL) + $15 <= $16) \
        AND ($17 = 0 OR (SELECT COALESCE(SUM(CASE WHEN provisioned_ms IS NULL \
                              THEN (lease_s * 1000 + 3599999) / 3600000 \
                              ELSE (expires_ms - provisioned_ms + 3599999) / 3600000 END), 0) \
                         FROM bookings WHERE project_id = $2 AND released_ms IS NULL) + $17 <= $18)";
    if within {
        format!("{COLUMNS} {WITHIN}")
    } else {
        format!("{COLUMNS} {VALUES}")
    }
}

/// Booking `id` if it is project `project_id`'s (without its parts).
pub(crate) async fn in_project(pool: &Pool, id: &str, project_id: &str) -> Result<Option<Booking>> {
    sqlx::query(&format!(
        "{BOOKING_SELECT} WHERE b.id = $1 AND b.project_id = $2"
    ))
    .bind(id)
    .bind(project_id)
    .fetch_optional(pool)
    .await?
    .as_ref()
    .map(booking_of)
    .transpose()
}

/// Booking `id`, inside a transaction (without its parts).
pub(crate) async fn by_id(tx: &mut Tx, id: &str) -> Result<Booking> {
    let r = sqlx::query(&format!("{BOOKING_SELECT} WHERE b.id = $1"))
        .bind(id)
        .fetch_one(&mut **tx)
        .await?;
    booking_of(&r)
}

/// Which of a project's bookings a page lists.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BookingFilter<'a> {
    /// Released ones too.
    pub all: bool,
    /// Names containing this (any case).
    pub name: Option<&'a str>,
    /// This allocation or operational state.
    pub state: Option<&'a str>,
}

/// Up to `limit` of the project's bookings created after `after`
/// (creation time, id), oldest first, as `filter` says.
pub(crate) async fn page(
    pool: &Pool,
    project_id: &str,
    filter: BookingFilter<'_>,
    after: (i64, &str),
    limit: usize,
) -> Result<Vec<Booking>> {
    let mut sql = format!(
        "{BOOKING_SELECT} WHERE b.project_id = $1 AND ($2 = 1 OR b.released_ms IS NULL) \
         AND (b.created_ms > $3 OR (b.created_ms = $3 AND b.id > $4))"
    );
    let mut n = 4;
    if filter.name.is_some() {
        n += 1;
        sql.push_str(&format!(" AND LOWER(b.name) LIKE LOWER(${n}) ESCAPE '\\'"));
    }
    if filter.state.is_some() {
        n += 1;
        sql.push_str(&format!(
            " AND (b.allocation_state = ${n} OR b.operational_state = ${n})"
        ));
    }
    sql.push_str(&format!(" ORDER BY b.created_ms, b.id LIMIT ${}", n + 1));
    let mut q = sqlx::query(&sql)
        .bind(project_id)
        .bind(filter.all as i64)
        .bind(after.0)
        .bind(after.1);
    if let Some(name) = filter.name {
        q = q.bind(super::like_contains(name));
    }
    if let Some(state) = filter.state {
        q = q.bind(state.to_string());
    }
    let rows = q.bind(limit as i64).fetch_all(pool).await?;
    rows.iter().map(booking_of).collect()
}

/// Provisioned at `now` in operational state `state`, leased until
/// `expires_ms`.
pub(crate) async fn set_provisioned(
    tx: &mut Tx,
    id: &str,
    state: OperationalState,
    now: i64,
    expires_ms: i64,
) -> Result<()> {
    sqlx::query("UPDATE bookings SET allocation_state = 'provisioned', operational_state = $2, provisioned_ms = $3, expires_ms = $4 WHERE id = $1")
        .bind(id)
        .bind(state.as_str())
        .bind(now)
        .bind(expires_ms)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

pub(crate) async fn set_expires(tx: &mut Tx, id: &str, expires_ms: i64) -> Result<()> {
    sqlx::query("UPDATE bookings SET expires_ms = $2 WHERE id = $1")
        .bind(id)
        .bind(expires_ms)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Operational state `state`, its last error cleared.
pub(crate) async fn set_operational(tx: &mut Tx, id: &str, state: OperationalState) -> Result<()> {
    sqlx::query("UPDATE bookings SET operational_state = $2, op_error = NULL WHERE id = $1")
        .bind(id)
        .bind(state.as_str())
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Releases booking `id` of project `project_id` at `now`, if it is live
/// and `user_id` booked it or `any_booker` (an owner, an administrator):
/// the booking as released (its parts not read), read and released in one
/// statement; `None` if no live booking of the project matched.
pub(crate) async fn release_returning(
    tx: &mut Tx,
    (id, project_id): (&str, &str),
    (user_id, any_booker): (&str, bool),
    now: i64,
) -> Result<Option<Booking>> {
    let r = sqlx::query(
        "UPDATE bookings SET allocation_state = 'unallocated', released_ms = $3 \
         WHERE id = $1 AND project_id = $2 AND released_ms IS NULL AND (user_id = $4 OR $5 = 1) \
         RETURNING *, \
         (SELECT name FROM projects WHERE projects.id = bookings.project_id) AS project_name, \
         (SELECT name FROM users WHERE users.id = bookings.user_id) AS user_name, \
         (SELECT name FROM nodes WHERE nodes.id = bookings.node_id) AS node_name, \
         CAST(0 AS BIGINT) AS converging",
    )
    .bind(id)
    .bind(project_id)
    .bind(now)
    .bind(user_id)
    .bind(i64::from(any_booker))
    .fetch_optional(&mut **tx)
    .await?;
    r.as_ref().map(booking_of).transpose()
}

/// Frees booking `id`'s VLAN at `now` (to the back of the pool).
pub(crate) async fn release_vlan(tx: &mut Tx, id: &str, now: i64) -> Result<()> {
    use super::pool_releases::{VLANS, Whose, release};
    release(tx, VLANS, Whose::Booking(id), now).await
}

/// Whether a booking of type `rtype`, on a node or not, with a VLAN or
/// not, holds shared capacity: its changes take the `bookings` lock row
/// too (`db::project_tx`).
pub(crate) fn shares(rtype: &str, on_node: bool, has_vlan: bool) -> bool {
    crate::model::shares_capacity(rtype) || on_node || has_vlan
}

/// Expires, set by set, every lease past its end (and hold past its
/// hold) at `now`: accounted, an `expire` operation recorded per node,
/// tunnels, S-tags and VLANs freed, nodes' generations raised, the
/// bookings released. The nodes concerned, and how many bookings.
pub(crate) async fn expire_due(tx: &mut Tx, now: i64) -> Result<(Vec<String>, usize)> {
    use super::pool_releases::{S_TAGS, TUNNELS, VLANS, Whose, release};
    const DUE: &str = "released_ms IS NULL AND expires_ms <= $1";
    let nodes = sqlx::query(&format!(
        "SELECT node_id FROM bookings WHERE {DUE} AND node_id IS NOT NULL \
         UNION SELECT node_id FROM booking_parts WHERE booking_id IN (SELECT id FROM bookings WHERE {DUE})"
    ))
    .bind(now)
    .fetch_all(&mut **tx)
    .await?
    .iter()
    .map(|r| r.try_get::<String, _>(0))
    .collect::<std::result::Result<Vec<_>, _>>()?;
    // The pools' values first, to the back of their pools (the bookings
    // are still due until the last step).
    for t in [TUNNELS, S_TAGS, VLANS] {
        release(tx, t, Whose::Due, now).await?;
    }
    let mut expired = 0;
    let steps = expire_steps();
    for (i, sql) in steps.iter().enumerate() {
        let done = sqlx::query(sql)
            .bind(now)
            .execute(&mut **tx)
            .await?
            .rows_affected();
        if i == steps.len() - 1 {
            expired = done as usize;
        }
    }
    Ok((nodes, expired))
}

/// The statements that expire every due booking at `$1`, in order:
/// accounted, an `expire` operation per node (or part), its nodes'
/// generations raised and their changes recorded, then released.
fn expire_steps() -> [String; 7] {
    const DUE: &str = "released_ms IS NULL AND expires_ms <= $1";
    [
        format!(
            "INSERT INTO accounting (id, at_ms, event, booking_id, user_id, project_id, node_id, tier, bandwidth_mbps, start_ms, end_ms) \
     SELECT 'expire:' || id, $1, 'expire', id, user_id, project_id, node_id, tier, bandwidth_mbps, COALESCE(provisioned_ms, created_ms), $1 FROM bookings WHERE {DUE}"
        ),
        format!(
            "INSERT INTO operations (id, booking_id, node_id, kind, state, started_ms) \
     SELECT 'expire:' || id, id, node_id, 'expire', 'started', $1 FROM bookings WHERE {DUE} AND node_id IS NOT NULL \
     AND NOT EXISTS (SELECT 1 FROM booking_parts p WHERE p.booking_id = bookings.id)"
        ),
        format!(
            "INSERT INTO operations (id, booking_id, node_id, kind, state, started_ms) \
     SELECT 'expire:' || booking_id || ':' || part, booking_id, node_id, 'expire', 'started', $1 \
     FROM booking_parts WHERE booking_id IN (SELECT id FROM bookings WHERE {DUE})"
        ),
        format!(
            "UPDATE nodes SET generation = generation + 1 WHERE id IN \
     (SELECT node_id FROM booking_parts WHERE booking_id IN (SELECT id FROM bookings WHERE {DUE}))"
        ),
        format!(
            "UPDATE nodes SET generation = generation + 1 WHERE id IN (SELECT node_id FROM bookings WHERE {DUE})"
        ),
        // Each expired booking is a change of its nodes' new generations.
        format!(
            "INSERT INTO node_changes (node_id, generation, booking_id) \
         SELECT n.id, n.generation, b.id FROM bookings b JOIN nodes n ON n.id = b.node_id \
         WHERE b.released_ms IS NULL AND b.expires_ms <= $1 \
         UNION SELECT n.id, n.generation, p.booking_id FROM booking_parts p JOIN nodes n ON n.id = p.node_id \
         WHERE p.booking_id IN (SELECT id FROM bookings WHERE {DUE}) \
         ON CONFLICT DO NOTHING"
        ),
        format!(
            "UPDATE bookings SET allocation_state = 'unallocated', released_ms = $1 WHERE {DUE}"
        ),
    ]
}

#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Counts {
    pub hw: i64,
    pub sw: i64,
    pub mbps: i64,
    pub hours: i64,
}

/// Per state (provisioned, or held): networks per tier, Mbit/s and
/// lease-hours (each booking's rounded up), summed by the database.
pub(crate) async fn counts<'e, E>(ex: E, project_id: &str) -> Result<(Counts, Counts)>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let rows = sqlx::query(
        "SELECT CASE WHEN allocation_state = 'provisioned' THEN 1 ELSE 0 END AS used, \
         CAST(SUM(CASE WHEN tier = 'hardware' THEN 1 ELSE 0 END) AS BIGINT), \
         CAST(SUM(CASE WHEN tier = 'software' THEN 1 ELSE 0 END) AS BIGINT), \
         CAST(SUM(bandwidth_mbps) AS BIGINT), \
         CAST(SUM(CASE WHEN provisioned_ms IS NULL THEN (lease_s * 1000 + 3599999) / 3600000 \
                       ELSE (expires_ms - provisioned_ms + 3599999) / 3600000 END) AS BIGINT) \
         FROM bookings WHERE project_id = $1 AND released_ms IS NULL \
         GROUP BY CASE WHEN allocation_state = 'provisioned' THEN 1 ELSE 0 END",
    )
    .bind(project_id)
    .fetch_all(ex)
    .await?;
    let (mut used, mut held) = (Counts::default(), Counts::default());
    for r in rows {
        let c = Counts {
            hw: r.try_get(1)?,
            sw: r.try_get(2)?,
            mbps: r.try_get(3)?,
            hours: r.try_get(4)?,
        };
        if r.try_get::<i64, _>(0)? == 1 {
            used = c;
        } else {
            held = c;
        }
    }
    Ok((used, held))
}

/// The bookings node `id` should run: provisioned, live, not stopped, on
/// it whole or by a part (without their parts).
pub(crate) async fn running_on(
    pool: &Pool,
    id: &str,
    only: Option<&[String]>,
) -> Result<Vec<Booking>> {
    let (and_only, ids) = super::only_ids("b.id", only, 2);
    let sql = format!(
        "{BOOKING_SELECT} WHERE b.allocation_state = 'provisioned' \
         AND b.released_ms IS NULL AND b.operational_state <> 'stopped' AND \
         ((b.node_id = $1 AND NOT EXISTS (SELECT 1 FROM booking_parts p WHERE p.booking_id = b.id)) \
          OR b.id IN (SELECT booking_id FROM booking_parts WHERE node_id = $1)){and_only}"
    );
    let mut q = sqlx::query(&sql).bind(id);
    for b in ids {
        q = q.bind(b);
    }
    let rows = q.fetch_all(pool).await?;
    rows.iter().map(booking_of).collect()
}
