//! TLS with rustls (the *ring* provider): a server's configuration from
//! its certificate chain and key in PEM files, a client's from a CA file
//! or the system's roots; with the `server` feature, the lab CA for a
//! testbed without one (`crate::ca`).

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use std::path::Path;
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {what}")]
    Pem { path: String, what: String },
    #[error("TLS: {0}")]
    Rustls(#[from] rustls::Error),
    #[cfg(feature = "server")]
    #[error("certificate: {0}")]
    Certificate(#[from] rcgen::Error),
    #[error("`{0}` is not a name a certificate can carry")]
    Name(String),
}

pub(crate) fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

pub(crate) fn certs_of(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|it| it.collect::<Result<Vec<_>, _>>())
        .map_err(|e| pem_error(path, e))?;
    if certs.is_empty() {
        return Err(TlsError::Pem {
            path: path.display().to_string(),
            what: "no CERTIFICATE in the file".into(),
        });
    }
    Ok(certs)
}

pub(crate) fn pem_error(path: &Path, e: rustls::pki_types::pem::Error) -> TlsError {
    match e {
        rustls::pki_types::pem::Error::Io(source) => TlsError::Io {
            path: path.display().to_string(),
            source,
        },
        other => TlsError::Pem {
            path: path.display().to_string(),
            what: other.to_string(),
        },
    }
}

/// A server's configuration: the chain in `cert` (PEM, leaf first) and
/// its private key in `key` (PEM: PKCS#8, PKCS#1 or SEC1). HTTP/1.1 only.
pub fn server_config(cert: &Path, key: &Path) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let chain = certs_of(cert)?;
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| pem_error(key, e))?;
    http1_server(Arc::new(rustls::server::NoClientAuth), chain, key)
}

/// A server configuration, HTTP/1.1 only: `chain` (leaf first) and its
/// `key`, clients checked by `clients`.
pub(crate) fn http1_server(
    clients: Arc<dyn rustls::server::danger::ClientCertVerifier>,
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let mut c = rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()?
        .with_client_cert_verifier(clients)
        .with_single_cert(chain, key)?;
    c.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(c))
}

/// A client configuration, HTTP/1.1 only: servers checked against
/// `roots`; `identity` (a chain and its key) presented when asked.
pub(crate) fn http1_client(
    roots: Arc<rustls::RootCertStore>,
    identity: Option<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)>,
) -> Result<Arc<rustls::ClientConfig>, TlsError> {
    let builder = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots);
    let mut c = match identity {
        Some((chain, key)) => builder.with_client_auth_cert(chain, key)?,
        None => builder.with_no_client_auth(),
    };
    c.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(c))
}

/// A client's TLS session over TCP.
pub type ClientStream = tokio_rustls::client::TlsStream<tokio::net::TcpStream>;

/// What a client needs to reach one TLS server: the roots it trusts and
/// the name the server's certificate must carry.
#[derive(Clone)]
pub struct ClientTls {
    pub config: Arc<rustls::ClientConfig>,
    pub server_name: ServerName<'static>,
    /// When not empty, the server's certificate must also be one of these
    /// (SHA-256 fingerprints, as [`fingerprint`] prints them): the ones
    /// the controller issued a node and has not revoked.
    pub pins: Arc<[String]>,
}

impl std::fmt::Debug for ClientTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ClientTls({:?})", self.server_name)
    }
}

impl ClientTls {
    /// Trusts the certificates in `ca` (PEM), or the system's roots
    /// (`/etc/ssl/certs`) without one; checks the server is `host`.
    pub fn new(host: &str, ca: Option<&Path>) -> Result<Self, TlsError> {
        let mut roots = rustls::RootCertStore::empty();
        match ca {
            Some(path) => {
                for c in certs_of(path)? {
                    roots.add(c)?;
                }
            }
            None => {
                for c in rustls_native_certs::load_native_certs().certs {
                    // A system root rustls cannot read is one we do not trust.
                    let _ = roots.add(c);
                }
            }
        }
        let server_name =
            ServerName::try_from(host.to_string()).map_err(|_| TlsError::Name(host.into()))?;
        Ok(Self {
            config: http1_client(Arc::new(roots), None)?,
            server_name,
            pins: Arc::from([]),
        })
    }

    /// The TLS session over `tcp`; with pins, refused (before a byte of
    /// the request is sent) unless the server's certificate is pinned.
    pub async fn connect(&self, tcp: tokio::net::TcpStream) -> std::io::Result<ClientStream> {
        let s = tokio_rustls::TlsConnector::from(self.config.clone())
            .connect(self.server_name.clone(), tcp)
            .await?;
        if !self.pins.is_empty() {
            let leaf = s.get_ref().1.peer_certificates().and_then(|c| c.first());
            let known = leaf.is_some_and(|c| self.pins.contains(&fingerprint(c.as_ref())));
            if !known {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    format!(
                        "{:?} presented a certificate the controller did not issue it or has revoked",
                        self.server_name
                    ),
                ));
            }
        }
        Ok(s)
    }
}

/// The SHA-256 fingerprint of a certificate, as `openssl x509
/// -fingerprint -sha256` prints it.
pub fn fingerprint(der: &[u8]) -> String {
    use sha2::Digest;
    let d = sha2::Sha256::digest(der);
    let hex: Vec<String> = d.iter().map(|b| format!("{b:02X}")).collect();
    hex.join(":")
}
