//! The reconciler against a fake runtime, without root: the order of a
//! migration is checked against what the data plane had published at the
//! moment each router was started or stopped.

use super::*;
use crate::runtime::{NodeRuntime, RouterRequest, RuntimeError};
use arc_swap::ArcSwap;
use prism_netdoc::{RouterDoc, RouterKind, TierChoice};
use prism_node_api::RouterView;
use prism_pipeline::{Dataplane, device};
use std::sync::{Arc, Mutex};

/// What the fake saw: the call, the network, and the tier the data plane
/// published for it at that moment (`None`: not published).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Call {
    op: &'static str,
    net: String,
    variant: bool,
    published: Option<Tier>,
}

#[derive(Debug)]
struct FakeRouter {
    name: String,
    variant: bool,
    kind: RouterKind,
}

#[derive(Debug)]
struct Fake {
    dp: Arc<ArcSwap<Dataplane>>,
    calls: Arc<Mutex<Vec<Call>>>,
    fail_start: Option<RuntimeError>,
    /// The last desired state saved: (generation, network names).
    saved: Option<(u64, Vec<String>)>,
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
        generation: u64,
        docs: &BTreeMap<String, NetworkDoc>,
    ) -> Result<(), RuntimeError> {
        self.saved = Some((generation, docs.keys().cloned().collect()));
        Ok(())
    }

    fn shutdown(&mut self) -> Vec<RuntimeError> {
        Vec::new()
    }
}

fn control() -> (Control<Fake>, Arc<Mutex<Vec<Call>>>) {
    let profile = device::profile("netfpga-v2p").unwrap().clone();
    let substrate = Substrate::new(profile, 2);
    let calls = Arc::new(Mutex::new(Vec::new()));
    let fake = Fake {
        dp: substrate.handle(),
        calls: calls.clone(),
        fail_start: None,
        saved: None,
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

fn doc(name: &str, tier: TierChoice) -> NetworkDoc {
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

fn take(calls: &Arc<Mutex<Vec<Call>>>) -> Vec<Call> {
    std::mem::take(&mut *calls.lock().unwrap())
}

#[test]
fn hardware_networks_need_no_router() {
    let (mut c, calls) = control();
    c.apply("h", Some(doc("h", TierChoice::Hardware))).unwrap();
    assert_eq!(c.view("h").unwrap().tier, PlacedTier::Hardware);
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
    assert_eq!(c.view("s").unwrap().tier, PlacedTier::Software);
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
    assert_eq!(c.view("m").unwrap().tier, PlacedTier::Software);
    assert_eq!(c.view("m").unwrap().slot, None);
    c.apply("m", Some(doc("m", TierChoice::Hardware))).unwrap();
    assert_eq!(
        take(&calls),
        vec![call("stop", "m", false, Some(Tier::Hardware))]
    );
    assert_eq!(c.view("m").unwrap().tier, PlacedTier::Hardware);
    assert!(c.view("m").unwrap().router.is_none());
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
    assert_eq!(c.view("f").unwrap().tier, PlacedTier::Hardware);
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
    let e = c.apply("x", Some(doc("x", TierChoice::Auto))).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("tier"));
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
