//! The end of a lease: a user's release, and the reaper's expiry of
//! leases past their end and holds past their hold.

use crate::authz::{Operation, Principal};
use crate::controller::Controller;
use crate::db;
use crate::error::{Error, Result};
use crate::model::{AllocationState, Booking};
use sqlx::Row;

impl Controller {
    pub async fn release(&self, p: &Principal, project: &str, id: &str) -> Result<Booking> {
        let m = self
            .project_for(p, project, Operation::BookingsRelease)
            .await?;
        let b = self.booking_in(&m, id).await?;
        p.may_touch(&m, Operation::BookingsRelease, &b.ids.user)?;
        self.release_as(id, &p.user_id, "release").await
    }

    /// Releases booking `id` (a user's release, or the reaper's expiry):
    /// frees its VLAN and capacity, takes it out of its node's desired
    /// state and reconciles the node.
    pub(crate) async fn release_as(&self, id: &str, user_id: &str, event: &str) -> Result<Booking> {
        let now = self.now_ms();
        let mut tx = db::booking_tx(&self.pool).await?;
        let cur = self.booking_tx_row(&mut tx, id).await?;
        if cur.released_ms.is_some() {
            return Err(Error::conflict("the booking is released already"));
        }
        let project_id = cur.ids.project.clone();
        let op = self.begin_operation(&mut tx, &cur, "release").await?;
        sqlx::query(
            "UPDATE bookings SET allocation_state = 'unallocated', released_ms = $2 WHERE id = $1",
        )
        .bind(id)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM vlans WHERE booking_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        self.free_tunnels(&mut tx, id).await?;
        self.release_publics_of(&mut tx, id, now).await?;
        let mut b = cur;
        b.allocation_state = AllocationState::Unallocated;
        b.released_ms = Some(now);
        self.bump_generation(&mut tx, &b).await?;
        self.account(&mut tx, event, &b, &project_id, user_id)
            .await?;
        tx.commit().await?;
        self.finish_operation(op).await?;
        Ok(b)
    }

    /// Releases every lease past its end (and every hold past its hold)
    /// in one transaction, set by set, then reconciles each node concerned
    /// once. Returns how many.
    pub async fn reap(&self) -> Result<usize> {
        let mut n = self.reap_public().await?;
        let now = self.now_ms();
        const DUE: &str = "released_ms IS NULL AND expires_ms <= $1";
        let mut tx = db::booking_tx(&self.pool).await?;
        let nodes = sqlx::query(&format!(
            "SELECT node_id FROM bookings WHERE {DUE} AND node_id IS NOT NULL \
             UNION SELECT node_id FROM booking_parts WHERE booking_id IN (SELECT id FROM bookings WHERE {DUE})"
        ))
        .bind(now)
        .fetch_all(&mut *tx)
        .await?
        .iter()
        .map(|r| r.try_get::<String, _>(0))
        .collect::<std::result::Result<Vec<_>, _>>()?;
        let steps = [
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
                "DELETE FROM tunnel_addresses WHERE booking_id IN (SELECT id FROM bookings WHERE {DUE})"
            ),
            format!("DELETE FROM s_tags WHERE booking_id IN (SELECT id FROM bookings WHERE {DUE})"),
            format!(
                "UPDATE nodes SET generation = generation + 1 WHERE id IN \
             (SELECT node_id FROM booking_parts WHERE booking_id IN (SELECT id FROM bookings WHERE {DUE}))"
            ),
            format!("DELETE FROM vlans WHERE booking_id IN (SELECT id FROM bookings WHERE {DUE})"),
            format!(
                "UPDATE nodes SET generation = generation + 1 WHERE id IN (SELECT node_id FROM bookings WHERE {DUE})"
            ),
            format!(
                "UPDATE bookings SET allocation_state = 'unallocated', released_ms = $1 WHERE {DUE}"
            ),
        ];
        for (i, sql) in steps.iter().enumerate() {
            let done = sqlx::query(sql)
                .bind(now)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            if i == steps.len() - 1 {
                n += done as usize;
            }
        }
        tx.commit().await?;
        for node in nodes {
            self.reconcile_node(&node).await;
            sqlx::query("UPDATE operations SET state = 'done', finished_ms = $2 WHERE node_id = $1 AND kind = 'expire' AND state = 'started'")
                .bind(&node)
                .bind(self.now_ms())
                .execute(&self.pool)
                .await?;
        }
        Ok(n)
    }
}
