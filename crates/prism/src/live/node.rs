//! A live node: the scenario's ports attached to Linux interfaces through
//! AF_PACKET rings, polled by worker threads that each run a pipeline, and a
//! container per software-tier network.
//!
//! Single-receiver path (paper 003 §3.4): every frame enters a Prism port;
//! a software network's frames leave the pipeline on its software channel,
//! cross the veth "DMA channel" of the input port into the network's
//! container, and whatever the router sends back out of its interface
//! `eth<p>` re-enters the pipeline's output stage for port `p`.
//!
//! Workers: ports are dealt round-robin to `workers` threads (each pinned to
//! a core if `cores` are given). A worker owns its pipeline, its receive
//! rings and its own transmit socket for every port, so the fast path
//! shares nothing and takes no lock; a worker publishes its counters every
//! 200 ms.

use super::kernel_router;
use crate::router_config::{RouterConfig, RouterKind};
use crate::scenario::Scenario;
use anyhow::{Context, Result, bail};
use prism_io::afpacket::{PacketPort, PortStats, RingConfig};
use prism_io::container::{self, Container, ContainerSpec, LinkSpec};
use prism_pipeline::{CounterSnapshot, Packet, Pipeline, PipelineConfig, Tier};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct NodeOptions {
    pub workers: usize,
    /// Cores to pin workers to, in order (empty: not pinned).
    pub cores: Vec<usize>,
    /// Prefix of container namespace (and cgroup) names.
    pub ns_prefix: String,
    /// Prefix of the root-namespace ends of container veths.
    pub link_prefix: String,
    /// The scenario file, which `prism`-kind routers load in their container.
    pub scenario_file: PathBuf,
    /// Where router logs go.
    pub state_dir: PathBuf,
}

/// The MAC address of a software network's interface on port `port`: the
/// gateway address its hosts send to.
pub fn gateway_mac(net: u16, port: u16) -> [u8; 6] {
    [
        0x02,
        0x50,
        (net >> 8) as u8,
        net as u8,
        (port >> 8) as u8,
        port as u8,
    ]
}

/// The latest counters of one worker.
#[derive(Debug, Clone, Default)]
pub struct WorkerReport {
    pub counters: Option<CounterSnapshot>,
    pub ports: Vec<(String, PortStats)>,
    pub no_container_link: u64,
}

#[derive(Debug)]
pub struct Node {
    stop: Arc<AtomicBool>,
    workers: Vec<JoinHandle<()>>,
    containers: Vec<Container>,
    pub reports: Arc<Mutex<Vec<WorkerReport>>>,
    /// What the start did beyond the obvious (stale containers removed, cgroup limits).
    pub notes: Vec<String>,
}

/// Where a worker's received frame came from.
#[derive(Debug, Clone, Copy)]
enum Source {
    Wire(u16),
    Container { net: u16, port: u16 },
}

struct RxPort {
    source: Source,
    name: String,
    port: PacketPort,
}

struct Worker {
    pipeline: Pipeline,
    rx: Vec<RxPort>,
    /// Transmit socket per wire port.
    wire_tx: Vec<PacketPort>,
    /// Transmit socket per (network, port) container link: index net * ports + port.
    container_tx: Vec<Option<PacketPort>>,
    ports: u16,
    /// Software-network frames whose input port has no link into the container.
    no_container_link: u64,
}

fn container_name(opts: &NodeOptions, net: u16) -> String {
    format!("{}{net}", opts.ns_prefix)
}

fn host_link(opts: &NodeOptions, net: u16, port: u16) -> String {
    format!("{}{net}p{port}", opts.link_prefix)
}

impl Node {
    /// Starts a node for `sc` with port `i` attached to `ifaces[i]`.
    pub fn start(sc: &Scenario, ifaces: &[String], opts: &NodeOptions) -> Result<Node> {
        if !prism_io::netns::have_privileges() {
            bail!(
                "a live node needs root (raw sockets, namespaces); `prism run` without `--live` runs offline"
            );
        }
        let ports = sc.port_names.len() as u16;
        let mut notes = Vec::new();
        let stale = container::cleanup(&opts.ns_prefix, &opts.link_prefix)?;
        if !stale.is_empty() {
            notes.push(format!(
                "removed what a previous run left: {} namespaces, {} links, {} cgroups",
                stale.namespaces.len(),
                stale.links.len(),
                stale.cgroups.len()
            ));
        }
        std::fs::create_dir_all(&opts.state_dir)
            .with_context(|| format!("state directory {}", opts.state_dir.display()))?;
        let mut node = Node {
            stop: Arc::new(AtomicBool::new(false)),
            workers: Vec::new(),
            containers: Vec::new(),
            reports: Arc::new(Mutex::new(vec![
                WorkerReport::default();
                opts.workers.max(1)
            ])),
            notes,
        };
        // (id, name, the ports its container is linked to).
        let software: Vec<(u16, String, Vec<u16>)> = sc
            .substrate
            .networks()
            .filter(|(_, s)| s.tier == Tier::Software)
            .map(|(id, s)| {
                let cfg = sc.routers.get(&s.name).cloned().unwrap_or_default();
                (id, s.name.clone(), used_ports(s, &cfg, ports))
            })
            .collect();
        for (id, name, used) in &software {
            let cfg = sc.routers.get(name).cloned().unwrap_or_default();
            let c = node.start_container(sc, *id, name, &cfg, used, opts)?;
            node.notes.push(format!(
                "network `{name}`: {} router in container {} (limits: {})",
                cfg.kind.as_str(),
                c.namespace(),
                c.limits()
            ));
            node.containers.push(c);
        }
        for i in ifaces {
            // GRO would merge frames before our ring sees them.
            if let Err(e) = prism_io::netns::wire_frames_only(None, i) {
                node.notes.push(format!("{i}: offloads left on ({e})"));
            }
        }
        let n = opts.workers.max(1);
        let mut workers: Vec<Worker> = Vec::new();
        for w in 0..n {
            let cfg = PipelineConfig {
                pipeline_id: w as u32,
                ..PipelineConfig::default()
            };
            let wire_tx = ifaces
                .iter()
                .map(|i| PacketPort::open_tx(i).with_context(|| format!("port on `{i}`")))
                .collect::<Result<Vec<_>>>()?;
            let mut container_tx: Vec<Option<PacketPort>> = Vec::new();
            let nets = sc
                .substrate
                .networks()
                .map(|(i, _)| i)
                .max()
                .map_or(0, |m| m + 1);
            container_tx.resize_with(usize::from(nets) * usize::from(ports), || None);
            for (id, _, used) in &software {
                for &p in used {
                    let l = host_link(opts, *id, p);
                    container_tx[usize::from(*id) * usize::from(ports) + usize::from(p)] =
                        Some(PacketPort::open_tx(&l)?);
                }
            }
            workers.push(Worker {
                pipeline: Pipeline::new(sc.substrate.handle(), cfg),
                rx: Vec::new(),
                wire_tx,
                container_tx,
                ports,
                no_container_link: 0,
            });
        }
        let mut sources: Vec<(Source, String)> = ifaces
            .iter()
            .enumerate()
            .map(|(i, f)| (Source::Wire(i as u16), f.clone()))
            .collect();
        for (id, _, used) in &software {
            for &p in used {
                sources.push((
                    Source::Container { net: *id, port: p },
                    host_link(opts, *id, p),
                ));
            }
        }
        for (i, (source, name)) in sources.into_iter().enumerate() {
            let port = PacketPort::open(&name, Some(RingConfig::default()))
                .with_context(|| format!("receive ring on `{name}`"))?;
            workers[i % n].rx.push(RxPort { source, name, port });
        }
        for (i, w) in workers.into_iter().enumerate() {
            let stop = node.stop.clone();
            let reports = node.reports.clone();
            let core = opts.cores.get(i).copied();
            node.workers.push(
                std::thread::Builder::new()
                    .name(format!("prism-worker-{i}"))
                    .spawn(move || {
                        if let Some(c) = core {
                            pin_to_core(c);
                        }
                        w.run(i, &stop, &reports)
                    })?,
            );
        }
        Ok(node)
    }

    fn start_container(
        &self,
        sc: &Scenario,
        id: u16,
        name: &str,
        cfg: &RouterConfig,
        used: &[u16],
        opts: &NodeOptions,
    ) -> Result<Container> {
        let links = used
            .iter()
            .map(|&p| LinkSpec {
                host: host_link(opts, id, p),
                inner: kernel_router::inner_ifname(p),
                mac: Some(gateway_mac(id, p)),
                addresses: cfg
                    .addresses
                    .iter()
                    .filter(|(ap, _)| *ap == p)
                    .map(|(_, a)| a.clone())
                    .collect(),
            })
            .collect();
        let spec = ContainerSpec {
            name: container_name(opts, id),
            links,
            ip_forward: cfg.kind == RouterKind::Kernel,
            cpu_weight: cfg.cpu_weight,
            memory_max: cfg.memory_max,
        };
        let mut c = Container::create(spec)?;
        let log = opts.state_dir.join(format!("{}.log", c.namespace()));
        let r: Result<()> = (|| {
            match cfg.kind {
                RouterKind::Kernel => {
                    let netspec = sc.substrate.spec(name).context("network vanished")?;
                    for args in kernel_router::commands(netspec, cfg).map_err(anyhow::Error::msg)? {
                        let a: Vec<&str> = args.iter().map(String::as_str).collect();
                        prism_io::netns::ip_in(Some(c.namespace()), &a)?;
                    }
                }
                RouterKind::Prism => {
                    let exe = std::env::current_exe()?;
                    let argv = vec![
                        exe.display().to_string(),
                        "swrouter".into(),
                        "--config".into(),
                        opts.scenario_file.display().to_string(),
                        "--network".into(),
                        name.to_string(),
                    ];
                    c.spawn(&argv, Some(&log))?;
                }
                RouterKind::Command => {
                    c.spawn(&cfg.command, Some(&log))?;
                }
            }
            Ok(())
        })();
        if let Err(e) = r {
            let _ = c.remove();
            return Err(e.context(format!("network `{name}`")));
        }
        Ok(c)
    }

    /// Counters summed over the workers (`None` before the first report).
    pub fn counters(&self) -> Option<CounterSnapshot> {
        let r = self.reports.lock().ok()?;
        let mut it = r.iter().filter_map(|w| w.counters.clone());
        let mut total = it.next()?;
        for s in it {
            total.merge(&s);
        }
        Some(total)
    }

    /// Software-network frames dropped for want of a container link.
    pub fn no_container_link(&self) -> u64 {
        self.reports
            .lock()
            .map(|r| r.iter().map(|w| w.no_container_link).sum())
            .unwrap_or(0)
    }

    /// Receive-ring statistics of every worker's ports.
    pub fn port_stats(&self) -> Vec<(String, PortStats)> {
        self.reports
            .lock()
            .map(|r| r.iter().flat_map(|w| w.ports.clone()).collect())
            .unwrap_or_default()
    }

    /// Stops the workers and removes the containers; returns the final counters.
    pub fn stop(mut self) -> Result<Option<CounterSnapshot>> {
        self.stop.store(true, Ordering::Relaxed);
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
        let c = self.counters();
        let mut first = None;
        for c in self.containers.drain(..) {
            if let Err(e) = c.remove() {
                first.get_or_insert(e);
            }
        }
        first.map_or(Ok(c), |e| Err(e.into()))
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
        for c in self.containers.drain(..) {
            let _ = c.remove();
        }
    }
}

/// The ports a software network's container is linked to: those its
/// actions send to and those its router has addresses on. A frame of the
/// network entering on another port finds no link and is counted in
/// `WorkerReport::no_container_link` (printed by `prism node`). With no output port at all
/// (a user command's own routing), every port.
pub fn used_ports(spec: &prism_pipeline::NetworkSpec, cfg: &RouterConfig, ports: u16) -> Vec<u16> {
    let mut v: Vec<u16> = spec
        .forwarding
        .actions()
        .iter()
        .filter_map(|a| a.out_port)
        .chain(cfg.addresses.iter().map(|(p, _)| *p))
        .filter(|p| *p < ports)
        .collect();
    v.sort_unstable();
    v.dedup();
    if v.is_empty() {
        v = (0..ports).collect();
    }
    v
}

fn pin_to_core(core: usize) {
    // SAFETY: cpu_set_t is plain data; sched_setaffinity on this thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(core, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

impl Worker {
    fn run(mut self, index: usize, stop: &AtomicBool, reports: &Mutex<Vec<WorkerReport>>) {
        let epoch = Instant::now();
        let mut batch: Vec<Packet> = Vec::with_capacity(4096);
        let mut out: Vec<Packet> = Vec::with_capacity(4096);
        let mut last_report = epoch;
        let mut idle = 0u32;
        while !stop.load(Ordering::Relaxed) {
            let mut work = 0;
            for i in 0..self.rx.len() {
                let now = epoch.elapsed().as_nanos() as u64;
                let source = self.rx[i].source;
                let pool = &mut self.pipeline.pool;
                let got = self.rx[i].port.recv_block(|f| {
                    let port = match source {
                        Source::Wire(p) => p,
                        Source::Container { port, .. } => port,
                    };
                    if let Some(mut p) = pool.packet(f.data, port, now) {
                        if let Some((tpid, tci)) = f.vlan
                            && p.insert_gap(12, 4)
                        {
                            let d = p.data_mut();
                            d[12..14].copy_from_slice(&tpid.to_be_bytes());
                            d[14..16].copy_from_slice(&tci.to_be_bytes());
                        }
                        batch.push(p);
                    }
                });
                if got == 0 {
                    continue;
                }
                work += got;
                match source {
                    Source::Wire(_) => self.pipeline.process(&mut batch, now),
                    Source::Container { net, port } => {
                        for mut p in batch.drain(..) {
                            p.network = net;
                            self.pipeline.from_software(p, Ok(port), now);
                        }
                    }
                }
                self.flush(&mut out);
            }
            let now = Instant::now();
            if now.duration_since(last_report) > Duration::from_millis(200) {
                last_report = now;
                self.report(index, reports);
            }
            if work == 0 {
                idle += 1;
                if idle > 64 {
                    let ports: Vec<&PacketPort> = self.rx.iter().map(|r| &r.port).collect();
                    let _ = PacketPort::wait_any(&ports, 20);
                }
            } else {
                idle = 0;
            }
        }
        self.report(index, reports);
    }

    /// Sends software channels' packets to their containers and drains the
    /// output queues onto the wire.
    fn flush(&mut self, out: &mut Vec<Packet>) {
        for ch in 0..4 {
            self.pipeline.software_pop(ch, usize::MAX, out);
        }
        // One sendmmsg per run of packets bound for the same container link.
        let link =
            |p: &Packet| usize::from(p.network) * usize::from(self.ports) + usize::from(p.port);
        let mut start = 0;
        while start < out.len() {
            let i = link(&out[start]);
            let end = start + out[start..].iter().take_while(|p| link(p) == i).count();
            match self.container_tx.get_mut(i) {
                Some(Some(tx)) => {
                    tx.send_batch(out[start..end].iter().map(Packet::data));
                }
                _ => self.no_container_link += (end - start) as u64,
            }
            start = end;
        }
        for p in out.drain(..) {
            self.pipeline.pool.recycle(p);
        }
        for port in 0..self.ports {
            self.pipeline.transmit(port, usize::MAX, out);
            if !out.is_empty() {
                self.wire_tx[usize::from(port)].send_batch(out.iter().map(Packet::data));
                for p in out.drain(..) {
                    self.pipeline.pool.recycle(p);
                }
            }
        }
    }

    fn report(&mut self, index: usize, reports: &Mutex<Vec<WorkerReport>>) {
        let counters = self.pipeline.snapshot();
        let mut ports: Vec<(String, PortStats)> = Vec::new();
        for r in &mut self.rx {
            r.port.poll_drops();
            ports.push((r.name.clone(), r.port.stats));
        }
        if let Ok(mut g) = reports.lock()
            && let Some(slot) = g.get_mut(index)
        {
            *slot = WorkerReport {
                counters: Some(counters),
                ports,
                no_container_link: self.no_container_link,
            };
        }
    }
}
