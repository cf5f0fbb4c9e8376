//! Node identities over real sockets: a node served with the certificate
//! the controller's CA signed from its request answers the controller's
//! client, and refuses every other: no client certificate, another CA's
//! controller, another node's certificate used as a client. The
//! controller refuses a node presenting another name, a certificate it
//! did not pin (revoked or replaced) or an expired one; the CA refuses a
//! request for another node's name.

use prism_http::LabCa;
use prism_http::identity::{IssueError, wall_ms};
use prism_http::{ClientTls, CurrentTls, Limits, NodeCa, NodeIdentity, ServeStats, serve};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const HOUR: Duration = Duration::from_secs(3600);

struct Dir(std::path::PathBuf);
impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn lab(tag: &str) -> (Dir, NodeCa) {
    let dir = std::env::temp_dir().join(format!("prism-identity-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let lab = LabCa::create(&dir, &["controller".into()], 1).unwrap();
    let ca = NodeCa::open(&lab.ca_cert, &lab.ca_key).unwrap();
    (Dir(dir), ca)
}

/// A node named `name` holding a certificate from `ca`: its address,
/// its certificate's fingerprint and its listener's counters.
async fn node(ca: &NodeCa, name: &str, life: Duration) -> (String, String, Arc<ServeStats>) {
    let id = NodeIdentity::new(name).unwrap();
    let issued = ca.issue(&id.request().unwrap(), name, life).unwrap();
    id.install(&issued.chain_pem, ca.ca_pem(), issued.not_after_ms)
        .unwrap();
    let (addr, stats) = listen(id.tls()).await;
    (addr, issued.fingerprint, stats)
}

async fn listen(tls: Arc<CurrentTls>) -> (String, Arc<ServeStats>) {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let stats = Arc::new(ServeStats::default());
    let app = axum::Router::new().route("/", axum::routing::get(|| async { "node" }));
    tokio::spawn(serve(app, l, Some(tls), Limits::default(), stats.clone()));
    (addr, stats)
}

/// One request over TLS: the answer's text, or why there is none.
async fn call(addr: &str, tls: &ClientTls) -> Result<String, String> {
    let tcp = TcpStream::connect(addr).await.unwrap();
    let mut s = tls.connect(tcp).await.map_err(|e| e.to_string())?;
    s.write_all(b"GET / HTTP/1.1\r\nhost: n\r\nconnection: close\r\n\r\n")
        .await
        .map_err(|e| e.to_string())?;
    let mut out = String::new();
    // In TLS 1.3 the server judges the client's certificate after the
    // client thinks the handshake done: a refusal shows on reading.
    s.read_to_string(&mut out)
        .await
        .map_err(|e| e.to_string())?;
    if out.is_empty() {
        return Err("closed without an answer".into());
    }
    Ok(out)
}

#[tokio::test]
async fn the_controller_reaches_the_node_it_certified_and_no_one_else_does() {
    let (_d, ca) = lab("a");
    let (addr, fp, stats) = node(&ca, "n1", HOUR).await;
    let ok = call(&addr, &ca.client_for("n1", vec![fp.clone()]).unwrap()).await;
    assert!(ok.as_deref().unwrap().ends_with("node"), "{ok:?}");

    // A client trusting the CA but without a client certificate.
    let anonymous = ClientTls::new("n1", Some(&_d.0.join("ca.pem"))).unwrap();
    let e = call(&addr, &anonymous).await.unwrap_err();
    assert!(e.contains("CertificateRequired"), "{e}");

    // A controller of another CA.
    let (_d2, other) = lab("b");
    let e = call(&addr, &other.client_for("n1", vec![fp.clone()]).unwrap())
        .await
        .unwrap_err();
    assert!(e.contains("UnknownIssuer"), "{e}");

    // Another node's certificate as a client certificate: it is for
    // server authentication only.
    let key = rcgen::KeyPair::generate().unwrap();
    let csr = rcgen::CertificateParams::new(vec!["n2".into()])
        .unwrap()
        .serialize_request(&key)
        .unwrap()
        .pem()
        .unwrap();
    let n2 = ca.issue(&csr, "n2", HOUR).unwrap();
    let e = call(&addr, &as_client(&n2.chain_pem, &key, &_d.0.join("ca.pem")))
        .await
        .unwrap_err();
    assert!(e.contains("UnsupportedCertificate"), "{e}");
    assert!(stats.handshake_failures.load(Ordering::Relaxed) >= 3);
}

/// A client presenting `chain_pem` with `key`, trusting `ca`.
fn as_client(chain_pem: &str, key: &rcgen::KeyPair, ca: &std::path::Path) -> ClientTls {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
    let chain = CertificateDer::pem_slice_iter(chain_pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let base = ClientTls::new("n1", Some(ca)).unwrap();
    let mut roots = rustls::RootCertStore::empty();
    roots.add(chain.last().unwrap().clone()).unwrap();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
    let c = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_client_auth_cert(chain, key)
    .unwrap();
    ClientTls {
        config: Arc::new(c),
        ..base
    }
}

#[tokio::test]
async fn the_controller_refuses_another_name_an_unpinned_and_an_expired_certificate() {
    let (_d, ca) = lab("c");
    let (addr, fp, _) = node(&ca, "n1", HOUR).await;
    // The node at this address is n1: not the n2 the controller expects.
    let e = call(&addr, &ca.client_for("n2", vec![fp.clone()]).unwrap())
        .await
        .unwrap_err();
    assert!(e.contains("not valid for name \"n2\""), "{e}");
    // n1, but not a certificate the controller holds as live.
    let e = call(&addr, &ca.client_for("n1", vec!["00:11".into()]).unwrap())
        .await
        .unwrap_err();
    assert!(e.contains("did not issue it or has revoked"), "{e}");

    let (addr, fp, _) = node(&ca, "n3", Duration::ZERO).await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let e = call(&addr, &ca.client_for("n3", vec![fp]).unwrap())
        .await
        .unwrap_err();
    assert!(e.contains("certificate expired"), "{e}");
}

#[tokio::test]
async fn a_node_without_a_certificate_serves_nothing() {
    let (_d, ca) = lab("d");
    let id = NodeIdentity::new("n1").unwrap();
    let (addr, stats) = listen(id.tls()).await;
    let e = call(&addr, &ca.client_for("n1", vec![]).unwrap())
        .await
        .unwrap_err();
    assert!(!e.is_empty());
    assert_eq!(stats.handshake_failures.load(Ordering::Relaxed), 1);
}

#[test]
fn the_ca_signs_a_request_for_the_nodes_own_name_only() {
    let (_d, ca) = lab("e");
    let n2 = NodeIdentity::new("n2").unwrap();
    match ca.issue(&n2.request().unwrap(), "n1", HOUR) {
        Err(IssueError::OtherName { node, asked }) => {
            assert_eq!((node.as_str(), asked), ("n1", vec!["n2".to_string()]));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        ca.issue(
            "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n",
            "n1",
            HOUR
        ),
        Err(IssueError::Unreadable(_))
    ));
    // Issued for the name and the life the CA chose.
    let n1 = NodeIdentity::new("n1").unwrap();
    let t = wall_ms();
    let i = ca.issue(&n1.request().unwrap(), "n1", HOUR).unwrap();
    assert!((i.not_after_ms - t - 3_600_000).abs() < 5_000);
    assert!(i.chain_pem.ends_with(ca.ca_pem()));
}

#[test]
fn a_node_asks_again_after_two_thirds_of_its_certificates_life() {
    let (_d, ca) = lab("f");
    let id = NodeIdentity::new("n1").unwrap();
    let now = wall_ms();
    assert!(id.wants_certificate(now));
    let i = ca.issue(&id.request().unwrap(), "n1", HOUR).unwrap();
    id.install(&i.chain_pem, ca.ca_pem(), i.not_after_ms)
        .unwrap();
    assert!(!id.wants_certificate(now + 2_000_000));
    assert!(id.wants_certificate(now + 2_500_000));
    assert!(NodeIdentity::new("not a name").is_err());
}

/// The controller's client certificate revoked: once the node holds the
/// CA's revocation list naming it (the heartbeat brings it), a client
/// presenting it is refused, while the controller's next certificate is
/// answered; a list naming nothing refuses no one.
#[tokio::test]
async fn a_revoked_controller_client_certificate_is_refused_by_the_node() {
    let (_d, ca) = lab("crl");
    let id = NodeIdentity::new("n1").unwrap();
    let issued = ca.issue(&id.request().unwrap(), "n1", HOUR).unwrap();
    id.install(&issued.chain_pem, ca.ca_pem(), issued.not_after_ms)
        .unwrap();
    let (addr, _) = listen(id.tls()).await;
    let pins = || vec![issued.fingerprint.clone()];
    let now = wall_ms();
    // An empty list first: everyone the CA certified is answered.
    assert!(id.set_client_crl(&ca.crl_pem(&[], now).unwrap()).unwrap());
    let stolen = ca.client_for("n1", pins()).unwrap();
    assert!(call(&addr, &stolen).await.is_ok());
    let (serial, _) = ca.client_serial().unwrap();
    let (next, _) = ca.renew_client().unwrap();
    assert_ne!(serial, next);
    let crl = ca.crl_pem(&[(serial, now)], now).unwrap();
    assert!(id.set_client_crl(&crl).unwrap(), "a new list");
    assert!(!id.set_client_crl(&crl).unwrap(), "the same list again");
    let refused = call(&addr, &stolen).await;
    assert!(
        refused.is_err(),
        "the revoked certificate was answered: {refused:?}"
    );
    let ok = call(&addr, &ca.client_for("n1", pins()).unwrap()).await;
    assert!(ok.as_deref().unwrap_or("").ends_with("node"), "{ok:?}");
    // A renewal of the node's own certificate keeps the list.
    let again = ca.issue(&id.request().unwrap(), "n1", HOUR).unwrap();
    id.install(&again.chain_pem, ca.ca_pem(), again.not_after_ms)
        .unwrap();
    let mut stolen = stolen;
    stolen.pins = vec![again.fingerprint.clone()].into();
    assert!(
        call(&addr, &stolen).await.is_err(),
        "forgotten at the renewal"
    );
    let pins = vec![again.fingerprint.clone()];
    let ok = call(&addr, &ca.client_for("n1", pins).unwrap()).await;
    assert!(
        ok.is_ok(),
        "the node's new certificate, the controller's client: {ok:?}"
    );
}
