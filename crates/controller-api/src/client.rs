//! A typed client of the controller API (used by `prism ctl` and the
//! tests). The transport is the node API client's HTTP/1 over TCP.

use crate::accounting::{AuditEntry, AuditQuery, UsageReport};
use crate::bookings::{
    Action, ActionRequest, Booking, BookingRequest, ListQuery, Page, RenewRequest, Renewed,
    ResourceType,
};
use crate::error::Error;
use crate::gateway::{PublicAddress, PublicAddressRequest};
use crate::heartbeat::{Heartbeat, HeartbeatAnswer};
use crate::identity::{
    ApiKeyRequest, ApiKeyView, LoginRequest, TokenView, UserRequest, UserView, WhoAmI,
};
use crate::node_keys::{ControllerCertView, NodeKeyRequest, NodeKeyView};
use crate::nodes::{NodeRequest, NodeView};
use crate::projects::{MemberRequest, MemberView, ProjectRequest, ProjectView, ServiceLevel};
use crate::quota::QuotaView;
use prism_node_api::{Endpoint, NodeClient};
use serde::Serialize;
use serde::de::DeserializeOwned;

mod accounting;
mod bookings;
mod identity;
mod images;
mod nodes;
mod observe;
mod shared_vlans;
mod storage;

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cannot reach the controller at {addr} (is `prism controller` running?): {message}")]
    Connect { addr: String, message: String },
    /// TLS refused the controller's certificate: another CA, another name,
    /// expired.
    #[error("the controller at {addr} did not prove who it is (its CA: --ca FILE): {message}")]
    Untrusted { addr: String, message: String },
    #[error("{method} {path}: {status}: {error}")]
    Api {
        method: &'static str,
        path: String,
        status: u16,
        error: Error,
    },
    #[error("{method} {path}: {status}: an answer that is not the API's: {body}")]
    Unexpected {
        method: &'static str,
        path: String,
        status: u16,
        body: String,
    },
    /// A booking asked for by its id or name that the project's live
    /// bookings do not hold.
    #[error("no live booking `{key}` in project {project}")]
    NoBooking { project: String, key: String },
}

/// The address or the CA file given is not one a client can use.
#[derive(Debug, thiserror::Error)]
#[error("the controller {addr}: {message}")]
pub struct AddressError {
    pub addr: String,
    pub message: String,
}

impl ClientError {
    pub fn status(&self) -> Option<u16> {
        match self {
            ClientError::Api { status, .. } | ClientError::Unexpected { status, .. } => {
                Some(*status)
            }
            ClientError::Connect { .. }
            | ClientError::Untrusted { .. }
            | ClientError::NoBooking { .. } => None,
        }
    }

    pub fn api(&self) -> Option<&Error> {
        match self {
            ClientError::Api { error, .. } => Some(error),
            _ => None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct ControllerClient {
    addr: String,
    http: NodeClient,
}

/// What a path segment or query value may not hold unencoded.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// Whether TLS refused the peer's certificate (rustls reports it as an
/// I/O error of kind `InvalidData` wrapping a `rustls::Error`).
fn is_certificate_error(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::InvalidData && e.to_string().contains("certificate")
}

/// `first`, then each pair given (its value encoded), then `limit`.
fn query_string(first: String, pairs: &[(&str, &Option<String>)], limit: Option<usize>) -> String {
    let mut args = vec![first];
    for (k, v) in pairs {
        if let Some(v) = v {
            args.push(format!("{k}={}", seg(v)));
        }
    }
    if let Some(l) = limit {
        args.push(format!("limit={l}"));
    }
    args.join("&")
}

pub(crate) fn seg(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, SEGMENT).to_string()
}

impl std::fmt::Display for ControllerClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.addr)
    }
}

impl ControllerClient {
    /// Plain HTTP to `addr` (`host:port`); `token` a session token or API
    /// key. For a controller on loopback or a test.
    pub fn new(addr: &str, token: Option<String>) -> Self {
        Self {
            addr: addr.to_string(),
            http: NodeClient::new(Endpoint::Tcp {
                addr: addr.to_string(),
                token,
            }),
        }
    }

    /// The controller at `controller` (`https://host:port`, checked
    /// against the CA in `ca` or the system's roots; `http://host:port` or
    /// `host:port` in plain HTTP).
    pub fn connect(
        controller: &str,
        token: Option<String>,
        ca: Option<&std::path::Path>,
    ) -> Result<Self, AddressError> {
        let config = |message: String| AddressError {
            addr: controller.to_string(),
            message,
        };
        let target = prism_http::Target::parse(controller).map_err(|e| config(e.to_string()))?;
        let endpoint =
            Endpoint::of_target(&target, token, ca).map_err(|e| config(e.to_string()))?;
        Ok(Self {
            addr: target.to_string(),
            http: NodeClient::new(endpoint),
        })
    }

    pub fn with_token(&self, token: Option<String>) -> Self {
        Self {
            addr: self.addr.clone(),
            http: self.http.with_token(token),
        }
    }

    /// The same client keeping its connections open between calls
    /// (HTTP/1.1 keep-alive), for many calls from one process.
    pub fn keeping_connections(&self) -> Self {
        Self {
            addr: self.addr.clone(),
            http: self.http.clone().keeping_connections(),
        }
    }

    /// One request: status and body as they came.
    pub async fn raw(
        &self,
        method: &'static str,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<(u16, Vec<u8>), ClientError> {
        self.http
            .raw(method, path, body)
            .await
            .map(|(s, b)| (s, b.to_vec()))
            .map_err(|e| {
                let addr = self.addr.clone();
                // The transport's own words, not the node client's
                // ("cannot reach the node") it is built on.
                match e {
                    prism_node_api::ClientError::Connect { source, .. }
                        if is_certificate_error(&source) =>
                    {
                        let message = source.to_string();
                        ClientError::Untrusted { addr, message }
                    }
                    prism_node_api::ClientError::Connect { source, .. } => ClientError::Connect {
                        addr,
                        message: source.to_string(),
                    },
                    other => ClientError::Connect {
                        addr,
                        message: other.to_string(),
                    },
                }
            })
    }

    pub(crate) async fn call<R: DeserializeOwned>(
        &self,
        method: &'static str,
        path: String,
        body: Option<&(impl Serialize + ?Sized)>,
    ) -> Result<R, ClientError> {
        let body = body.map(|b| serde_json::to_vec(b).unwrap_or_default());
        let (status, bytes) = self.raw(method, &path, body).await?;
        let text = || String::from_utf8_lossy(&bytes).into_owned();
        if (200..300).contains(&status) {
            let bytes = if bytes.is_empty() {
                b"null".to_vec()
            } else {
                bytes.clone()
            };
            return serde_json::from_slice(&bytes).map_err(|_| ClientError::Unexpected {
                method,
                path: path.clone(),
                status,
                body: text(),
            });
        }
        match serde_json::from_slice::<Error>(&bytes) {
            Ok(error) => Err(ClientError::Api {
                method,
                path,
                status,
                error,
            }),
            Err(_) => Err(ClientError::Unexpected {
                method,
                path,
                status,
                body: text(),
            }),
        }
    }
}
