//! `PUT /v1/desired` on the reconciler, against the fake runtime: the
//! generation fence, the scope, removals before additions, and one
//! network's failure reported without stopping the others.

use super::{control, doc, take};
use crate::runtime::RuntimeError;
use prism_netdoc::TierChoice;
use prism_node_api::{DesiredAction, DesiredState, ErrorCode};

fn state(generation: u64, networks: &[(&str, TierChoice)]) -> DesiredState {
    DesiredState {
        generation,
        scope: "pc-".into(),
        networks: networks.iter().map(|(n, t)| doc(n, *t)).collect(),
    }
}

fn actions(a: &prism_node_api::DesiredApplied) -> Vec<(String, DesiredAction)> {
    a.networks
        .iter()
        .map(|n| (n.name.clone(), n.action))
        .collect()
}

#[test]
fn a_whole_state_converges_and_leaves_other_networks_alone() {
    let (mut c, calls) = control();
    c.apply("operator", Some(doc("operator", TierChoice::Hardware)))
        .unwrap();
    let hw = TierChoice::Hardware;
    let a = c
        .put_desired(state(4, &[("pc-a", hw), ("pc-b", TierChoice::Software)]))
        .unwrap();
    assert_eq!(
        actions(&a),
        [
            ("pc-a".into(), DesiredAction::Added),
            ("pc-b".into(), DesiredAction::Added)
        ]
    );
    assert_eq!(c.desired_generation(), 4);
    assert_eq!(c.runtime.saved_desired, 4, "the generation is saved");
    take(&calls);
    // The same generation again changes nothing; a newer one removes
    // pc-b (first) and moves pc-a to software.
    let again = c
        .put_desired(state(4, &[("pc-a", hw), ("pc-b", TierChoice::Software)]))
        .unwrap();
    assert!(
        again
            .networks
            .iter()
            .all(|n| n.action == DesiredAction::Unchanged)
    );
    assert!(take(&calls).is_empty());
    let a = c
        .put_desired(state(5, &[("pc-a", TierChoice::Software)]))
        .unwrap();
    assert_eq!(
        actions(&a),
        [
            ("pc-b".into(), DesiredAction::Removed),
            ("pc-a".into(), DesiredAction::Replaced)
        ]
    );
    assert!(c.view("pc-b").is_none());
    assert!(c.view("operator").is_some(), "outside the scope: untouched");
}

#[test]
fn an_older_generation_is_refused_before_anything_changes() {
    let (mut c, _) = control();
    c.put_desired(state(7, &[("pc-a", TierChoice::Hardware)]))
        .unwrap();
    let e = c.put_desired(state(6, &[])).unwrap_err();
    assert_eq!(e.code, ErrorCode::StaleGeneration);
    assert_eq!(e.field.as_deref(), Some("generation"));
    assert!(c.view("pc-a").is_some(), "the stale state removed nothing");
    assert_eq!(c.desired_generation(), 7);
}

#[test]
fn a_document_that_does_not_compile_refuses_the_whole_state() {
    let (mut c, _) = control();
    let mut bad = state(
        2,
        &[
            ("pc-a", TierChoice::Hardware),
            ("pc-b", TierChoice::Hardware),
        ],
    );
    bad.networks[1].route[0].action.port = Some(prism_netdoc::PortRef::Name("nowhere".into()));
    let e = c.put_desired(bad).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(
        e.field.as_deref().unwrap_or("").starts_with("networks[1]."),
        "{e:?}"
    );
    assert!(c.view("pc-a").is_none(), "nothing half-applied");
    assert_eq!(c.desired_generation(), 0, "and the generation not taken");
}

#[test]
fn one_network_failing_does_not_stop_the_others() {
    let (mut c, _) = control();
    c.runtime.fail_start = Some(RuntimeError::failed("the container would not start"));
    let a = c
        .put_desired(state(
            3,
            &[
                ("pc-s", TierChoice::Software),
                ("pc-h", TierChoice::Hardware),
            ],
        ))
        .unwrap();
    assert_eq!(a.networks[0].action, DesiredAction::Failed);
    assert!(
        a.networks[0]
            .error
            .as_ref()
            .unwrap()
            .message
            .contains("would not start")
    );
    assert_eq!(a.networks[1].action, DesiredAction::Added);
    assert!(!a.complete());
    // The generation is held; sent again once the runtime works, the
    // failed network is retried.
    c.runtime.fail_start = None;
    let again = c
        .put_desired(state(
            3,
            &[
                ("pc-s", TierChoice::Software),
                ("pc-h", TierChoice::Hardware),
            ],
        ))
        .unwrap();
    assert_eq!(again.networks[0].action, DesiredAction::Added);
    assert!(again.complete());
}

#[test]
fn a_whole_state_is_saved_once_whatever_it_holds() {
    let (mut c, _) = control();
    let names: Vec<String> = (0..20).map(|i| format!("pc-{i:02}")).collect();
    let all: Vec<(&str, TierChoice)> = names
        .iter()
        .map(|n| (n.as_str(), TierChoice::Software))
        .collect();
    let a = c.put_desired(state(2, &all)).unwrap();
    assert!(a.complete());
    // Saved once (each save writes every network: twenty saves of a
    // growing state made a node of 1,024 networks take 6 s), and whole.
    assert_eq!(c.runtime.saves, 1);
    let saved = c.runtime.saved.clone().unwrap().1;
    assert_eq!(saved, names, "every network in the one save");
    assert_eq!(c.runtime.saved_desired, 2);
    // Half removed under a newer generation: once more.
    let a = c.put_desired(state(3, &all[..10])).unwrap();
    assert_eq!(a.networks.len(), 20);
    assert_eq!(c.runtime.saves, 2);
    assert_eq!(c.runtime.saved.clone().unwrap().1, names[..10]);
    // Nothing new: nothing saved.
    c.put_desired(state(3, &all[..10])).unwrap();
    assert_eq!(c.runtime.saves, 2);
}

/// A change (`PATCH /v1/desired`) on the state last accepted converges as
/// the whole state it makes would (the same actions, the same networks),
/// and is refused, nothing changed, on any other base: an older or newer
/// generation, or after a restart (the node keeps the state it was sent
/// in memory only).
#[test]
fn a_change_converges_as_its_whole_state_and_only_on_its_base() {
    use prism_node_api::DesiredChange;
    let (hw, sw) = (TierChoice::Hardware, TierChoice::Software);
    let first = state(4, &[("pc-a", hw), ("pc-b", sw), ("pc-c", hw)]);
    let next = state(5, &[("pc-a", sw), ("pc-c", hw), ("pc-d", hw)]);
    let (mut whole, _) = control();
    let (mut changed, _) = control();
    whole.put_desired(first.clone()).unwrap();
    changed.put_desired(first.clone()).unwrap();
    let by_put = whole.put_desired(next.clone()).unwrap();
    let change = DesiredChange::between(&first, &next);
    assert_eq!(
        (change.put.len(), change.remove.len()),
        (2, 1),
        "{change:?}"
    );
    let mut stale = change.clone();
    stale.base = 3;
    let e = changed.patch_desired(stale).unwrap_err();
    assert_eq!(e.code, ErrorCode::BaseMismatch);
    assert!(
        changed.view("pc-b").is_some(),
        "the refused change removed nothing"
    );
    assert_eq!(changed.desired_generation(), 4);
    let by_patch = changed.patch_desired(change.clone()).unwrap();
    let sorted = |a: &prism_node_api::DesiredApplied| {
        let mut v = actions(a);
        v.sort_by(|x, y| x.0.cmp(&y.0));
        v
    };
    // The same actions, but for the networks it left unchanged, which a
    // change's answer does not list.
    assert_eq!(sorted(&by_patch), sorted(&by_put.clone().touched()));
    assert!(
        sorted(&by_put)
            .iter()
            .any(|(_, a)| *a == DesiredAction::Unchanged)
    );
    assert_eq!(changed.desired_generation(), 5);
    for name in ["pc-a", "pc-b", "pc-c", "pc-d"] {
        let (w, c) = (whole.view(name), changed.view(name));
        assert_eq!(w.map(|v| v.tier), c.map(|v| v.tier), "{name}");
    }
    // Its base is now 5: the same change again is refused, as it is by a
    // node that restarted (a fresh control holding no state it was sent).
    let e = changed.patch_desired(change).unwrap_err();
    assert_eq!(e.code, ErrorCode::BaseMismatch);
    let (mut restarted, _) = control();
    let e = restarted
        .patch_desired(DesiredChange::between(&first, &next))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::BaseMismatch);
    // An older generation is fenced first, as a whole state's is.
    let mut older = DesiredChange::between(&next, &state(2, &[]));
    older.base = 5;
    assert_eq!(
        changed.patch_desired(older).unwrap_err().code,
        ErrorCode::StaleGeneration
    );
}

/// A change refused for what it puts (a document that does not compile,
/// a name outside the scope) names the field in the change (`put[0]...`)
/// and leaves the state it would have applied to: the same base then
/// takes a valid change.
#[test]
fn a_refused_change_names_its_field_and_leaves_its_base() {
    use prism_node_api::DesiredChange;
    let (mut c, _) = control();
    let first = state(4, &[("pc-a", TierChoice::Hardware)]);
    c.put_desired(first.clone()).unwrap();
    let next = state(
        5,
        &[
            ("pc-a", TierChoice::Hardware),
            ("pc-b", TierChoice::Hardware),
        ],
    );
    let good = DesiredChange::between(&first, &next);
    let mut bad = good.clone();
    bad.put[0].route[0].action.port = Some(prism_netdoc::PortRef::Name("nowhere".into()));
    let e = c.patch_desired(bad).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(
        e.field.as_deref().unwrap_or("").starts_with("put[0]."),
        "{e:?}"
    );
    let mut outside = good.clone();
    outside.put[0].name = "qa-b".into();
    let e = c.patch_desired(outside).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("put[0].name"), "{e:?}");
    assert!(c.view("pc-b").is_none(), "nothing applied");
    assert_eq!(c.desired_generation(), 4);
    let a = c.patch_desired(good).unwrap();
    // The answer lists what the change touched, not pc-a, unchanged.
    assert_eq!(actions(&a), [("pc-b".into(), DesiredAction::Added)]);
}

#[test]
fn a_document_that_chooses_partial_changes_its_module_dark_not_through_software() {
    let (mut c, calls, _) = super::timed();
    let mut d = super::flow("b");
    d.reconfigure = Some(prism_netdoc::ReconfigureChoice::Partial);
    let said = c.apply("b", Some(d)).unwrap();
    assert!(said.contains("partial reconfiguration"), "{said}");
    assert!(take(&calls).is_empty(), "no router: the slot is dark");
    assert_eq!(super::dark_until(&c, "b"), 1_000_000_000 + super::LOAD_NS);
    // `fallback` chosen: the software tier serves it meanwhile.
    let (mut c, calls, _) = super::timed();
    let mut d = super::flow("b");
    d.reconfigure = Some(prism_netdoc::ReconfigureChoice::Fallback);
    let said = c.apply("b", Some(d)).unwrap();
    assert!(said.contains("fallback reconfiguration"), "{said}");
    assert_eq!(take(&calls).len(), 1);
    assert_eq!(c.view("b").unwrap().tier, prism_pipeline::Tier::Software);
}
