//! The end of a lease: a user's release, and the reaper's expiry of
//! leases past their end and holds past their hold.

use crate::app::authz::{Membership, Operation, Principal};
use crate::app::registry::NETWORK;
use crate::controller::Controller;
use crate::datastore::bookings;
use crate::error::{Error, Result};
use crate::infra::db;
use crate::model::Booking;

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
        // Read and released in one statement, in the transaction, if the
        // caller may (its booker; any booker for an owner or an
        // administrator): the project's lock first, the shared one after
        // it once the booking is known to hold shared capacity.
        let mut tx = db::project_tx(&self.pool, &m.project_id, false).await?;
        let any_booker = p.is_admin || m.role == Some(crate::model::Role::Owner);
        let who = (p.user_id.as_str(), any_booker);
        let found = bookings::release_returning(&mut tx, (id, &m.project_id), who, now).await?;
        let Some(mut b) = found else {
            drop(tx);
            return Err(self.why_not_released(p, &m, id).await);
        };
        let resource = format!("booking {id}");
        p.may_touch(&m, Operation::BookingsRelease, &b.ids.user, &resource)?;
        if b.resource_type == NETWORK {
            crate::app::bookings::with_parts(&mut b, &mut tx).await?;
        }
        if bookings::shares(&b.resource_type, b.ids.node.is_some(), b.vlan.is_some()) {
            db::take_shared(&mut tx).await?;
        }
        let op = self.begin_operation(&mut tx, &b, "release").await?;
        if b.vlan.is_some() {
            bookings::release_vlan(&mut tx, id, now).await?;
        }
        // Tunnel addresses, S-tags and public addresses are a network's.
        if b.resource_type == NETWORK {
            crate::datastore::parts::free_tunnels(&mut tx, id, now).await?;
            self.release_publics_of(&mut tx, id, now).await?;
        }
        self.bump_generation(&mut tx, &b).await?;
        let who = (m.project_id.as_str(), p.user_id.as_str());
        self.commit_accounted(tx, ("release", &b), who, 200).await?;
        let converged = self.node_changed(op, self.change_wait()).await;
        b.converging = !converged;
        Ok(b)
    }

    /// Why booking `id` of project `m` was not released by `p`: not the
    /// project's (404), released already (409), or not the caller's to
    /// release (403).
    async fn why_not_released(&self, p: &Principal, m: &Membership, id: &str) -> Error {
        match self.booking_in(m, id).await {
            Err(e) => e,
            Ok(b) if b.released_ms.is_some() => Error::conflict("the booking is released already"),
            Ok(b) => match p.may_touch(m, Operation::BookingsRelease, &b.ids.user, "") {
                Err(e) => e,
                Ok(()) => Error::internal("the booking changed meanwhile; try again"),
            },
        }
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
    /// a pass, which it does in its own time (`crate::app::node_work`): a lease
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
