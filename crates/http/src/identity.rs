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

use crate::ca::leaf_params;
use crate::serve::CurrentTls;
use crate::tls::{
    TlsError, certs_of, fingerprint, http1_client, http1_server, pem_error, provider,
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
    /// The controller's client certificate: remade daily, or at once
    /// when revoked ([`NodeCa::renew_client`]).
    client: Mutex<ClientCert>,
}

/// The controller's own client certificate and its configuration.
struct ClientCert {
    config: Arc<rustls::ClientConfig>,
    made_ms: i64,
    /// Its serial number, in hex: what a revocation names.
    serial: String,
    not_after_ms: i64,
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
        let client = client_cert(&issuer, &key, &roots)?;
        Ok(Self {
            ca_pem,
            issuer,
            key,
            roots,
            client: Mutex::new(client),
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
        let mut held = self.client.lock().map_err(|_| poisoned())?;
        if wall_ms() - held.made_ms > CLIENT_LIFE_MS / 2 {
            *held = client_cert(&self.issuer, &self.key, &self.roots)?;
        }
        Ok(crate::ClientTls {
            config: held.config.clone(),
            server_name,
            pins: pins.into(),
        })
    }

    /// The serial number (hex) of the controller's client certificate in
    /// use, and when it ends (ms).
    pub fn client_serial(&self) -> Result<(String, i64), TlsError> {
        let held = self.client.lock().map_err(|_| poisoned())?;
        Ok((held.serial.clone(), held.not_after_ms))
    }

    /// A new client certificate for the controller (its last was revoked):
    /// its serial and end.
    pub fn renew_client(&self) -> Result<(String, i64), TlsError> {
        let mut held = self.client.lock().map_err(|_| poisoned())?;
        *held = client_cert(&self.issuer, &self.key, &self.roots)?;
        Ok((held.serial.clone(), held.not_after_ms))
    }

    /// A certificate revocation list (RFC 5280), signed by the CA, of the
    /// controller's client certificates `revoked` (serial in hex, when
    /// revoked, ms), in PEM: what a node refuses clients by.
    pub fn crl_pem(&self, revoked: &[(String, i64)], now_ms: i64) -> Result<String, TlsError> {
        let bad = |e: String| TlsError::Name(format!("a revoked serial number: {e}"));
        let mut certs = Vec::new();
        for (serial, at) in revoked {
            let bytes = hex_bytes(serial).map_err(bad)?;
            certs.push(rcgen::RevokedCertParams {
                serial_number: rcgen::SerialNumber::from(bytes),
                revocation_time: at_ms(*at),
                reason_code: Some(rcgen::RevocationReason::KeyCompromise),
                invalidity_date: None,
            });
        }
        let crl = rcgen::CertificateRevocationListParams {
            this_update: at_ms(now_ms - 60_000),
            next_update: at_ms(now_ms + 86_400_000),
            crl_number: rcgen::SerialNumber::from(u64::try_from(now_ms).unwrap_or(0)),
            issuing_distribution_point: None,
            revoked_certs: certs,
            key_identifier_method: self.issuer.params().key_identifier_method.clone(),
        };
        Ok(crl.signed_by(&self.issuer, &self.key)?.pem()?)
    }
}

fn poisoned() -> TlsError {
    TlsError::Name("the controller's client certificate (a poisoned lock)".into())
}

/// `hex` as bytes.
fn hex_bytes(hex: &str) -> Result<Vec<u8>, String> {
    if !hex.len().is_multiple_of(2) {
        return Err(format!("`{hex}` has an odd length"));
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|e| format!("`{hex}`: {e}")))
        .collect()
}

/// The controller's client certificate: a fresh key and a certificate
/// for client authentication only, signed by the CA.
fn client_cert(
    issuer: &rcgen::Certificate,
    ca_key: &KeyPair,
    roots: &Arc<RootCertStore>,
) -> Result<ClientCert, TlsError> {
    let now = wall_ms();
    let key = KeyPair::generate()?;
    let not_after_ms = now + CLIENT_LIFE_MS;
    let p = leaf_params(
        Vec::new(),
        "prism controller",
        ExtendedKeyUsagePurpose::ClientAuth,
        at_ms(now - 300_000),
        at_ms(not_after_ms),
    )?;
    let serial = p
        .serial_number
        .as_ref()
        .map(|s| s.as_ref().iter().map(|b| format!("{b:02x}")).collect())
        .unwrap_or_default();
    let cert = p.signed_by(&key, issuer, ca_key)?;
    let chain = vec![cert.der().clone(), issuer.der().clone()];
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
    Ok(ClientCert {
        config: http1_client(roots.clone(), Some((chain, key)))?,
        made_ms: now,
        serial,
        not_after_ms,
    })
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
    /// What it serves with (its chain, the CA its clients must have) and
    /// the controller's list of revoked client certificates: kept to make
    /// the configuration anew when either changes.
    serving: Mutex<Serving>,
}

#[derive(Default)]
struct Serving {
    chain: Vec<CertificateDer<'static>>,
    roots: Option<Arc<RootCertStore>>,
    crl: Option<rustls::pki_types::CertificateRevocationListDer<'static>>,
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
            serving: Mutex::new(Serving::default()),
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
        let mut s = self.serving.lock().map_err(|_| poisoned())?;
        (s.chain, s.roots) = (chain, Some(Arc::new(roots)));
        self.serve(&s)?;
        if let Ok(mut h) = self.held.lock() {
            *h = Some((wall_ms(), not_after_ms));
        }
        Ok(())
    }

    /// Refuses from the next connection the clients whose certificates
    /// the controller's revocation list `crl_pem` names (the heartbeat
    /// brings it); whether it differs from the list held.
    pub fn set_client_crl(&self, crl_pem: &str) -> Result<bool, TlsError> {
        use rustls::pki_types::CertificateRevocationListDer;
        let crl = CertificateRevocationListDer::from_pem_slice(crl_pem.as_bytes())
            .map_err(|e| pem_error(Path::new("the controller's revocation list"), e))?;
        let mut s = self.serving.lock().map_err(|_| poisoned())?;
        if s.crl.as_ref() == Some(&crl) {
            return Ok(false);
        }
        s.crl = Some(crl);
        if s.roots.is_some() {
            self.serve(&s)?;
        }
        Ok(true)
    }

    /// Serves with `s`: its chain, clients of its CA, none revoked.
    fn serve(&self, s: &Serving) -> Result<(), TlsError> {
        let roots = s
            .roots
            .clone()
            .unwrap_or_else(|| Arc::new(RootCertStore::empty()));
        let mut b = rustls::server::WebPkiClientVerifier::builder_with_provider(roots, provider());
        if let Some(crl) = &s.crl {
            // Only the client's own certificate is looked up in it (the
            // CA issues it; the list is the CA's).
            b = b
                .with_crls([crl.clone()])
                .only_check_end_entity_revocation();
        }
        let verifier = b
            .build()
            .map_err(|e| TlsError::Rustls(rustls::Error::General(e.to_string())))?;
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key.serialize_der()));
        self.tls.set(http1_server(verifier, s.chain.clone(), key)?);
        Ok(())
    }
}
