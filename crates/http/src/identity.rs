//! Node identities, on the model of the kubelet's TLS bootstrap: a node
//! makes a key pair in memory and sends a certificate request with its
//! heartbeat (authenticated by its node key); the controller's CA signs a
//! short-lived certificate for that node's name only; the node serves its
//! API in TLS with it and accepts only clients whose certificate the same
//! CA signed for client authentication, which only the controller holds.
//!
//! - [`NodeCa`], the controller's side: signs node certificates, and makes
//!   the client configuration that calls one node, checking the name in
//!   its certificate and that the certificate is one it issued and has
//!   not revoked (its fingerprint, pinned).
//! - [`NodeIdentity`], the node's side: its key, its request, the
//!   certificate it holds and when to renew it.
//!
//! Node certificates carry only the server-authentication purpose, so a
//! node cannot use its own to call another node; the controller's client
//! certificate carries only client authentication.

use crate::serve::CurrentTls;
use crate::tls::{
    TlsError, certs_of, fingerprint, http1_client, http1_server, leaf_params, pem_error, provider,
};
use rcgen::{
    CertificateParams, CertificateSigningRequestParams, ExtendedKeyUsagePurpose, KeyPair, SanType,
};
use rustls::RootCertStore;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What the controller's CA refuses to sign.
#[derive(Debug, thiserror::Error)]
pub enum IssueError {
    #[error("not a certificate request in PEM whose signature verifies ({0})")]
    Unreadable(rcgen::Error),
    #[error("the request asks for {asked:?}; this node's key lets it ask only for `{node}`")]
    OtherName { node: String, asked: Vec<String> },
    #[error("`{0}` cannot be a certificate's DNS name")]
    Name(String),
    #[error("signing: {0}")]
    Sign(rcgen::Error),
}

/// A certificate the controller issued a node.
#[derive(Debug, Clone)]
pub struct Issued {
    /// The node's certificate then the CA's, in PEM.
    pub chain_pem: String,
    /// The node's certificate's SHA-256 fingerprint ([`fingerprint`]).
    pub fingerprint: String,
    /// Milliseconds since the Unix epoch (wall clock: TLS checks it so).
    pub not_after_ms: i64,
}

/// Milliseconds since the Unix epoch, now.
pub fn wall_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

fn at_ms(ms: i64) -> time::OffsetDateTime {
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
}

/// The controller's CA for node identities.
pub struct NodeCa {
    ca_pem: String,
    issuer: rcgen::Certificate,
    key: KeyPair,
    roots: Arc<RootCertStore>,
    /// The controller's client configuration and when it was made: its
    /// certificate is remade daily.
    client: Mutex<(Arc<rustls::ClientConfig>, i64)>,
}

impl std::fmt::Debug for NodeCa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NodeCa(<key>)")
    }
}

/// How long the controller's own client certificate lives; remade after
/// half of it.
const CLIENT_LIFE_MS: i64 = 2 * 86_400_000;

impl NodeCa {
    /// The CA in `ca_cert` (PEM) with its key in `ca_key` (the lab CA's
    /// `ca.pem` and `ca.key`).
    pub fn open(ca_cert: &Path, ca_key: &Path) -> Result<Self, TlsError> {
        let der = certs_of(ca_cert)?.remove(0);
        let ca_pem = std::fs::read_to_string(ca_cert).map_err(|source| TlsError::Io {
            path: ca_cert.display().to_string(),
            source,
        })?;
        let key_pem = std::fs::read_to_string(ca_key).map_err(|source| TlsError::Io {
            path: ca_key.display().to_string(),
            source,
        })?;
        let key = KeyPair::from_pem(&key_pem)?;
        // rcgen signs with an issuer's parameters: the CA's own, read back.
        let issuer = CertificateParams::from_ca_cert_der(&der)?.self_signed(&key)?;
        let mut roots = RootCertStore::empty();
        roots.add(der)?;
        let roots = Arc::new(roots);
        let client = client_config(&issuer, &key, &roots)?;
        Ok(Self {
            ca_pem,
            issuer,
            key,
            roots,
            client: Mutex::new((client, wall_ms())),
        })
    }

    /// The CA's certificate in PEM, which a node trusts for its clients.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// Signs the request in `csr_pem` for `node`, valid `life` from now.
    /// The request may name `node` only; the certificate is made from the
    /// CA's own choices (its name, purpose and life), never the request's.
    pub fn issue(&self, csr_pem: &str, node: &str, life: Duration) -> Result<Issued, IssueError> {
        let csr =
            CertificateSigningRequestParams::from_pem(csr_pem).map_err(IssueError::Unreadable)?;
        let asked: Vec<String> = csr
            .params
            .subject_alt_names
            .iter()
            .map(|n| match n {
                SanType::DnsName(d) => d.as_str().to_string(),
                other => format!("{other:?}"),
            })
            .collect();
        if asked.len() != 1 || !asked[0].eq_ignore_ascii_case(node) {
            return Err(IssueError::OtherName {
                node: node.into(),
                asked,
            });
        }
        if ServerName::try_from(node.to_string()).is_err() {
            return Err(IssueError::Name(node.into()));
        }
        let now = wall_ms();
        let not_after_ms = now + life.as_millis() as i64;
        // From a few minutes back, for clocks a little behind the controller's.
        let p = leaf_params(
            vec![node.to_string()],
            node,
            ExtendedKeyUsagePurpose::ServerAuth,
            at_ms(now - 300_000),
            at_ms(not_after_ms),
        )
        .map_err(|_| IssueError::Name(node.into()))?;
        let cert = p
            .signed_by(&csr.public_key, &self.issuer, &self.key)
            .map_err(IssueError::Sign)?;
        Ok(Issued {
            chain_pem: cert.pem() + &self.ca_pem,
            fingerprint: fingerprint(cert.der()),
            not_after_ms,
        })
    }

    /// How the controller calls node `node`: the CA as the only root, the
    /// node's name checked in its certificate, which must also be one of
    /// `pins`; the controller's client certificate presented.
    pub fn client_for(&self, node: &str, pins: Vec<String>) -> Result<crate::ClientTls, TlsError> {
        let server_name =
            ServerName::try_from(node.to_string()).map_err(|_| TlsError::Name(node.into()))?;
        let mut held = self.client.lock().map_err(|_| {
            TlsError::Name("the controller's client certificate (a poisoned lock)".into())
        })?;
        if wall_ms() - held.1 > CLIENT_LIFE_MS / 2 {
            *held = (
                client_config(&self.issuer, &self.key, &self.roots)?,
                wall_ms(),
            );
        }
        Ok(crate::ClientTls {
            config: held.0.clone(),
            server_name,
            pins: pins.into(),
        })
    }
}

/// The controller's client configuration: a fresh key and a certificate
/// for client authentication only, signed by the CA.
fn client_config(
    issuer: &rcgen::Certificate,
    ca_key: &KeyPair,
    roots: &Arc<RootCertStore>,
) -> Result<Arc<rustls::ClientConfig>, TlsError> {
    let now = wall_ms();
    let key = KeyPair::generate()?;
    let p = leaf_params(
        Vec::new(),
        "prism controller",
        ExtendedKeyUsagePurpose::ClientAuth,
        at_ms(now - 300_000),
        at_ms(now + CLIENT_LIFE_MS),
    )?;
    let cert = p.signed_by(&key, issuer, ca_key)?;
    let chain = vec![cert.der().clone(), issuer.der().clone()];
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
    http1_client(roots.clone(), Some((chain, key)))
}

/// A node's identity: its key (in memory only: a restarted node asks
/// anew), the certificate it holds, and the TLS configuration its API
/// serves with.
pub struct NodeIdentity {
    name: String,
    key: KeyPair,
    tls: Arc<CurrentTls>,
    /// When the certificate held was received and when it ends (ms).
    held: Mutex<Option<(i64, i64)>>,
}

impl std::fmt::Debug for NodeIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NodeIdentity({})", self.name)
    }
}

impl NodeIdentity {
    pub fn new(name: &str) -> Result<Self, TlsError> {
        ServerName::try_from(name.to_string()).map_err(|_| TlsError::Name(name.into()))?;
        Ok(Self {
            name: name.into(),
            key: KeyPair::generate()?,
            tls: Arc::new(CurrentTls::default()),
            held: Mutex::new(None),
        })
    }

    /// What the API's listener serves with (nothing until a certificate).
    pub fn tls(&self) -> Arc<CurrentTls> {
        self.tls.clone()
    }

    /// A certificate request for this node's name, in PEM.
    pub fn request(&self) -> Result<String, TlsError> {
        let p = CertificateParams::new(vec![self.name.clone()])?;
        Ok(p.serialize_request(&self.key)?.pem()?)
    }

    /// Whether to ask: no certificate yet, or two thirds of its life gone.
    pub fn wants_certificate(&self, now_ms: i64) -> bool {
        match self.held.lock().ok().and_then(|h| *h) {
            None => true,
            Some((got, until)) => now_ms >= got + (until - got) * 2 / 3,
        }
    }

    /// Serves with `chain_pem` (this node's certificate first) from the
    /// next connection, accepting clients whose certificate `ca_pem`'s CA
    /// signed for client authentication.
    pub fn install(
        &self,
        chain_pem: &str,
        ca_pem: &str,
        not_after_ms: i64,
    ) -> Result<(), TlsError> {
        let what = |e| pem_error(Path::new("the controller's answer"), e);
        let chain = CertificateDer::pem_slice_iter(chain_pem.as_bytes())
            .collect::<Result<Vec<_>, _>>()
            .map_err(what)?;
        let mut roots = RootCertStore::empty();
        for c in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
            roots.add(c.map_err(what)?)?;
        }
        let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
            Arc::new(roots),
            provider(),
        )
        .build()
        .map_err(|e| TlsError::Rustls(rustls::Error::General(e.to_string())))?;
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key.serialize_der()));
        self.tls.set(http1_server(verifier, chain, key)?);
        if let Ok(mut h) = self.held.lock() {
            *h = Some((wall_ms(), not_after_ms));
        }
        Ok(())
    }
}
