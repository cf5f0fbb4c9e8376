//! The Linux runtime's processing nodes: converging to a desired state
//! (`crate::control::processing` plans it), finding them again after a
//! restart, and giving the workers their links.

use super::{ProcessingPlaces, Running};
use crate::control::processing::{Held, Step};
use crate::linux::LinuxRuntime;
use crate::linux::worker::{Slot, Source, WorkerCmd};
use crate::runtime::RuntimeError;
use prism_node_api::{
    ApiError, DesiredAction, ErrorCode, ProcessingApplied, ProcessingDoc, ProcessingOutcome,
    ProcessingState, ProcessingView,
};
use std::collections::BTreeMap;

/// The processing nodes a Linux node holds.
#[derive(Debug)]
pub struct Processing {
    pub places: ProcessingPlaces,
    pub held: Held,
    pub running: BTreeMap<String, Running>,
}

impl Processing {
    /// A node's, if its options run processing nodes.
    pub fn for_node(opts: &crate::NodeOptions, ports: &[String]) -> Option<Self> {
        let letters = opts.instance_letters();
        let mut places = ProcessingPlaces::new(&opts.state_dir, letters, ports.to_vec());
        places.door_ip = opts.door_ip;
        opts.processing.then(|| Self::new(places))
    }

    pub fn new(places: ProcessingPlaces) -> Self {
        Self {
            places,
            held: Held::default(),
            running: BTreeMap::new(),
        }
    }
}

fn outcome(
    name: &str,
    r: Result<DesiredAction, RuntimeError>,
    running: Option<&Running>,
) -> ProcessingOutcome {
    let (action, error) = match r {
        Ok(action) => (action, None),
        Err(e) => (
            DesiredAction::Failed,
            Some(ApiError::new(ErrorCode::Internal, e.to_string())),
        ),
    };
    ProcessingOutcome {
        name: name.to_string(),
        action,
        error,
        ssh: running
            .and_then(|r| r.door.as_ref())
            .map(|d| d.at.to_string()),
        host_keys: running.map(|r| r.host_keys.clone()).unwrap_or_default(),
    }
}

impl LinuxRuntime {
    pub(super) fn processing(&mut self) -> Result<&mut Processing, ApiError> {
        self.processing.as_mut().ok_or_else(|| {
            ApiError::new(
                ErrorCode::Unavailable,
                "this node runs no processing nodes (runc, umoci, tini or the seccomp profile is missing)",
            )
        })
    }

    /// Converges to `state`: each node kept, started, replaced or removed;
    /// those that fail are reported and not held (the next state retries).
    pub fn converge_processing(
        &mut self,
        state: ProcessingState,
    ) -> Result<ProcessingApplied, ApiError> {
        let steps = self.processing()?.held.plan(&state)?;
        let mut nodes = Vec::new();
        for step in steps {
            let name = match &step {
                Step::Remove(n) => n.clone(),
                Step::Keep(d) | Step::Start(d) | Step::Replace(d) | Step::Rewire(d) => {
                    d.name.clone()
                }
            };
            let r = self.step(step);
            let running = self.processing.as_ref().and_then(|p| p.running.get(&name));
            nodes.push(outcome(&name, r, running));
        }
        let p = self.processing()?;
        p.held.generation = state.generation;
        p.held.scope = state.scope;
        p.places.save(&p.held).map_err(|e| {
            ApiError::new(
                ErrorCode::Internal,
                format!("saving the processing state: {e}"),
            )
        })?;
        Ok(ProcessingApplied {
            generation: state.generation,
            nodes,
        })
    }

    fn step(&mut self, step: Step) -> Result<DesiredAction, RuntimeError> {
        match step {
            Step::Remove(n) => {
                self.stop_processing(&n)?;
                Ok(DesiredAction::Removed)
            }
            Step::Keep(d) => {
                let p = self
                    .processing()
                    .map_err(|e| RuntimeError::failed(e.message))?;
                let intact =
                    (p.running.get(&d.name)).is_some_and(|r| p.places.intact(&d.name, &r.links));
                if intact {
                    return Ok(DesiredAction::Unchanged);
                }
                self.stop_processing(&d.name)?;
                self.start_processing(d)?;
                Ok(DesiredAction::Replaced)
            }
            Step::Start(d) => {
                self.start_processing(d)?;
                Ok(DesiredAction::Added)
            }
            Step::Replace(d) => {
                self.stop_processing(&d.name)?;
                self.start_processing(d)?;
                Ok(DesiredAction::Replaced)
            }
            Step::Rewire(d) => self.rewire(d),
        }
    }

    /// Plugs a running node's interfaces as `doc` has them (its VLANs,
    /// in or out): the workers let go of its links and take those plugged
    /// in again, each on its VLAN; a link unplugged goes down, so the
    /// container sees its carrier lost. Its container keeps running.
    fn rewire(&mut self, doc: ProcessingDoc) -> Result<DesiredAction, RuntimeError> {
        let p = self
            .processing()
            .map_err(|e| RuntimeError::failed(e.message))?;
        let Some(mut r) = p.running.remove(&doc.name) else {
            self.start_processing(doc)?;
            return Ok(DesiredAction::Added);
        };
        let detached = self.detach_links(&r);
        r.doc = doc.clone();
        let wired = detached.and_then(|()| {
            for (k, ((link, _, _), l)) in r.links.iter().zip(&doc.interfaces).enumerate() {
                super::plug(&doc.name, k, link, l)
                    .map_err(|e| RuntimeError::failed(format!("{link}: {e}")))?;
            }
            self.attach_hosts(&r)
        });
        let p = self
            .processing()
            .map_err(|e| RuntimeError::failed(e.message))?;
        p.held.docs.insert(doc.name.clone(), doc.clone());
        p.running.insert(doc.name.clone(), r);
        wired?;
        let plugged = doc.interfaces.iter().filter(|l| !l.unplugged).count();
        self.events.push(format!(
            "processing node `{}`: rewired, {plugged} of {} interfaces plugged in",
            doc.name,
            doc.interfaces.len()
        ));
        Ok(DesiredAction::Rewired)
    }

    fn start_processing(&mut self, doc: ProcessingDoc) -> Result<(), RuntimeError> {
        let p = self
            .processing()
            .map_err(|e| RuntimeError::failed(e.message))?;
        let r = p.places.start(&doc)?;
        if let Err(e) = self.attach_hosts(&r) {
            let _ = self.detach_links(&r);
            if let Some(p) = self.processing.as_ref() {
                p.places.remove(&r);
            }
            return Err(e);
        }
        self.events.push(format!(
            "processing node `{}`: container from {}:{}, {} interfaces",
            doc.name,
            doc.image.layout,
            doc.image.tag,
            r.links.len()
        ));
        let p = self
            .processing()
            .map_err(|e| RuntimeError::failed(e.message))?;
        p.held.docs.insert(doc.name.clone(), doc.clone());
        p.running.insert(doc.name, r);
        Ok(())
    }

    fn stop_processing(&mut self, name: &str) -> Result<(), RuntimeError> {
        let p = self
            .processing()
            .map_err(|e| RuntimeError::failed(e.message))?;
        p.held.docs.remove(name);
        let Some(r) = p.running.remove(name) else {
            return Ok(());
        };
        let detached = self.detach_links(&r);
        let errors = self
            .processing
            .as_ref()
            .map(|p| p.places.remove(&r))
            .unwrap_or_default();
        self.events
            .push(format!("processing node `{name}` removed"));
        detached?;
        match errors.is_empty() {
            true => Ok(()),
            false => Err(RuntimeError::failed(errors.join("; "))),
        }
    }

    /// Gives the workers sockets on `r`'s links, each a host on its VLAN.
    fn attach_hosts(&mut self, r: &Running) -> Result<(), RuntimeError> {
        let n = self.workers.len().max(1);
        let mut per: Vec<Vec<Slot>> = (0..n).map(|_| Vec::new()).collect();
        let plugged = r.links.iter().zip(&r.doc.interfaces);
        for ((link, port, mac), doc) in plugged.filter(|(_, l)| !l.unplugged) {
            let source = Source::Host {
                port: *port,
                vlan: doc.vlan,
                mac: *mac,
            };
            let (slots, _) = self
                .deal(link, source, true, n)
                .map_err(|e| RuntimeError::failed(format!("{link}: {e}")))?;
            let lease = crate::linux::dhcp::Lease::of(doc, *mac);
            for (w, mut s) in slots.into_iter().enumerate() {
                s.iter_mut().for_each(|s| s.dhcp = lease);
                per[w].extend(s);
            }
        }
        self.send_all(|w, done| WorkerCmd::AttachHosts {
            slots: std::mem::take(&mut per[w]),
            done,
        })
        .map(drop)
    }

    fn detach_links(&self, r: &Running) -> Result<(), RuntimeError> {
        let links: Vec<String> = r.links.iter().map(|(l, _, _)| l.clone()).collect();
        self.send_all(|_, done| WorkerCmd::Detach {
            links: links.clone(),
            done,
        })
        .map(drop)
    }

    /// After a restart: the saved state's nodes found running are kept
    /// (their links served again), the others started again; containers
    /// the state does not name are removed. What it did, for the log.
    pub fn restore_processing(&mut self) -> Vec<String> {
        let Some(p) = self.processing.as_mut() else {
            return Vec::new();
        };
        let mut notes = Vec::new();
        let saved = p.places.load().unwrap_or_else(|e| {
            notes.push(format!(
                "processing state unreadable ({e}); starting with none"
            ));
            None
        });
        let saved = saved.unwrap_or(ProcessingState {
            generation: 0,
            scope: String::new(),
            nodes: Vec::new(),
        });
        let named: Vec<&str> = saved.nodes.iter().map(|d| d.name.as_str()).collect();
        for id in p.places.runc.list().unwrap_or_default() {
            if !named.contains(&id.as_str()) {
                p.places.remove_named(&id, std::iter::empty());
                notes.push(format!(
                    "processing node `{id}`: not in the saved state, removed"
                ));
            }
        }
        p.held.generation = saved.generation;
        p.held.scope = saved.scope.clone();
        for doc in saved.nodes {
            notes.push(self.restore_one(doc));
        }
        notes
    }

    fn restore_one(&mut self, doc: ProcessingDoc) -> String {
        let Some(p) = self.processing.as_mut() else {
            return String::new();
        };
        let found = p.places.links_of(&doc).ok().and_then(|links| {
            p.places.intact(&doc.name, &links).then(|| Running {
                doc: doc.clone(),
                links,
                door: None,
                host_keys: Vec::new(),
            })
        });
        let name = doc.name.clone();
        match found {
            Some(mut r) => match self.attach_hosts(&r) {
                Ok(()) => {
                    let p = self.processing.as_mut().expect("checked above");
                    p.places.open_door(&mut r);
                    p.held.docs.insert(name.clone(), doc);
                    p.running.insert(name.clone(), r);
                    format!("processing node `{name}`: found running, kept")
                }
                Err(e) => format!("processing node `{name}`: found, but its links: {e}"),
            },
            None => match self.start_processing(doc) {
                Ok(()) => format!("processing node `{name}`: not running, started again"),
                Err(e) => format!("processing node `{name}`: could not start again: {e}"),
            },
        }
    }

    /// The processing nodes as they run.
    pub fn processing_views(&self) -> Result<Vec<ProcessingView>, ApiError> {
        let p = self.processing.as_ref().ok_or_else(|| {
            ApiError::new(ErrorCode::Unavailable, "this node runs no processing nodes")
        })?;
        Ok(p.running
            .values()
            .map(|r| {
                let st = p.places.runc.state(&r.doc.name).ok().flatten();
                ProcessingView {
                    name: r.doc.name.clone(),
                    status: st.as_ref().map_or("missing".into(), |s| s.status.clone()),
                    pid: st.map(|s| s.pid).filter(|&p| p != 0),
                    macs: r
                        .links
                        .iter()
                        .map(|(_, _, m)| prism_io::netns::format_mac(*m))
                        .collect(),
                    ssh: r.door.as_ref().map(|d| d.at.to_string()),
                    host_keys: r.host_keys.clone(),
                    doc: r.doc.clone(),
                }
            })
            .collect())
    }
}
