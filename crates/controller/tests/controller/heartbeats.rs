//! Nodes that register themselves: a node key made by an administrator,
//! heartbeats that register the node and keep it up, a restarted node
//! given its networks back at once, a silent node skipped by placement,
//! and every refusal (no key, a user's token, another node's name, a
//! revoked key, a node key anywhere else).

use crate::common::fake_node::FakeNode;
use crate::common::{Harness, book_one, network};
use prism_controller::{ClientError, ControllerClient, ErrorCode, Heartbeat};
use prism_node_api::NodeApi;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

fn beat(node: &FakeNode, name: &str, address: &str, boot: &str) -> Heartbeat {
    Heartbeat {
        name: name.into(),
        address: address.into(),
        boot_id: boot.into(),
        info: node.node().unwrap(),
        hw_mbps: Some(10_000),
        sw_mbps: None,
        csr: None,
    }
}

async fn until(what: &str, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "{what}: not within 10 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A refusal's status and field.
fn status<T: std::fmt::Debug>(r: Result<T, ClientError>) -> (u16, Option<String>) {
    let e = r.unwrap_err();
    (e.status().unwrap(), e.api().unwrap().field.clone())
}

async fn keyed(h: &Harness, name: &str) -> (ControllerClient, String) {
    let k = h.admin.create_node_key(name).await.unwrap();
    let key = k.key.clone().expect("the key, once");
    assert!(key.starts_with("prn_"), "{key}");
    (h.anonymous().with_token(Some(key)), k.id)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_node_registers_itself_and_a_restarted_one_gets_its_networks_back_at_once() {
    let h = Harness::start().await;
    let node: Arc<FakeNode> = FakeNode::new(&["a", "b", "c"], 4);
    let addr = node.serve();
    let (n1, _) = keyed(&h, "n1").await;
    assert!(h.admin.list_nodes().await.unwrap().is_empty());

    let a = n1
        .heartbeat(&beat(&node, "n1", &addr, "boot-1"))
        .await
        .unwrap();
    assert!(a.registered);
    let nodes = h.admin.list_nodes().await.unwrap();
    assert_eq!(nodes.len(), 1);
    let v = &nodes[0];
    assert_eq!(
        (
            v.name.as_str(),
            v.address.as_str(),
            v.device.as_str(),
            v.slots,
            v.hw_mbps,
            v.sw_mbps
        ),
        ("n1", addr.as_str(), "netfpga-v2p", 4, 10_000, 100)
    );
    assert_eq!(v.ports, ["a", "b", "c"]);
    assert!(v.up);
    // The key is never shown again.
    let keys = h.admin.list_node_keys().await.unwrap();
    assert!(keys.iter().all(|k| k.key.is_none()) && keys[0].last_used_ms.is_some());

    // A booking lands on the node that registered itself.
    let (fay, on_node) = book_one(&h, "hardware").await;
    assert_eq!(node.names(), std::slice::from_ref(&on_node));

    // The node restarts empty: its next heartbeat (another boot id) gets
    // its network back, with no convergence loop running here.
    node.docs.lock().unwrap().clear();
    let a = n1
        .heartbeat(&beat(&node, "n1", &addr, "boot-2"))
        .await
        .unwrap();
    assert!(!a.registered);
    until("the network restored", || node.names() == [on_node.clone()]).await;

    // A steady heartbeat does not call the node.
    let steady = beat(&node, "n1", &addr, "boot-2");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let calls = node.calls.load(Ordering::Relaxed);
    n1.heartbeat(&steady).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(node.calls.load(Ordering::Relaxed), calls);

    // Silent past the timeout: down, and nothing is placed on it.
    h.clock.advance_ms(h.ctl.settings().node_timeout_ms + 1);
    assert!(!h.admin.list_nodes().await.unwrap()[0].up);
    let e = fay
        .book("p", &network("b", "software", 1, false))
        .await
        .unwrap_err();
    assert_eq!(e.api().unwrap().code, ErrorCode::NoCapacity, "{e}");
    assert!(e.to_string().contains("no node is up"), "{e}");
    n1.heartbeat(&beat(&node, "n1", &addr, "boot-2"))
        .await
        .unwrap();
    assert!(h.admin.list_nodes().await.unwrap()[0].up);
    fay.book("p", &network("b", "software", 1, false))
        .await
        .unwrap();

    // A registration and a restart are in the audit log; steady beats not.
    let audit = h.admin.audit(None).await.unwrap().items;
    let beats = audit
        .iter()
        .filter(|e| e.path == "/v1/nodes/heartbeat")
        .map(|e| e.principal.as_str())
        .collect::<Vec<_>>();
    assert_eq!(beats, ["node:n1", "node:n1"], "{audit:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn node_keys_are_refused_where_they_do_not_belong() {
    let h = Harness::start().await;
    let node = FakeNode::new(&["a"], 1);
    let addr = node.serve();
    let (n1, id) = keyed(&h, "n1").await;

    // No key, a user's token (an administrator's), an unknown key.
    let b = beat(&node, "n1", &addr, "x");
    assert_eq!(status(h.anonymous().heartbeat(&b).await).0, 401);
    assert_eq!(status(h.admin.heartbeat(&b).await).0, 401);
    let forged = h
        .anonymous()
        .with_token(Some(format!("prn_{}", "0".repeat(64))));
    assert_eq!(status(forged.heartbeat(&b).await).0, 401);
    // Another node's name; an address the controller cannot use.
    assert_eq!(
        status(n1.heartbeat(&beat(&node, "n2", &addr, "x")).await),
        (403, Some("name".into()))
    );
    assert_eq!(
        status(n1.heartbeat(&beat(&node, "n1", "nowhere", "x")).await),
        (400, Some("address".into()))
    );
    // A node key is good for heartbeats only.
    assert_eq!(status(n1.whoami().await).0, 401);
    assert_eq!(status(n1.list_nodes().await).0, 401);
    assert!(
        h.admin.list_nodes().await.unwrap().is_empty(),
        "nothing registered"
    );

    // Revoked: down at once (the clock has not moved), refused from the
    // next heartbeat on, and the refusal is the node's own audit entry.
    n1.heartbeat(&b).await.unwrap();
    assert!(h.admin.list_nodes().await.unwrap()[0].up);
    h.admin.revoke_node_key(&id).await.unwrap();
    let v = &h.admin.list_nodes().await.unwrap()[0];
    assert!(!v.up, "a revoked node is down at once");
    let why = v.last_error.clone().unwrap_or_default();
    assert!(why.contains("revoked"), "{why}");
    assert_eq!(status(n1.heartbeat(&b).await).0, 401);
    let audit = h.admin.audit(None).await.unwrap().items;
    let refused = audit
        .iter()
        .filter(|e| e.path == "/v1/nodes/heartbeat" && e.status == 401)
        .map(|e| e.principal.as_str())
        .collect::<Vec<_>>();
    assert!(
        refused.contains(&"node:n1"),
        "the revoked key's heartbeat is audited under its node: {refused:?}"
    );
    assert_eq!(status(h.admin.revoke_node_key(&id).await).0, 404);
    // A new key for it: up again with its next heartbeat.
    let (again, _) = keyed(&h, "n1").await;
    again.heartbeat(&b).await.unwrap();
    assert!(h.admin.list_nodes().await.unwrap()[0].up);
    // Members may not make keys.
    let fay = h.user("fay").await;
    assert_eq!(status(fay.create_node_key("n3").await).0, 403);
}

/// The node fences its desired state by generation: a node that forgot
/// its state (restarted `--fresh`, same process identity aside) says so
/// in its heartbeat and is sent it again; a node holding a newer
/// generation than the controller's refuses it, keeps what it has, and
/// the controller says why on the node.
#[tokio::test(flavor = "multi_thread")]
async fn the_desired_state_is_fenced_by_generation() {
    let h = Harness::start().await;
    let node: Arc<FakeNode> = FakeNode::new(&["a", "b", "c"], 4);
    let addr = node.serve();
    let (n1, _) = keyed(&h, "n1").await;
    n1.heartbeat(&beat(&node, "n1", &addr, "boot-1"))
        .await
        .unwrap();
    let (fay, on_node) = book_one(&h, "hardware").await;
    let held = node.desired_generation.load(Ordering::SeqCst);
    let v = &h.admin.list_nodes().await.unwrap()[0];
    assert_eq!(
        held as i64, v.generation,
        "the node holds the controller's generation"
    );
    assert_eq!(v.applied_generation, v.generation);

    // Forgotten (same boot id: only the heartbeat's generation tells).
    node.docs.lock().unwrap().clear();
    node.desired_generation.store(0, Ordering::SeqCst);
    *node.last_desired.lock().unwrap() = None;
    n1.heartbeat(&beat(&node, "n1", &addr, "boot-1"))
        .await
        .unwrap();
    until("the state sent again", || node.names() == [on_node.clone()]).await;
    assert_eq!(node.desired_generation.load(Ordering::SeqCst), held);

    // Newer on the node than in the database: nothing is overwritten.
    node.desired_generation.store(1_000, Ordering::SeqCst);
    let _ = fay.book("p", &network("b", "hardware", 1, true)).await;
    assert_eq!(
        node.names(),
        std::slice::from_ref(&on_node),
        "the stale state was refused"
    );
    let v = &h.admin.list_nodes().await.unwrap()[0];
    let why = v.last_error.clone().unwrap_or_default();
    assert!(
        why.contains("newer desired state") && why.contains("generation 1000"),
        "{why}"
    );
    assert!(v.applied_generation < v.generation);
}

/// Once a node has accepted a state from the controller, the next goes as
/// a change to it (`PATCH /v1/desired`); a node that no longer holds that
/// state (restarted) refuses the change and is sent the whole state, and
/// holds every network either way.
#[tokio::test(flavor = "multi_thread")]
async fn a_node_is_sent_changes_and_the_whole_state_when_it_holds_no_other() {
    let h = Harness::start().await;
    let node = h.node("n1", 4, 100).await;
    let patches = || node.patches.load(Ordering::SeqCst);
    assert_eq!(
        patches(),
        0,
        "the first state (none, at registration) goes whole"
    );
    let (fay, first) = book_one(&h, "hardware").await;
    let after_one = patches();
    assert!(after_one >= 1, "the next as a change");
    let b = fay
        .book("p", &network("b", "hardware", 1, true))
        .await
        .unwrap();
    assert!(patches() > after_one);
    let mut want = vec![first, b.node_network.unwrap()];
    want.sort();
    assert_eq!(node.names(), want);

    // Restarted: the change is refused, the whole state goes.
    *node.last_desired.lock().unwrap() = None;
    let c = fay
        .book("p", &network("c", "hardware", 1, true))
        .await
        .unwrap();
    assert_eq!(node.patches_refused.load(Ordering::SeqCst), 1);
    want.push(c.node_network.unwrap());
    want.sort();
    assert_eq!(node.names(), want);
    let v = &h.admin.list_nodes().await.unwrap()[0];
    assert_eq!(v.applied_generation, v.generation);
    assert_eq!(v.last_error, None);
}

/// A hung node (it takes the connection and never answers: here its
/// server blocked in a change) fails the call after the controller's
/// node call timeout instead of holding the booking, the convergence
/// and its node's lock for ever; the node's `last_error` says so, and once
/// it answers again a convergence pass brings the booking to it.
#[tokio::test(flavor = "multi_thread")]
async fn a_hung_node_fails_the_call_in_time_and_gets_its_network_once_it_answers() {
    let h = Harness::start_with(prism_controller::Settings {
        node_call_timeout_ms: 500,
        ..crate::common::settings()
    })
    .await;
    let node = h.node("n1", 2, 100).await;
    node.stall.store(true, Ordering::SeqCst);
    let fay = h.user("fay").await;
    h.project("p", "fay", prism_controller::STANDARD).await;
    let t = Instant::now();
    let booked = tokio::time::timeout(
        Duration::from_secs(20),
        fay.book("p", &network("a", "hardware", 1, true)),
    )
    .await
    .expect("the booking call ended");
    let took = t.elapsed();
    assert!(took < Duration::from_secs(10), "{took:?}");
    let nodes = h.admin.list_nodes().await.unwrap();
    let why = nodes[0].last_error.clone().unwrap_or_default();
    assert!(why.contains("no answer from the node"), "{why}; {booked:?}");
    assert!(node.names().is_empty());

    node.stall.store(false, Ordering::SeqCst);
    until("the stalled change to end", || {
        node.stalled.load(Ordering::SeqCst) == 0
    })
    .await;
    h.ctl.converge_node(&nodes[0].id).await;
    assert_eq!(node.names().len(), 1, "applied once the node answers");
    let nodes = h.admin.list_nodes().await.unwrap();
    assert_eq!(nodes[0].last_error, None, "{:?}", nodes[0].last_error);
}
