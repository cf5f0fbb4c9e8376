//! How `prism controller serve` speaks: TLS with the certificate given,
//! else the lab CA's, else plain HTTP where that is safe (loopback) or
//! said (`--plain-http`); and the lab CA `bootstrap --tls-name` makes.

use prism_http::LabCa;
use prism_http::tls::{TlsError, server_config};
use prism_http::{NodeCa, ServerTls};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error(transparent)]
    Tls(#[from] TlsError),
    #[error(
        "{at} is not loopback and there is no certificate: give --tls-cert and --tls-key, make a lab CA with `prism controller bootstrap --tls-name HOST` (in {dir}), or say --plain-http"
    )]
    NoCertificate { at: SocketAddr, dir: String },
}

/// The TLS configuration to serve `at` with (`None`: plain HTTP), and how,
/// in words for the log: from `cert_and_key` if given, else the lab CA in
/// `tls_dir` (unless `plain_http`), else plain HTTP on loopback or with
/// `plain_http`; refused otherwise.
pub fn choose(
    cert_and_key: Option<(&Path, &Path)>,
    tls_dir: &Path,
    plain_http: bool,
    at: SocketAddr,
) -> Result<(Option<ServerTls>, String), TransportError> {
    if let Some((cert, key)) = cert_and_key {
        let c = server_config(cert, key)?;
        return Ok((Some(c), format!("HTTPS ({})", cert.display())));
    }
    if !plain_http && let Some(ca) = LabCa::open(tls_dir)? {
        let c = server_config(&ca.server_cert, &ca.server_key)?;
        let how = format!(
            "HTTPS (lab CA {}, SHA-256 {})",
            ca.ca_cert.display(),
            ca.fingerprint
        );
        return Ok((Some(c), how));
    }
    if at.ip().is_loopback() {
        return Ok((None, "plain HTTP (loopback only)".into()));
    }
    if plain_http {
        let how = "PLAIN HTTP on a network address (--plain-http): tokens, passwords and the nodes' credential cross in clear text";
        return Ok((None, how.into()));
    }
    Err(TransportError::NoCertificate {
        at,
        dir: tls_dir.display().to_string(),
    })
}

/// Makes the lab CA and the controller's certificate for `names` (host
/// names or addresses) in `dir` unless it has one; says what it did, with
/// the CA's fingerprint (clients check it).
pub fn lab_ca(dir: &Path, names: &[String]) -> Result<String, TlsError> {
    if let Some(ca) = LabCa::open(dir)? {
        return Ok(format!(
            "lab CA already in {} (SHA-256 fingerprint {}): kept",
            dir.display(),
            ca.fingerprint
        ));
    }
    let ca = LabCa::create(dir, names, 365)?;
    Ok(format!(
        "lab CA made: {ca_cert} (give it to clients: prism ctl --ca {ca_cert}); SHA-256 fingerprint {}\ncontroller certificate for {} (365 days): {}",
        ca.fingerprint,
        names.join(", "),
        ca.server_cert.display(),
        ca_cert = ca.ca_cert.display(),
    ))
}

/// The CA that certifies nodes: the lab CA in `tls_dir` when its key is
/// there (a replica given a copy of the directory certifies too); and
/// what that means, in words for the log.
pub fn node_ca(tls_dir: &Path) -> Result<(Option<Arc<NodeCa>>, String), TlsError> {
    let (ca_cert, ca_key, ..) = LabCa::in_dir(tls_dir);
    if !ca_key.exists() {
        let how = format!(
            "no CA key in {}: nodes are not certified, and are called with the shared credential",
            tls_dir.display()
        );
        return Ok((None, how));
    }
    let ca = NodeCa::open(&ca_cert, &ca_key)?;
    let how = format!(
        "nodes certified by the lab CA ({}): each called in mutual TLS once certified",
        ca_cert.display()
    );
    Ok((Some(Arc::new(ca)), how))
}
