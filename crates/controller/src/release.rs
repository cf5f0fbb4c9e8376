//! The end of a lease: a user's release, and the reaper's expiry of
//! leases past their end and holds past their hold.

use crate::authz::{Operation, Principal};
use crate::controller::Controller;
use crate::datastore::bookings;
use crate::db;
use crate::error::{Error, Result};
use crate::model::{AllocationState, Booking};
use crate::registry::NETWORK;

/// Generations of a node's change record kept before what it has taken:
/// a replica whose last state is older sends the node its whole state.
const CHANGES_KEPT: i64 = 1000;

impl Controller {
    /// Releases booking `id` of `project`: its VLAN, capacity and tunnels
    /// freed (to the back of their pools), its nodes' desired states
    /// changed; answers once its nodes have taken it or after a moment
    /// (`converging` then says the nodes' convergence is pending).
    pub async fn release(&self, p: &Principal, project: &str, id: &str) -> Result<Booking> {
        let m = self
            .project_for(p, project, Operation::BookingsRelease)
            .await?;
        let now = self.now_ms();
        // The booking is read, and the caller's right to it checked, in the
        // transaction (no read before it): the project's lock row first,
        // the shared one after it once the booking is known to hold shared
        // capacity.
        let mut tx = db::project_tx(&self.pool, &m.project_id, false).await?;
        let cur = self
            .booking_tx_row_of(&mut tx, id, &m.project_id)
            .await?
            .ok_or_else(|| Error::not_found(format!("booking `{id}`")))?;
        p.may_touch(
            &m,
            Operation::BookingsRelease,
            &cur.ids.user,
            &format!("booking {id}"),
        )?;
        if bookings::shares(
            &cur.resource_type,
            cur.ids.node.is_some(),
            cur.vlan.is_some(),
        ) {
            db::take_shared(&mut tx).await?;
        }
        if cur.released_ms.is_some() {
            return Err(Error::conflict("the booking is released already"));
        }
        let project_id = m.project_id.as_str();
        let (user_id, event) = (p.user_id.as_str(), "release");
        let op = self.begin_operation(&mut tx, &cur, "release").await?;
        bookings::set_released(&mut tx, id, now, cur.vlan.is_some()).await?;
        // Tunnel addresses, S-tags and public addresses are a network's.
        if cur.resource_type == NETWORK {
            crate::datastore::parts::free_tunnels(&mut tx, id, now).await?;
            self.release_publics_of(&mut tx, id, now).await?;
        }
        let mut b = cur;
        b.allocation_state = AllocationState::Unallocated;
        b.released_ms = Some(now);
        self.bump_generation(&mut tx, &b).await?;
        self.commit_accounted(tx, (event, &b), (project_id, user_id), 200)
            .await?;
        let converged = self.node_changed(op, self.change_wait()).await;
        b.converging = !converged;
        Ok(b)
    }

    /// Forgets, once a minute, each node's change record older than
    /// `CHANGES_KEPT` generations before what it has taken.
    async fn prune_node_changes(&self) -> Result<()> {
        use std::sync::atomic::Ordering;
        let now = self.now_ms();
        if now - self.changes_pruned_ms.load(Ordering::Relaxed) < 60_000 {
            return Ok(());
        }
        self.changes_pruned_ms.store(now, Ordering::Relaxed);
        let mut tx = db::begin(&self.pool).await?;
        crate::datastore::nodes::prune_changes(&mut tx, CHANGES_KEPT).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Releases every lease past its end (and every hold past its hold)
    /// in one transaction, set by set, then asks each node concerned for
    /// a pass, which it does in its own time (`crate::node_work`): a lease
    /// ends on time whatever its node does. Returns how many.
    pub async fn reap(&self) -> Result<usize> {
        self.forget_old_login_strikes().await?;
        self.prune_node_changes().await?;
        let mut n = self.reap_public().await?;
        let now = self.now_ms();
        let mut tx = db::booking_tx(&self.pool).await?;
        let (nodes, expired) = bookings::expire_due(&mut tx, now).await?;
        n += expired;
        tx.commit().await?;
        self.kick_all(&nodes);
        Ok(n)
    }
}
