//! Node identities: a node certified by its heartbeat is driven in
//! mutual TLS only, with no shared credential; a revoked key, an ended
//! certificate, a request for another name and a node answering with
//! another node's certificate are refused (and audited), and nothing is
//! applied; a renewal brings the node back.

use crate::common::fake_node::FakeNode;
use crate::common::{Harness, TempDir, book_one, settings};
use prism_controller::{ControllerClient, Heartbeat, Settings};
use prism_http::LabCa;
use prism_http::{NodeCa, NodeIdentity};
use std::sync::Arc;

/// A controller with the lab CA and no shared credential for nodes.
async fn certifying(life_ms: i64) -> (Harness, TempDir) {
    let dir = std::env::temp_dir().join(format!(
        "prism-node-ca-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    let lab = LabCa::create(&dir, &["controller".into()], 1).unwrap();
    let ca = NodeCa::open(&lab.ca_cert, &lab.ca_key).unwrap();
    let s = Settings {
        node_secret: None,
        node_ca: Some(Arc::new(ca)),
        node_cert_life_ms: life_ms,
        ..settings()
    };
    (Harness::start_with(s).await, TempDir(dir))
}

/// A fake node `name` in mutual TLS with `id`, and its heartbeat client.
async fn node(
    h: &Harness,
    name: &str,
    id: &NodeIdentity,
) -> (Arc<FakeNode>, String, ControllerClient, String) {
    let node = FakeNode::new(&["a", "b", "c"], 4);
    let addr = node.serve_tls(id.tls());
    let k = h.admin.create_node_key(name).await.unwrap();
    let client = h.anonymous().with_token(k.key.clone());
    (node, addr, client, k.id)
}

fn beat(node: &FakeNode, name: &str, addr: &str, csr: Option<String>) -> Heartbeat {
    Heartbeat {
        name: name.into(),
        address: addr.into(),
        boot_id: "boot-1".into(),
        info: prism_node_api::NodeApi::node(node).unwrap(),
        hw_mbps: Some(10_000),
        sw_mbps: None,
        csr,
    }
}

/// Beats with a request and serves with the certificate it brings.
async fn certify(n: &ControllerClient, node: &FakeNode, name: &str, addr: &str, id: &NodeIdentity) {
    let a = n
        .heartbeat(&beat(node, name, addr, Some(id.request().unwrap())))
        .await
        .unwrap();
    let c = a.certificate.expect("a certificate");
    id.install(&c.chain_pem, &c.ca_pem, c.not_after_ms).unwrap();
}

async fn last_error(h: &Harness, name: &str) -> String {
    let nodes = h.admin.list_nodes().await.unwrap();
    let n = nodes.iter().find(|n| n.name == name).unwrap();
    n.last_error.clone().unwrap_or_default()
}

/// One convergence pass of node `name`, then its `last_error`.
async fn converged(h: &Harness, name: &str) -> String {
    let nodes = h.admin.list_nodes().await.unwrap();
    let id = &nodes.iter().find(|n| n.name == name).unwrap().id;
    h.ctl.converge_node(id).await;
    last_error(h, name).await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_certified_node_is_driven_in_mutual_tls_until_its_key_is_revoked() {
    let (h, _dir) = certifying(3_600_000).await;
    let id = NodeIdentity::new("n1").unwrap();
    let (node, addr, n1, key_id) = node(&h, "n1", &id).await;
    certify(&n1, &node, "n1", &addr, &id).await;
    let (_, on_node) = book_one(&h, "hardware").await;
    assert_eq!(node.names(), [on_node]);
    assert_eq!(last_error(&h, "n1").await, "");
    let audit = h.admin.audit(None).await.unwrap().items;
    assert!(audit.iter().any(|e| e.principal == "node:n1"
        && e.path == "/v1/nodes/heartbeat#certificate"
        && e.status == 201));

    // Revoked: no certificate for the stolen key, and the one issued is
    // no longer accepted.
    h.admin.revoke_node_key(&key_id).await.unwrap();
    let e = n1
        .heartbeat(&beat(&node, "n1", &addr, Some(id.request().unwrap())))
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(401), "{e}");
    node.docs.lock().unwrap().clear();
    let why = converged(&h, "n1").await;
    assert!(node.names().is_empty(), "nothing applied on a revoked node");
    assert!(why.contains("ended or were revoked"), "{why}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_for_another_name_is_refused_and_audited() {
    let (h, _dir) = certifying(3_600_000).await;
    let other = NodeIdentity::new("n2").unwrap();
    let (node, addr, n1, _) = node(&h, "n1", &other).await;
    let e = n1
        .heartbeat(&beat(&node, "n1", &addr, Some(other.request().unwrap())))
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(403), "{e}");
    assert_eq!(e.api().unwrap().field.as_deref(), Some("csr"));
    assert!(e.to_string().contains("only for `n1`"), "{e}");
    let audit = h.admin.audit(None).await.unwrap().items;
    assert!(
        audit
            .iter()
            .any(|e| e.principal == "node:n1" && e.status == 403)
    );
    // Nothing recorded: registered without a certificate, the node is
    // not called (this controller has no shared credential either).
    n1.heartbeat(&beat(&node, "n1", &addr, None)).await.unwrap();
    let why = converged(&h, "n1").await;
    assert!(why.contains("no certificate yet"), "{why}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_node_answering_with_another_nodes_certificate_gets_nothing() {
    let (h, _dir) = certifying(3_600_000).await;
    let (id1, id2) = (
        NodeIdentity::new("n1").unwrap(),
        NodeIdentity::new("n2").unwrap(),
    );
    let (node1, addr1, n1, _) = node(&h, "n1", &id1).await;
    let (node2, addr2, n2, _) = node(&h, "n2", &id2).await;
    certify(&n1, &node1, "n1", &addr1, &id1).await;
    certify(&n2, &node2, "n2", &addr2, &id2).await;
    // n1 now says it is where n2 listens.
    n1.heartbeat(&beat(&node1, "n1", &addr2, None))
        .await
        .unwrap();
    // Refused in the handshake, before any request was sent.
    let why = converged(&h, "n1").await;
    assert!(why.contains("not valid for name \"n1\""), "{why}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_ended_certificate_stops_calls_until_the_heartbeat_renews_it() {
    let (h, _dir) = certifying(1500).await;
    let id = NodeIdentity::new("n1").unwrap();
    let (node, addr, n1, _) = node(&h, "n1", &id).await;
    certify(&n1, &node, "n1", &addr, &id).await;
    assert_eq!(converged(&h, "n1").await, "");
    assert!(id.wants_certificate(prism_http::identity::wall_ms() + 1000));
    tokio::time::sleep(std::time::Duration::from_millis(1600)).await;
    let why = converged(&h, "n1").await;
    assert!(why.contains("ended or were revoked"), "{why}");
    certify(&n1, &node, "n1", &addr, &id).await;
    let (_, on_node) = book_one(&h, "software").await;
    assert_eq!(node.names(), [on_node]);
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_ca_the_answer_says_why_and_the_shared_credential_drives_the_node() {
    let h = Harness::start().await;
    let node = FakeNode::new(&["a", "b", "c"], 4);
    let addr = node.serve();
    let k = h.admin.create_node_key("n1").await.unwrap();
    let n1 = h.anonymous().with_token(k.key.clone());
    let id = NodeIdentity::new("n1").unwrap();
    let a = n1
        .heartbeat(&beat(&node, "n1", &addr, Some(id.request().unwrap())))
        .await
        .unwrap();
    assert!(a.certificate.is_none());
    assert!(a.certificate_refused.unwrap().contains("no CA"));
    let (_, on_node) = book_one(&h, "hardware").await;
    assert_eq!(node.names(), [on_node]);
}

/// The controller's own client certificate revoked (its key leaked, say):
/// the node's next heartbeat brings the CA's revocation list, after which
/// a client presenting that certificate is refused, while the controller,
/// which took a new one, goes on driving the node.
#[tokio::test(flavor = "multi_thread")]
async fn a_revoked_controller_certificate_is_refused_from_the_nodes_next_heartbeat() {
    use prism_node_api::{Endpoint, NodeApi as _, NodeClient};
    let (h, _dir) = certifying(3_600_000).await;
    let id = NodeIdentity::new("n1").unwrap();
    let (node, addr, n1, _) = node(&h, "n1", &id).await;
    certify(&n1, &node, "n1", &addr, &id).await;
    let (fay, on_node) = book_one(&h, "hardware").await;
    assert_eq!(node.names(), [on_node]);
    // A copy of the controller's client configuration, as a thief has it.
    let ca = h.ctl.settings().node_ca.clone().unwrap();
    let tls = ca.client_for("n1", Vec::new()).unwrap();
    let stolen = NodeClient::new(Endpoint::Tls {
        addr: addr.clone(),
        token: None,
        tls,
    });
    stolen.node().await.expect("answered before the revocation");
    let certs = h.admin.controller_certificates().await.unwrap();
    assert_eq!(certs.len(), 1, "{certs:?}");
    let user = h.login_as("fay", None).await;
    let e = user.controller_certificates().await.unwrap_err();
    assert_eq!(e.status(), Some(403));
    h.admin
        .revoke_controller_certificate(&certs[0].serial)
        .await
        .unwrap();
    // The node's next heartbeat: the list; the node takes it as its agent
    // does.
    let a = n1.heartbeat(&beat(&node, "n1", &addr, None)).await.unwrap();
    let crl = a.client_crl.expect("a revocation list");
    assert!(id.set_client_crl(&crl).unwrap());
    let e = stolen.node().await.unwrap_err();
    assert!(!e.to_string().is_empty());
    // The same list again is no change; the controller drives the node.
    let again = n1.heartbeat(&beat(&node, "n1", &addr, None)).await.unwrap();
    assert!(!id.set_client_crl(&again.client_crl.unwrap()).unwrap());
    let b = fay
        .book("p", &crate::common::network("b", "hardware", 1, true))
        .await
        .unwrap();
    assert_eq!(
        b.operational_state,
        prism_controller::OperationalState::Ready
    );
    assert_eq!(node.names().len(), 2);
    let certs = h.admin.controller_certificates().await.unwrap();
    assert_eq!(certs.len(), 2, "a new one: {certs:?}");
    assert_eq!(certs.iter().filter(|c| c.revoked_ms.is_some()).count(), 1);
    let _ = node.node();
}
