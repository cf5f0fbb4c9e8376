//! A node's polling worker: one thread, one pipeline, its own sockets.
//!
//! In: frames from the receive sockets it owns: wire ports (into the
//! pipeline) and the root-namespace ends of software routers' links (a
//! router's output, into the pipeline's output stage). Out: the pipeline's
//! output queues onto the wire, and its software channels into the routers'
//! containers, on the link of the packet's input port (paper 003 §3.4's
//! single-receiver path).
//!
//! Every worker can transmit on every port and link: on the ones whose
//! receive socket it owns it sends through that socket (AF_XDP binds one
//! socket per queue), on the others through a packet socket of its own. So
//! workers share nothing and the fast path takes no lock; the control side
//! adds and removes a software network's links with [`WorkerCmd`]s, which
//! the worker picks up between batches (a channel poll: one atomic load
//! when empty), and counters are published every 200 ms.

use prism_io::afpacket::PortStats;
use prism_io::port::Port;
use prism_pipeline::{CounterSnapshot, IoDrop, Packet, Pipeline, TapRecord, TapRequest};
mod host_io;
mod send;

use super::hosts::{self, Host, HostTable};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Frames taken from one socket per poll.
const RX_BATCH: u32 = 256;

/// Marks, in a flushed batch, a packet whose container link has no socket.
const NO_LINK: u16 = u16::MAX;

/// A link being detached is drained once it has received nothing for this
/// long. The old router is another process: on a loaded machine it can be
/// off its core for tens of milliseconds with frames still queued; 150 ms
/// is that with margin, and costs each router's removal that much time,
/// off the fast path.
pub const QUIET: Duration = Duration::from_millis(150);
/// ... or after this long whatever it receives.
pub const DRAIN_MAX: Duration = Duration::from_millis(500);

/// A detach waiting for its links to drain.
#[derive(Debug)]
struct Draining {
    links: Vec<String>,
    since: Instant,
    last_rx: Instant,
    done: Sender<Vec<Slot>>,
}

/// Where a socket's received frames come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Wire(u16),
    /// The root-namespace end of network `net`'s link for port `port`.
    Container {
        net: u16,
        port: u16,
    },
    /// The root-namespace end of a processing node's interface: a host on
    /// VLAN `vlan` behind wire port `port` (`super::hosts`).
    Host {
        port: u16,
        vlan: u16,
        mac: [u8; 6],
    },
}

/// One socket of a worker.
#[derive(Debug)]
pub struct Slot {
    pub source: Source,
    /// The interface, for reports.
    pub name: String,
    pub io: Port,
    /// Polled for received frames.
    pub rx: bool,
    /// Used to transmit on its interface.
    pub tx: bool,
    /// A processing node's link whose address the node hands out by DHCP.
    pub dhcp: Option<crate::linux::dhcp::Lease>,
}

/// Changes a worker applies between batches; `done` is answered after.
#[derive(Debug)]
pub enum WorkerCmd {
    /// A software network's links: this worker's sockets on them.
    Attach {
        net: u16,
        /// Strip IPIP towards the router and restore it after
        /// (`prism_pipeline::software::boundary`), for routers that do not do IPIP.
        terminate_ipip: bool,
        slots: Vec<Slot>,
        done: Sender<()>,
    },
    /// Takes this worker's sockets on these container links (by the
    /// root-namespace link's name: a network being moved to a new
    /// container has the old and the new ones for a moment) once they have
    /// drained, and hands them back through `done`, to be closed off the
    /// fast path: closing an AF_XDP socket and detaching its program waits
    /// for RCU grace periods, tens of milliseconds in which this worker
    /// would receive nothing.
    ///
    /// Drained: the router may still hold frames it took before the
    /// pipeline stopped sending it any (a router process waiting for a
    /// core, say). The sockets stay, receiving and forwarding, until none of
    /// them has received for [`QUIET`] (at most [`DRAIN_MAX`]).
    Detach {
        links: Vec<String>,
        done: Sender<Vec<Slot>>,
    },
    /// Processing nodes' interfaces: this worker's sockets on them. They
    /// go with [`WorkerCmd::Detach`] as containers' links do.
    AttachHosts { slots: Vec<Slot>, done: Sender<()> },
    /// Arms a trace or capture; `done` gets what it recorded once it has
    /// all it asked for or `until` passes (timestamps in Unix time, ns).
    Tap {
        req: TapRequest,
        until: Instant,
        done: Sender<Vec<TapRecord>>,
    },
}

/// A socket's statistics, for reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PortReport {
    pub name: String,
    /// `af_xdp native copy`, `af_packet`, ...
    pub io: String,
    pub rx: bool,
    #[serde(flatten)]
    pub stats: PortStats,
}

/// The latest counters of one worker.
#[derive(Debug, Clone, Default)]
pub struct WorkerReport {
    pub counters: Option<CounterSnapshot>,
    pub ports: Vec<PortReport>,
}

#[derive(Debug)]
pub struct Worker {
    pipeline: Pipeline,
    slots: Vec<Slot>,
    ports: u16,
    /// Per wire port, the slot that transmits on it.
    wire_tx: Vec<Option<usize>>,
    /// Per `net * ports + port`, the slot that transmits into that link.
    link_tx: Vec<Option<usize>>,
    /// Slots polled for frames.
    rx_slots: Vec<usize>,
    /// Per network: strip and restore IPIP at its container's boundary.
    terminate_ipip: Vec<bool>,
    /// Processing nodes' interfaces, by port and VLAN.
    hosts: HostTable,
    /// Reused between batches: the packets a pass over a batch keeps, and
    /// a frame without its tag (`host_io`).
    keep: Vec<Packet>,
    to_hosts: Vec<Packet>,
    untagged: Vec<u8>,
    /// Detaches waiting for their links to drain.
    draining: Vec<Draining>,
    /// An armed tap's deadline and where its records go.
    tap: Option<(Instant, Sender<Vec<TapRecord>>)>,
    /// The worker's clock: packet timestamps are ns since `epoch`, which
    /// was `epoch_unix_ns` in Unix time.
    epoch: Instant,
    epoch_unix_ns: u64,
    cmds: Receiver<WorkerCmd>,
}

impl Worker {
    /// A worker whose clock counts from `epoch` (the node's, so that every
    /// worker and the control side agree on when a slot is ready).
    pub fn new(
        pipeline: Pipeline,
        ports: u16,
        wire: Vec<Slot>,
        cmds: Receiver<WorkerCmd>,
        epoch: Instant,
    ) -> Self {
        let unix_now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let mut w = Self {
            pipeline,
            slots: wire,
            ports,
            wire_tx: Vec::new(),
            link_tx: Vec::new(),
            rx_slots: Vec::new(),
            terminate_ipip: Vec::new(),
            hosts: HostTable::default(),
            keep: Vec::with_capacity(4096),
            to_hosts: Vec::with_capacity(4096),
            untagged: Vec::with_capacity(16 * 1024),
            draining: Vec::new(),
            tap: None,
            epoch,
            epoch_unix_ns: unix_now.saturating_sub(epoch.elapsed().as_nanos() as u64),
            cmds,
        };
        w.index();
        w
    }

    fn link(&self, net: u16, port: u16) -> usize {
        usize::from(net) * usize::from(self.ports) + usize::from(port)
    }

    /// Rebuilds the lookup tables from the slots (on changes only).
    fn index(&mut self) {
        self.wire_tx = vec![None; usize::from(self.ports)];
        self.link_tx.iter_mut().for_each(|x| *x = None);
        self.rx_slots.clear();
        self.hosts =
            HostTable::new(
                self.slots
                    .iter()
                    .enumerate()
                    .filter_map(|(slot, s)| match s.source {
                        Source::Host { port, vlan, mac } if s.tx => {
                            Some((port, vlan, Host { mac, slot }))
                        }
                        _ => None,
                    }),
            );
        for i in 0..self.slots.len() {
            let s = &self.slots[i];
            if s.rx {
                self.rx_slots.push(i);
            }
            if !s.tx {
                continue;
            }
            match s.source {
                Source::Wire(p) => self.wire_tx[usize::from(p)] = Some(i),
                Source::Container { net, port } => {
                    let l = self.link(net, port);
                    if self.link_tx.len() <= l {
                        self.link_tx.resize(l + 1, None);
                    }
                    self.link_tx[l] = Some(i);
                }
                Source::Host { .. } => {}
            }
        }
    }

    fn apply(&mut self, cmd: WorkerCmd) {
        match cmd {
            WorkerCmd::Attach {
                net,
                terminate_ipip,
                slots,
                done,
            } => {
                let n = usize::from(net);
                if self.terminate_ipip.len() <= n {
                    self.terminate_ipip.resize(n + 1, false);
                }
                self.terminate_ipip[n] = terminate_ipip;
                self.slots.extend(slots);
                self.index();
                let _ = done.send(());
            }
            WorkerCmd::AttachHosts { slots, done } => {
                self.slots.extend(slots);
                self.index();
                let _ = done.send(());
            }
            WorkerCmd::Tap { req, until, done } => {
                // One at a time: an earlier one ends with what it has.
                self.finish_tap(true);
                self.pipeline.arm_tap(req);
                self.tap = Some((until, done));
            }
            WorkerCmd::Detach { links, done } => {
                let now = Instant::now();
                self.draining.push(Draining {
                    links,
                    since: now,
                    last_rx: now,
                    done,
                });
            }
        }
    }

    /// Sends an armed tap's records once it is full or its time is up
    /// (or now, with `now`).
    fn finish_tap(&mut self, now: bool) {
        let Some((until, _)) = &self.tap else {
            return;
        };
        if !(now || self.pipeline.tap_full() || Instant::now() >= *until) {
            return;
        }
        let mut records = self.pipeline.take_tap();
        for r in &mut records {
            r.timestamp_ns += self.epoch_unix_ns;
        }
        if let Some((_, done)) = self.tap.take() {
            let _ = done.send(records);
        }
    }

    /// Notes that slot `i` received, if a detach is draining it.
    fn note_rx(&mut self, i: usize, now: Instant) {
        let name = &self.slots[i].name;
        for d in &mut self.draining {
            if d.links.contains(name) {
                d.last_rx = now;
            }
        }
    }

    /// Completes the detaches whose links have drained.
    fn finish_drains(&mut self, now: Instant) {
        let mut k = 0;
        while k < self.draining.len() {
            let d = &self.draining[k];
            if now.duration_since(d.last_rx) < QUIET && now.duration_since(d.since) < DRAIN_MAX {
                k += 1;
                continue;
            }
            let d = self.draining.swap_remove(k);
            let (gone, kept) = std::mem::take(&mut self.slots)
                .into_iter()
                .partition(|s| !matches!(s.source, Source::Wire(_)) && d.links.contains(&s.name));
            self.slots = kept;
            self.index();
            // Should the control side have gone, the sockets close here.
            let _ = d.done.send(gone);
        }
    }

    pub fn run(mut self, index: usize, stop: &AtomicBool, reports: &Arc<Mutex<Vec<WorkerReport>>>) {
        let epoch = self.epoch;
        let mut batch: Vec<Packet> = Vec::with_capacity(RX_BATCH as usize);
        let mut out: Vec<Packet> = Vec::with_capacity(4096);
        let mut last_report = epoch;
        let mut idle = 0u32;
        while !stop.load(Ordering::Relaxed) {
            while let Ok(cmd) = self.cmds.try_recv() {
                self.apply(cmd);
            }
            let mut work = 0;
            for k in 0..self.rx_slots.len() {
                work += self.serve_slot(self.rx_slots[k], epoch, &mut batch, &mut out);
            }
            let now = Instant::now();
            if !self.draining.is_empty() {
                self.finish_drains(now);
            }
            if self.tap.is_some() {
                self.finish_tap(false);
            }
            if now.duration_since(last_report) > Duration::from_millis(200) {
                last_report = now;
                self.report(index, reports);
            }
            if work == 0 {
                idle += 1;
                for s in &mut self.slots {
                    s.io.flush();
                }
                if idle > 64 {
                    let ports: Vec<&Port> =
                        self.rx_slots.iter().map(|&i| &self.slots[i].io).collect();
                    let _ = Port::wait_any(&ports, 20);
                }
            } else {
                idle = 0;
            }
        }
        self.report(index, reports);
    }

    /// One receive from slot `i`: the frames through the pipeline (from the
    /// wire) or back from their router (from a container), then out.
    /// How many frames came.
    fn serve_slot(
        &mut self,
        i: usize,
        epoch: Instant,
        batch: &mut Vec<Packet>,
        out: &mut Vec<Packet>,
    ) -> usize {
        let now = epoch.elapsed().as_nanos() as u64;
        let source = self.slots[i].source;
        let in_port = match source {
            Source::Wire(p) | Source::Container { port: p, .. } | Source::Host { port: p, .. } => p,
        };
        let from_host = matches!(source, Source::Host { .. });
        let mut tagged = 0;
        let pool = &mut self.pipeline.pool;
        let got = self.slots[i].io.recv(RX_BATCH, |f| {
            if from_host && (f.vlan.is_some() || hosts::tagged(f.data)) {
                tagged += 1;
                return;
            }
            if let Some(mut p) = pool.packet(f.data, in_port, now) {
                if let Some((tpid, tci)) = f.vlan {
                    // The headroom always fits one tag; a frame that lost
                    // its tag would map wrongly, so none goes on without it.
                    if !p.restore_vlan_tag(tpid, tci) {
                        pool.recycle(p);
                        return;
                    }
                }
                batch.push(p);
            }
        });
        if got == 0 {
            return 0;
        }
        if !self.draining.is_empty() {
            self.note_rx(i, Instant::now());
        }
        if tagged > 0 {
            self.pipeline.io_drops(None, IoDrop::HostTagged, tagged);
        }
        match source {
            Source::Wire(_) => self.pipeline.process(batch, now),
            Source::Host { port, vlan, .. } => {
                self.switch_from_host(i, port, vlan, batch);
                self.pipeline.process(batch, now);
            }
            Source::Container { net, port } => {
                let t = self.terminate_ipip.get(usize::from(net)) == Some(&true);
                self.pipeline.from_router(batch, net, port, t, now);
            }
        }
        self.flush(out);
        got
    }

    fn report(&mut self, index: usize, reports: &Mutex<Vec<WorkerReport>>) {
        let counters = self.pipeline.snapshot();
        let ports = self
            .slots
            .iter_mut()
            .map(|s| PortReport {
                name: s.name.clone(),
                io: s.io.describe(),
                rx: s.rx,
                stats: s.io.poll_stats(),
            })
            .collect();
        if let Ok(mut g) = reports.lock()
            && let Some(slot) = g.get_mut(index)
        {
            *slot = WorkerReport {
                counters: Some(counters),
                ports,
            };
        }
    }
}
