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

use crate::app::context::Context;
use crate::app::node_work::kick_all;
use crate::datastore::leader as store;
use crate::datastore::operations;
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

/// This replica's name among replicas (a UUID per process, unless set).
pub fn replica(cx: &Context) -> &str {
    &cx.replica
}

/// The same controller as another replica named `replica` (sharing
/// this one's database pool): for tests of leadership in one process.
pub fn as_replica(cx: &Context, replica: &str) -> Context {
    let mut c = cx.clone();
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
pub async fn lead(cx: &Context) -> Result<Option<i64>> {
    let now = cx.now_ms();
    let until = now + cx.settings.lead_ttl_ms;
    store::claim(&cx.pool, BACKGROUND, &cx.replica, now, until).await
}

/// Gives the background lease up (a replica stopping in order).
pub async fn step_down(cx: &Context) -> Result<()> {
    store::give_up(&cx.pool, BACKGROUND, &cx.replica).await
}

/// Who holds the background lease.
pub async fn leader(cx: &Context) -> Result<Option<Leader>> {
    Ok(store::holder(&cx.pool, BACKGROUND)
        .await?
        .map(|(replica, token, expires_ms)| Leader {
            replica,
            token,
            expires_ms,
        }))
}

/// Renews or claims the lead; on taking it, resumes what was left half
/// done. The token now held, if any.
pub(crate) async fn keep_lead(cx: &Context, held: Option<i64>) -> Option<i64> {
    let asked = std::time::Instant::now();
    let claimed = lead(cx).await;
    // A claim slower than the lease's lifetime loses the lease while
    // it waits: say so, with how long it took.
    let took = asked.elapsed();
    if took.as_millis() as i64 > cx.settings.lead_ttl_ms / 2 {
        eprintln!(
            "prism controller: replica {}: claiming the background lease took {:.1} s",
            cx.replica,
            took.as_secs_f64()
        );
    }
    let now = match claimed {
        Ok(t) => t,
        Err(e) => {
            eprintln!("prism controller: the background lease: {e}");
            None
        }
    };
    match (held, now) {
        (h, Some(t)) if h != Some(t) => {
            eprintln!(
                "prism controller: replica {} leads the background work (token {t})",
                cx.replica
            );
            if let Err(e) = resume(cx).await {
                eprintln!("prism controller: resuming operations: {e}");
            }
        }
        (Some(_), None) => eprintln!(
            "prism controller: replica {} no longer leads the background work",
            cx.replica
        ),
        _ => {}
    }
    now
}

/// Finishes what a previous run started and did not finish (killed
/// between recording an operation and its node's convergence, or a
/// node that did not answer): a pass over each node concerned, whose
/// success marks them done. Returns how many nodes.
pub async fn resume(cx: &Context) -> Result<usize> {
    let nodes = operations::nodes_unfinished(&cx.pool).await?;
    kick_all(cx, &nodes);
    if !nodes.is_empty() {
        eprintln!(
            "prism controller: resuming unfinished operations on {} node(s)",
            nodes.len()
        );
    }
    Ok(nodes.len())
}
