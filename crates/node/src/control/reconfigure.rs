//! Reconfiguring a hardware network's slot with another module (paper 000),
//! by one of three strategies, each a few steps apart in time:
//!
//! - `partial`: the substrate publishes the new module at once; its slot
//!   is dark until the modelled load ends (the pipeline drops the
//!   network's packets as `hardware/reconfiguring` meanwhile). Done when
//!   the load ends.
//! - `fallback`: the network's router starts with the new table and the
//!   network moves to software (make before break); its old slot is kept
//!   for it and starts loading the new module. When the load ends, the
//!   network returns to the slot and the router stops.
//! - `full`: every other hardware network moves to software; the device
//!   is reprogrammed with the new module (every slot dark for the full
//!   time; the reconfigured network has no software copy, as in paper
//!   003's Fig. 6). When it ends, they all return.
//!
//! [`Control::tick`] takes the steps that are due; the node calls it every
//! few milliseconds. While a network is being reconfigured, other changes
//! to it are refused with `conflict`.

use super::{ApplyError, Control, internal, substrate_error};
use crate::runtime::NodeRuntime;
use prism_netdoc::{NetworkDoc, TierChoice};
use prism_node_api::{ErrorCode, EventKind, NodeEvent};
use prism_pipeline::control::reconfig::{self, Strategy};
use prism_pipeline::{ModuleKind, Substrate, Tier};

/// Events kept for `GET /v1/events`.
const JOURNAL: usize = 4096;

/// What an operation under way is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OpKind {
    /// A reconfiguration the API asked for, by `Op::strategy`.
    Reconfiguration,
    /// A move to hardware waiting for its slot's load (software serves).
    LoadThenMove,
}

/// A reconfiguration, or a move waiting for a load, under way.
#[derive(Debug)]
pub(super) struct Op {
    kind: OpKind,
    network: String,
    strategy: Strategy,
    /// The networks in software until `ready_ns` (fallback: the network;
    /// full: its neighbours), to bring back to hardware.
    carried: Vec<String>,
    started_ns: u64,
    ready_ns: u64,
    modelled_ms: f64,
    /// Why the node's default strategy was not followed, if it was not.
    note: Option<String>,
}

impl<R: NodeRuntime> Control<R> {
    /// Whether a change to `name` must wait for a reconfiguration.
    pub(super) fn busy(&self, name: &str) -> Option<String> {
        self.ops
            .iter()
            .find(|o| o.network == name || o.carried.iter().any(|c| c == name))
            .map(|o| {
                let left = o.ready_ns.saturating_sub(self.runtime.now_ns()) / 1_000_000;
                match o.kind {
                    OpKind::Reconfiguration => format!(
                        "network `{name}` is in a {} reconfiguration (of `{}`) for {left} ms more",
                        o.strategy.as_str(),
                        o.network
                    ),
                    OpKind::LoadThenMove => format!(
                        "network `{name}` moves to hardware once its slot has loaded, in {left} ms"
                    ),
                }
            })
    }

    /// Whether any reconfiguration is under way.
    pub fn reconfiguring(&self) -> bool {
        !self.ops.is_empty()
    }

    /// Events since `since` (exclusive), oldest first.
    pub fn events_since(&self, since: u64) -> Vec<NodeEvent> {
        self.journal
            .iter()
            .filter(|e| e.seq > since)
            .cloned()
            .collect()
    }

    /// An event on the journal and its words on the node's log.
    pub(super) fn log(
        &mut self,
        kind: EventKind,
        network: &str,
        strategy: Option<Strategy>,
        durations: (Option<f64>, Option<f64>),
        message: String,
    ) -> NodeEvent {
        self.events.push(message.clone());
        self.journal(kind, network, strategy, durations, message)
    }

    /// An event on the journal only (`GET /v1/events`).
    pub(super) fn journal(
        &mut self,
        kind: EventKind,
        network: &str,
        strategy: Option<Strategy>,
        durations: (Option<f64>, Option<f64>),
        message: String,
    ) -> NodeEvent {
        self.seq += 1;
        let e = NodeEvent {
            seq: self.seq,
            unix_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            kind,
            network: network.to_string(),
            strategy: strategy.map(crate::api_views::strategy_name),
            modelled_ms: durations.0,
            measured_ms: durations.1,
            message,
        };
        if self.journal.len() == JOURNAL {
            self.journal.pop_front();
        }
        self.journal.push_back(e.clone());
        e
    }

    /// Loads `doc`'s module into hardware network `name`'s slot with
    /// `strategy` (`None`: the node's default). Checks everything first;
    /// returns the started event.
    pub fn reconfigure(
        &mut self,
        name: &str,
        doc: NetworkDoc,
        strategy: Option<Strategy>,
    ) -> Result<NodeEvent, ApplyError> {
        let (current, bits) = self.may_reconfigure(name, &doc)?;
        let asked = strategy;
        let strategy = strategy.unwrap_or(self.default_strategy);
        if strategy == Strategy::Full && self.reconfiguring() {
            return Err(ApplyError::new(
                ErrorCode::Conflict,
                "a full reconfiguration needs the whole device: another reconfiguration is under way",
            ));
        }
        let c = prism_compile::compile(&doc, &self.port_names)?;
        self.substrate.check(&c.spec).map_err(substrate_error)?;
        let module = c.spec.forwarding.module();
        let same = current.forwarding.module() == module && current.program == c.spec.program;
        let program = c.spec.program.as_ref().map_or(0, |p| p.tag());
        self.substrate.set_now(self.runtime.now_ns());
        let started_ns = self.runtime.now_ns();
        let op = match strategy {
            Strategy::Partial => self.partial(name, c.spec)?,
            Strategy::Fallback => match self.fallback(name, &doc, (module, program)) {
                // The node's default, where software cannot serve the
                // network: the paper's partial reconfiguration instead.
                Err(e) if asked.is_none() && e.code == ErrorCode::InvalidInput => Op {
                    note: Some(format!(
                        "; partial, not the default fallback: its software router cannot serve it ({})",
                        e.message
                    )),
                    ..self.partial(name, c.spec)?
                },
                r => r?,
            },
            Strategy::Full => self.full(name, c.spec)?,
        };
        let strategy = op.strategy;
        let modelled_ms = match strategy {
            Strategy::Full => bits.full_ms,
            _ if same => 0.0,
            _ => bits.partial_ms(Some(module)),
        };
        let op = Op {
            started_ns,
            modelled_ms,
            ..op
        };
        self.docs.insert(name.to_string(), doc);
        self.save();
        Ok(self.started(name, module, op))
    }

    /// Logs reconfiguration `op` of network `name` to `module` as started
    /// and keeps it until its load ends.
    fn started(&mut self, name: &str, module: ModuleKind, op: Op) -> NodeEvent {
        let (strategy, modelled_ms) = (op.strategy, op.modelled_ms);
        let msg = format!(
            "network `{name}`: {} reconfiguration to {} started ({modelled_ms:.1} ms modelled{})",
            strategy.as_str(),
            module.as_str(),
            op.note.as_deref().unwrap_or("")
        );
        let e = self.log(
            EventKind::ReconfigurationStarted,
            name,
            Some(strategy),
            (Some(modelled_ms), None),
            msg,
        );
        self.ops.push(op);
        e
    }

    /// Refuses a reconfiguration of `name` into `doc` that cannot be done:
    /// no such network, one under way, another name, not hardware, no
    /// reconfigurable regions. The network's spec and the device's timing.
    fn may_reconfigure(
        &self,
        name: &str,
        doc: &NetworkDoc,
    ) -> Result<(prism_pipeline::NetworkSpec, reconfig::Bitstreams), ApplyError> {
        let bad = |field: &str, m: String| ApplyError {
            field: Some(field.into()),
            ..ApplyError::new(ErrorCode::InvalidInput, m)
        };
        let current = self
            .substrate
            .spec(name)
            .cloned()
            .ok_or_else(|| ApplyError::not_found(name))?;
        if let Some(why) = self.busy(name) {
            return Err(ApplyError::new(ErrorCode::Conflict, why));
        }
        if doc.name != name {
            return Err(bad(
                "definition.name",
                format!("`{}` is not `{name}`", doc.name),
            ));
        }
        if current.tier != Tier::Hardware || doc.tier != TierChoice::Hardware {
            return Err(bad(
                "definition.tier",
                format!(
                    "only a hardware network's slot is reconfigured, into hardware: move `{name}` with PUT"
                ),
            ));
        }
        let Some(bits) = reconfig::bitstreams(&self.device) else {
            return Err(ApplyError::new(
                ErrorCode::InvalidInput,
                format!(
                    "device `{}` has no reconfigurable regions: change `{name}` with PUT",
                    self.device
                ),
            ));
        };
        Ok((current, bits))
    }

    fn partial(&mut self, name: &str, spec: prism_pipeline::NetworkSpec) -> Result<Op, ApplyError> {
        self.substrate.replace_network(spec).map_err(internal)?;
        Ok(Op {
            kind: OpKind::Reconfiguration,
            network: name.to_string(),
            strategy: Strategy::Partial,
            carried: Vec::new(),
            started_ns: 0,
            ready_ns: self.substrate.slot_ready_ns(name).unwrap_or(0),
            modelled_ms: 0.0,
            note: None,
        })
    }

    fn fallback(
        &mut self,
        name: &str,
        doc: &NetworkDoc,
        module: (ModuleKind, u64),
    ) -> Result<Op, ApplyError> {
        let id = self
            .substrate
            .id(name)
            .ok_or_else(|| ApplyError::not_found(name))?;
        let slot = self.substrate.hardware().slot_of(id);
        let soft = NetworkDoc {
            tier: TierChoice::Software,
            // A program runs in the hardware tier only: the software tier
            // serves the network's tables meanwhile.
            program: None,
            ..doc.clone()
        };
        let c = prism_compile::compile(&soft, &self.port_names)?;
        let r = self.start_then_publish(id, false, &c, &soft, Substrate::replace_network)?;
        self.routers.insert(name.to_string(), r);
        *self.moves.entry(name.to_string()).or_default() += 1;
        let ready_ns = match slot {
            Some(s) => self
                .substrate
                .reserve_slot(s, name, module)
                .map_err(internal)?,
            None => self.runtime.now_ns(),
        };
        Ok(Op {
            kind: OpKind::Reconfiguration,
            network: name.to_string(),
            strategy: Strategy::Fallback,
            carried: vec![name.to_string()],
            started_ns: 0,
            ready_ns,
            modelled_ms: 0.0,
            note: None,
        })
    }

    fn full(&mut self, name: &str, spec: prism_pipeline::NetworkSpec) -> Result<Op, ApplyError> {
        let others: Vec<String> = self
            .substrate
            .networks()
            .filter(|(_, s)| s.tier == Tier::Hardware && s.name != name)
            .map(|(_, s)| s.name.clone())
            .collect();
        let mut carried: Vec<String> = Vec::new();
        for n in &others {
            if let Err(e) = self.carry(n) {
                // Back as they were: nothing half-done.
                for c in carried.drain(..) {
                    let _ = self.bring_back(&c);
                }
                return Err(e);
            }
            carried.push(n.clone());
        }
        self.substrate.set_now(self.runtime.now_ns());
        let ready_ns = match self.substrate.reprogram_with(spec) {
            Ok(t) => t,
            Err(e) => {
                for c in carried.drain(..) {
                    let _ = self.bring_back(&c);
                }
                return Err(internal(e));
            }
        };
        Ok(Op {
            kind: OpKind::Reconfiguration,
            network: name.to_string(),
            strategy: Strategy::Full,
            carried,
            started_ns: 0,
            ready_ns,
            modelled_ms: 0.0,
            note: None,
        })
    }

    /// Moves hardware network `n` to software under its own document.
    fn carry(&mut self, n: &str) -> Result<(), ApplyError> {
        let doc = self
            .docs
            .get(n)
            .cloned()
            .ok_or_else(|| ApplyError::not_found(n))?;
        let id = self
            .substrate
            .id(n)
            .ok_or_else(|| ApplyError::not_found(n))?;
        let soft = NetworkDoc {
            tier: TierChoice::Software,
            program: None,
            ..doc
        };
        let c = prism_compile::compile(&soft, &self.port_names)?;
        let r = self.start_then_publish(id, false, &c, &soft, Substrate::replace_network)?;
        self.routers.insert(n.to_string(), r);
        *self.moves.entry(n.to_string()).or_default() += 1;
        Ok(())
    }

    /// Returns `n` to hardware under its document, then stops its router.
    fn bring_back(&mut self, n: &str) -> Result<(), ApplyError> {
        let doc = self
            .docs
            .get(n)
            .cloned()
            .ok_or_else(|| ApplyError::not_found(n))?;
        let c = prism_compile::compile(&doc, &self.port_names)?;
        self.substrate.set_now(self.runtime.now_ns());
        self.substrate.replace_network(c.spec).map_err(internal)?;
        *self.moves.entry(n.to_string()).or_default() += 1;
        if let Some(r) = self.routers.remove(n) {
            self.stop(r)?;
        }
        Ok(())
    }

    /// Network `name` (in software, its document now in hardware) moves
    /// once its slot's load ends at `ready_ns`.
    pub(super) fn load_then_move(&mut self, name: &str, ready_ns: u64) -> String {
        let now = self.runtime.now_ns();
        let ms = ready_ns.saturating_sub(now) as f64 / 1e6;
        let msg = format!(
            "network `{name}` moves to hardware once its slot has loaded its module ({ms:.1} ms modelled); software serves it meanwhile"
        );
        self.events.push(msg.clone());
        self.ops.push(Op {
            kind: OpKind::LoadThenMove,
            network: name.to_string(),
            strategy: Strategy::Fallback,
            carried: vec![name.to_string()],
            started_ns: now,
            ready_ns,
            modelled_ms: ms,
            note: None,
        });
        msg
    }

    /// Takes the steps that are due: reconfigurations whose load has
    /// ended bring their carried networks back and are logged as done.
    pub fn tick(&mut self) {
        let now = self.runtime.now_ns();
        let (due, rest): (Vec<Op>, Vec<Op>) = std::mem::take(&mut self.ops)
            .into_iter()
            .partition(|o| o.ready_ns <= now);
        self.ops = rest;
        for op in due {
            let mut failed = Vec::new();
            for n in &op.carried {
                if let Err(e) = self.bring_back(n) {
                    failed.push(format!("`{n}`: {e}"));
                }
            }
            let measured = (self.runtime.now_ns() - op.started_ns) as f64 / 1e6;
            if op.kind == OpKind::LoadThenMove {
                let msg = match failed.first() {
                    None => format!(
                        "network `{}` moved to hardware: its slot loaded in {:.1} ms (modelled), {measured:.1} ms after the call",
                        op.network, op.modelled_ms
                    ),
                    Some(f) => format!("network `{}` could not move to hardware: {f}", op.network),
                };
                self.events.push(msg);
                continue;
            }
            let (kind, msg) = if failed.is_empty() {
                (
                    EventKind::ReconfigurationDone,
                    format!(
                        "network `{}`: {} reconfiguration done in {measured:.1} ms ({:.1} ms modelled{})",
                        op.network,
                        op.strategy.as_str(),
                        op.modelled_ms,
                        if op.carried.is_empty() {
                            String::new()
                        } else {
                            format!("; carried by software: {}", op.carried.join(", "))
                        }
                    ),
                )
            } else {
                (
                    EventKind::ReconfigurationFailed,
                    format!(
                        "network `{}`: {} reconfiguration ended, but not back in hardware: {}",
                        op.network,
                        op.strategy.as_str(),
                        failed.join("; ")
                    ),
                )
            };
            self.log(
                kind,
                &op.network,
                Some(op.strategy),
                (Some(op.modelled_ms), Some(measured)),
                msg,
            );
        }
    }
}
