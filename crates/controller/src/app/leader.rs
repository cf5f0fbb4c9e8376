//! One leader among controller replicas: replicas on one PostgreSQL serve
//! the API side by side, but the background work (recovery of interrupted
//! operations, the reaper, the convergence passes) runs in the one replica that
//! holds the `background` lease in the database. The holder renews it
//! every `lead_every_ms` (others try as often); a replica that stops gives it up, and one that
//! dies loses it `lead_ttl_ms` after its last renewal, when another takes
//! it (and resumes what the dead one left half done). Each change of
//! holder raises the lease's fencing token. A stale leader that still
//! pushes a desired state is refused by the node, which applies no
//! generation older than one it has (`prism_node_api::desired`).
//!
//! Expiry is read on the claiming replica's clock: replicas' clocks must
//! agree to well under the lease's lifetime (NTP does).

use crate::controller::Controller;
use crate::datastore::leader as store;
use crate::error::Result;

/// The lease of the background work.
pub const BACKGROUND: &str = "background";

/// Who leads the background work, as the database says.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Leader {
    pub replica: String,
    pub token: i64,
    pub expires_ms: i64,
}

impl Controller {
    /// This replica's name among replicas (a UUID per process, unless set).
    pub fn replica(&self) -> &str {
        &self.replica
    }

    /// The same controller as another replica named `replica` (sharing
    /// this one's database pool): for tests of leadership in one process.
    pub fn as_replica(&self, replica: &str) -> Self {
        let mut c = self.clone();
        c.replica = std::sync::Arc::new(replica.to_string());
        // Another process would not share this one's locks on nodes, its
        // passes over them, or what it keeps of credentials.
        c.node_locks = Default::default();
        c.work = Default::default();
        c.auth_cache = Default::default();
        c.client_cert = Default::default();
        c
    }

    /// Claims or renews the background lease: its fencing token if this
    /// replica leads now.
    pub async fn lead(&self) -> Result<Option<i64>> {
        let now = self.now_ms();
        let until = now + self.settings.lead_ttl_ms;
        store::claim(&self.pool, BACKGROUND, &self.replica, now, until).await
    }

    /// Gives the background lease up (a replica stopping in order).
    pub async fn step_down(&self) -> Result<()> {
        store::give_up(&self.pool, BACKGROUND, &self.replica).await
    }

    /// Who holds the background lease.
    pub async fn leader(&self) -> Result<Option<Leader>> {
        Ok(store::holder(&self.pool, BACKGROUND)
            .await?
            .map(|(replica, token, expires_ms)| Leader {
                replica,
                token,
                expires_ms,
            }))
    }
}
