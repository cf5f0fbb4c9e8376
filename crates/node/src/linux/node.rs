//! A live node: the scenario's ports attached to Linux interfaces through
//! AF_XDP or AF_PACKET sockets, polled by worker threads that each run a
//! pipeline (`worker`), and a container per software-tier network, kept in
//! step with the node's networks by `control`.
//!
//! Single-receiver path (paper 003 §3.4): every frame enters a Prism port;
//! a software network's frames leave the pipeline on its software channel,
//! cross the veth "DMA channel" of the input port into the network's
//! container, and whatever the router sends back out of its interface
//! `eth<p>` re-enters the pipeline's output stage for port `p`.
//!
//! Multi-receiver path: a port with a software interface gets a Linux
//! bridge joining that interface and the containers' links for the port;
//! software networks' traffic arriving there goes straight to their routers
//! and back out, without crossing the pipeline (paper 003 Fig. 8's PC NIC).
//!
//! Workers: receive sockets are dealt round-robin to `workers` threads (each
//! pinned to a core if `cores` are given); see `worker` for what they share
//! (nothing).

use crate::control::Control;
use crate::linux::names::{self, bridge_name};
use crate::linux::options::NodeOptions;
use crate::linux::taps::WorkerTaps;
use crate::linux::worker::{PortReport, Slot, Source, Worker, WorkerCmd, WorkerReport};
use crate::linux::{IoSettings, LinuxRuntime};
use anyhow::{Context, Result, bail};
use prism_compile::Scenario;
use prism_io::container;
use prism_io::instance::InstanceLock;
use prism_pipeline::{CounterSnapshot, Pipeline, PipelineConfig, Tier};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

#[derive(Debug)]
pub struct Node {
    stop: Arc<AtomicBool>,
    workers: Vec<JoinHandle<()>>,
    pub control: Arc<Mutex<Control<LinuxRuntime>>>,
    pub reports: Arc<Mutex<Vec<WorkerReport>>>,
    /// Traces and captures, through the workers.
    pub taps: Arc<WorkerTaps>,
    /// What the start did beyond the obvious (stale containers removed,
    /// I/O chosen, containers and their limits).
    pub notes: Vec<String>,
    _lock: InstanceLock,
}

impl Node {
    /// Starts a node for `sc` with port `i` attached to `ifaces[i]` and, for
    /// the multi-receiver path, its software interface `soft_ifaces[i]`.
    pub fn start(
        sc: Scenario,
        ifaces: &[String],
        soft_ifaces: &[Option<String>],
        opts: &NodeOptions,
        io: IoSettings,
    ) -> Result<Node> {
        if !prism_io::netns::have_privileges() {
            bail!("a live node needs root (raw sockets, namespaces); `prism run` runs offline");
        }
        let mut notes = Vec::new();
        let (lock, bridges) = prepare_host(opts, ifaces, soft_ifaces, &mut notes)?;
        let n = opts.workers.max(1);
        let software: Vec<String> = sc
            .substrate
            .networks()
            .filter(|(_, s)| s.tier == Tier::Software)
            .map(|(_, s)| s.name.clone())
            .collect();
        let handle = sc.substrate.handle();
        let ports = sc.port_names.len() as u16;
        let mut runtime = LinuxRuntime::new(
            opts.clone(),
            sc.device.clone(),
            sc.port_names.clone(),
            bridges,
            io,
        );
        let per = deal_ports(&mut runtime, ifaces, n, &mut notes)?;
        let (senders, workers) = make_workers(per, &handle, ports, runtime.epoch);
        let taps = Arc::new(WorkerTaps::new(senders.clone()));
        runtime.set_workers(senders);
        runtime.processing = super::processing::Processing::for_node(opts, &sc.port_names);
        let device = sc.device.clone();
        let auto = (
            crate::control::auto::AutoSettings::from_doc(sc.placement.as_ref()),
            sc.auto.clone(),
        );
        let mut control = Control::new(sc.substrate, sc.device, sc.port_names, sc.docs, runtime);
        // The device was programmed with the scenario's modules before the
        // node started; from now on loading a module takes the profile's
        // modelled time.
        control
            .substrate
            .set_reconfig_timing(prism_pipeline::control::reconfig::bitstreams(&device));
        control.default_strategy = opts.reconfig_strategy;
        control.set_auto(auto.0, &auto.1);
        let mut node = Node {
            stop: Arc::new(AtomicBool::new(false)),
            workers: Vec::new(),
            control: Arc::new(Mutex::new(control)),
            reports: Arc::new(Mutex::new(vec![WorkerReport::default(); n])),
            taps,
            notes,
            _lock: lock,
        };
        node.spawn(workers, &opts.cores)?;
        node.bring_up(&software)?;
        Ok(node)
    }

    /// Starts the routers of the scenario's software networks; what they
    /// and the control said goes to the node's notes.
    fn bring_up(&mut self, software: &[String]) -> Result<()> {
        let mut c = self.control.lock().unwrap_or_else(|e| e.into_inner());
        for name in software {
            c.bring_up(name).map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        let found = c.runtime.restore_processing();
        self.notes.extend(found);
        self.notes.append(&mut c.runtime.events);
        self.notes.append(&mut c.events);
        Ok(())
    }

    /// Starts a thread per worker (pinned to `cores` where given) and the
    /// control thread.
    fn spawn(&mut self, workers: Vec<Worker>, cores: &[usize]) -> Result<()> {
        let node = self;
        for (i, w) in workers.into_iter().enumerate() {
            let stop = node.stop.clone();
            let reports = node.reports.clone();
            let core = cores.get(i).copied();
            node.workers.push(
                std::thread::Builder::new()
                    .name(format!("prism-worker-{i}"))
                    .spawn(move || {
                        if let Some(c) = core {
                            pin_to_core(c);
                        }
                        // Frames wait in the rings while anything else
                        // runs: favoured, a worker keeps them short.
                        let _ = prism_io::sys::set_thread_nice(WORKER_NICE);
                        w.run(i, &stop, &reports)
                    })?,
            );
        }
        {
            let stop = node.stop.clone();
            let control = node.control.clone();
            let reports = node.reports.clone();
            node.workers.push(
                std::thread::Builder::new()
                    .name("prism-control".into())
                    .spawn(move || tick_until(&stop, &control, &reports))?,
            );
        }
        Ok(())
    }

    /// Counters summed over the workers (`None` before the first report).
    pub fn counters(&self) -> Option<CounterSnapshot> {
        sum_counters(&self.reports.lock().ok()?)
    }

    /// Statistics of every worker's sockets.
    pub fn port_stats(&self) -> Vec<PortReport> {
        self.reports
            .lock()
            .map(|r| r.iter().flat_map(|w| w.ports.clone()).collect())
            .unwrap_or_default()
    }

    /// What the control side did since the last call (for the node's log).
    pub fn take_events(&self) -> Vec<String> {
        self.control
            .lock()
            .map(|mut c| {
                let mut e = std::mem::take(&mut c.runtime.events);
                e.append(&mut c.events);
                e
            })
            .unwrap_or_default()
    }

    fn halt(&mut self) -> Vec<std::io::Error> {
        self.stop.store(true, Ordering::Relaxed);
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
        self.control
            .lock()
            .map(|mut c| {
                // The workers are gone: routers go without detaching.
                c.runtime.set_workers(Vec::new());
                c.shutdown()
            })
            .unwrap_or_default()
            .into_iter()
            .map(|e| std::io::Error::other(e.to_string()))
            .collect()
    }

    /// Stops the workers and removes the containers; returns the final counters.
    pub fn stop(mut self) -> Result<Option<CounterSnapshot>> {
        let errs = self.halt();
        let c = self.counters();
        match errs.into_iter().next() {
            Some(e) => Err(e.into()),
            None => Ok(c),
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.halt();
    }
}

/// What a dead instance left and was removed.
#[derive(Debug, Default)]
pub struct Leftovers {
    pub report: container::CleanupReport,
    /// Router files (network files, ready marks, logs) in the state directory.
    pub files: Vec<std::path::PathBuf>,
    /// Processing nodes and their links (`prism cleanup` only).
    pub processing: Vec<String>,
}

impl Leftovers {
    pub fn is_empty(&self) -> bool {
        self.report.is_empty() && self.files.is_empty() && self.processing.is_empty()
    }
}

/// Removes the namespaces, links, cgroups (killing their processes) and
/// router files of a dead instance with `opts`' names. The caller holds
/// the instance's lock.
fn remove_leftovers(opts: &NodeOptions) -> Result<Leftovers> {
    let report = container::cleanup_owned(container::Owned {
        container: &|n| names::owns_container(opts, n),
        link: &|n| names::owns_link(opts, n),
    })?;
    let mut files = Vec::new();
    for e in std::fs::read_dir(&opts.state_dir)
        .with_context(|| format!("state directory {}", opts.state_dir.display()))?
        .flatten()
    {
        let p = e.path();
        let ours = p
            .file_name()
            .is_some_and(|n| names::owns_file(opts, &n.to_string_lossy()));
        if ours && std::fs::remove_file(&p).is_ok() {
            files.push(p);
        }
    }
    Ok(Leftovers {
        report,
        files,
        processing: Vec::new(),
    })
}

/// `prism cleanup` for one instance's names: removes what a dead instance
/// left; `Err` names the live one and touches nothing of it.
pub fn cleanup_instance(opts: &NodeOptions) -> Result<Leftovers> {
    let _lock = InstanceLock::acquire(&opts.state_dir)?;
    let mut left = remove_leftovers(opts)?;
    // Processing nodes outlive a node's process (a restarted node keeps
    // them), so only this, for a dead instance, removes them.
    let places = super::processing::ProcessingPlaces::new(
        &opts.state_dir,
        opts.instance_letters(),
        Vec::new(),
    );
    left.processing = places.remove_all();
    Ok(left)
}

/// The served instances this host shows a trace of: the default one, and
/// each named one with a state directory (`/run/prism-<i>`) or a container
/// (`prism-c<i><net>`). Each is asked by its own lock before its names
/// are touched.
pub fn instances_on_host() -> Vec<Option<String>> {
    let mut found = std::collections::BTreeSet::new();
    let is_instance = |s: &str| super::options::instance_name(s).is_ok();
    if let Ok(d) = std::fs::read_dir("/run") {
        for e in d.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if let Some(i) = n.strip_prefix("prism-").filter(|i| is_instance(i)) {
                found.insert(i.to_string());
            }
        }
    }
    for ns in prism_io::netns::list_namespaces().unwrap_or_default() {
        let Some(rest) = ns.strip_prefix(super::options::NS_PREFIX) else {
            continue;
        };
        let i: String = rest.chars().take_while(char::is_ascii_lowercase).collect();
        if is_instance(&i) && rest[i.len()..].starts_with(|c: char| c.is_ascii_digit()) {
            found.insert(i);
        }
    }
    std::iter::once(None)
        .chain(found.into_iter().map(Some))
        .collect()
}

/// The counters of all workers, summed.
pub fn sum_counters(reports: &[WorkerReport]) -> Option<CounterSnapshot> {
    let mut it = reports.iter().filter_map(|w| w.counters.clone());
    let mut total = it.next()?;
    for s in it {
        total.merge(&s);
    }
    Some(total)
}

fn make_bridge(name: &str, member: &str) -> std::io::Result<()> {
    use prism_io::netns::{ip, wire_frames_only};
    ip(&["link", "add", name, "type", "bridge"])?;
    ip(&["link", "set", name, "up"])?;
    wire_frames_only(None, member)?;
    ip(&["link", "set", member, "master", name])?;
    ip(&["link", "set", member, "up"])?;
    Ok(())
}

/// Takes the control side's due steps (reconfigurations ending) every few
/// milliseconds until `stop`, and gives automatic placement the bytes each
/// network received every `auto::EVAL_MS`.
fn tick_until(
    stop: &AtomicBool,
    control: &Mutex<Control<LinuxRuntime>>,
    reports: &Mutex<Vec<WorkerReport>>,
) {
    let mut last_eval = std::time::Instant::now();
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(std::time::Duration::from_millis(TICK_MS));
        let sample = (last_eval.elapsed().as_millis() as u64 >= crate::control::auto::EVAL_MS)
            .then(|| {
                last_eval = std::time::Instant::now();
                let r = reports.lock().unwrap_or_else(|e| e.into_inner());
                sum_counters(&r).map(|c| {
                    c.networks
                        .iter()
                        .map(|n| (n.name.clone(), n.counters.rx_bytes))
                        .collect()
                })
            })
            .flatten();
        let mut c = control.lock().unwrap_or_else(|e| e.into_inner());
        c.tick();
        if let Some(bytes) = sample {
            let now = crate::runtime::NodeRuntime::now_ns(&c.runtime);
            c.observe(now, bytes);
        }
    }
}

/// How often the control side looks for due steps: a reconfiguration is
/// reported done (and carried networks return) at most this late.
const TICK_MS: u64 = 5;

/// Keeps the calling worker on `core` (a core that does not exist leaves
/// it where the scheduler puts it).
/// A worker thread's nice value (the node's other threads, its routers and
/// processing nodes keep 0).
pub const WORKER_NICE: i32 = -10;

pub fn pin_to_core(core: usize) {
    let _ = prism_io::sys::pin_to_core(core);
}

/// What a gateway node with `workers` workers should know: each worker's
/// pipeline keeps its own NAT flows (no lock on the fast path), so an
/// answer must come back to the worker whose queue the flow's first packet
/// left from, which the WAN port's RSS does not promise.
pub(crate) fn nat_per_worker(workers: usize, wan: bool) -> Option<String> {
    (workers > 1 && wan).then(|| {
        format!(
            "{workers} workers: the gateway's NAT flows are per worker; answers that the WAN port's RSS gives another worker are dropped as nat/no-flow (run one worker on a NAT gateway)"
        )
    })
}

/// Takes the node's lock, removes what a previous run left, bridges the
/// software interfaces and turns offloads off: the lock and each port's
/// bridge.
fn prepare_host(
    opts: &NodeOptions,
    ifaces: &[String],
    soft_ifaces: &[Option<String>],
    notes: &mut Vec<String>,
) -> Result<(InstanceLock, Vec<Option<String>>)> {
    // Held until the node ends: what carries its names is its own, and
    // no other node or `prism cleanup` touches it meanwhile.
    let lock = InstanceLock::acquire(&opts.state_dir)?;
    let stale = remove_leftovers(opts)?;
    if !stale.is_empty() {
        notes.push(format!(
            "removed what a previous run left: {} namespaces, {} links, {} cgroups, {} files",
            stale.report.namespaces.len(),
            stale.report.links.len(),
            stale.report.cgroups.len(),
            stale.files.len()
        ));
    }
    let mut bridges = Vec::new();
    for (p, soft) in soft_ifaces.iter().enumerate() {
        bridges.push(match soft {
            Some(i) => {
                let b = bridge_name(opts, p as u16);
                make_bridge(&b, i).with_context(|| format!("port {p}: bridge for `{i}`"))?;
                notes.push(format!(
                    "port {p}: software interface {i} bridged by {b} (multi-receiver path)"
                ));
                Some(b)
            }
            None => None,
        });
    }
    for i in ifaces {
        // GRO would merge frames before our sockets see them.
        if let Err(e) = prism_io::netns::wire_frames_only(None, i) {
            notes.push(format!("{i}: offloads left on ({e})"));
        }
    }
    Ok((lock, bridges))
}

/// Each port's sockets, dealt to the `n` workers.
fn deal_ports(
    runtime: &mut LinuxRuntime,
    ifaces: &[String],
    n: usize,
    notes: &mut Vec<String>,
) -> Result<Vec<Vec<Slot>>> {
    let mut per: Vec<Vec<Slot>> = (0..n).map(|_| Vec::new()).collect();
    for (i, f) in ifaces.iter().enumerate() {
        let (slots, fallback) = runtime
            .deal(f, Source::Wire(i as u16), true, n)
            .with_context(|| format!("port {i} on `{f}`"))?;
        if let Some(why) = fallback {
            notes.push(format!("{f}: AF_XDP unavailable ({why}); using AF_PACKET"));
        }
        for (w, s) in slots.into_iter().enumerate() {
            per[w].extend(s);
        }
    }
    let describe: Vec<String> = per
        .iter()
        .flatten()
        .filter(|s| s.rx)
        .map(|s| format!("{} {}", s.name, s.io.describe()))
        .collect();
    notes.push(format!("receiving on {}", describe.join(", ")));
    Ok(per)
}

/// A worker (its own pipeline on the published data plane) per set of
/// sockets, and the channels that command them.
fn make_workers(
    per: Vec<Vec<Slot>>,
    handle: &Arc<arc_swap::ArcSwap<prism_pipeline::Dataplane>>,
    ports: u16,
    epoch: std::time::Instant,
) -> (Vec<std::sync::mpsc::Sender<WorkerCmd>>, Vec<Worker>) {
    let mut senders = Vec::new();
    let mut workers = Vec::new();
    for (w, slots) in per.into_iter().enumerate() {
        let (tx, rx) = std::sync::mpsc::channel();
        senders.push(tx);
        let cfg = PipelineConfig {
            pipeline_id: w as u32,
            ..PipelineConfig::default()
        };
        workers.push(Worker::new(
            Pipeline::new(handle.clone(), cfg),
            ports,
            slots,
            rx,
            epoch,
        ));
    }
    (senders, workers)
}
