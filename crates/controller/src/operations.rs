//! The operation journal: a multi-step node operation is recorded in the
//! transaction that changes a node's desired state, carried out (the node
//! converges), then marked done; a controller killed in between finds it
//! `started` at its next start and finishes it (omicron's sagas, in their
//! simplest form: every step here is idempotent convergence).

use crate::controller::Controller;
use crate::datastore::operations as store;
use crate::db::Tx;
use crate::error::Result;
use crate::model::Booking;
use crate::secrets;

/// A node operation recorded before it starts.
#[derive(Debug, Clone)]
pub(crate) struct OpRecord {
    /// (operation id, node id): one per node the booking is on.
    pub steps: Vec<(String, String)>,
}

impl Controller {
    /// Records a node operation on booking `b`'s node, in the transaction
    /// that changes the node's desired state (nothing when it has no node:
    /// there is nothing to resume).
    pub(crate) async fn begin_operation(
        &self,
        tx: &mut Tx,
        b: &Booking,
        kind: &str,
    ) -> Result<Option<OpRecord>> {
        let nodes = self.node_ids_of(tx, b).await?;
        if nodes.is_empty() {
            return Ok(None);
        }
        let mut steps = Vec::new();
        for node in nodes {
            let id = secrets::new_id();
            store::insert_started(tx, &id, &b.id, &node, kind, self.now_ms()).await?;
            steps.push((id, node));
        }
        Ok(Some(OpRecord { steps }))
    }

    /// Carries out a recorded operation: the node converges to its desired
    /// state (which the operation's transaction changed), then the
    /// operation is done. The booking's operational state says how the
    /// node took it.
    pub(crate) async fn finish_operation(&self, op: Option<OpRecord>) -> Result<()> {
        let Some(op) = op else { return Ok(()) };
        for (id, node) in &op.steps {
            self.reconcile_node(node).await;
            store::mark_done(&self.pool, id, self.now_ms()).await?;
        }
        Ok(())
    }

    /// Finishes what a previous run started and did not finish (killed
    /// between recording an operation and its node's convergence).
    pub async fn resume(&self) -> Result<usize> {
        let ops = store::unfinished(&self.pool).await?;
        let mut nodes: Vec<&String> = Vec::new();
        for n in ops.iter().filter_map(|(_, n)| n.as_ref()) {
            if !nodes.contains(&n) {
                nodes.push(n);
            }
        }
        for n in &nodes {
            self.reconcile_node(n).await;
        }
        for (id, _) in &ops {
            store::mark_done(&self.pool, id, self.now_ms()).await?;
        }
        if !ops.is_empty() {
            eprintln!(
                "prism controller: resumed {} interrupted operation(s) on {} node(s)",
                ops.len(),
                nodes.len()
            );
        }
        Ok(ops.len())
    }
}
