//! The node's control side: the networks it should have (one document each,
//! `crate::netdoc`) and a reconciler that brings the substrate, the
//! software routers' containers and the workers' sockets to them.
//!
//! [`Control::apply`] takes a network's desired document (or none, to
//! remove it) and converges: it checks the document (as a scenario file
//! would be checked) and the substrate's capacities before it touches
//! anything, then makes the change in an order that never leaves a packet
//! without a path:
//!
//! - hardware → hardware: the substrate publishes the new tables at once;
//! - to software (new, or from hardware, paper 003 §3.4's migration): the
//!   container starts with the network's table, the workers get its links,
//!   then the substrate switches the network's tier in one publication;
//! - software → hardware, or removal: the substrate switches first, then the
//!   links are closed and the container removed;
//! - software → software: the running router takes the new table (the
//!   kernel router by an atomic generation switch, Prism's by a reload
//!   between batches); a different router or different links get a new
//!   container beside the old one, and the old one goes after the switch.
//!
//! Applying the document a network already has changes nothing that
//! matters (the substrate republishes the same tables): safe to run twice.

use super::node::NodeOptions;
use super::router::{RouterEnv, SoftwareRouter};
use super::worker::{Slot, Source, WorkerCmd};
use crate::netdoc::{self, DocError};
use crate::router_config::RouterKind;
use prism_io::port::{self, IoChoice};
use prism_io::xdp::XdpConfig;
use prism_pipeline::{NetworkSpec, Substrate, Tier};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::mpsc::{Sender, channel};
use std::time::Duration;

/// Why a change was refused or failed; the API maps these to 404, 409, 422, 500.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApplyError {
    NotFound(String),
    Conflict(String),
    Invalid(String),
    Failed(String),
}

impl std::fmt::Display for ApplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApplyError::NotFound(m)
            | ApplyError::Conflict(m)
            | ApplyError::Invalid(m)
            | ApplyError::Failed(m) => f.write_str(m),
        }
    }
}

impl From<DocError> for ApplyError {
    fn from(e: DocError) -> Self {
        ApplyError::Invalid(e.to_string())
    }
}

fn failed(e: impl std::fmt::Display) -> ApplyError {
    ApplyError::Failed(format!("{e:#}"))
}

/// How the node receives.
#[derive(Debug, Clone, Copy, Default)]
pub struct IoSettings {
    pub choice: IoChoice,
    pub xdp: XdpConfig,
}

#[derive(Debug)]
pub struct Control {
    pub substrate: Substrate,
    pub device: String,
    pub port_names: Vec<String>,
    /// Per port, the bridge of the multi-receiver path, if it has one.
    pub bridges: Vec<Option<String>>,
    pub io: IoSettings,
    pub opts: NodeOptions,
    docs: BTreeMap<String, Value>,
    routers: BTreeMap<String, SoftwareRouter>,
    workers: Vec<Sender<WorkerCmd>>,
    next_owner: usize,
    /// What changes did beyond the obvious, for the node's log.
    pub events: Vec<String>,
}

impl Control {
    pub fn new(
        substrate: Substrate,
        device: String,
        port_names: Vec<String>,
        docs: BTreeMap<String, Value>,
        bridges: Vec<Option<String>>,
        io: IoSettings,
        opts: NodeOptions,
    ) -> Self {
        Self {
            substrate,
            device,
            port_names,
            bridges,
            io,
            opts,
            docs,
            routers: BTreeMap::new(),
            workers: Vec::new(),
            next_owner: 0,
            events: Vec::new(),
        }
    }

    /// The workers' command channels (set once they are built).
    pub fn set_workers(&mut self, workers: Vec<Sender<WorkerCmd>>) {
        self.workers = workers;
    }

    fn env(&self) -> RouterEnv<'_> {
        RouterEnv {
            opts: &self.opts,
            device: &self.device,
            port_names: &self.port_names,
            bridges: &self.bridges,
            io: self.io.choice,
        }
    }

    pub fn doc(&self, name: &str) -> Option<&Value> {
        self.docs.get(name)
    }

    pub fn router(&self, name: &str) -> Option<&SoftwareRouter> {
        self.routers.get(name)
    }

    /// Opens sockets on interface `name` for `workers` workers: receive
    /// sockets (one per queue with AF_XDP) dealt round-robin, each worker
    /// transmitting through its first one, and a packet socket to
    /// transmit for every worker that got none. `receive = false`: transmit
    /// sockets only. Also says if AF_XDP fell back to AF_PACKET.
    pub fn deal(
        &mut self,
        name: &str,
        source: Source,
        receive: bool,
        workers: usize,
    ) -> std::io::Result<(Vec<Vec<Slot>>, Option<String>)> {
        let mut per: Vec<Vec<Slot>> = (0..workers).map(|_| Vec::new()).collect();
        let mut fallback = None;
        if receive {
            let opened = port::open_rx(name, self.io.choice, &self.io.xdp)?;
            fallback = opened.fallback;
            for io in opened.ports {
                let w = self.next_owner % workers;
                self.next_owner += 1;
                let tx = per[w].is_empty();
                per[w].push(Slot {
                    source,
                    name: name.to_string(),
                    io,
                    rx: true,
                    tx,
                });
            }
        }
        for slots in per.iter_mut().filter(|s| s.is_empty()) {
            slots.push(Slot {
                source,
                name: name.to_string(),
                io: port::open_tx(name)?,
                rx: false,
                tx: true,
            });
        }
        Ok((per, fallback))
    }

    /// Sends worker `i` the command `make(i, done)` and waits until every
    /// worker has applied its own.
    fn send_all(
        &self,
        mut make: impl FnMut(usize, Sender<()>) -> WorkerCmd,
    ) -> Result<(), ApplyError> {
        let mut waits = Vec::new();
        for (i, w) in self.workers.iter().enumerate() {
            let (tx, rx) = channel();
            w.send(make(i, tx))
                .map_err(|_| failed("a worker has stopped"))?;
            waits.push(rx);
        }
        for rx in waits {
            rx.recv_timeout(Duration::from_secs(5))
                .map_err(|_| failed("a worker did not take the change within 5 s"))?;
        }
        Ok(())
    }

    /// Gives the workers sockets on `r`'s links.
    fn attach(&mut self, r: &SoftwareRouter) -> Result<(), ApplyError> {
        let n = self.workers.len().max(1);
        let mut per: Vec<Vec<Slot>> = (0..n).map(|_| Vec::new()).collect();
        for l in &r.links {
            let source = Source::Container {
                net: r.net,
                port: l.port,
            };
            let (slots, fallback) = self.deal(&l.host, source, !l.bridged, n).map_err(failed)?;
            if let Some(f) = fallback {
                self.events.push(format!(
                    "{}: AF_XDP unavailable ({f}); using AF_PACKET",
                    l.host
                ));
            }
            for (w, s) in slots.into_iter().enumerate() {
                per[w].extend(s);
            }
        }
        // Linux forwarding has no IPIP here: the substrate terminates it.
        let terminate_ipip = r.cfg.kind == RouterKind::Kernel;
        self.send_all(|w, done| WorkerCmd::Attach {
            net: r.net,
            terminate_ipip,
            slots: std::mem::take(&mut per[w]),
            done,
        })
    }

    fn detach(&self, r: &SoftwareRouter) -> Result<(), ApplyError> {
        let links: Vec<String> = r.links.iter().map(|l| l.host.clone()).collect();
        self.send_all(|_, done| WorkerCmd::Detach {
            links: links.clone(),
            done,
        })
    }

    fn start_router(
        &mut self,
        id: u16,
        variant: bool,
        spec: &NetworkSpec,
        cfg: &crate::router_config::RouterConfig,
        doc: &Value,
    ) -> Result<SoftwareRouter, ApplyError> {
        let r = SoftwareRouter::start(self.env(), id, variant, spec, cfg, doc).map_err(|e| {
            // A table the router cannot express is the caller's to fix.
            let m = format!("{e:#}");
            if m.contains("use `router") || m.contains("takes at most") {
                ApplyError::Invalid(m)
            } else {
                ApplyError::Failed(m)
            }
        })?;
        if let Err(e) = self.attach(&r) {
            let _ = self.detach(&r);
            let _ = r.remove();
            return Err(e);
        }
        self.events.push(format!(
            "network `{}`: {} router in container {} (limits: {})",
            spec.name,
            cfg.kind.as_str(),
            r.namespace(),
            r.limits()
        ));
        Ok(r)
    }

    fn stop_router(&mut self, r: SoftwareRouter) -> Result<(), ApplyError> {
        let d = self.detach(&r);
        let ns = r.namespace().to_string();
        r.remove().map_err(failed)?;
        self.events.push(format!("container {ns} removed"));
        d
    }

    /// Starts the container of a software network the scenario already
    /// placed in the substrate (at node start).
    pub fn bring_up(&mut self, name: &str) -> Result<(), ApplyError> {
        let doc = self
            .docs
            .get(name)
            .cloned()
            .ok_or_else(|| ApplyError::NotFound(format!("no network `{name}`")))?;
        let (spec, cfg) = netdoc::compile(&self.device, &self.port_names, &doc)?;
        let id = self
            .substrate
            .id(name)
            .ok_or_else(|| ApplyError::NotFound(format!("no network `{name}`")))?;
        let r = self.start_router(id, false, &spec, &cfg, &doc)?;
        self.routers.insert(name.to_string(), r);
        Ok(())
    }

    /// Converges network `name` to `desired` (`None`: removed). Returns
    /// what was done.
    pub fn apply(&mut self, name: &str, desired: Option<Value>) -> Result<String, ApplyError> {
        let current = self.substrate.spec(name).cloned();
        let Some(mut doc) = desired else {
            return match current {
                None => Err(ApplyError::NotFound(format!("no network `{name}`"))),
                Some(_) => self.remove(name),
            };
        };
        match doc.get("name") {
            None => doc["name"] = Value::String(name.to_string()),
            Some(n) if n == name => {}
            Some(n) => {
                return Err(ApplyError::Invalid(format!(
                    "field `name`: {n} does not match the network `{name}` being changed"
                )));
            }
        }
        if doc.get("tier").and_then(Value::as_str) == Some("auto") {
            return Err(ApplyError::Invalid(
                "field `tier`: a running node places networks as told: `hardware` or `software` (`auto` is for scenario files)".into(),
            ));
        }
        let (spec, cfg) = netdoc::compile(&self.device, &self.port_names, &doc)?;
        let id = self
            .substrate
            .check(&spec)
            .map_err(|e| ApplyError::Invalid(e.to_string()))?;
        let done = match (current.as_ref().map(|c| c.tier), spec.tier) {
            (None, Tier::Hardware) => {
                self.substrate.add_network(spec).map_err(failed)?;
                format!("network `{name}` added in hardware")
            }
            (None, Tier::Software) => {
                let r = self.start_router(id, false, &spec, &cfg, &doc)?;
                if let Err(e) = self.substrate.add_network(spec) {
                    let _ = self.stop_router(r);
                    return Err(failed(e));
                }
                self.routers.insert(name.to_string(), r);
                format!("network `{name}` added in software")
            }
            (Some(Tier::Hardware), Tier::Hardware) => {
                self.substrate.replace_network(spec).map_err(failed)?;
                format!("network `{name}` changed")
            }
            (Some(Tier::Hardware), Tier::Software) => {
                let r = self.start_router(id, false, &spec, &cfg, &doc)?;
                if let Err(e) = self.substrate.replace_network(spec) {
                    let _ = self.stop_router(r);
                    return Err(failed(e));
                }
                self.routers.insert(name.to_string(), r);
                format!("network `{name}` moved to software")
            }
            (Some(Tier::Software), Tier::Hardware) => {
                self.substrate.replace_network(spec).map_err(failed)?;
                if let Some(r) = self.routers.remove(name) {
                    self.stop_router(r)?;
                }
                format!("network `{name}` moved to hardware")
            }
            (Some(Tier::Software), Tier::Software) => {
                let old = current.expect("software network");
                self.change_software(name, id, &old, spec, &cfg, &doc)?
            }
        };
        self.docs.insert(name.to_string(), doc);
        self.events.push(done.clone());
        Ok(done)
    }

    fn change_software(
        &mut self,
        name: &str,
        id: u16,
        old: &NetworkSpec,
        spec: NetworkSpec,
        cfg: &crate::router_config::RouterConfig,
        doc: &Value,
    ) -> Result<String, ApplyError> {
        // Field by field, so that a router can be borrowed beside it.
        let env = RouterEnv {
            opts: &self.opts,
            device: &self.device,
            port_names: &self.port_names,
            bridges: &self.bridges,
            io: self.io.choice,
        };
        if let Some(r) = self
            .routers
            .get_mut(name)
            .filter(|r| r.can_update(env, &spec, cfg))
        {
            r.update(env, old, &spec, doc).map_err(|e| {
                let m = format!("{e:#}");
                if m.contains("user command") || m.contains("use `router") {
                    ApplyError::Conflict(m)
                } else {
                    ApplyError::Failed(m)
                }
            })?;
            self.substrate.replace_network(spec).map_err(failed)?;
            return Ok(format!("network `{name}` changed"));
        }
        // A new router or new links: a new container beside the old one.
        let variant = !self.routers.get(name).is_some_and(|r| r.variant);
        let r = self.start_router(id, variant, &spec, cfg, doc)?;
        if let Err(e) = self.substrate.replace_network(spec) {
            let _ = self.stop_router(r);
            return Err(failed(e));
        }
        if let Some(old) = self.routers.insert(name.to_string(), r) {
            self.stop_router(old)?;
        }
        Ok(format!("network `{name}` changed; its router restarted"))
    }

    fn remove(&mut self, name: &str) -> Result<String, ApplyError> {
        self.substrate.remove_network(name).map_err(failed)?;
        self.docs.remove(name);
        if let Some(r) = self.routers.remove(name) {
            self.stop_router(r)?;
        }
        let m = format!("network `{name}` removed");
        self.events.push(m.clone());
        Ok(m)
    }

    /// Removes every container (the workers have stopped) and bridge.
    pub fn shutdown(&mut self) -> Vec<std::io::Error> {
        let mut errs = Vec::new();
        for (_, r) in std::mem::take(&mut self.routers) {
            if let Err(e) = r.remove() {
                errs.push(e);
            }
        }
        for b in self.bridges.iter().flatten() {
            if let Err(e) = prism_io::netns::delete_link(b) {
                errs.push(e);
            }
        }
        errs
    }
}
