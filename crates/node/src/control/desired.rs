//! A whole desired state under a generation number (`PUT /v1/desired`):
//! in: the scope's networks as documents and the control plane's
//! generation; out: what was done to each network. One reconciliation
//! under the control lock, so no other change interleaves; an older
//! generation is refused before anything is looked at, and a document
//! that does not compile refuses the whole state before anything changes.
//! Networks that are valid but cannot be placed (no slot, a router that
//! fails to start) are reported as failed, the rest still applied, and the
//! generation is held: sending it again retries them. A change to the
//! last accepted state (`PATCH /v1/desired`) is made whole here and
//! converged to as if it had been sent whole.

use super::Control;
use super::plan::{Step, execute, fence, plan};
use crate::runtime::NodeRuntime;
use prism_netdoc::NetworkDoc;
use prism_node_api::{ApiError, DesiredApplied, DesiredChange, DesiredState};
use std::borrow::Borrow;
use std::collections::BTreeMap;

impl<R: NodeRuntime> Control<R> {
    /// Converges the networks of `body.scope` to `body.networks`.
    pub fn put_desired(&mut self, body: DesiredState) -> Result<DesiredApplied, ApiError> {
        fence(self.desired_generation, body.generation)?;
        body.check()?;
        self.compile_new(&body.networks, "networks", &self.definitions_borrowed())?;
        Ok(self.converge(body))
    }

    /// Converges to `body`, every document of which compiles, from the
    /// networks held.
    fn converge(&mut self, body: DesiredState) -> DesiredApplied {
        let generation = body.generation;
        let steps = plan(&body, &self.definitions_borrowed());
        // Saved once at the end, whatever the number of networks changed.
        self.save_deferred = Some(false);
        let networks = execute(steps, |name, step| {
            let desired = match step {
                Step::Remove => None,
                Step::Add(d) | Step::Replace(d) => Some(d),
                Step::Unchanged => return Ok(()),
            };
            self.apply(name, desired).map(drop).map_err(ApiError::from)
        });
        let unsaved = self.save_deferred.take() == Some(true);
        if unsaved || self.desired_generation != generation {
            self.desired_generation = generation;
            self.save_only();
        }
        self.last_desired = Some(body);
        DesiredApplied {
            generation,
            networks,
        }
    }

    /// Converges to the state `body` makes of the last accepted one
    /// (refused whole, nothing changed, if that is not `body.base`).
    pub fn patch_desired(&mut self, body: DesiredChange) -> Result<DesiredApplied, ApiError> {
        fence(self.desired_generation, body.generation)?;
        body.check()?;
        // What a change puts differs from what was sent: each compiled
        // (a copy of every held document to skip some would cost more).
        self.compile_new(&body.put, "put", &BTreeMap::<&str, NetworkDoc>::new())?;
        let whole = body.apply_to(&mut self.last_desired)?;
        // The rest of the state compiled when it came (a state is accepted
        // only whole), so only the put documents were compiled.
        Ok(self.converge(whole).touched())
    }

    /// Compiles each document of list `field` that differs from the one
    /// held (a document as held compiled when it came: with 1,000 networks,
    /// a change is one compile, not 1,000); the error names the document's
    /// field (`networks[2].route[0]...`).
    fn compile_new<D: Borrow<NetworkDoc>>(
        &self,
        docs: &[NetworkDoc],
        field: &str,
        held: &BTreeMap<&str, D>,
    ) -> Result<(), ApiError> {
        for (i, doc) in docs.iter().enumerate() {
            if held.get(doc.name.as_str()).map(|d| d.borrow()) == Some(doc) {
                continue;
            }
            prism_compile::compile(doc, &self.port_names).map_err(|e| {
                let inner = if e.field.is_empty() {
                    String::new()
                } else {
                    format!(".{}", e.field)
                };
                ApiError::invalid(format!("network `{}`: {}", doc.name, e.message))
                    .with_field(format!("{field}[{i}]{inner}"))
            })?;
        }
        Ok(())
    }
}
