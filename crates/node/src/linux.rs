//! The node's runtime on Linux: software routers in containers (network
//! namespace, veths, cgroup), their links handed to the polling workers as
//! sockets (AF_XDP, else AF_PACKET), and the multi-receiver bridges.

pub mod dhcp;
pub mod foreground;
pub mod hosts;
pub mod kernel_router;
pub mod names;
pub mod node;
pub mod options;
pub mod processing;
pub mod router;
pub mod serve;
pub mod swrouter;
pub mod taps;
pub mod worker;

use crate::runtime::{NodeRuntime, RouterRequest, RuntimeError};
use options::NodeOptions;
use prism_io::port::{self, IoChoice};
use prism_io::xdp::XdpConfig;
use prism_netdoc::RouterKind;
use prism_node_api::RouterView;
use prism_pipeline::NetworkSpec;
use router::{RouterEnv, SoftwareRouter};
use std::sync::mpsc::{Sender, channel};
use std::time::Duration;
use worker::{Slot, Source, WorkerCmd};

/// How the node receives.
#[derive(Debug, Clone, Copy, Default)]
pub struct IoSettings {
    pub choice: IoChoice,
    pub xdp: XdpConfig,
}

#[derive(Debug)]
pub struct LinuxRuntime {
    pub opts: NodeOptions,
    pub device: String,
    pub port_names: Vec<String>,
    /// Per port, the bridge of the multi-receiver path, if it has one.
    pub bridges: Vec<Option<String>>,
    pub io: IoSettings,
    pub(crate) workers: Vec<Sender<WorkerCmd>>,
    next_owner: usize,
    /// The node's clock: the workers' `now_ns` counts from here too.
    pub epoch: std::time::Instant,
    /// What it did beyond the obvious (fallbacks, limits), for the log.
    pub events: Vec<String>,
    /// The saved state's documents as last written (`crate::saved`).
    saved: crate::saved::Fragments,
    /// The saved state's size as last written.
    saved_len: usize,
    /// Processing nodes (`None`: this node runs none).
    pub processing: Option<processing::Processing>,
}

impl LinuxRuntime {
    pub fn new(
        opts: NodeOptions,
        device: String,
        port_names: Vec<String>,
        bridges: Vec<Option<String>>,
        io: IoSettings,
    ) -> Self {
        Self {
            opts,
            device,
            port_names,
            bridges,
            io,
            workers: Vec::new(),
            next_owner: 0,
            epoch: std::time::Instant::now(),
            saved: Default::default(),
            saved_len: 0,
            events: Vec::new(),
            processing: None,
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

    /// Opens sockets on interface `name` for `workers` workers: receive
    /// sockets (one per queue with AF_XDP) dealt round-robin, each worker
    /// transmitting through its first one, and a packet socket to
    /// transmit for every worker that got none. `receive = false`: transmit
    /// sockets only. Also says if AF_XDP fell back to AF_PACKET.
    pub(crate) fn deal(
        &mut self,
        name: &str,
        source: Source,
        receive: bool,
        workers: usize,
    ) -> std::io::Result<(Vec<Vec<Slot>>, Option<String>)> {
        let mut per: Vec<Vec<Slot>> = (0..workers).map(|_| Vec::new()).collect();
        let mut fallback = None;
        if receive {
            // A container's link gets a wire port's ring: the router behind
            // it answers a burst with a burst (with 512 slots, 1,500 frames
            // sent back to back through a software network lost 100-900).
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
                    dhcp: None,
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
                dhcp: None,
            });
        }
        Ok((per, fallback))
    }

    /// Sends worker `i` the command `make(i, done)` and waits until every
    /// worker has applied its own; returns their answers.
    pub(crate) fn send_all<T>(
        &self,
        mut make: impl FnMut(usize, Sender<T>) -> WorkerCmd,
    ) -> Result<Vec<T>, RuntimeError> {
        let mut waits = Vec::new();
        for (i, w) in self.workers.iter().enumerate() {
            let (tx, rx) = channel();
            w.send(make(i, tx))
                .map_err(|_| RuntimeError::failed("a worker has stopped"))?;
            waits.push(rx);
        }
        waits
            .into_iter()
            .map(|rx| {
                rx.recv_timeout(Duration::from_secs(5)).map_err(|_| {
                    RuntimeError::failed("a worker did not take the change within 5 s")
                })
            })
            .collect()
    }

    /// Gives the workers sockets on `r`'s links.
    fn attach(&mut self, r: &SoftwareRouter) -> Result<(), RuntimeError> {
        let n = self.workers.len().max(1);
        let mut per: Vec<Vec<Slot>> = (0..n).map(|_| Vec::new()).collect();
        for l in &r.links {
            let source = Source::Container {
                net: r.net,
                port: l.port,
            };
            let (slots, fallback) = self
                .deal(&l.host, source, !l.bridged, n)
                .map_err(|e| RuntimeError::failed(format!("{}: {e}", l.host)))?;
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
        .map(drop)
    }

    /// Takes `r`'s sockets from the workers and closes them here, on the
    /// control thread.
    fn detach(&self, r: &SoftwareRouter) -> Result<(), RuntimeError> {
        let links: Vec<String> = r.links.iter().map(|l| l.host.clone()).collect();
        let taken = self.send_all(|_, done| WorkerCmd::Detach {
            links: links.clone(),
            done,
        })?;
        drop(taken);
        Ok(())
    }
}

impl NodeRuntime for LinuxRuntime {
    type Router = SoftwareRouter;

    fn start_router(&mut self, req: RouterRequest<'_>) -> Result<SoftwareRouter, RuntimeError> {
        let r = SoftwareRouter::start(self.env(), req)?;
        if let Err(e) = self.attach(&r) {
            let _ = self.detach(&r);
            let _ = r.remove();
            return Err(e);
        }
        self.events.push(format!(
            "network `{}`: {} router in container {} (limits: {})",
            req.spec.name,
            req.router.kind.as_str(),
            r.namespace(),
            r.limits()
        ));
        Ok(r)
    }

    fn can_update(&self, r: &SoftwareRouter, req: RouterRequest<'_>) -> bool {
        r.can_update(self.env(), req.spec, req.router)
    }

    fn update_router(
        &mut self,
        r: &mut SoftwareRouter,
        old: &NetworkSpec,
        req: RouterRequest<'_>,
    ) -> Result<(), RuntimeError> {
        r.update(self.env(), old, req.spec, req.doc)
    }

    fn stop_router(&mut self, r: SoftwareRouter) -> Result<(), RuntimeError> {
        let d = self.detach(&r);
        let ns = r.namespace().to_string();
        r.remove().map_err(RuntimeError::failed)?;
        self.events.push(format!("container {ns} removed"));
        d
    }

    fn variant(&self, r: &SoftwareRouter) -> bool {
        r.variant
    }

    fn view(&self, r: &SoftwareRouter) -> RouterView {
        RouterView {
            kind: r.cfg.kind,
            container: r.namespace().to_string(),
            ports: r.links.iter().map(|l| l.port).collect(),
            bridged: r
                .links
                .iter()
                .filter(|l| l.bridged)
                .map(|l| l.port)
                .collect(),
        }
    }

    fn save(
        &mut self,
        generations: crate::runtime::Generations,
        docs: &std::collections::BTreeMap<String, prism_netdoc::NetworkDoc>,
    ) -> Result<(), RuntimeError> {
        let Some(text) = &self.opts.persist else {
            return Ok(());
        };
        let (g, d) = (generations.changes, generations.desired);
        let json = (self.saved.render(g, d, text, docs)).map_err(RuntimeError::failed)?;
        crate::saved::store(&self.opts.state_dir, &json).map_err(RuntimeError::failed)?;
        self.saved_len = json.len();
        Ok(())
    }

    /// Room for the next state file beside the last (it is written whole
    /// before it replaces it), a change's growth, and a margin.
    fn room_to_save(&self) -> Result<(), String> {
        if self.opts.persist.is_none() {
            return Ok(());
        }
        let dir = &self.opts.state_dir;
        let need = (2 * self.saved_len as u64).max(64 * 1024) + 256 * 1024;
        let free =
            prism_io::sys::available_bytes(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        match free >= need {
            true => Ok(()),
            false => Err(format!(
                "{} has {free} bytes free, and saving a change needs {need}",
                dir.display()
            )),
        }
    }

    fn shutdown(&mut self) -> Vec<RuntimeError> {
        self.bridges
            .iter()
            .flatten()
            .filter_map(|b| prism_io::netns::delete_link(b).err())
            .map(RuntimeError::failed)
            .collect()
    }

    fn now_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    fn put_processing(
        &mut self,
        state: prism_node_api::ProcessingState,
    ) -> Result<prism_node_api::ProcessingApplied, prism_node_api::ApiError> {
        self.converge_processing(state)
    }

    fn list_processing(
        &self,
    ) -> Result<Vec<prism_node_api::ProcessingView>, prism_node_api::ApiError> {
        self.processing_views()
    }

    fn save_image(
        &mut self,
        name: &str,
    ) -> Result<prism_node_api::SavedImage, prism_node_api::ApiError> {
        self.save_processing_image(name)
    }

    fn push_image(
        &self,
        body: prism_node_api::PushImage,
    ) -> Result<prism_node_api::PushedImage, prism_node_api::ApiError> {
        self.push_processing_image(body)
    }
}
