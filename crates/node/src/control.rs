//! The node's control side: the networks it should have (one document
//! each) and a reconciler that converges the substrate and, through the
//! [`NodeRuntime`], the software routers to them.
//!
//! [`Control::apply`] takes a network's desired document (or none, to
//! remove it). It checks the document and the substrate's capacities before
//! it touches anything, then changes things in an order that never leaves a
//! packet without a path:
//!
//! - hardware → hardware: the substrate publishes the new tables at once;
//! - to software (new, or from hardware, paper 003 §3.4's migration): the
//!   router starts and receives, then the substrate switches the network's
//!   tier in one publication;
//! - software → hardware, or removal: the substrate switches first, then
//!   the router is stopped;
//! - software → software: the running router takes the new table; a
//!   different router or different links get a new container beside the
//!   old one, and the old one goes after the switch.
//!
//! Applying the document a network already has changes nothing that
//! matters (the substrate republishes the same tables): safe to run twice.

use crate::runtime::{NodeRuntime, RouterRequest, RuntimeError};
use prism_netdoc::{NetworkDoc, ReconfigureChoice, TierChoice};
use prism_node_api::{ErrorCode, NetworkView};
use prism_pipeline::control::reconfig::Strategy;
use prism_pipeline::{NetworkSpec, Substrate, SubstrateError, Tier};
use std::collections::BTreeMap;

mod error;
pub use error::ApplyError;
use error::{internal, substrate_error};

#[derive(Debug)]
pub struct Control<R: NodeRuntime> {
    pub substrate: Substrate,
    pub device: String,
    pub port_names: Vec<String>,
    pub runtime: R,
    docs: BTreeMap<String, NetworkDoc>,
    routers: BTreeMap<String, R::Router>,
    /// Of the desired state: one more for every change applied.
    generation: u64,
    /// The control plane's generation last accepted (`desired`).
    desired_generation: u64,
    /// The desired state last accepted since the node started, as sent:
    /// what a change (`PATCH /v1/desired`) applies to.
    last_desired: Option<prism_node_api::DesiredState>,
    /// Per network, its moves between the tiers since the node started.
    moves: BTreeMap<String, u64>,
    /// What changes did beyond the obvious, for the node's log.
    pub events: Vec<String>,
    /// Reconfigurations under way (`reconfigure`).
    ops: Vec<reconfigure::Op>,
    /// The event log the API returns, and its last number.
    journal: std::collections::VecDeque<prism_node_api::NodeEvent>,
    seq: u64,
    /// How a hardware network's module is changed when the request does
    /// not say.
    pub default_strategy: prism_pipeline::control::reconfig::Strategy,
    /// `tier = "auto"` networks and what placement measured of them.
    auto: auto::AutoState,
    /// While set, a change marks the desired state unsaved instead of
    /// saving it (`Some(unsaved)`): a whole desired state of n networks is
    /// saved once, not n times (each save writes every network).
    save_deferred: Option<bool>,
}

impl<R: NodeRuntime> Control<R> {
    /// A control side for a substrate loaded with the networks of `docs`
    /// (their routers are started by [`Self::bring_up`]).
    pub fn new(
        substrate: Substrate,
        device: String,
        port_names: Vec<String>,
        docs: BTreeMap<String, NetworkDoc>,
        runtime: R,
    ) -> Self {
        Self {
            substrate,
            device,
            port_names,
            runtime,
            docs,
            routers: BTreeMap::new(),
            generation: 0,
            desired_generation: 0,
            last_desired: None,
            moves: BTreeMap::new(),
            events: Vec::new(),
            ops: Vec::new(),
            journal: Default::default(),
            seq: 0,
            default_strategy: Default::default(),
            auto: auto::AutoState::new(auto::AutoSettings::from_doc(None)),
            save_deferred: None,
        }
    }

    /// Whether a change may be made now: refused, before anything is
    /// done, when it could not be saved (its state directory is full), so
    /// a node restarted later has what it was told, and the networks it
    /// holds go on forwarding.
    pub fn writable(&self) -> Result<(), prism_node_api::ApiError> {
        self.runtime.room_to_save().map_err(|why| {
            prism_node_api::ApiError::new(
                prism_node_api::ErrorCode::StorageFull,
                format!(
                    "the node's state directory has no room to save a change ({why}): nothing \
                     was changed, and its networks go on forwarding"
                ),
            )
        })
    }

    /// The desired state's generation: how many changes were applied.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The control plane's generation last accepted (0: none).
    pub fn desired_generation(&self) -> u64 {
        self.desired_generation
    }

    /// Logs the node's start: how many networks it holds, and from where.
    pub fn log_start(&mut self, from: &str) {
        let n = self.docs.len();
        let networks = if n == 1 { "network" } else { "networks" };
        let msg = format!("node started with {n} {networks} ({from})");
        let kind = prism_node_api::EventKind::NodeStarted;
        self.log(kind, "", None, (None, None), msg);
    }

    /// Continues the numbering of a restored desired state.
    pub fn restore_generations(&mut self, g: crate::runtime::Generations) {
        self.generation = g.changes;
        self.desired_generation = g.desired;
    }

    pub fn doc(&self, name: &str) -> Option<&NetworkDoc> {
        self.docs.get(name)
    }

    pub fn router(&self, name: &str) -> Option<&R::Router> {
        self.routers.get(name)
    }

    /// How network `name` runs, for the API.
    pub fn view(&self, name: &str) -> Option<NetworkView> {
        let id = self.substrate.id(name)?;
        let s = self.substrate.spec(name)?;
        Some(NetworkView {
            id,
            name: s.name.clone(),
            tier: s.tier,
            forwarding: s.forwarding.module().as_str().to_string(),
            entries: s.forwarding.entries(),
            rate_bps: s.rate_limit.map(|r| r.0),
            burst_bytes: s.rate_limit.map(|r| r.1),
            slot: self.substrate.hardware().slot_of(id),
            router: self.routers.get(name).map(|r| self.runtime.view(r)),
            tier_moves: self.moves.get(name).copied().unwrap_or(0),
        })
    }

    fn start(
        &mut self,
        net: u16,
        variant: bool,
        c: &prism_compile::Compiled,
        doc: &NetworkDoc,
    ) -> Result<R::Router, ApplyError> {
        let spec = &c.spec;
        let r = self.runtime.start_router(RouterRequest {
            net,
            variant,
            spec,
            router: &c.router,
            doc,
        })?;
        self.events.push(format!(
            "network `{}`: {} router started",
            spec.name,
            c.router.kind.as_str()
        ));
        Ok(r)
    }

    /// Make before break: starts the router, and only once it receives
    /// publishes `c.spec` with `publish`; a refused publication stops the
    /// router again, leaving everything as it was.
    fn start_then_publish(
        &mut self,
        id: u16,
        variant: bool,
        c: &prism_compile::Compiled,
        doc: &NetworkDoc,
        publish: impl FnOnce(&mut Substrate, NetworkSpec) -> Result<(), SubstrateError>,
    ) -> Result<R::Router, ApplyError> {
        let t = std::time::Instant::now();
        let r = self.start(id, variant, c, doc)?;
        let ready = t.elapsed();
        if let Err(e) = publish(&mut self.substrate, c.spec.clone()) {
            let _ = self.stop(r);
            return Err(internal(e));
        }
        self.events.push(format!(
            "network `{}`: router ready {} ms after the call; traffic switched to it {} us later",
            c.spec.name,
            ready.as_millis(),
            (t.elapsed() - ready).as_micros()
        ));
        Ok(r)
    }

    fn stop(&mut self, r: R::Router) -> Result<(), ApplyError> {
        self.runtime.stop_router(r)?;
        Ok(())
    }

    /// Starts the router of a software network the scenario already placed
    /// in the substrate (at node start).
    pub fn bring_up(&mut self, name: &str) -> Result<(), ApplyError> {
        let doc = self
            .docs
            .get(name)
            .cloned()
            .ok_or_else(|| ApplyError::not_found(name))?;
        let c = prism_compile::compile(&doc, &self.port_names)?;
        let id = self
            .substrate
            .id(name)
            .ok_or_else(|| ApplyError::not_found(name))?;
        let r = self.start(id, false, &c, &doc)?;
        self.routers.insert(name.to_string(), r);
        Ok(())
    }

    /// Converges network `name` to `desired` (`None`: removed). Returns
    /// what was done, in words.
    pub fn apply(&mut self, name: &str, desired: Option<NetworkDoc>) -> Result<String, ApplyError> {
        if let Some(why) = self.busy(name) {
            return Err(ApplyError::new(ErrorCode::Conflict, why));
        }
        let Some(mut doc) = desired else {
            return match self.substrate.spec(name) {
                None => Err(ApplyError::not_found(name)),
                Some(_) => self.remove(name),
            };
        };
        let auto = doc.tier == TierChoice::Auto;
        if auto && doc.bandwidth.is_none() {
            return Err(ApplyError {
                field: Some("bandwidth".into()),
                ..ApplyError::new(
                    ErrorCode::InvalidInput,
                    "`tier = \"auto\"` needs `bandwidth`: the rate it is placed by until its rate is measured",
                )
            });
        }
        if auto {
            // An automatic network stays where it is; a new one goes where
            // the policy puts its declared bandwidth.
            let tier = match self.substrate.spec(name) {
                Some(s) => s.tier,
                None if doc.name == name => self.admit_auto(&doc)?,
                None => Tier::Software,
            };
            doc.tier = tier.into();
        }
        let mbps = doc.bandwidth.map_or(0.0, |b| b.0 as f64 / 1e6);
        let before = self.substrate.spec(name).map(|s| s.tier);
        let done = self.apply_concrete(name, doc)?;
        // A move its definition asked for (an automatic one is logged
        // with its reason by `auto`).
        let after = self.substrate.spec(name).map(|s| s.tier);
        if before.is_some() && after.is_some() && before != after {
            let kind = prism_node_api::EventKind::TierMove;
            self.journal(kind, name, None, (None, None), done.clone());
        }
        match (auto, self.auto.accepted.contains_key(name)) {
            (true, false) => {
                self.auto.accepted.insert(name.to_string(), mbps);
                self.save_only();
            }
            (false, true) => {
                self.auto.accepted.remove(name);
                self.save_only();
            }
            _ => {}
        }
        Ok(done)
    }

    /// [`Self::apply`] of a document with a concrete tier (an automatic
    /// network's included).
    fn apply_concrete(&mut self, name: &str, doc: NetworkDoc) -> Result<String, ApplyError> {
        let current = self.substrate.spec(name).cloned();
        same_name(name, &doc)?;
        let c = prism_compile::compile(&doc, &self.port_names)?;
        let spec = c.spec.clone();
        let id = self.substrate.check(&spec).map_err(substrate_error)?;
        // Another module in a hardware slot is a reconfiguration of it.
        if self.is_module_change(current.as_ref(), &spec) {
            let chosen = doc.reconfigure.map(|r| match r {
                ReconfigureChoice::Partial => Strategy::Partial,
                ReconfigureChoice::Fallback => Strategy::Fallback,
            });
            return self.reconfigure(name, doc, chosen).map(|e| e.message);
        }
        self.substrate.set_now(self.runtime.now_ns());
        let moved = current.as_ref().is_some_and(|c| c.tier != spec.tier);
        let done = match (current.as_ref().map(|c| c.tier), spec.tier) {
            (None, Tier::Hardware) => {
                self.substrate.add_network(spec).map_err(internal)?;
                format!("network `{name}` added in hardware")
            }
            (None, Tier::Software) => {
                let r = self.start_then_publish(id, false, &c, &doc, |s, spec| {
                    s.add_network(spec).map(drop)
                })?;
                self.routers.insert(name.to_string(), r);
                format!("network `{name}` added in software")
            }
            (Some(Tier::Hardware), Tier::Hardware) => {
                self.substrate.replace_network(spec).map_err(internal)?;
                format!("network `{name}` changed")
            }
            (Some(Tier::Hardware), Tier::Software) => {
                let r = self.start_then_publish(id, false, &c, &doc, Substrate::replace_network)?;
                self.routers.insert(name.to_string(), r);
                format!("network `{name}` moved to software")
            }
            (Some(Tier::Software), Tier::Hardware) => {
                // A slot that must load the module first: the software tier
                // serves on until it has (`tick` moves the network).
                if let Some(ready) = self.substrate.load_for(&spec).map_err(substrate_error)? {
                    self.docs.insert(name.to_string(), doc);
                    self.save();
                    return Ok(self.load_then_move(name, ready));
                }
                // The pipeline takes over before the router goes.
                self.substrate.replace_network(spec).map_err(internal)?;
                if let Some(r) = self.routers.remove(name) {
                    self.stop(r)?;
                }
                format!("network `{name}` moved to hardware")
            }
            (Some(Tier::Software), Tier::Software) => {
                let old = current.expect("a software network has a spec");
                self.change_software(name, id, &old, &c, &doc)?
            }
        };
        Ok(self.record_applied(name, doc, moved, done))
    }

    /// Keeps network `name`'s document as applied (a move between tiers
    /// counted), logs what was done and saves the state.
    fn record_applied(&mut self, name: &str, doc: NetworkDoc, moved: bool, done: String) -> String {
        if moved {
            *self.moves.entry(name.to_string()).or_default() += 1;
        }
        self.docs.insert(name.to_string(), doc);
        self.events.push(done.clone());
        self.save();
        done
    }

    /// Whether `spec` puts another module in a hardware network's slot on
    /// a device that reconfigures (then a reconfiguration, not a reload).
    fn is_module_change(&self, current: Option<&NetworkSpec>, spec: &NetworkSpec) -> bool {
        current.is_some_and(|cur| {
            cur.tier == Tier::Hardware
                && spec.tier == Tier::Hardware
                && (cur.forwarding.module() != spec.forwarding.module()
                    || cur.program != spec.program)
                && prism_pipeline::control::reconfig::bitstreams(&self.device).is_some()
        })
    }

    /// Records the desired state after a change. The change stands either
    /// way (it is made); a failure to record it is said in the log.
    fn save(&mut self) {
        self.generation += 1;
        self.save_only();
    }

    /// Records the desired state as it is (automatic networks as `auto`).
    fn save_only(&mut self) {
        if let Some(unsaved) = &mut self.save_deferred {
            *unsaved = true;
            return;
        }
        let docs = self.definitions();
        let generations = crate::runtime::Generations {
            changes: self.generation,
            desired: self.desired_generation,
        };
        if let Err(e) = self.runtime.save(generations, &docs) {
            self.events.push(format!(
                "generation {} applied but not saved: {e}",
                self.generation
            ));
        }
    }

    fn change_software(
        &mut self,
        name: &str,
        id: u16,
        old: &NetworkSpec,
        c: &prism_compile::Compiled,
        doc: &NetworkDoc,
    ) -> Result<String, ApplyError> {
        let spec = &c.spec;
        let req = RouterRequest {
            net: id,
            variant: false,
            spec,
            router: &c.router,
            doc,
        };
        if let Some(r) = self.routers.get_mut(name)
            && self.runtime.can_update(r, req)
        {
            let req = RouterRequest {
                variant: self.runtime.variant(r),
                ..req
            };
            self.runtime.update_router(r, old, req)?;
            self.substrate
                .replace_network(spec.clone())
                .map_err(internal)?;
            return Ok(format!("network `{name}` changed"));
        }
        // A new router or new links: a new container beside the old one.
        let variant = !self
            .routers
            .get(name)
            .is_some_and(|r| self.runtime.variant(r));
        let r = self.start_then_publish(id, variant, c, doc, Substrate::replace_network)?;
        if let Some(old) = self.routers.insert(name.to_string(), r) {
            self.stop(old)?;
        }
        Ok(format!("network `{name}` changed; its router restarted"))
    }

    fn remove(&mut self, name: &str) -> Result<String, ApplyError> {
        self.auto.accepted.remove(name);
        self.substrate.set_now(self.runtime.now_ns());
        self.substrate.remove_network(name).map_err(internal)?;
        self.docs.remove(name);
        self.moves.remove(name);
        if let Some(r) = self.routers.remove(name) {
            self.stop(r)?;
        }
        let m = format!("network `{name}` removed");
        self.events.push(m.clone());
        self.save();
        Ok(m)
    }

    /// Stops every router (the workers have stopped) and what else the
    /// runtime made.
    pub fn shutdown(&mut self) -> Vec<RuntimeError> {
        let mut errs = Vec::new();
        for (_, r) in std::mem::take(&mut self.routers) {
            if let Err(e) = self.runtime.stop_router(r) {
                errs.push(e);
            }
        }
        errs.extend(self.runtime.shutdown());
        errs
    }
}

/// A document changes only the network it names.
fn same_name(name: &str, doc: &NetworkDoc) -> Result<(), ApplyError> {
    if doc.name == name {
        return Ok(());
    }
    Err(ApplyError {
        field: Some("name".into()),
        ..ApplyError::new(
            ErrorCode::InvalidInput,
            format!(
                "`{}` does not match the network `{name}` being changed",
                doc.name
            ),
        )
    })
}

pub mod auto;
mod desired;
pub mod plan;
pub mod processing;
mod reconfigure;
#[cfg(test)]
mod tests;
