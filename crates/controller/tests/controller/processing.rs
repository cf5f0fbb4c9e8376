//! Processing bookings (docs/processing.md) against fake nodes: placed on
//! the node of the network they are attached to, sent to it as its
//! processing state, and the network's document routes their addresses
//! to them behind the node's processing port on its VLAN; refusals
//! located and nothing taken; a release takes the container and its
//! routes away; another project cannot attach to a network not its own.

use crate::common::{Harness, fake_node::FakeNode};
use prism_controller::{
    AllocationState, BookingRequest, ErrorCode, NodeRequest, OperationalState, ProcessingSpec,
    STANDARD,
};
use serde_json::json;
use std::sync::Arc;

pub(crate) async fn node(h: &Harness, name: &str, processing: bool) -> Arc<FakeNode> {
    let mut n = FakeNode::new(&["lan", "proc"], 4);
    if processing {
        n = n.with_processing("proc");
    }
    let addr = n.serve();
    h.admin
        .register_node(&NodeRequest {
            name: name.into(),
            address: addr,
            hw_mbps: 10_000,
            sw_mbps: 1000,
        })
        .await
        .unwrap();
    n
}

fn network(name: &str) -> BookingRequest {
    let mut r = BookingRequest::network(
        name,
        json!({"tier": "hardware", "forwarding": "destination",
               "route": [{"prefix": "10.9.0.0/16", "action": {"port": "lan"}}]}),
        10,
    );
    r.provision = true;
    r
}

fn processing(name: &str, attach: &[&str], address: &str) -> BookingRequest {
    let attach: Vec<String> = attach.iter().map(|s| s.to_string()).collect();
    let spec = ProcessingSpec::from_flags(
        "base",
        &attach,
        &[address.to_string()],
        Some("10.1.0.1"),
        (0.5, 256),
    )
    .unwrap();
    BookingRequest::processing(name, &spec, None)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_processing_node_runs_on_its_networks_node_and_the_network_routes_to_it() {
    let h = Harness::start().await;
    let n1 = node(&h, "n1", true).await;
    let alice = h.user("alice").await;
    h.project("exp", "alice", STANDARD).await;
    let net = alice.book("exp", &network("lan")).await.unwrap();
    let vlan = net.vlan.unwrap() as u16;
    let p = alice
        .book("exp", &processing("vm1", &["lan"], "10.1.0.5/24"))
        .await
        .unwrap();
    assert_eq!(p.resource_type, "processing");
    assert_eq!(p.node.as_deref(), Some("n1"));
    assert_eq!(p.allocation_state, AllocationState::Provisioned);
    assert_eq!(p.operational_state, OperationalState::Ready, "{p:?}");
    let nodes = n1.processing_nodes();
    assert_eq!(nodes.len(), 1);
    let d = &nodes[0];
    assert_eq!(d.name, format!("pp-{}", p.id));
    assert_eq!(
        (d.image.layout.as_str(), d.image.tag.as_str()),
        ("base", "latest")
    );
    assert_eq!((d.cpus, d.memory_mib), (0.5, 256));
    let i = &d.interfaces[0];
    assert_eq!((i.port.as_str(), i.vlan), ("proc", vlan));
    assert_eq!(i.addresses, ["10.1.0.5/24"]);
    assert_eq!(i.gateway.as_deref(), Some("10.1.0.1"));
    // What it sends is shaped to the network's guaranteed rate.
    assert_eq!(i.rate_mbps, u32::try_from(net.bandwidth_mbps).ok());
    // The network routes the address to it, behind the processing port.
    let doc = serde_json::to_value(n1.doc(net.node_network.as_ref().unwrap()).unwrap()).unwrap();
    let maps = doc["map"].as_array().unwrap();
    assert!(
        maps.iter()
            .any(|m| m["in_port"] == "proc" && m["vlan"] == vlan),
        "{doc:#}"
    );
    let host = (doc["route"].as_array().unwrap().iter())
        .find(|r| r["prefix"] == "10.1.0.5/32")
        .expect("a host route");
    let mac = prism_io_mac(prism_node_api::processing_mac(&d.name, 0));
    assert_eq!(host["action"]["set_dst_mac"], mac);
    assert_eq!(host["action"]["port"], "proc");
    // Released: the container and the route go.
    alice.release("exp", &p.id).await.unwrap();
    assert!(n1.processing_nodes().is_empty());
    let doc = serde_json::to_value(n1.doc(net.node_network.as_ref().unwrap()).unwrap()).unwrap();
    assert!(!doc.to_string().contains("10.1.0.5/32"), "{doc:#}");
}

fn prism_io_mac(m: [u8; 6]) -> String {
    m.iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

#[tokio::test(flavor = "multi_thread")]
async fn refusals_name_the_attachment_and_take_nothing() {
    let h = Harness::start().await;
    let _n1 = node(&h, "n1", true).await;
    let n2 = node(&h, "n2", false).await;
    let alice = h.user("alice").await;
    h.project("exp", "alice", STANDARD).await;
    let bob = h.user("bob").await;
    h.project("other", "bob", STANDARD).await;
    let a = alice.book("exp", &network("a")).await.unwrap();
    // Fill n1 so that the next network goes to n2, which runs none.
    let mut b = alice.book("exp", &network("b")).await.unwrap();
    for k in 0..4 {
        if b.node.as_deref() == Some("n2") {
            break;
        }
        b = alice.book("exp", &network(&format!("b{k}"))).await.unwrap();
    }
    assert_eq!(a.node.as_deref(), Some("n1"));
    assert_eq!(
        b.node.as_deref(),
        Some("n2"),
        "placement fills the least loaded"
    );
    let refused = |r: BookingRequest| {
        let alice = alice.clone();
        async move {
            alice
                .book("exp", &r)
                .await
                .unwrap_err()
                .api()
                .cloned()
                .unwrap()
        }
    };
    let e = refused(processing("x", &["nope"], "10.1.0.5/24")).await;
    assert_eq!(e.field.as_deref(), Some("spec.attach[0].network"), "{e:?}");
    let e = refused(processing("x", &["a", &b.name], "10.1.0.5/24")).await;
    assert_eq!(e.field.as_deref(), Some("spec.attach[1].network"), "{e:?}");
    assert!(e.message.contains("one node"), "{e:?}");
    let e = refused(processing("x", &[&b.name], "10.1.0.5/24")).await;
    assert_eq!(e.code, ErrorCode::NoCapacity, "{e:?}");
    assert!(e.message.contains("runs no processing nodes"), "{e:?}");
    let e = refused(processing("x", &["a"], "10.1.0.5")).await;
    assert_eq!(e.field.as_deref(), Some("spec.attach[0].address"), "{e:?}");
    let mut bad = processing("x", &["a"], "10.1.0.5/24");
    bad.spec["privileged"] = json!(true);
    let e = refused(bad).await;
    assert_eq!(e.field.as_deref(), Some("spec"), "{e:?}");
    // Another project's network is not there to attach to.
    let e = bob
        .book("other", &processing("x", &["a"], "10.1.0.5/24"))
        .await
        .unwrap_err();
    assert_eq!(
        e.api().unwrap().field.as_deref(),
        Some("spec.attach[0].network")
    );
    let listed = alice.all_bookings("exp", false).await.unwrap();
    assert!(
        listed.iter().all(|b| b.resource_type == "network"),
        "nothing taken"
    );
    assert!(n2.processing_nodes().is_empty());
}

/// Made by `ssh-keygen -t ed25519 -C alice@laptop`; its fingerprint as
/// `ssh-keygen -lf` prints it.
pub(crate) const KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHCItLfCYrMrYzn31VQ4HbFMWqFTXXIecH5o7mTy+Bzm alice@laptop";

#[tokio::test(flavor = "multi_thread")]
async fn a_users_ssh_keys_are_theirs_and_reach_their_processing_nodes() {
    use prism_controller::SshKeyRequest;
    let h = Harness::start().await;
    let n1 = node(&h, "n1", true).await;
    let alice = h.user("alice").await;
    let bob = h.user("bob").await;
    h.project("exp", "alice", STANDARD).await;
    let req = |name: &str, key: &str| SshKeyRequest {
        name: name.into(),
        public_key: key.into(),
    };
    let k = alice.add_ssh_key(&req("laptop", KEY)).await.unwrap();
    assert_eq!(
        k.fingerprint,
        "SHA256:JjSYOXK+F3wSyqAmQ7WkBWtDtGASE0UZBQtV0XfAIDM"
    );
    assert!(
        !k.public_key.contains("alice@laptop"),
        "the comment is not kept"
    );
    let e = alice.add_ssh_key(&req("laptop", KEY)).await.unwrap_err();
    assert_eq!(e.api().unwrap().code, ErrorCode::Conflict);
    let e = alice
        .add_ssh_key(&req("bad", "ssh-ed25519 AAAA"))
        .await
        .unwrap_err();
    assert_eq!(e.api().unwrap().field.as_deref(), Some("public_key"));
    // Bob neither sees nor removes alice's key.
    assert!(bob.ssh_keys().await.unwrap().is_empty());
    let e = bob.remove_ssh_key(&k.id).await.unwrap_err();
    assert_eq!(e.api().unwrap().code, ErrorCode::NotFound);
    assert!(h.anonymous().ssh_keys().await.is_err(), "unauthenticated");
    // Her processing node's root accepts it.
    alice.book("exp", &network("lan")).await.unwrap();
    alice
        .book("exp", &processing("vm", &["lan"], "10.1.0.5/24"))
        .await
        .unwrap();
    assert_eq!(
        n1.processing_nodes()[0].authorized_keys,
        [k.public_key.as_str()]
    );
    alice.remove_ssh_key(&k.id).await.unwrap();
    assert!(alice.ssh_keys().await.unwrap().is_empty());
}

/// Forty keys added at once, thirty-two at most kept: each add counts
/// the others' (on PostgreSQL too, where each statement reads what was
/// committed when it started).
#[tokio::test(flavor = "multi_thread")]
async fn concurrent_ssh_keys_stop_at_the_cap() {
    use prism_controller::SshKeyRequest;
    let h = Harness::start().await;
    let alice = h.user("alice").await;
    let adds = (0..40).map(|i| {
        let alice = alice.clone();
        tokio::spawn(async move {
            let r = SshKeyRequest {
                name: format!("k{i}"),
                public_key: KEY.into(),
            };
            alice.add_ssh_key(&r).await
        })
    });
    let mut kept = 0;
    for a in adds.collect::<Vec<_>>() {
        match a.await.unwrap() {
            Ok(_) => kept += 1,
            Err(e) => assert_eq!(e.api().unwrap().code, ErrorCode::Conflict, "{e}"),
        }
    }
    assert_eq!(kept, 32);
    assert_eq!(alice.ssh_keys().await.unwrap().len(), 32);
}

/// A node with a WAN port `up` at `wan` that runs processing nodes.
async fn wan_node(h: &Harness, name: &str, wan: (&str, &str)) -> Arc<FakeNode> {
    let n = (FakeNode::new(&["lan", "up", "proc"], 4).with_wan("up", wan.0, wan.1))
        .with_processing("proc");
    let addr = n.serve();
    let r = NodeRequest {
        name: name.into(),
        address: addr,
        hw_mbps: 10_000,
        sw_mbps: 1000,
    };
    h.admin.register_node(&r).await.unwrap();
    n
}

/// Every network document `n` holds, as one JSON text.
fn docs_text(n: &FakeNode) -> String {
    serde_json::to_string(&*n.docs.lock().unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_processing_node_on_a_spanning_network_goes_to_the_part_holding_its_address() {
    let h = Harness::start().await;
    let n1 = wan_node(&h, "n1", ("203.0.113.1", "02:0a:00:00:00:01")).await;
    let n2 = wan_node(&h, "n2", ("203.0.113.2", "02:0a:00:00:00:02")).await;
    let alice = h.user("alice").await;
    h.project("exp", "alice", STANDARD).await;
    let part = |node: &str, prefix: &str| -> prism_controller::PartRequest {
        serde_json::from_value(json!({"node": node,
            "route": [{"prefix": prefix, "action": {"port": "lan", "decrement_ttl": true}}]}))
        .unwrap()
    };
    let mut span = network("span");
    span.parts = vec![part("n1", "10.1.0.0/24"), part("n2", "10.2.0.0/24")];
    alice.book("exp", &span).await.unwrap();
    let vm1 = alice
        .book("exp", &processing("vm1", &["span"], "10.1.0.5/24"))
        .await
        .unwrap();
    let vm2 = alice
        .book("exp", &processing("vm2", &["span"], "10.2.0.5/24"))
        .await
        .unwrap();
    assert_eq!(
        (vm1.node.as_deref(), vm2.node.as_deref()),
        (Some("n1"), Some("n2"))
    );
    assert_eq!(n1.processing_nodes().len(), 1);
    assert_eq!(n2.processing_nodes().len(), 1);
    // Each part routes to its own host behind its processing port, and to
    // the other part's prefix over the wide area.
    let (d1, d2) = (docs_text(&n1), docs_text(&n2));
    assert!(
        d1.contains("10.1.0.5/32") && !d1.contains("10.2.0.5/32"),
        "{d1}"
    );
    assert!(
        d2.contains("10.2.0.5/32") && d2.contains("10.1.0.0/24"),
        "{d2}"
    );
    let outside = alice
        .book("exp", &processing("vm3", &["span"], "10.9.0.5/24"))
        .await
        .unwrap_err();
    let e = outside.api().unwrap();
    assert_eq!(e.field.as_deref(), Some("spec.attach[0].address"), "{e:?}");
}

/// A node whose first start of a processing node takes longer than a
/// call may (its image unpacked) leaves the booking pending, never
/// failed; the next pass finds it running and it is ready.
#[tokio::test(flavor = "multi_thread")]
async fn a_start_slower_than_a_call_leaves_the_booking_pending_until_the_next_pass() {
    let h = Harness::start_with(prism_controller::Settings {
        node_call_timeout_ms: 300,
        ..crate::common::settings()
    })
    .await;
    let n1 = node(&h, "n1", true).await;
    n1.processing_start_ms
        .store(1500, std::sync::atomic::Ordering::SeqCst);
    let alice = h.user("alice").await;
    h.project("exp", "alice", STANDARD).await;
    alice.book("exp", &network("lan")).await.unwrap();
    let p = alice
        .book("exp", &processing("vm1", &["lan"], "10.1.0.5/24"))
        .await
        .unwrap();
    let p = alice.booking("exp", &p.id).await.unwrap();
    assert_eq!(p.operational_state, OperationalState::Pending, "{p:?}");
    assert_eq!(p.error, None, "not failed: {p:?}");
    let node = (h.admin.list_nodes().await.unwrap().into_iter())
        .find(|n| n.name == "n1")
        .unwrap();
    let why = node.last_error.unwrap_or_default();
    assert!(why.contains("processing nodes not confirmed"), "{why}");
    h.ctl.converge_all().await;
    let p = alice.booking("exp", &p.id).await.unwrap();
    assert_eq!(p.operational_state, OperationalState::Ready, "{p:?}");
}
