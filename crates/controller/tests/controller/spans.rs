//! Networks spanning nodes (docs/wan.md) against fake nodes that report a
//! WAN port: each node gets its part, routing the other parts' prefixes
//! into tunnels to their nodes and taking in theirs; two experiments on
//! the same addresses get their own tunnels and VLANs; every refusal is
//! located and leaves nothing on any node and nothing taken; a release
//! takes every part away and frees the tunnel addresses; a restarted node
//! gets its part back and a node's new WAN address reaches every part.

use crate::common::{Harness, fake_node::FakeNode};
use prism_controller::{
    AllocationState, BookingRequest, ErrorCode, NodeRequest, OperationalState, PartRequest,
    STANDARD,
};
use serde_json::json;
use std::sync::Arc;

pub(crate) const WAN: [(&str, &str); 3] = [
    ("203.0.113.1", "02:0a:00:00:00:01"),
    ("203.0.113.2", "02:0a:00:00:00:02"),
    ("203.0.113.3", "02:0a:00:00:00:03"),
];

/// A fake node with ports `lan`, `up` (its WAN port, `wan[i]`), registered.
pub(crate) async fn wan_node(h: &Harness, name: &str, wan: Option<usize>) -> Arc<FakeNode> {
    wan_node_at(h, name, wan).await.0
}

/// [`wan_node`], and the address its API is served at.
async fn wan_node_at(h: &Harness, name: &str, wan: Option<usize>) -> (Arc<FakeNode>, String) {
    let mut n = FakeNode::new(&["lan", "up"], 4);
    if let Some(i) = wan {
        n = n.with_wan("up", WAN[i].0, WAN[i].1);
    }
    let addr = n.serve();
    h.admin
        .register_node(&NodeRequest {
            name: name.into(),
            address: addr.clone(),
            hw_mbps: 10_000,
            sw_mbps: 1000,
        })
        .await
        .unwrap();
    (n, addr)
}

pub(crate) fn part(node: &str, prefix: &str) -> PartRequest {
    serde_json::from_value(json!({
        "node": node,
        "route": [{"prefix": prefix, "action": {"port": "lan", "decrement_ttl": true}}]
    }))
    .unwrap()
}

pub(crate) fn spanning(name: &str, parts: Vec<PartRequest>) -> BookingRequest {
    BookingRequest {
        name: name.into(),
        resource_type: "network".into(),
        spec: json!({"tier": "hardware", "forwarding": "destination"}),
        bandwidth_mbps: 10,
        lease_s: None,
        provision: true,
        parts,
        nat: false,
    }
}

pub(crate) async fn setup() -> (
    Harness,
    Vec<Arc<FakeNode>>,
    prism_controller::ControllerClient,
) {
    let h = Harness::start().await;
    let mut nodes = Vec::new();
    for i in 0..3 {
        nodes.push(wan_node(&h, &format!("n{}", i + 1), Some(i)).await);
    }
    let alice = h.user("alice").await;
    h.project("exp", "alice", STANDARD).await;
    (h, nodes, alice)
}

fn three_parts() -> Vec<PartRequest> {
    vec![
        part("n1", "10.1.0.0/24"),
        part("n2", "10.2.0.0/24"),
        part("n3", "10.3.0.0/24"),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn every_node_gets_its_part_with_tunnels_to_the_others() {
    let (_h, nodes, alice) = setup().await;
    let b = alice
        .book("exp", &spanning("l3", three_parts()))
        .await
        .unwrap();
    assert_eq!(b.allocation_state, AllocationState::Provisioned);
    assert_eq!(b.operational_state, OperationalState::Ready);
    assert_eq!(b.parts.len(), 3);
    assert_eq!(b.node.as_deref(), Some("n1"));
    let tunnels: Vec<&str> = b
        .parts
        .iter()
        .map(|p| p.tunnel.as_deref().unwrap())
        .collect();
    assert_eq!(tunnels, ["198.18.0.1", "198.18.0.2", "198.18.0.3"]);
    assert_eq!(b.parts[1].prefixes, ["10.2.0.0/24"]);
    let vlan = b.vlan.unwrap() as u16;
    let name = b.node_network.clone().unwrap();
    for (i, n) in nodes.iter().enumerate() {
        let doc = n.doc(&name).expect("each node holds its part");
        let doc = serde_json::to_value(&doc).unwrap();
        let routes = doc["route"].as_array().unwrap();
        assert_eq!(routes.len(), 3, "its own prefix and the two others'");
        assert_eq!(routes[0]["prefix"], format!("10.{}.0.0/24", i + 1));
        assert_eq!(routes[0]["action"]["port"], "lan");
        for r in &routes[1..] {
            let far: usize = r["prefix"].as_str().unwrap()[3..4]
                .parse::<usize>()
                .unwrap()
                - 1;
            assert_ne!(far, i);
            let a = &r["action"];
            assert_eq!(a["port"], "up");
            assert_eq!(a["vlan_pop"], true);
            assert_eq!(a["ipip_encap"]["src"], tunnels[i]);
            assert_eq!(a["ipip_encap"]["dst"], WAN[far].0);
            assert_eq!(a["set_src_mac"], WAN[i].1);
            assert_eq!(a["set_dst_mac"], WAN[far].1);
        }
        let mut taken: Vec<(String, String, u64)> = doc["tunnel"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["src"].as_str().unwrap().to_string(),
                    t["dst"].as_str().unwrap().to_string(),
                    t["vlan_push"].as_u64().unwrap(),
                )
            })
            .collect();
        taken.sort();
        let want: Vec<_> = (0..3)
            .filter(|j| *j != i)
            .map(|j| {
                (
                    tunnels[j].to_string(),
                    WAN[i].0.to_string(),
                    u64::from(vlan),
                )
            })
            .collect();
        assert_eq!(taken, want, "node {i} takes in the other parts' tunnels");
    }
    // The node view shows the WAN side.
    let ns = _h.admin.list_nodes().await.unwrap();
    assert_eq!(ns[0].wan.as_ref().unwrap().address, WAN[0].0);
    assert_eq!(ns[1].used_slots, 1, "the part takes a slot on its node");
}

#[tokio::test(flavor = "multi_thread")]
async fn parts_that_name_no_node_get_one_from_placement() {
    let (h, nodes, alice) = setup().await;
    wan_node(&h, "plain", None).await; // no WAN port: never chosen
    let mut parts = three_parts();
    parts[1].node.clear();
    parts[2].node.clear();
    let b = alice.book("exp", &spanning("chosen", parts)).await.unwrap();
    let mut on: Vec<&str> = b.parts.iter().map(|p| p.node.as_str()).collect();
    assert_eq!(on[0], "n1", "a named part stays where it was named");
    on.sort();
    assert_eq!(on, ["n1", "n2", "n3"], "distinct nodes with a WAN port");
    for n in &nodes {
        assert!(n.doc(b.node_network.as_deref().unwrap()).is_some());
    }
    // More parts than nodes with a WAN port: refused at the part, nothing made.
    let mut four = three_parts();
    four.push(part("", "10.4.0.0/24"));
    four[0].node.clear();
    let e = alice
        .book("exp", &spanning("four", four))
        .await
        .unwrap_err();
    let api = e.api().unwrap_or_else(|| panic!("{e}"));
    assert_eq!(api.code, ErrorCode::NoCapacity, "{e}");
    assert_eq!(api.field.as_deref(), Some("parts[3].node"), "{e}");
    assert_eq!(alice.all_bookings("exp", false).await.unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn two_experiments_on_the_same_addresses_get_their_own_tunnels_and_vlans() {
    let (_h, nodes, alice) = setup().await;
    let two = || vec![part("n1", "10.1.0.0/24"), part("n2", "10.2.0.0/24")];
    let red = alice.book("exp", &spanning("red", two())).await.unwrap();
    let blue = alice.book("exp", &spanning("blue", two())).await.unwrap();
    assert_ne!(red.vlan, blue.vlan);
    let tunnels = |b: &prism_controller::Booking| {
        b.parts
            .iter()
            .map(|p| p.tunnel.clone().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(tunnels(&red), ["198.18.0.1", "198.18.0.2"]);
    assert_eq!(tunnels(&blue), ["198.18.0.3", "198.18.0.4"]);
    assert_eq!(nodes[0].names().len(), 2);
    assert!(nodes[2].names().is_empty(), "n3 holds no part");
    // Released, the parts leave and the addresses go to the back of the
    // pool: the next span takes fresh ones.
    alice.release("exp", &red.id).await.unwrap();
    _h.ctl.settle().await;
    assert_eq!(nodes[0].names().len(), 1);
    assert_eq!(nodes[1].names().len(), 1);
    let mut short = spanning("green", two());
    short.lease_s = Some(120);
    let again = alice.book("exp", &short).await.unwrap();
    assert_eq!(tunnels(&again), ["198.18.0.5", "198.18.0.6"]);
    // Expired, every part leaves its node, its addresses held down too.
    _h.clock.advance_ms(120_000);
    assert_eq!(
        _h.ctl.reap().await.unwrap(),
        1,
        "green's lease ended, blue's did not"
    );
    _h.ctl.settle().await;
    assert_eq!(nodes[0].names().len(), 1);
    assert_eq!(nodes[1].names().len(), 1);
    let last = alice.book("exp", &spanning("last", two())).await.unwrap();
    assert_eq!(tunnels(&last), ["198.18.0.7", "198.18.0.8"]);
}

/// A released span's values go to the back of their pools and are held
/// down: with pools of three pairs of tunnel addresses and two S-tags,
/// what was released is handed out only when nothing else is free and
/// the hold-down has passed (the refusal says how many are held).
#[tokio::test(flavor = "multi_thread")]
async fn released_addresses_and_s_tags_are_held_down_then_handed_out_last() {
    let mut s = crate::common::settings();
    s.tunnel_pool = prism_netdoc::Prefix("198.18.0.0/29".parse().unwrap());
    s.s_tag_pool = 2..=3;
    let h = Harness::start_with(s).await;
    for i in 0..2 {
        wan_node(&h, &format!("n{}", i + 1), Some(i)).await;
    }
    let alice = h.user("alice").await;
    h.project("exp", "alice", STANDARD).await;
    let two = || vec![part("n1", "10.1.0.0/24"), part("n2", "10.2.0.0/24")];
    let tunnels = |b: &prism_controller::Booking| -> Vec<String> {
        b.parts.iter().map(|p| p.tunnel.clone().unwrap()).collect()
    };
    let a = alice.book("exp", &spanning("a", two())).await.unwrap();
    let b = alice.book("exp", &spanning("b", two())).await.unwrap();
    assert_eq!(tunnels(&a), ["198.18.0.1", "198.18.0.2"]);
    alice.release("exp", &a.id).await.unwrap();
    let c = alice.book("exp", &spanning("c", two())).await.unwrap();
    assert_eq!(tunnels(&c), ["198.18.0.5", "198.18.0.6"], "a's are held");
    let e = alice.book("exp", &spanning("d", two())).await.unwrap_err();
    assert_eq!(e.status(), Some(409), "{e}");
    assert!(
        e.to_string()
            .contains("2 released in the last 300 s are held down"),
        "{e}"
    );
    h.clock.advance_ms(prism_controller::POOL_HOLD_DOWN_MS);
    // The nodes, silent for as long, answer a pass: up again.
    h.ctl.converge_all().await;
    let d = alice.book("exp", &spanning("d", two())).await.unwrap();
    assert_eq!(
        tunnels(&d),
        ["198.18.0.1", "198.18.0.2"],
        "a's, held down long enough"
    );
    // S-tags alike: a bridged span's tag is not the next one's.
    alice.release("exp", &b.id).await.unwrap();
    let l2 = |n: &str| {
        let mut r = spanning(
            n,
            vec![part("n1", "10.1.0.0/24"), part("n2", "10.2.0.0/24")],
        );
        r.spec = json!({"tier": "hardware", "forwarding": "bridge"});
        for p in &mut r.parts {
            p.route.clear();
        }
        r
    };
    let x = alice.book("exp", &l2("x")).await.unwrap();
    alice.release("exp", &x.id).await.unwrap();
    let y = alice.book("exp", &l2("y")).await.unwrap();
    assert_ne!(y.s_tag, x.s_tag, "x's S-tag is held down");
    alice.release("exp", &y.id).await.unwrap();
    let e = alice.book("exp", &l2("z")).await.unwrap_err();
    assert!(
        e.to_string().contains("S-tag pool 2..=3 is exhausted"),
        "{e}"
    );
}

/// Another project's span booked the moment one is released does not get
/// its tunnel addresses or its VLAN: the released span's frames, replayed
/// from the wide area into the far node's data plane (the documents that
/// node holds, compiled and run), reach nothing and are dropped by name.
#[tokio::test(flavor = "multi_thread")]
async fn a_released_span_s_frames_replayed_reach_nothing() {
    let (h, nodes, alice) = setup().await;
    let bob = h.user("bob").await;
    h.project("other", "bob", STANDARD).await;
    let two = || vec![part("n1", "10.1.0.0/24"), part("n2", "10.2.0.0/24")];
    let red = alice.book("exp", &spanning("red", two())).await.unwrap();
    let red_tunnel: std::net::Ipv4Addr = red.parts[0].tunnel.clone().unwrap().parse().unwrap();
    alice.release("exp", &red.id).await.unwrap();
    let green = bob.book("other", &spanning("green", two())).await.unwrap();
    assert_ne!(green.vlan, red.vlan, "red's VLAN is held down");
    h.ctl.settle().await;
    let held = nodes[1].docs.lock().unwrap().clone();
    assert_eq!(held.len(), 1, "green's part alone on n2");
    let (out, unknown) = replay(&held, red_tunnel.octets(), [203, 0, 113, 2]);
    assert_eq!(out, 0, "red's replayed frame reached a port");
    assert_eq!(unknown, 1, "dropped as wan/unknown-tunnel");
}

/// Runs an IPIP frame from `outer_src` to `outer_dst` (as a part on n1
/// sends it) into the WAN port of a data plane holding `docs` (a node
/// with ports `lan` and `up`, its WAN): the frames sent out of any port,
/// and the drops counted as `wan/unknown-tunnel`.
fn replay(
    docs: &[prism_netdoc::NetworkDoc],
    outer_src: [u8; 4],
    outer_dst: [u8; 4],
) -> (usize, u64) {
    use prism_pipeline::{
        DropReason, Pipeline, PipelineConfig, Substrate, WanDrop, control::device,
    };
    use prism_wire::{Ipv4Address, Ipv4Repr};
    let ports = ["lan".to_string(), "up".to_string()];
    let mut s = Substrate::new(device::profile("netfpga-v2p").unwrap().clone(), 2);
    s.set_wan_ports(&[1]).unwrap();
    for d in docs {
        s.add_network(prism_compile::compile(d, &ports).unwrap().spec)
            .unwrap();
    }
    let udp = [
        0x0f, 0xa0, 0x13, 0x88, 0, 13, 0, 0, b'r', b'e', b'p', b'l', b'y',
    ];
    let inner = Ipv4Repr::new(
        Ipv4Address([10, 1, 0, 7]),
        Ipv4Address([10, 2, 0, 9]),
        17,
        64,
        udp.len(),
    );
    let outer = Ipv4Repr::new(
        Ipv4Address(outer_src),
        Ipv4Address(outer_dst),
        4,
        64,
        20 + udp.len(),
    );
    let mut f = vec![2, 0xa, 0, 0, 0, 2, 2, 0xa, 0, 0, 0, 1, 0x08, 0x00];
    let mut hdr = [0u8; 20];
    outer.emit(&mut hdr).unwrap();
    f.extend_from_slice(&hdr);
    inner.emit(&mut hdr).unwrap();
    f.extend_from_slice(&hdr);
    f.extend_from_slice(&udp);
    let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
    let mut batch = vec![p.pool.packet(&f, 1, 0).unwrap()];
    p.process(&mut batch, 0);
    let mut sent = 0;
    for port in 0..2 {
        let mut v = Vec::new();
        p.transmit(port, usize::MAX, &mut v);
        sent += v.len();
    }
    let unknown = p.counters().unmapped.drops[DropReason::Wan(WanDrop::UnknownTunnel).index()];
    (sent, unknown)
}

/// A refusal: its code, field and message, and nothing made anywhere.
async fn refused(
    h: &Harness,
    alice: &prism_controller::ControllerClient,
    nodes: &[Arc<FakeNode>],
    r: BookingRequest,
    code: ErrorCode,
    field: &str,
    says: &str,
) {
    let e = alice.book("exp", &r).await.unwrap_err();
    let api = e.api().unwrap_or_else(|| panic!("{e}"));
    assert_eq!(api.code, code, "{e}");
    assert_eq!(api.field.as_deref(), Some(field), "{e}");
    assert!(api.message.contains(says), "{e}");
    for n in nodes {
        assert!(n.names().is_empty(), "nothing on any node after: {e}");
    }
    let all = alice.all_bookings("exp", true).await.unwrap();
    assert!(all.is_empty(), "no booking after: {e}");
    let _ = h;
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_spans_are_refused_at_their_field_with_nothing_made() {
    let (h, mut nodes, alice) = setup().await;
    let mut twice = three_parts();
    twice[2].node = "n1".into();
    refused(
        &h,
        &alice,
        &nodes,
        spanning("x", twice),
        ErrorCode::InvalidInput,
        "parts[2].node",
        "named twice",
    )
    .await;
    let mut overlap = three_parts();
    overlap[1] = part("n2", "10.1.0.128/25");
    refused(
        &h,
        &alice,
        &nodes,
        spanning("x", overlap),
        ErrorCode::InvalidInput,
        "parts[1].route[0].prefix",
        "overlaps 10.1.0.0/24 of part 0",
    )
    .await;
    refused(
        &h,
        &alice,
        &nodes,
        spanning("x", vec![part("n1", "10.1.0.0/24")]),
        ErrorCode::InvalidInput,
        "parts",
        "2 to 16 parts",
    )
    .await;
    let mut ghost = three_parts();
    ghost[1].node = "nowhere".into();
    refused(
        &h,
        &alice,
        &nodes,
        spanning("x", ghost),
        ErrorCode::InvalidInput,
        "parts[1].node",
        "no node `nowhere`",
    )
    .await;
    let mut auto = spanning("x", three_parts());
    auto.spec["tier"] = json!("auto");
    refused(
        &h,
        &alice,
        &nodes,
        auto,
        ErrorCode::InvalidInput,
        "spec.tier",
        "`hardware` or `software`",
    )
    .await;
    let mut rules = spanning("x", three_parts());
    rules.spec["forwarding"] = json!("rules");
    refused(
        &h,
        &alice,
        &nodes,
        rules,
        ErrorCode::InvalidInput,
        "spec.forwarding",
        "by `destination`",
    )
    .await;
    let mut bad_port = three_parts();
    bad_port[2].route[0].action.port = Some(prism_netdoc::PortRef::Name("nope".into()));
    refused(
        &h,
        &alice,
        &nodes,
        spanning("x", bad_port),
        ErrorCode::InvalidInput,
        "parts[2]",
        "no port `nope`",
    )
    .await;
    // A node with no WAN port, and a node that is down.
    nodes.push(wan_node(&h, "n4", None).await);
    let mut no_wan = three_parts();
    no_wan[1].node = "n4".into();
    refused(
        &h,
        &alice,
        &nodes,
        spanning("x", no_wan),
        ErrorCode::Conflict,
        "parts[1].node",
        "no WAN port",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_node_that_is_down_is_refused_with_nothing_made() {
    let h = Harness::start().await;
    let n3 = wan_node(&h, "n3", Some(2)).await;
    h.clock.advance_ms(h.ctl.settings().node_timeout_ms + 1);
    let nodes = vec![
        wan_node(&h, "n1", Some(0)).await,
        wan_node(&h, "n2", Some(1)).await,
        n3,
    ];
    let alice = h.user("alice").await;
    h.project("exp", "alice", STANDARD).await;
    refused(
        &h,
        &alice,
        &nodes,
        spanning("x", three_parts()),
        ErrorCode::Conflict,
        "parts[2].node",
        "node `n3` is down",
    )
    .await;
    let two = vec![part("n1", "10.1.0.0/24"), part("n2", "10.2.0.0/24")];
    let b = alice.book("exp", &spanning("ok", two)).await.unwrap();
    assert_eq!(
        b.parts
            .iter()
            .map(|p| p.tunnel.as_deref().unwrap())
            .collect::<Vec<_>>(),
        ["198.18.0.1", "198.18.0.2"],
        "the refusal took no tunnel address"
    );
}

fn bridged(name: &str, nodes: &[&str]) -> BookingRequest {
    let mut r = spanning(
        name,
        nodes
            .iter()
            .map(|n| serde_json::from_value(json!({ "node": n })).unwrap())
            .collect(),
    );
    r.spec = json!({"tier": "hardware", "forwarding": "bridge"});
    r
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bridged_network_takes_an_s_tag_and_each_node_reframes_under_it() {
    let mut settings = crate::common::settings();
    settings.s_tag_pool = 3000..=3001;
    let h = Harness::start_with(settings).await;
    let mut nodes = Vec::new();
    for i in 0..3 {
        nodes.push(wan_node(&h, &format!("n{}", i + 1), Some(i)).await);
    }
    let alice = h.user("alice").await;
    h.project("exp", "alice", STANDARD).await;
    let l2 = alice
        .book("exp", &bridged("l2", &["n1", "n2"]))
        .await
        .unwrap();
    assert_eq!(l2.operational_state, OperationalState::Ready);
    assert_eq!(l2.s_tag, Some(3000));
    assert!(
        l2.parts.iter().all(|p| p.tunnel.is_none()),
        "no tunnel addresses taken"
    );
    let name = l2.node_network.clone().unwrap();
    for n in &nodes[..2] {
        let doc = serde_json::to_value(n.doc(&name).unwrap()).unwrap();
        assert_eq!(doc["forwarding"], "bridge");
        assert_eq!(
            doc["bridge"]["port"],
            json!([{"port": "lan"}, {"port": "up", "s_tag": 3000}])
        );
        // Under its S-tag, its own VLAN only.
        assert_eq!(doc["tunnel"], json!([{"s_tag": 3000, "c_tag": l2.vlan}]));
    }
    // A booking may not put its own S-tag on a member: it would send
    // frames to the wide area under another experiment's tag.
    let mut forged = bridged("forged", &["n2", "n3"]);
    forged.spec["bridge"] = json!({"port": [{"port": "up", "s_tag": 3000}]});
    let e = alice.book("exp", &forged).await.unwrap_err();
    assert_eq!(
        e.api().unwrap().field.as_deref(),
        Some("spec.bridge.port[0].s_tag"),
        "{e}"
    );
    let other = alice
        .book("exp", &bridged("l2b", &["n2", "n3"]))
        .await
        .unwrap();
    assert_eq!(other.s_tag, Some(3001));
    // The pool is empty: refused, naming it, nothing made.
    let e = alice
        .book("exp", &bridged("l2c", &["n1", "n3"]))
        .await
        .unwrap_err();
    let api = e.api().unwrap();
    assert_eq!(
        (api.code, api.field.as_deref()),
        (ErrorCode::Conflict, Some("parts"))
    );
    assert!(
        api.message.contains("S-tag pool 3000..=3001 is exhausted"),
        "{e}"
    );
    assert_eq!(nodes[0].names().len(), 1);
    // Released, its tag is free again once held down long enough.
    alice.release("exp", &l2.id).await.unwrap();
    h.ctl.settle().await;
    assert!(nodes[0].names().is_empty());
    h.clock.advance_ms(prism_controller::POOL_HOLD_DOWN_MS);
    h.ctl.converge_all().await;
    let again = alice
        .book("exp", &bridged("l2d", &["n1", "n3"]))
        .await
        .unwrap();
    assert_eq!(again.s_tag, Some(3000));
    // A bridged part with routes, or on the WAN port: refused at the field.
    let mut routed = bridged("x", &["n1", "n2"]);
    routed.parts[1] = part("n2", "10.2.0.0/24");
    let e = alice.book("exp", &routed).await.unwrap_err();
    assert_eq!(
        e.api().unwrap().field.as_deref(),
        Some("parts[1].route"),
        "{e}"
    );
    let mut on_wan = bridged("x", &["n1", "n2"]);
    on_wan.parts[0].port = Some("up".into());
    let e = alice.book("exp", &on_wan).await.unwrap_err();
    assert_eq!(
        e.api().unwrap().field.as_deref(),
        Some("parts[0].port"),
        "{e}"
    );
    assert!(
        e.to_string().contains("`up` is node `n1`'s WAN port"),
        "{e}"
    );
}

/// Waits up to 10 s for `f`.
async fn until(what: &str, mut f: impl FnMut() -> bool) {
    let t = std::time::Instant::now();
    while !f() {
        assert!(t.elapsed().as_secs() < 10, "{what}: not within 10 s");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// The far ends of node `n`'s part's tunnels into the other parts.
fn encap_dsts(n: &FakeNode, name: &str) -> Vec<String> {
    let doc = serde_json::to_value(n.doc(name).unwrap_or_else(|| panic!("no part"))).unwrap();
    let mut v: Vec<String> = doc["route"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| {
            r["action"]["ipip_encap"]["dst"]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread")]
async fn a_restarted_part_comes_back_and_a_moved_wan_address_reaches_every_part() {
    let h = Harness::start().await;
    let mut nodes = Vec::new();
    for i in 0..3 {
        nodes.push(wan_node_at(&h, &format!("n{}", i + 1), Some(i)).await);
    }
    let alice = h.user("alice").await;
    h.project("exp", "alice", STANDARD).await;
    let b = alice
        .book("exp", &spanning("l3", three_parts()))
        .await
        .unwrap();
    let name = b.node_network.clone().unwrap();
    let (n2, n2_addr) = (&nodes[1].0, nodes[1].1.clone());
    let key = h.admin.create_node_key("n2").await.unwrap().key.unwrap();
    let n2_client = h.anonymous().with_token(Some(key));
    let beat = |boot: &str| prism_controller::Heartbeat {
        name: "n2".into(),
        address: n2_addr.clone(),
        boot_id: boot.into(),
        info: prism_node_api::NodeApi::node(n2.as_ref()).unwrap(),
        hw_mbps: None,
        sw_mbps: None,
        csr: None,
    };
    // Node 2 restarts with nothing: its next heartbeat brings its part back.
    n2.docs.lock().unwrap().clear();
    n2.desired_generation
        .store(0, std::sync::atomic::Ordering::SeqCst);
    n2_client.heartbeat(&beat("after-restart")).await.unwrap();
    until("node 2's part back", || n2.doc(&name).is_some()).await;
    assert_eq!(encap_dsts(n2, &name), [WAN[0].0, WAN[2].0]);
    // Node 2's WAN address moves: the other parts tunnel to the new one.
    *n2.wan.lock().unwrap() = Some(prism_node_api::WanInfo {
        port: "up".into(),
        address: "203.0.113.99".into(),
        mac: WAN[1].1.into(),
        next_hop: None,
        public: None,
        public_macs: None,
    });
    n2_client.heartbeat(&beat("after-restart")).await.unwrap();
    for (n, other) in [(&nodes[0].0, WAN[2].0), (&nodes[2].0, WAN[0].0)] {
        until("the new address in every other part", || {
            encap_dsts(n, &name).contains(&"203.0.113.99".to_string())
        })
        .await;
        let mut want = vec!["203.0.113.99".to_string(), other.to_string()];
        want.sort();
        assert_eq!(encap_dsts(n, &name), want);
    }
    // The nodes are converged one after another, node 2 maybe last.
    let takes_in_at_new = || {
        let doc = serde_json::to_value(n2.doc(&name).unwrap()).unwrap();
        let all = doc["tunnel"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["dst"] == "203.0.113.99");
        (all, doc)
    };
    until("node 2's tunnels at its new address", || {
        takes_in_at_new().0
    })
    .await;
    let doc = takes_in_at_new().1;
    assert!(
        doc["tunnel"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["dst"] == "203.0.113.99"),
        "node 2 takes the tunnels in at its new address: {doc}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_booking_s_own_route_or_member_to_the_wan_port_is_refused() {
    // Frames a booking sends out of the WAN port itself could pass for
    // another experiment's (a forged tunnel source, another S-tag).
    let (h, nodes, alice) = setup().await;
    let forbidden = ErrorCode::Forbidden;
    let mut by_part = three_parts();
    by_part[1] = serde_json::from_value(json!({"node": "n2",
        "route": [{"prefix": "10.2.0.0/24", "action": {"port": "up", "vlan_push": 3000}}]}))
    .unwrap();
    let r = spanning("x", by_part);
    refused(
        &h,
        &alice,
        &nodes,
        r,
        forbidden,
        "parts[1].route[0].action.port",
        "WAN port",
    )
    .await;
    let mut one = spanning("x", Vec::new());
    one.spec = json!({"tier": "hardware", "forwarding": "destination", "route": [
        {"prefix": "10.0.0.0/8", "action": {"port": "lan"}},
        {"prefix": "0.0.0.0/0", "action": {"port": 1, "ipip_encap": {"src": "198.18.0.9", "dst": "203.0.113.2"}}}]});
    refused(
        &h,
        &alice,
        &nodes,
        one,
        forbidden,
        "spec.route[1].action.port",
        "WAN port",
    )
    .await;
    let mut member = spanning("x", Vec::new());
    member.spec = json!({"tier": "hardware", "forwarding": "bridge",
        "bridge": {"port": [{"port": "lan"}, {"port": "up"}]}});
    refused(
        &h,
        &alice,
        &nodes,
        member,
        forbidden,
        "spec.bridge.port[1].port",
        "WAN port",
    )
    .await;
    let mut rule = spanning("x", Vec::new());
    rule.spec = json!({"tier": "hardware", "forwarding": "rules",
        "default_action": {"port": "up"}});
    refused(
        &h,
        &alice,
        &nodes,
        rule,
        forbidden,
        "spec.default_action.port",
        "WAN port",
    )
    .await;
}
