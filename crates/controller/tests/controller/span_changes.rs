//! A network spanning nodes given other parts live (docs/customizing.md),
//! against fake nodes with WAN ports: a part added on a third node gets a
//! tunnel address of its own and the two parts that stay keep theirs
//! (their tables gain its routes); a part removed leaves its node, its
//! tunnel address goes back to the pool and the booking's node becomes
//! the new first part's; refusals are located and change nothing. A
//! span's own fields (its common routes, its tier) change on every part, each
//! keeping its tunnels; its forwarding stays.

use crate::spans::{WAN, part, setup, spanning};
use prism_controller::{BookingChange, ErrorCode, PartRequest};
use serde_json::{Value, json};

fn parts(p: Vec<PartRequest>) -> BookingChange {
    BookingChange {
        parts: Some(p),
        ..BookingChange::default()
    }
}

/// Node `n`'s routes for `name`: (prefix, tunnel source, tunnel
/// destination) of each, `None`s for a local one.
fn routes(n: &prism_testkit::fake_node::FakeNode, name: &str) -> Vec<(String, Value, Value)> {
    let doc = serde_json::to_value(n.doc(name).unwrap()).unwrap();
    doc["route"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let encap = &r["action"]["ipip_encap"];
            (
                r["prefix"].as_str().unwrap().to_string(),
                encap["src"].clone(),
                encap["dst"].clone(),
            )
        })
        .collect()
}

/// Three nodes with WAN ports and `alice`'s network on two of them (its
/// parts on n1 and n2), and those two parts.
async fn two_parts() -> (
    crate::common::Harness,
    Vec<std::sync::Arc<prism_testkit::fake_node::FakeNode>>,
    prism_controller::ControllerClient,
    prism_controller::Booking,
    Vec<PartRequest>,
) {
    let (h, nodes, alice) = setup().await;
    let two = vec![part("n1", "10.1.0.0/24"), part("n2", "10.2.0.0/24")];
    let b = alice
        .book("exp", &spanning("l3", two.clone()))
        .await
        .unwrap();
    (h, nodes, alice, b, two)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_part_added_then_one_removed_the_others_keep_their_tunnels() {
    let (_h, nodes, alice, b, two) = two_parts().await;
    let name = b.node_network.clone().unwrap();
    assert!(nodes[2].doc(&name).is_none());

    let mut three = two.clone();
    three.push(part("n3", "10.3.0.0/24"));
    let grown = alice
        .edit_booking("exp", &b.id, &parts(three))
        .await
        .unwrap();
    assert_eq!(grown.change.fields, ["parts"]);
    let tunnels: Vec<_> = grown
        .booking
        .parts
        .iter()
        .map(|p| p.tunnel.clone().unwrap())
        .collect();
    assert_eq!(
        tunnels,
        ["198.18.0.1", "198.18.0.2", "198.18.0.3"],
        "the two kept theirs"
    );
    let n1 = routes(&nodes[0], &name);
    assert!(
        n1.contains(&("10.3.0.0/24".into(), "198.18.0.1".into(), WAN[2].0.into())),
        "n1 routes the new part's prefix into a tunnel to n3: {n1:?}"
    );
    assert_eq!(
        routes(&nodes[2], &name).len(),
        3,
        "n3's part: its own and two tunnels"
    );

    let shrunk = alice
        .edit_booking(
            "exp",
            &b.id,
            &parts(vec![part("n2", "10.2.0.0/24"), part("n3", "10.3.0.0/24")]),
        )
        .await
        .unwrap();
    assert!(nodes[0].doc(&name).is_none(), "n1 lost its part");
    assert_eq!(shrunk.booking.node.as_deref(), Some("n2"));
    let n2 = routes(&nodes[1], &name);
    assert_eq!(n2.len(), 2, "its own and n3's: {n2:?}");
    assert!(n2.iter().all(|r| r.0 != "10.1.0.0/24"));
    assert!(n2.contains(&("10.3.0.0/24".into(), "198.18.0.2".into(), WAN[2].0.into())));
    let history = alice.booking_changes("exp", &b.id).await.unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[1].before["parts"][0]["node"], "n1");
    assert_eq!(history[1].after["parts"][0]["node"], "n2");

    // n1's address is held down, not given to the next network.
    let other = alice
        .book(
            "exp",
            &spanning(
                "other",
                vec![part("n1", "10.8.0.0/24"), part("n3", "10.9.0.0/24")],
            ),
        )
        .await
        .unwrap();
    let got: Vec<_> = other
        .parts
        .iter()
        .map(|p| p.tunnel.clone().unwrap())
        .collect();
    assert_eq!(got, ["198.18.0.4", "198.18.0.5"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_parts_change_refused_at_its_field_changes_nothing() {
    let (_h, nodes, alice, b, two) = two_parts().await;
    let name = b.node_network.clone().unwrap();
    let before: Vec<_> = nodes
        .iter()
        .map(|n| serde_json::to_value(n.doc(&name)).unwrap())
        .collect();
    let refused = |c: BookingChange| {
        let (alice, id) = (alice.clone(), b.id.clone());
        async move {
            let e = alice.edit_booking("exp", &id, &c).await.unwrap_err();
            let api = e.api().unwrap_or_else(|| panic!("{e}")).clone();
            (api.code, api.field.unwrap_or_default())
        }
    };
    let one = refused(parts(vec![part("n1", "10.1.0.0/24")])).await;
    assert_eq!(one, (ErrorCode::InvalidInput, "parts".into()));
    let mut unknown = two.clone();
    unknown.push(part("n9", "10.9.0.0/24"));
    assert_eq!(refused(parts(unknown)).await.1, "parts[2].node");
    let mut overlap = two.clone();
    overlap.push(part("n3", "10.1.0.0/16"));
    assert_eq!(refused(parts(overlap)).await.1, "parts[2].route[0].prefix");
    let mut unnamed = two.clone();
    unnamed.push(part("", "10.3.0.0/24"));
    assert_eq!(refused(parts(unnamed)).await.1, "parts[2].node");
    let after: Vec<_> = nodes
        .iter()
        .map(|n| serde_json::to_value(n.doc(&name)).unwrap())
        .collect();
    assert_eq!(before, after);
    let now = alice.booking("exp", &b.id).await.unwrap();
    assert_eq!(now.generation, 1);

    // A network on one node has no parts to change.
    let mut solo = crate::common::network("lan", "hardware", 10, true);
    solo.spec["route"][0]["action"]["port"] = "lan".into();
    let one_node = alice.book("exp", &solo).await.unwrap();
    let e = alice
        .edit_booking("exp", &one_node.id, &parts(two))
        .await
        .unwrap_err();
    assert_eq!(e.api().unwrap().field.as_deref(), Some("parts"));
}

fn spec(v: Value) -> BookingChange {
    BookingChange {
        spec: v.as_object().cloned(),
        ..BookingChange::default()
    }
}

/// Part `n`'s document for `name`, as JSON.
fn doc(n: &prism_testkit::fake_node::FakeNode, name: &str) -> Value {
    serde_json::to_value(n.doc(name).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_spans_own_fields_change_on_every_part_and_its_forwarding_stays() {
    let (h, nodes, alice, b, _) = two_parts().await;
    let name = b.node_network.clone().unwrap();
    let tables: Vec<_> = nodes[..2].iter().map(|n| routes(n, &name)).collect();

    // A route every part has (here: a prefix each drops), beside each
    // part's own routes and tunnels.
    let dark = json!([{"prefix": "10.66.0.0/16", "action": {"drop": true}}]);
    let changed = alice
        .edit_booking("exp", &b.id, &spec(json!({"route": dark})))
        .await
        .unwrap();
    assert_eq!(changed.change.fields, ["spec.route"]);
    for (i, n) in nodes[..2].iter().enumerate() {
        let mut now = routes(n, &name);
        assert_eq!(
            now.remove(0),
            ("10.66.0.0/16".into(), Value::Null, Value::Null),
            "part {i}"
        );
        assert_eq!(now, tables[i], "part {i} keeps its own routes and tunnels");
    }
    let tables: Vec<_> = nodes[..2].iter().map(|n| routes(n, &name)).collect();

    let moved = alice
        .edit_booking("exp", &b.id, &spec(json!({"tier": "software"})))
        .await
        .unwrap();
    assert_eq!(moved.booking.tier, Some(prism_placement::Tier::Software));
    h.ctl.converge_all().await;
    for (i, n) in nodes[..2].iter().enumerate() {
        assert_eq!(doc(n, &name)["tier"], "software", "part {i}");
        assert_eq!(routes(n, &name), tables[i], "part {i} keeps its tunnels");
    }
    assert!(nodes[2].doc(&name).is_none(), "no part on n3");

    // Its forwarding stays (its tunnels were taken for it); given as it
    // is, it is no change.
    let e = alice
        .edit_booking("exp", &b.id, &spec(json!({"forwarding": "source"})))
        .await
        .unwrap_err();
    let api = e.api().unwrap_or_else(|| panic!("{e}"));
    assert_eq!(
        (api.code, api.field.as_deref()),
        (ErrorCode::InvalidInput, Some("spec.forwarding"))
    );
    let same = spec(json!({"forwarding": "destination"}));
    let same = alice.edit_booking("exp", &b.id, &same).await.unwrap();
    assert!(same.change.fields.is_empty(), "{:?}", same.change);
    let history = alice.booking_changes("exp", &b.id).await.unwrap();
    let fields: Vec<_> = history.iter().map(|c| c.fields.clone()).collect();
    assert_eq!(fields, [["spec.route"], ["spec.tier"]]);
}
