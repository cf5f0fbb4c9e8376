//! The reconciler against a fake runtime, without root: the order of a
//! migration is checked against what the data plane had published at the
//! moment each router was started or stopped.

use super::*;
use crate::runtime::{NodeRuntime, RouterRequest, RuntimeError};
use arc_swap::ArcSwap;
use prism_netdoc::{RouterDoc, RouterKind, TierChoice};
use prism_node_api::RouterView;
use prism_pipeline::{Dataplane, control::device};
use std::sync::{Arc, Mutex};

/// What the fake saw: the call, the network, and the tier the data plane
/// published for it at that moment (`None`: not published).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Call {
    op: &'static str,
    net: String,
    variant: bool,
    published: Option<Tier>,
}

#[derive(Debug)]
pub(super) struct FakeRouter {
    name: String,
    variant: bool,
    kind: RouterKind,
}

#[derive(Debug)]
pub(super) struct Fake {
    dp: Arc<ArcSwap<Dataplane>>,
    calls: Arc<Mutex<Vec<Call>>>,
    pub(super) fail_start: Option<RuntimeError>,
    /// The last desired state saved: (generation, network names).
    pub(super) saved: Option<(u64, Vec<String>)>,
    /// The control plane's generation saved with it.
    pub(super) saved_desired: u64,
    /// How many times the desired state was saved.
    pub(super) saves: usize,
    /// The clock, set by the test.
    now: Arc<std::sync::atomic::AtomicU64>,
}

impl Fake {
    fn record(&self, op: &'static str, net: &str, variant: bool) {
        let dp = self.dp.load();
        let published = dp
            .network_id(net)
            .and_then(|id| dp.network(id))
            .map(|n| n.tier);
        self.calls.lock().unwrap().push(Call {
            op,
            net: net.to_string(),
            variant,
            published,
        });
    }
}

impl NodeRuntime for Fake {
    type Router = FakeRouter;

    fn start_router(&mut self, req: RouterRequest<'_>) -> Result<FakeRouter, RuntimeError> {
        self.record("start", &req.spec.name, req.variant);
        if let Some(e) = self.fail_start.clone() {
            return Err(e);
        }
        Ok(FakeRouter {
            name: req.spec.name.clone(),
            variant: req.variant,
            kind: req.router.kind,
        })
    }

    fn can_update(&self, r: &FakeRouter, req: RouterRequest<'_>) -> bool {
        r.kind == req.router.kind
    }

    fn update_router(
        &mut self,
        r: &mut FakeRouter,
        _old: &NetworkSpec,
        req: RouterRequest<'_>,
    ) -> Result<(), RuntimeError> {
        self.record("update", &r.name, req.variant);
        Ok(())
    }

    fn stop_router(&mut self, r: FakeRouter) -> Result<(), RuntimeError> {
        self.record("stop", &r.name, r.variant);
        Ok(())
    }

    fn variant(&self, r: &FakeRouter) -> bool {
        r.variant
    }

    fn view(&self, r: &FakeRouter) -> RouterView {
        RouterView {
            kind: r.kind,
            container: format!("fake-{}", r.name),
            ports: vec![0, 1],
            bridged: vec![],
        }
    }

    fn save(
        &mut self,
        generations: crate::runtime::Generations,
        docs: &BTreeMap<String, NetworkDoc>,
    ) -> Result<(), RuntimeError> {
        self.saved = Some((generations.changes, docs.keys().cloned().collect()));
        self.saves += 1;
        self.saved_desired = generations.desired;
        Ok(())
    }

    fn shutdown(&mut self) -> Vec<RuntimeError> {
        Vec::new()
    }

    fn now_ns(&self) -> u64 {
        self.now.load(std::sync::atomic::Ordering::Relaxed)
    }
}

pub(super) fn control() -> (Control<Fake>, Arc<Mutex<Vec<Call>>>) {
    let profile = device::profile("netfpga-v2p").unwrap().clone();
    let substrate = Substrate::new(profile, 2);
    let calls = Arc::new(Mutex::new(Vec::new()));
    let fake = Fake {
        dp: substrate.handle(),
        calls: calls.clone(),
        fail_start: None,
        saved: None,
        saved_desired: 0,
        saves: 0,
        now: Default::default(),
    };
    let ports = vec!["a".to_string(), "b".to_string()];
    (
        Control::new(
            substrate,
            "netfpga-v2p".into(),
            ports,
            BTreeMap::new(),
            fake,
        ),
        calls,
    )
}

pub(super) fn doc(name: &str, tier: TierChoice) -> NetworkDoc {
    let text = format!(
        r#"{{"name": "{name}", "tier": "{}", "forwarding": "destination",
            "map": [{{"in_port": "a"}}],
            "route": [{{"prefix": "10.0.2.0/24", "action": {{"port": "b"}}}}]}}"#,
        tier.as_str()
    );
    prism_netdoc::from_json(text.as_bytes()).unwrap()
}

fn call(op: &'static str, net: &str, variant: bool, published: Option<Tier>) -> Call {
    Call {
        op,
        net: net.into(),
        variant,
        published,
    }
}

pub(super) fn take(calls: &Arc<Mutex<Vec<Call>>>) -> Vec<Call> {
    std::mem::take(&mut *calls.lock().unwrap())
}

#[test]
fn hardware_networks_need_no_router() {
    let (mut c, calls) = control();
    c.apply("h", Some(doc("h", TierChoice::Hardware))).unwrap();
    assert_eq!(c.view("h").unwrap().tier, Tier::Hardware);
    assert_eq!(c.view("h").unwrap().slot, Some(0));
    c.apply("h", None).unwrap();
    assert!(c.view("h").is_none());
    assert!(take(&calls).is_empty());
}

#[test]
fn a_new_software_network_is_published_only_once_its_router_runs() {
    let (mut c, calls) = control();
    c.apply("s", Some(doc("s", TierChoice::Software))).unwrap();
    assert_eq!(take(&calls), vec![call("start", "s", false, None)]);
    assert_eq!(c.view("s").unwrap().tier, Tier::Software);
    assert_eq!(c.view("s").unwrap().router.unwrap().container, "fake-s");
    c.apply("s", None).unwrap();
    // Removed from the data plane before its router goes.
    assert_eq!(take(&calls), vec![call("stop", "s", false, None)]);
}

/// Paper 003 §3.4's migration, both ways: the software router must be
/// receiving before the pipeline hands it the network (start while still
/// published in hardware), and the pipeline must have taken the network
/// back before the router stops (stop while published in hardware).
#[test]
fn migration_makes_the_new_path_before_it_breaks_the_old() {
    let (mut c, calls) = control();
    c.apply("m", Some(doc("m", TierChoice::Hardware))).unwrap();
    c.apply("m", Some(doc("m", TierChoice::Software))).unwrap();
    assert_eq!(
        take(&calls),
        vec![call("start", "m", false, Some(Tier::Hardware))]
    );
    assert_eq!(c.view("m").unwrap().tier, Tier::Software);
    assert_eq!(c.view("m").unwrap().slot, None);
    c.apply("m", Some(doc("m", TierChoice::Hardware))).unwrap();
    assert_eq!(
        take(&calls),
        vec![call("stop", "m", false, Some(Tier::Hardware))]
    );
    assert_eq!(c.view("m").unwrap().tier, Tier::Hardware);
    assert!(c.view("m").unwrap().router.is_none());
    // Each move is on the event log, in words.
    let moves: Vec<String> = c
        .events_since(0)
        .into_iter()
        .filter(|e| e.kind == prism_node_api::EventKind::TierMove && e.network == "m")
        .map(|e| e.message)
        .collect();
    assert_eq!(
        moves,
        [
            "network `m` moved to software",
            "network `m` moved to hardware"
        ]
    );
}

#[test]
fn a_new_router_kind_starts_beside_the_old_one() {
    let (mut c, calls) = control();
    c.apply("k", Some(doc("k", TierChoice::Software))).unwrap();
    take(&calls);
    let mut d = doc("k", TierChoice::Software);
    d.router = Some(RouterDoc {
        kind: RouterKind::Kernel,
        ..RouterDoc::default()
    });
    let done = c.apply("k", Some(d)).unwrap();
    assert!(done.contains("restarted"), "{done}");
    assert_eq!(
        take(&calls),
        vec![
            call("start", "k", true, Some(Tier::Software)),
            call("stop", "k", false, Some(Tier::Software)),
        ]
    );
    assert_eq!(
        c.view("k").unwrap().router.unwrap().kind,
        RouterKind::Kernel
    );
}

#[test]
fn a_router_that_fails_to_start_leaves_the_network_where_it_was() {
    let (mut c, calls) = control();
    c.apply("f", Some(doc("f", TierChoice::Hardware))).unwrap();
    c.runtime.fail_start = Some(RuntimeError::failed("the container would not start"));
    let e = c
        .apply("f", Some(doc("f", TierChoice::Software)))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Internal);
    assert!(e.message.contains("would not start"), "{e}");
    assert_eq!(c.view("f").unwrap().tier, Tier::Hardware);
    assert_eq!(c.doc("f").unwrap().tier, TierChoice::Hardware);
    // A router that cannot express the table is the caller's to fix.
    c.runtime.fail_start = Some(RuntimeError::unsupported(
        "use `router = { kind = \"prism\" }`",
    ));
    let e = c
        .apply("g", Some(doc("g", TierChoice::Software)))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(c.view("g").is_none() && c.doc("g").is_none());
    assert_eq!(take(&calls).len(), 2);
}

#[test]
fn applying_the_same_document_twice_changes_nothing() {
    let (mut c, calls) = control();
    for tier in [TierChoice::Hardware, TierChoice::Software] {
        let name = tier.as_str();
        c.apply(name, Some(doc(name, tier))).unwrap();
        let before = (c.view(name), c.substrate.spec(name).cloned());
        take(&calls);
        c.apply(name, Some(doc(name, tier))).unwrap();
        assert_eq!((c.view(name), c.substrate.spec(name).cloned()), before);
        let calls = take(&calls);
        assert!(
            calls.iter().all(|c| c.op == "update"),
            "{tier:?}: {calls:?}"
        );
    }
}

#[test]
fn refusals_are_typed_and_change_nothing() {
    let (mut c, calls) = control();
    c.apply("x", Some(doc("x", TierChoice::Hardware))).unwrap();
    c.apply("y", Some(doc("y", TierChoice::Hardware))).unwrap();
    // The netfpga-v2p profile has two slots.
    let e = c
        .apply("z", Some(doc("z", TierChoice::Hardware)))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Capacity, "{e}");
    let mut bad = doc("x", TierChoice::Hardware);
    bad.route[0].action.port = Some(prism_netdoc::PortRef::Name("c".into()));
    let e = c.apply("x", Some(bad)).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert_eq!(e.field.as_deref(), Some("route[0].action.port"));
    let e = c
        .apply("x", Some(doc("other", TierChoice::Hardware)))
        .unwrap_err();
    assert_eq!(e.field.as_deref(), Some("name"));
    // `auto` needs the bandwidth it is placed by.
    let e = c.apply("x", Some(doc("x", TierChoice::Auto))).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("bandwidth"));
    assert_eq!(c.apply("nope", None).unwrap_err().code, ErrorCode::NotFound);
    assert_eq!(c.doc("x").unwrap(), &doc("x", TierChoice::Hardware));
    assert!(take(&calls).is_empty());
}

#[test]
fn every_applied_change_is_saved_and_refusals_are_not() {
    let (mut c, _) = control();
    c.apply("a", Some(doc("a", TierChoice::Hardware))).unwrap();
    c.apply("b", Some(doc("b", TierChoice::Software))).unwrap();
    assert_eq!(c.runtime.saved, Some((2, vec!["a".into(), "b".into()])));
    assert!(c.apply("a", Some(doc("a", TierChoice::Auto))).is_err());
    c.runtime.fail_start = Some(RuntimeError::failed("no"));
    assert!(c.apply("c", Some(doc("c", TierChoice::Software))).is_err());
    assert_eq!(c.generation(), 2);
    c.apply("a", None).unwrap();
    assert_eq!(c.runtime.saved, Some((3, vec!["b".into()])));
}

/// A control side on the NetFPGA with its modelled reconfiguration times,
/// and its clock: hardware networks `a` and `b` (destination routing).
fn timed() -> (
    Control<Fake>,
    Arc<Mutex<Vec<Call>>>,
    Arc<std::sync::atomic::AtomicU64>,
) {
    let (mut c, calls) = control();
    let now = c.runtime.now.clone();
    // Programmed with `a` and `b` before the clock starts, as a node's
    // scenario is.
    for n in ["a", "b"] {
        c.apply(n, Some(doc(n, TierChoice::Hardware))).unwrap();
    }
    c.substrate
        .set_reconfig_timing(prism_pipeline::control::reconfig::bitstreams("netfpga-v2p"));
    now.store(1_000_000_000, std::sync::atomic::Ordering::Relaxed);
    take(&calls);
    (c, calls, now)
}

/// Paper 000's configuration II: source+destination routing.
fn flow(name: &str) -> NetworkDoc {
    let mut d = doc(name, TierChoice::Hardware);
    d.forwarding = prism_netdoc::ForwardingMode::Flow;
    let r = &mut d.route[0];
    r.dst = r.prefix.take();
    r.src = Some(prism_netdoc::Prefix("10.0.1.0/24".parse().unwrap()));
    d
}

fn dark_until(c: &Control<Fake>, name: &str) -> u64 {
    let dp = c.substrate.handle().load_full();
    dp.fast(dp.network_id(name).unwrap()).unwrap().dark_until_ns
}

const LOAD_NS: u64 = 600_213_333;

#[test]
fn partial_darkens_the_slot_and_ends_when_the_load_does() {
    use prism_pipeline::control::reconfig::Strategy;
    let (mut c, calls, now) = timed();
    let e = c
        .reconfigure("b", flow("b"), Some(Strategy::Partial))
        .unwrap();
    assert_eq!(e.modelled_ms.map(|m| m.round()), Some(600.0));
    assert_eq!(dark_until(&c, "b"), 1_000_000_000 + LOAD_NS);
    assert_eq!(dark_until(&c, "a"), 0);
    assert!(
        take(&calls).is_empty(),
        "no router for a partial reconfiguration"
    );
    // Busy meanwhile: another change to `b` waits, `a` is free.
    let busy = c
        .apply("b", Some(doc("b", TierChoice::Software)))
        .unwrap_err();
    assert_eq!(busy.code, ErrorCode::Conflict);
    c.apply("a", Some(doc("a", TierChoice::Hardware))).unwrap();
    c.tick();
    assert_eq!(c.events_since(0).len(), 1);
    now.store(
        1_000_000_000 + LOAD_NS,
        std::sync::atomic::Ordering::Relaxed,
    );
    c.tick();
    let ev = c.events_since(1);
    assert_eq!(ev.len(), 1);
    assert_eq!(ev[0].kind, prism_node_api::EventKind::ReconfigurationDone);
    assert!((ev[0].measured_ms.unwrap() - 600.2).abs() < 0.1);
    assert!(!c.reconfiguring());
    assert_eq!(
        c.doc("b").unwrap().forwarding,
        prism_netdoc::ForwardingMode::Flow
    );
}

#[test]
fn fallback_serves_from_software_and_returns_to_the_same_slot() {
    use prism_pipeline::control::reconfig::Strategy;
    let (mut c, calls, now) = timed();
    let slot = c.view("b").unwrap().slot;
    c.reconfigure("b", flow("b"), Some(Strategy::Fallback))
        .unwrap();
    // Make before break: the router started while `b` was in hardware.
    assert_eq!(
        take(&calls),
        vec![call("start", "b", false, Some(Tier::Hardware))]
    );
    assert_eq!(c.view("b").unwrap().tier, Tier::Software);
    now.store(
        1_000_000_000 + LOAD_NS - 1,
        std::sync::atomic::Ordering::Relaxed,
    );
    c.tick();
    assert_eq!(c.view("b").unwrap().tier, Tier::Software);
    now.store(
        1_000_000_000 + LOAD_NS,
        std::sync::atomic::Ordering::Relaxed,
    );
    c.tick();
    // Back in hardware, in its slot, ready; the router stopped after.
    assert_eq!(
        take(&calls),
        vec![call("stop", "b", false, Some(Tier::Hardware))]
    );
    let v = c.view("b").unwrap();
    assert_eq!(
        (v.tier, v.slot, v.forwarding.as_str()),
        (Tier::Hardware, slot, "flow-routing")
    );
    assert!(dark_until(&c, "b") <= 1_000_000_000 + LOAD_NS);
    assert_eq!(v.tier_moves, 2);
}

#[test]
fn full_carries_the_neighbours_and_darkens_the_device() {
    use prism_pipeline::control::reconfig::Strategy;
    let (mut c, calls, now) = timed();
    let e = c.reconfigure("b", flow("b"), Some(Strategy::Full)).unwrap();
    assert_eq!(e.modelled_ms, Some(12_000.0));
    assert_eq!(
        take(&calls),
        vec![call("start", "a", false, Some(Tier::Hardware))]
    );
    assert_eq!(c.view("a").unwrap().tier, Tier::Software);
    assert_eq!(dark_until(&c, "b"), 13_000_000_000);
    // Nothing else may start meanwhile.
    let again = c.reconfigure("a", flow("a"), None).unwrap_err();
    assert_eq!(again.code, ErrorCode::Conflict);
    now.store(13_000_000_000, std::sync::atomic::Ordering::Relaxed);
    c.tick();
    assert_eq!(
        take(&calls),
        vec![call("stop", "a", false, Some(Tier::Hardware))]
    );
    assert_eq!(c.view("a").unwrap().tier, Tier::Hardware);
    assert_eq!(dark_until(&c, "a"), 13_000_000_000);
}

#[test]
fn a_new_module_through_put_is_the_default_strategy_and_refusals_change_nothing() {
    let (mut c, calls, _) = timed();
    let said = c.apply("b", Some(flow("b"))).unwrap();
    assert!(said.contains("fallback reconfiguration"), "{said}");
    assert_eq!(
        take(&calls),
        vec![call("start", "b", false, Some(Tier::Hardware))]
    );
    // Refused: a software target, another name, an unknown network.
    let (mut c, calls, _) = timed();
    let mut soft = flow("b");
    soft.tier = TierChoice::Software;
    let e = c.reconfigure("b", soft, None).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("definition.tier"));
    let e = c.reconfigure("b", flow("a"), None).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);
    let e = c.reconfigure("zz", flow("zz"), None).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert!(take(&calls).is_empty());
    assert!(c.events_since(0).is_empty());
    assert_eq!(c.view("b").unwrap().forwarding, "destination-routing");
}

mod auto;
mod desired;

#[test]
fn a_move_to_a_slot_that_must_load_waits_for_the_load() {
    let (mut c, calls, now) = timed();
    c.apply("b", None).unwrap(); // slot 1 loads a blank module
    c.apply("c", Some(doc("c", TierChoice::Software))).unwrap();
    take(&calls);
    let said = c.apply("c", Some(doc("c", TierChoice::Hardware))).unwrap();
    assert!(said.contains("once its slot has loaded"), "{said}");
    // Served by software until the blank and then its module are loaded.
    assert_eq!(c.view("c").unwrap().tier, Tier::Software);
    assert!(take(&calls).is_empty());
    now.store(
        1_000_000_000 + 2 * LOAD_NS - 1,
        std::sync::atomic::Ordering::Relaxed,
    );
    c.tick();
    assert_eq!(c.view("c").unwrap().tier, Tier::Software);
    now.store(
        1_000_000_000 + 2 * LOAD_NS,
        std::sync::atomic::Ordering::Relaxed,
    );
    c.tick();
    assert_eq!(c.view("c").unwrap().tier, Tier::Hardware);
    assert_eq!(dark_until(&c, "c"), 1_000_000_000 + 2 * LOAD_NS);
    assert_eq!(
        take(&calls),
        vec![call("stop", "c", false, Some(Tier::Hardware))]
    );
}
