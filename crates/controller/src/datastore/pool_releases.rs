//! When each pool value (a VLAN, a tunnel address, an S-tag) was last
//! released: the SQL. The policy (hold-down, order) is `crate::app::pools`'.

use super::Tx;
use crate::error::Result;
use sqlx::Row;
use std::collections::HashMap;

/// A pool whose released values are remembered: its name in the table,
/// and the table and column of the values in use (each row a booking's).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PoolTable {
    pub pool: &'static str,
    pub table: &'static str,
    pub column: &'static str,
}

pub(crate) const VLANS: PoolTable = PoolTable {
    pool: "vlan",
    table: "vlans",
    column: "vlan",
};
pub(crate) const TUNNELS: PoolTable = PoolTable {
    pool: "tunnel",
    table: "tunnel_addresses",
    column: "address",
};
pub(crate) const S_TAGS: PoolTable = PoolTable {
    pool: "s_tag",
    table: "s_tags",
    column: "tag",
};

/// Whose values are released.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Whose<'a> {
    /// One booking's (a release).
    Booking(&'a str),
    /// Every booking past its end at `now` (the reaper's).
    Due,
    /// One value (as text), whoever holds it: a part taken from a live
    /// network.
    Value(&'a str),
}

/// Records the values of `t` that `whose` holds as released at `now` (to
/// the back of the pool), then frees them.
pub(crate) async fn release(tx: &mut Tx, t: PoolTable, whose: Whose<'_>, now: i64) -> Result<()> {
    let (pool, table, column) = (t.pool, t.table, t.column);
    let which = match whose {
        Whose::Booking(_) => "booking_id = $1",
        Whose::Due => {
            "booking_id IN (SELECT id FROM bookings WHERE released_ms IS NULL AND expires_ms <= $1)"
        }
        Whose::Value(_) => &format!("CAST({column} AS TEXT) = $1"),
    };
    let remember = format!(
        "INSERT INTO pool_releases (pool, value, released_ms) \
         SELECT '{pool}', CAST({column} AS TEXT), $2 FROM {table} WHERE {which} \
         ON CONFLICT (pool, value) DO UPDATE SET released_ms = excluded.released_ms"
    );
    let free = format!("DELETE FROM {table} WHERE {which}");
    for (sql, then_now) in [(&remember, true), (&free, false)] {
        let q = match whose {
            Whose::Booking(id) | Whose::Value(id) => sqlx::query(sql).bind(id),
            Whose::Due => sqlx::query(sql).bind(now),
        };
        let q = if then_now { q.bind(now) } else { q };
        q.execute(&mut **tx).await?;
    }
    Ok(())
}

/// Every released value of `t`'s pool, with when it was released.
pub(crate) async fn released(tx: &mut Tx, t: PoolTable) -> Result<HashMap<String, i64>> {
    let rows = sqlx::query("SELECT value, released_ms FROM pool_releases WHERE pool = $1")
        .bind(t.pool)
        .fetch_all(&mut **tx)
        .await?;
    rows.iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect()
}

/// The first value of an integer pool `first..=last` of `t` by `crate::app::pools`'
/// order (never released first, lowest first; then released longest
/// ago), none in use and none released after `cutoff`: found by the
/// database, one row back (the pool's every used and released value read
/// into the controller cost a change as much as the pool was full).
pub(crate) async fn first_free(
    tx: &mut Tx,
    t: PoolTable,
    first: i64,
    last: i64,
    cutoff: i64,
) -> Result<Option<i64>> {
    let (pool, table, column) = (t.pool, t.table, t.column);
    let sql = format!(
        "WITH RECURSIVE candidates(v) AS (SELECT CAST($1 AS BIGINT) \
         UNION ALL SELECT v + 1 FROM candidates WHERE v < $2) \
         SELECT c.v FROM candidates c \
         LEFT JOIN {table} u ON u.{column} = c.v \
         LEFT JOIN pool_releases r ON r.pool = '{pool}' AND r.value = CAST(c.v AS TEXT) \
         WHERE u.{column} IS NULL AND (r.released_ms IS NULL OR r.released_ms <= $3) \
         ORDER BY CASE WHEN r.released_ms IS NULL THEN 0 ELSE 1 END, r.released_ms, c.v LIMIT 1"
    );
    let r = sqlx::query(&sql)
        .bind(first)
        .bind(last)
        .bind(cutoff)
        .fetch_optional(&mut **tx)
        .await?;
    Ok(match r {
        Some(r) => Some(r.try_get(0)?),
        None => None,
    })
}

/// How many values of `t`'s pool were released after `cutoff` (held
/// down now).
pub(crate) async fn held_count(tx: &mut Tx, t: PoolTable, cutoff: i64) -> Result<i64> {
    Ok(
        sqlx::query("SELECT COUNT(*) FROM pool_releases WHERE pool = $1 AND released_ms > $2")
            .bind(t.pool)
            .bind(cutoff)
            .fetch_one(&mut **tx)
            .await?
            .try_get(0)?,
    )
}
