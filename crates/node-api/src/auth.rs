//! The control plane's credential (paper 002 §3.2: requests to resources
//! carry credentials only the control plane knows): a bearer token, kept
//! only as its SHA-256 digest and compared in constant time.

#[cfg(feature = "server")]
use crate::error::{ApiError, ErrorCode};
#[cfg(feature = "server")]
use axum::{
    extract::{Request, State},
    http::header,
    middleware::Next,
    response::{IntoResponse, Response},
};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The shortest secret accepted: 128 bits as hex.
pub const MIN_SECRET_LEN: usize = 32;

#[derive(Clone)]
pub struct Credential {
    digest: [u8; 32],
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Credential(<secret>)")
    }
}

impl Credential {
    /// A credential for `secret` (surrounding whitespace ignored).
    pub fn new(secret: &str) -> Result<Self, String> {
        let s = secret.trim();
        if s.len() < MIN_SECRET_LEN {
            return Err(format!(
                "the credential is {} characters; at least {MIN_SECRET_LEN} are needed (e.g. `openssl rand -hex 32`)",
                s.len()
            ));
        }
        Ok(Self {
            digest: Sha256::digest(s.as_bytes()).into(),
        })
    }

    /// Reads the secret from `path`; the error names the file.
    pub fn from_file(path: &std::path::Path) -> Result<Self, String> {
        let text = read_secret_file(path)?;
        Self::new(&text).map_err(|e| format!("credential file {}: {e}", path.display()))
    }

    /// Whether `presented` is the secret. Both sides are digests of the
    /// same length, so the comparison takes the same time whatever they hold.
    pub fn verify(&self, presented: &str) -> bool {
        let d: [u8; 32] = Sha256::digest(presented.trim().as_bytes()).into();
        d.ct_eq(&self.digest).into()
    }
}

/// Middleware: 401 unless the request carries `Authorization: Bearer <secret>`.
#[cfg(feature = "server")]
pub async fn require_bearer(State(cred): State<Credential>, req: Request, next: Next) -> Response {
    let presented = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    match presented {
        Some(t) if cred.verify(t) => next.run(req).await,
        _ => {
            let mut r = ApiError::new(
                ErrorCode::Unauthorized,
                "this API needs the control plane's credential: `Authorization: Bearer <token>`",
            )
            .into_response();
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer"),
            );
            r
        }
    }
}

/// The secret in credential file `path`, without surrounding whitespace.
pub fn read_secret_file(path: &std::path::Path) -> Result<String, String> {
    std::fs::read_to_string(path)
        .map(|t| t.trim().to_string())
        .map_err(|e| format!("credential file {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verifies_only_the_secret_and_never_prints_it() {
        let s = "0123456789abcdef0123456789abcdef";
        let c = Credential::new(&format!("{s}\n")).unwrap();
        assert!(c.verify(s));
        assert!(!c.verify("0123456789abcdef0123456789abcdee"));
        assert!(!c.verify(""));
        assert!(!format!("{c:?}").contains("0123"));
        assert!(
            Credential::new("short")
                .unwrap_err()
                .contains("at least 32")
        );
    }
}
