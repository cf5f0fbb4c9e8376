//! Changes to a live booking (docs/customizing.md) against fake nodes:
//! a route change reaches the node as the booking's next generation and
//! is kept in its history; a bandwidth change moves the node's rate
//! limit; refusals (a port the node lacks, a field not changed live, over
//! the quota or the node's capacity, a generation lost to another change,
//! another project) name their field and change nothing.

use crate::common::{Harness, network};
use prism_controller::{BookingChange, ControllerClient, ErrorCode, STANDARD};
use prism_testkit::fake_node::FakeNode;
use serde_json::json;
use std::sync::Arc;

fn routes(port: &str) -> BookingChange {
    let route = json!([{"prefix": "10.2.0.0/16", "action": {"port": port}}]);
    BookingChange {
        spec: Some(json!({"route": route}).as_object().unwrap().clone()),
        ..BookingChange::default()
    }
}

fn spec(v: serde_json::Value) -> BookingChange {
    BookingChange {
        spec: Some(v.as_object().unwrap().clone()),
        ..BookingChange::default()
    }
}

/// The refusal's status, code and field.
async fn refused(
    c: &ControllerClient,
    id: &str,
    change: &BookingChange,
) -> (u16, ErrorCode, Option<String>) {
    match c.edit_booking("exp", id, change).await.unwrap_err() {
        prism_controller::ClientError::Api { status, error, .. } => {
            (status, error.code, error.field)
        }
        e => panic!("not an API refusal: {e}"),
    }
}

/// A controller, node `n1` with `slots` hardware slots, and `alice`
/// owning project `exp`.
async fn start(slots: u16) -> (Harness, Arc<FakeNode>, ControllerClient) {
    let h = Harness::start().await;
    let n1 = h.node("n1", slots, 10_000).await;
    let alice = h.user("alice").await;
    h.project("exp", "alice", STANDARD).await;
    (h, n1, alice)
}

/// [`start`] with four slots, and `alice`'s hardware network `lan` on
/// the node.
async fn booked() -> (
    Harness,
    Arc<FakeNode>,
    ControllerClient,
    prism_controller::Booking,
) {
    let (h, n1, alice) = start(4).await;
    let b = alice
        .book("exp", &network("lan", "hardware", 10, true))
        .await
        .unwrap();
    (h, n1, alice, b)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_route_change_reaches_the_node_as_the_bookings_next_generation_and_its_history() {
    let (_h, n1, alice, b) = booked().await;
    assert_eq!(b.generation, 1);
    let on_node = b.node_network.clone().unwrap();

    let changed = alice
        .edit_booking("exp", &b.id, &routes("c"))
        .await
        .unwrap()
        .booking;
    assert_eq!(changed.generation, 2);
    assert_eq!(changed.spec["route"][0]["action"]["port"], "c");
    assert!(!changed.converging, "the node took it: {changed:?}");
    let doc = serde_json::to_value(n1.doc(&on_node).unwrap()).unwrap();
    let route = &doc["route"];
    assert!(route.to_string().contains("10.2.0.0/16"), "{doc:#}");
    assert!(!route.to_string().contains("10.1.0.0/16"), "{doc:#}");

    // More bandwidth: the node's rate limit follows.
    let more = BookingChange {
        bandwidth_mbps: Some(40),
        generation: Some(2),
        ..BookingChange::default()
    };
    let changed = alice
        .edit_booking("exp", &b.id, &more)
        .await
        .unwrap()
        .booking;
    assert_eq!((changed.generation, changed.bandwidth_mbps), (3, 40));
    let doc = serde_json::to_value(n1.doc(&on_node).unwrap()).unwrap();
    assert!(doc["rate_limit"].to_string().contains("40"), "{doc:#}");

    let history = alice.booking_changes("exp", &b.id).await.unwrap();
    let fields: Vec<_> = history
        .iter()
        .map(|c| (c.generation, c.fields.clone()))
        .collect();
    assert_eq!(
        fields,
        [
            (2, vec!["spec.route".to_string()]),
            (3, vec!["bandwidth_mbps".to_string()])
        ]
    );
    assert_eq!(history[0].user, "alice");
    assert_eq!(history[0].before["spec.route"][0]["prefix"], "10.1.0.0/16");
    assert_eq!(history[1].after["bandwidth_mbps"], 40);
}

#[tokio::test(flavor = "multi_thread")]
async fn refusals_name_their_field_and_change_nothing() {
    let (h, n1, alice, b) = booked().await;
    let doc_before = serde_json::to_value(n1.doc(b.node_network.as_ref().unwrap())).unwrap();

    let (status, code, field) = refused(&alice, &b.id, &routes("nope")).await;
    assert_eq!((status, code), (400, ErrorCode::InvalidInput), "{field:?}");
    assert!(
        field.as_deref().unwrap_or("").contains("route"),
        "{field:?}"
    );

    let mapping = BookingChange {
        spec: Some(json!({"map": []}).as_object().unwrap().clone()),
        ..BookingChange::default()
    };
    let (status, _, field) = refused(&alice, &b.id, &mapping).await;
    assert_eq!((status, field.as_deref()), (400, Some("spec.map")));
    let (status, _, field) = refused(&alice, &b.id, &spec(json!({"forwarding": "bridge"}))).await;
    assert_eq!((status, field.as_deref()), (400, Some("spec.forwarding")));
    // Flow routing needs each route's `src` and `dst`: located.
    let (status, _, field) = refused(&alice, &b.id, &spec(json!({"forwarding": "flow"}))).await;
    assert_eq!(status, 400);
    assert!(field.unwrap_or_default().starts_with("spec.route[0]"));
    let slow = spec(json!({"forwarding": "source", "reconfigure": "slowly"}));
    let (status, _, field) = refused(&alice, &b.id, &slow).await;
    assert_eq!((status, field.as_deref()), (400, Some("spec.reconfigure")));

    let greedy = BookingChange {
        bandwidth_mbps: Some(5000),
        ..BookingChange::default()
    };
    let (status, code, field) = refused(&alice, &b.id, &greedy).await;
    assert_eq!((status, code), (409, ErrorCode::QuotaExceeded));
    assert_eq!(field.as_deref(), Some("bandwidth_mbps"));

    let stale = BookingChange {
        generation: Some(7),
        ..routes("c")
    };
    let (status, _, field) = refused(&alice, &b.id, &stale).await;
    assert_eq!((status, field.as_deref()), (409, Some("generation")));

    // Another project's member sees no such booking.
    let bob = h.user("bob").await;
    h.project("other", "bob", STANDARD).await;
    let e = bob
        .edit_booking("exp", &b.id, &routes("c"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            e,
            prism_controller::ClientError::Api {
                status: 403 | 404,
                ..
            }
        ),
        "{e}"
    );

    let now = alice.booking("exp", &b.id).await.unwrap();
    assert_eq!((now.generation, &now.spec), (1, &b.spec));
    assert!(
        alice
            .booking_changes("exp", &b.id)
            .await
            .unwrap()
            .is_empty()
    );
    let doc_after = serde_json::to_value(n1.doc(b.node_network.as_ref().unwrap())).unwrap();
    assert_eq!(doc_before, doc_after);
}

#[tokio::test(flavor = "multi_thread")]
async fn two_changes_from_one_generation_one_wins_the_other_is_told_which() {
    let (_h, n1, alice, b) = booked().await;
    let from = |port: &str| BookingChange {
        generation: Some(1),
        ..routes(port)
    };
    let (to_b, to_c) = (from("b"), from("c"));
    let (x, y) = tokio::join!(
        alice.edit_booking("exp", &b.id, &to_b),
        alice.edit_booking("exp", &b.id, &to_c),
    );
    let (won, lost) = match (x, y) {
        (Ok(w), Err(l)) => (w, l),
        (Err(l), Ok(w)) => (w, l),
        other => panic!("one must win, one lose: {other:?}"),
    };
    assert!(lost.to_string().contains("generation 2"), "{lost}");
    let doc = serde_json::to_value(n1.doc(b.node_network.as_ref().unwrap()).unwrap()).unwrap();
    let port = won.booking.spec["route"][0]["action"]["port"]
        .as_str()
        .unwrap();
    assert_eq!(doc["route"][0]["action"]["port"], port, "{doc:#}");
    assert_eq!(alice.booking_changes("exp", &b.id).await.unwrap().len(), 1);
}

/// A tier asked for: a move once the node has a free slot, kept as the
/// booking's (its next passes send it, nothing reverts it); refused while
/// the node has none, and for `auto`.
#[tokio::test(flavor = "multi_thread")]
async fn a_tier_change_moves_the_network_once_a_slot_is_free() {
    let (h, n1, alice) = start(1).await;
    let hw = alice
        .book("exp", &network("hw", "hardware", 10, true))
        .await
        .unwrap();
    let sw = alice
        .book("exp", &network("sw", "software", 10, true))
        .await
        .unwrap();
    let to = |tier: &str| BookingChange {
        spec: Some(json!({"tier": tier}).as_object().unwrap().clone()),
        ..BookingChange::default()
    };
    let (status, code, field) = refused(&alice, &sw.id, &to("hardware")).await;
    assert_eq!((status, code), (503, ErrorCode::NoCapacity));
    assert_eq!(field.as_deref(), Some("spec.tier"));
    let (status, _, field) = refused(&alice, &sw.id, &to("auto")).await;
    assert_eq!((status, field.as_deref()), (400, Some("spec.tier")));

    alice.release("exp", &hw.id).await.unwrap();
    let moved = alice
        .edit_booking("exp", &sw.id, &to("hardware"))
        .await
        .unwrap();
    assert_eq!(moved.change.strategy.as_deref(), Some("fallback"));
    assert!(moved.change.modelled_ms.is_some(), "{moved:?}");
    let moved = moved.booking;
    assert_eq!(
        moved.tier,
        Some(prism_placement::Tier::Hardware),
        "{moved:?}"
    );
    let on_node = sw.node_network.clone().unwrap();
    let doc = serde_json::to_value(n1.doc(&on_node).unwrap()).unwrap();
    assert_eq!(doc["tier"], "hardware", "{doc:#}");
    h.ctl.converge_all().await;
    let doc = serde_json::to_value(n1.doc(&on_node).unwrap()).unwrap();
    assert_eq!(
        doc["tier"], "hardware",
        "the next pass keeps the researcher's tier"
    );
    let history = alice.booking_changes("exp", &sw.id).await.unwrap();
    assert_eq!(history[0].fields, ["spec.tier"]);
}

/// A route changed to leave by the node's WAN port is refused as at
/// booking (the WAN port is the controller's alone), and nothing changes.
#[tokio::test(flavor = "multi_thread")]
async fn a_route_out_of_the_wan_port_is_refused_as_at_booking() {
    let h = Harness::start().await;
    let gw = h.gateway_node("gw", "198.51.100.0/30").await;
    let alice = h.user("alice").await;
    h.project("exp", "alice", STANDARD).await;
    let b = alice
        .book("exp", &network("lan", "hardware", 10, true))
        .await
        .unwrap();
    let before = serde_json::to_value(gw.doc(b.node_network.as_ref().unwrap())).unwrap();
    let (status, _, field) = refused(&alice, &b.id, &routes("c")).await;
    assert!(matches!(status, 400 | 403), "{status}");
    assert_eq!(field.as_deref(), Some("spec.route[0].action.port"));
    let now = alice.booking("exp", &b.id).await.unwrap();
    assert_eq!(now.generation, 1);
    let after = serde_json::to_value(gw.doc(b.node_network.as_ref().unwrap())).unwrap();
    assert_eq!(before, after);
}

/// Fifty changes at once, each asking one of two projects' networks for
/// 60 of the node's 100 Mbit/s of software capacity: the node's capacity
/// is checked and taken one change at a time across projects, so the two
/// never hold more than the node has.
#[tokio::test(flavor = "multi_thread")]
async fn fifty_changes_at_once_never_take_more_than_the_node_has() {
    let h = Harness::start().await;
    h.node("n1", 4, 100).await;
    let mut booked = Vec::new();
    for (user, project) in [("alice", "exp"), ("bob", "other")] {
        let c = h.user(user).await;
        h.project(project, user, STANDARD).await;
        let r = network("net", "software", 10, true);
        let id = c.book(project, &r).await.unwrap().id;
        booked.push((c, project, id));
    }
    let more = BookingChange {
        bandwidth_mbps: Some(60),
        ..BookingChange::default()
    };
    let calls: Vec<_> = (0..50)
        .map(|k| {
            let (c, project, id) = booked[k % 2].clone();
            let more = more.clone();
            tokio::spawn(async move { c.edit_booking(project, &id, &more).await })
        })
        .collect();
    let mut refused = 0;
    for call in calls {
        if let Err(e) = call.await.unwrap() {
            assert_eq!(e.status(), Some(503), "{e}");
            refused += 1;
        }
    }
    let mut total = 0;
    for (c, project, id) in &booked {
        total += c.booking(project, id).await.unwrap().bandwidth_mbps;
    }
    assert_eq!(total, 70, "one got 60, the other kept 10");
    assert_eq!(refused, 25, "every change to the other refused");
}

/// Another forwarding mode in a hardware slot: checked and priced first
/// (`dry_run`: the device model's load time, nothing changed), then made
/// (the node gets the new mode with the strategy chosen) and kept in the
/// history with its time; in software the same change loads nothing.
#[tokio::test(flavor = "multi_thread")]
async fn a_module_change_is_priced_before_and_reaches_the_node_with_its_strategy() {
    let (_h, n1, alice, b) = booked().await;
    let on_node = b.node_network.clone().unwrap();
    let to_source = json!({"forwarding": "source", "reconfigure": "dark"});
    let dry = BookingChange {
        dry_run: true,
        ..spec(to_source.clone())
    };
    let priced = alice.edit_booking("exp", &b.id, &dry).await.unwrap();
    assert!(priced.dry_run);
    assert_eq!(priced.change.strategy.as_deref(), Some("partial"));
    let ms = priced.change.modelled_ms.unwrap();
    assert!(
        (ms - 600.2).abs() < 0.1,
        "netfpga-v2p's 680 KB over JTAG: {ms}"
    );
    assert_eq!(priced.booking.spec["forwarding"], "source");
    let now = alice.booking("exp", &b.id).await.unwrap();
    assert_eq!(
        (now.generation, &now.spec),
        (1, &b.spec),
        "a dry run changes nothing"
    );
    assert!(
        alice
            .booking_changes("exp", &b.id)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        n1.doc(&on_node).unwrap().forwarding,
        prism_netdoc::ForwardingMode::Destination
    );

    let made = alice
        .edit_booking("exp", &b.id, &spec(to_source))
        .await
        .unwrap();
    assert!(!made.dry_run);
    assert_eq!(made.change.modelled_ms, priced.change.modelled_ms);
    let doc = n1.doc(&on_node).unwrap();
    assert_eq!(doc.forwarding, prism_netdoc::ForwardingMode::Source);
    assert_eq!(
        doc.reconfigure,
        Some(prism_netdoc::ReconfigureChoice::Partial)
    );
    let history = alice.booking_changes("exp", &b.id).await.unwrap();
    assert_eq!(history[0].fields, ["spec.forwarding", "spec.reconfigure"]);
    assert_eq!(history[0].modelled_ms, priced.change.modelled_ms);
    assert_eq!(history[0].strategy.as_deref(), Some("partial"));

    // Routes only: a table update, no load.
    let tables = alice
        .edit_booking("exp", &b.id, &routes("c"))
        .await
        .unwrap();
    assert_eq!(tables.change.modelled_ms, None);
    // A software network changes its router, no slot.
    let sw = alice
        .book("exp", &network("sw", "software", 10, true))
        .await
        .unwrap();
    let soft = alice
        .edit_booking("exp", &sw.id, &spec(json!({"forwarding": "source"})))
        .await
        .unwrap();
    assert_eq!(soft.change.modelled_ms, None);
}

/// Two controller replicas on one database (`Controller::as_replica`)
/// each make a change from generation 1 at the same moment: the change's
/// transaction locks the booking's row and checks its generation, so one
/// wins; the other is refused naming the generation it lost to, and the
/// node holds the winner's routes.
#[tokio::test(flavor = "multi_thread")]
async fn two_replicas_changing_one_booking_at_once_one_wins() {
    use prism_controller::prelude::*;
    let (h, n1, alice, b) = booked().await;
    let token = h.login_token("alice").await;
    let p = h.ctl.authenticate(Some(&token)).await.unwrap();
    let (one, two) = (h.ctl.as_replica("one"), h.ctl.as_replica("two"));
    let from = |port: &str| BookingChange {
        generation: Some(1),
        ..routes(port)
    };
    let (x, y) = tokio::join!(
        one.edit_booking(&p, "exp", &b.id, from("b")),
        two.edit_booking(&p, "exp", &b.id, from("c")),
    );
    let (won, lost) = match (x, y) {
        (Ok(w), Err(l)) | (Err(l), Ok(w)) => (w, l),
        other => panic!("one must win, one lose: {other:?}"),
    };
    assert_eq!(lost.code, ErrorCode::Conflict, "{lost:?}");
    assert!(lost.message.contains("generation 2"), "{lost:?}");
    let doc = serde_json::to_value(n1.doc(b.node_network.as_ref().unwrap()).unwrap()).unwrap();
    let port = &won.booking.spec["route"][0]["action"]["port"];
    assert_eq!(&doc["route"][0]["action"]["port"], port, "{doc:#}");
    assert_eq!(alice.booking_changes("exp", &b.id).await.unwrap().len(), 1);
}
