//! The one fake node: a node API over a list of documents, checking each
//! as a node does (`prism_compile::compile` against its ports), with a
//! switch that makes it unreachable-like (every call fails) and one that
//! stalls changes. Its desired state goes through the node API's own
//! `reconcile` functions. Trace and capture answers echo the request, so
//! the server glue's tests see bodies go through; a reconfiguration is
//! logged as started and done at once; the counters and power are what a
//! test says (`pass`, `drop_for`; 100 mW a hardware slot). Served
//! over real TCP with the control plane's credential, or on any listener.

use prism_netdoc::{NetworkDoc, TierChoice};
use prism_node_api::CounterSnapshot;
use prism_node_api::{
    ApiError, Changed, Credential, DesiredApplied, DesiredChange, DesiredState, ErrorCode,
    EventKind, Listener, NetworkDetail, NetworkView, NodeApi, NodeEvent, NodeInfo, PortView,
    PowerView, RateLimitBody, ReconfigureBody, Reconfiguring, RoutesBody, RulesBody, SlotsInfo,
    StrategyName, TapAnswer, TapBody, TapView, Tier, TierBody,
};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

mod api;

pub const SECRET: &str = "0c5d7e9f1a2b3c4d5e6f708192a3b4c5";

/// A software network's spec that this node takes: destination routing,
/// 10.1.0.0/16 out of port `b` (what tests and benchmarks book on it).
pub fn software_spec() -> serde_json::Value {
    serde_json::json!({
        "tier": "software",
        "forwarding": "destination",
        "route": [{"prefix": "10.1.0.0/16", "action": {"port": "b"}}]
    })
}

#[derive(Debug)]
pub struct FakeNode {
    pub ports: Vec<String>,
    pub slots: u16,
    pub docs: Mutex<Vec<NetworkDoc>>,
    pub down: AtomicBool,
    pub calls: std::sync::atomic::AtomicUsize,
    /// Changes wait while this is set, then fail as if never made (a
    /// controller killed meanwhile must make them again).
    pub stall: AtomicBool,
    /// Changes waiting now.
    pub stalled: std::sync::atomic::AtomicUsize,
    /// The last desired generation accepted (`PUT /v1/desired`).
    pub desired_generation: std::sync::atomic::AtomicU64,
    /// Set: the next `PUT /v1/desired` waits, before its generation is
    /// checked, while `held_desired` is (a request late in the network).
    pub hold_next_desired: AtomicBool,
    pub held_desired: AtomicBool,
    /// The desired state last accepted, as a node keeps it for a change
    /// (`PATCH /v1/desired`); `None`: as after a restart.
    pub last_desired: Mutex<Option<DesiredState>>,
    /// Changes (`PATCH /v1/desired`) accepted, and refused for their base.
    pub patches: std::sync::atomic::AtomicUsize,
    pub patches_refused: std::sync::atomic::AtomicUsize,
    /// What it reports as its WAN port (`with_wan`).
    pub wan: Mutex<Option<prism_node_api::WanInfo>>,
    /// Its TLS listener's reports of refused handshakes (`serve_tls`).
    refusals: Arc<Mutex<Vec<String>>>,
    /// Packets and bytes each network has forwarded, and dropped by
    /// reason: what `counters` answers (`pass`, `drop`).
    traffic: Mutex<std::collections::BTreeMap<String, prism_node_api::NamedCounters>>,
    /// Its event log: each reconfiguration asked, started and done at once.
    log: Mutex<Vec<NodeEvent>>,
    /// Each network's program as the node would run it (its maps), made
    /// from the network's document when its maps are first asked for and
    /// made again when the document names another object.
    programs: Mutex<std::collections::HashMap<String, (String, prism_program::Program)>>,
    /// The port it runs processing nodes behind (`with_processing`).
    pub processing_port: Mutex<Option<String>>,
    /// The processing state last accepted (`PUT /v1/processing`).
    pub processing: Mutex<Option<prism_node_api::ProcessingState>>,
    /// How long a `PUT /v1/processing` that starts a processing node
    /// takes, ms (a real node's first start unpacks its image).
    pub processing_start_ms: std::sync::atomic::AtomicU64,
    /// Blobs it was asked to upload (`POST /v1/images/push`), in order.
    pub pushed: Mutex<Vec<prism_node_api::BlobSource>>,
}

fn view(d: &NetworkDoc) -> NetworkView {
    NetworkView {
        id: 0,
        name: d.name.clone(),
        tier: if d.tier == TierChoice::Hardware {
            Tier::Hardware
        } else {
            Tier::Software
        },
        forwarding: "destination".into(),
        entries: d.route.len(),
        rate_bps: d.rate_limit.as_ref().map(|r| r.rate.0),
        burst_bytes: None,
        slot: None,
        router: None,
        tier_moves: 0,
    }
}

/// The device profile the fake reports.
pub const DEVICE: &str = "netfpga-v2p";

fn event(seq: u64, network: &str, strategy: Option<StrategyName>) -> NodeEvent {
    NodeEvent {
        seq,
        unix_ms: 0,
        kind: EventKind::ReconfigurationStarted,
        network: network.into(),
        strategy,
        modelled_ms: Some(600.2),
        measured_ms: None,
        message: String::new(),
    }
}

fn empty_counters(name: &str) -> prism_node_api::NamedCounters {
    prism_node_api::NamedCounters {
        id: 0,
        name: name.into(),
        tier: "hardware".into(),
        counters: Default::default(),
        dropped: 0,
        drops: Default::default(),
    }
}

fn missing(name: &str) -> ApiError {
    ApiError::not_found(format!("no network `{name}`"))
}

impl FakeNode {
    /// Network `name`'s program's maps (see `programs`), to `f`.
    pub(crate) fn with_maps<T>(
        &self,
        name: &str,
        f: impl FnOnce(&[prism_program::Map]) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        let doc = self
            .doc(name)
            .ok_or_else(|| ApiError::not_found(format!("no network `{name}`")))?;
        let p = doc
            .program
            .as_ref()
            .ok_or_else(|| ApiError::not_found(format!("network `{name}` runs no program")))?;
        let spec = prism_compile::program(p).map_err(|e| ApiError::invalid(e.message))?;
        let mut programs = self.programs.lock().unwrap();
        let held = programs.get(name).filter(|(d, _)| *d == spec.digest);
        if held.is_none() {
            let made = spec.image.instantiate(spec.budget);
            programs.insert(name.to_string(), (spec.digest.clone(), made));
        }
        f(&programs[name].1.maps)
    }

    pub fn new(ports: &[&str], slots: u16) -> Arc<Self> {
        Arc::new(Self {
            ports: ports.iter().map(|s| s.to_string()).collect(),
            slots,
            docs: Mutex::new(Vec::new()),
            down: AtomicBool::new(false),
            calls: Default::default(),
            stall: AtomicBool::new(false),
            stalled: Default::default(),
            desired_generation: Default::default(),
            hold_next_desired: AtomicBool::new(false),
            held_desired: AtomicBool::new(false),
            last_desired: Mutex::new(None),
            patches: Default::default(),
            patches_refused: Default::default(),
            wan: Mutex::new(None),
            refusals: Arc::default(),
            traffic: Mutex::default(),
            log: Mutex::default(),
            programs: Mutex::default(),
            processing_port: Mutex::default(),
            processing: Mutex::default(),
            processing_start_ms: Default::default(),
            pushed: Mutex::default(),
        })
    }

    /// Its hardware networks' names, in the order they came (slot order).
    fn hardware_names(&self) -> Vec<String> {
        let docs = self.docs.lock().unwrap();
        docs.iter()
            .filter(|d| d.tier == TierChoice::Hardware)
            .map(|d| d.name.clone())
            .collect()
    }

    /// Counts `packets` of `bytes` each as received and sent by network
    /// `name` (a fake has no data plane: a test says what went through).
    pub fn pass(&self, name: &str, packets: u64, bytes: u64) {
        let mut t = self.traffic.lock().unwrap();
        let n = t.entry(name.into()).or_insert_with(|| empty_counters(name));
        n.counters.rx_packets += packets;
        n.counters.rx_bytes += packets * bytes;
        n.counters.tx_packets += packets;
        n.counters.tx_bytes += packets * bytes;
    }

    /// Counts `packets` received by network `name` and dropped for `reason`.
    pub fn drop_for(&self, name: &str, reason: &str, packets: u64) {
        let mut t = self.traffic.lock().unwrap();
        let n = t.entry(name.into()).or_insert_with(|| empty_counters(name));
        n.counters.rx_packets += packets;
        n.dropped += packets;
        *n.drops.entry(reason.into()).or_default() += packets;
    }

    /// Runs processing nodes behind port `port` (a fake keeps what it is
    /// told and runs nothing).
    pub fn with_processing(self: Arc<Self>, port: &str) -> Arc<Self> {
        *self.processing_port.lock().unwrap() = Some(port.into());
        self
    }

    /// The processing nodes it was last told to run, by name.
    pub fn processing_nodes(&self) -> Vec<prism_node_api::ProcessingDoc> {
        (self.processing.lock().unwrap().as_ref())
            .map(|s| s.nodes.clone())
            .unwrap_or_default()
    }

    /// Reports a WAN port `port` with `address` and `mac`.
    pub fn with_wan(self: Arc<Self>, port: &str, address: &str, mac: &str) -> Arc<Self> {
        *self.wan.lock().unwrap() = Some(prism_node_api::WanInfo {
            port: port.into(),
            address: address.into(),
            mac: mac.into(),
            next_hop: None,
            public: None,
            public_macs: None,
        });
        self
    }

    /// Gives its WAN port a router beyond it and a pool of public
    /// addresses (after [`Self::with_wan`]).
    pub fn with_gateway(self: Arc<Self>, next_hop: &str, public: &str) -> Arc<Self> {
        if let Some(w) = self.wan.lock().unwrap().as_mut() {
            w.next_hop = Some(next_hop.into());
            w.public = Some(public.into());
        }
        self
    }

    /// Gives its WAN port a pool of public MACs (after [`Self::with_wan`]).
    pub fn with_public_macs(self: Arc<Self>, pool: &str) -> Arc<Self> {
        if let Some(w) = self.wan.lock().unwrap().as_mut() {
            w.public_macs = Some(pool.into());
        }
        self
    }

    /// Serves it on 127.0.0.1 with the shared credential; returns the
    /// address.
    pub fn serve(self: &Arc<Self>) -> String {
        self.serve_on(Listener::Tcp(
            "127.0.0.1:0".parse().unwrap(),
            Credential::new(SECRET).unwrap(),
        ))
    }

    /// Serves it on 127.0.0.1 in mutual TLS with `tls` (a node identity's);
    /// returns the address.
    pub fn serve_tls(self: &Arc<Self>, tls: Arc<prism_http::CurrentTls>) -> String {
        let refusals = self.refusals.clone();
        let report = prism_node_api::Refusals::new(move |line| {
            if let Ok(mut r) = refusals.lock() {
                r.push(line);
            }
        });
        self.serve_on(Listener::Tls("127.0.0.1:0".parse().unwrap(), tls, report))
    }

    /// What its TLS listener reported of the handshakes it refused.
    pub fn refusals(&self) -> Vec<String> {
        self.refusals.lock().map(|r| r.clone()).unwrap_or_default()
    }

    fn serve_on(self: &Arc<Self>, listener: Listener) -> String {
        let stop = Arc::new(AtomicBool::new(false));
        let app = prism_node_api::router(self.clone());
        // `spawn` starts a runtime of its own: not from inside the test's.
        std::thread::spawn(move || prism_node_api::spawn(listener, app, stop).unwrap().0)
            .join()
            .unwrap()
    }

    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .docs
            .lock()
            .unwrap()
            .iter()
            .map(|d| d.name.clone())
            .collect();
        v.sort();
        v
    }

    pub fn doc(&self, name: &str) -> Option<NetworkDoc> {
        self.docs
            .lock()
            .unwrap()
            .iter()
            .find(|d| d.name == name)
            .cloned()
    }

    fn up(&self) -> Result<(), ApiError> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        if self.down.load(Ordering::Relaxed) {
            Err(ApiError::new(ErrorCode::Unavailable, "down"))
        } else {
            Ok(())
        }
    }

    fn change(&self) -> Result<(), ApiError> {
        self.up()?;
        if !self.stall.load(Ordering::SeqCst) {
            return Ok(());
        }
        self.stalled.fetch_add(1, Ordering::SeqCst);
        while self.stall.load(Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        self.stalled.fetch_sub(1, Ordering::SeqCst);
        Err(ApiError::new(
            ErrorCode::Unavailable,
            "stalled, then refused",
        ))
    }

    fn check(&self, doc: &NetworkDoc) -> Result<(), ApiError> {
        prism_compile::compile(doc, &self.ports)
            .map(|_| ())
            .map_err(ApiError::from)
    }
}

impl FakeNode {
    /// Holds this call while `held_desired` is set, if asked to hold the
    /// next (a test's way to overtake it).
    fn hold_if_asked(&self) {
        if self.hold_next_desired.swap(false, Ordering::SeqCst) {
            self.held_desired.store(true, Ordering::SeqCst);
            while self.held_desired.load(Ordering::SeqCst) {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
    }

    /// Plans `body` against what it holds and carries it out.
    fn converge(&self, body: DesiredState) -> DesiredApplied {
        use prism_node::control::plan::{Step, execute, plan};
        let generation = body.generation;
        let steps = {
            let docs = self.docs.lock().unwrap();
            let current: BTreeMap<&str, &NetworkDoc> =
                docs.iter().map(|d| (d.name.as_str(), d)).collect();
            plan(&body, &current)
        };
        *self.last_desired.lock().unwrap() = Some(body);
        let networks = execute(steps, |name, step| {
            match step {
                Step::Add(d) => self.add_network(d),
                Step::Replace(d) => self.replace_network(name, d),
                Step::Remove => self.remove_network(name),
                Step::Unchanged => return Ok(()),
            }
            .map(drop)
        });
        self.desired_generation
            .fetch_max(generation, Ordering::SeqCst);
        DesiredApplied {
            generation,
            networks,
        }
    }
}

/// FNV-1a, 64 bits: stable fake digests.
pub(crate) fn fnv64(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
