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
            ClientError::Connect { .. } | ClientError::Untrusted { .. } => None,
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

    pub async fn login(&self, r: &LoginRequest) -> Result<TokenView, ClientError> {
        self.call("POST", "/v1/login".into(), Some(r)).await
    }
    pub async fn logout(&self) -> Result<(), ClientError> {
        self.call("POST", "/v1/logout".into(), None::<&()>).await
    }
    pub async fn whoami(&self) -> Result<WhoAmI, ClientError> {
        self.call("GET", "/v1/whoami".into(), None::<&()>).await
    }
    pub async fn create_user(&self, r: &UserRequest) -> Result<UserView, ClientError> {
        self.call("POST", "/v1/users".into(), Some(r)).await
    }
    pub async fn put_service_level(&self, l: &ServiceLevel) -> Result<ServiceLevel, ClientError> {
        self.call(
            "PUT",
            format!("/v1/service-levels/{}", seg(&l.name)),
            Some(l),
        )
        .await
    }
    pub async fn create_project(&self, r: &ProjectRequest) -> Result<ProjectView, ClientError> {
        self.call("POST", "/v1/projects".into(), Some(r)).await
    }
    pub async fn list_projects(&self) -> Result<Vec<ProjectView>, ClientError> {
        self.call("GET", "/v1/projects".into(), None::<&()>).await
    }
    pub async fn set_member(
        &self,
        project: &str,
        user: &str,
        r: &MemberRequest,
    ) -> Result<MemberView, ClientError> {
        self.call(
            "PUT",
            format!("/v1/projects/{}/members/{}", seg(project), seg(user)),
            Some(r),
        )
        .await
    }
    pub async fn create_api_key(
        &self,
        project: &str,
        r: &ApiKeyRequest,
    ) -> Result<ApiKeyView, ClientError> {
        self.call(
            "POST",
            format!("/v1/projects/{}/api-keys", seg(project)),
            Some(r),
        )
        .await
    }
    pub async fn revoke_api_key(&self, project: &str, id: &str) -> Result<(), ClientError> {
        self.call(
            "DELETE",
            format!("/v1/projects/{}/api-keys/{}", seg(project), seg(id)),
            None::<&()>,
        )
        .await
    }
    pub async fn register_node(&self, r: &NodeRequest) -> Result<NodeView, ClientError> {
        self.call("POST", "/v1/nodes".into(), Some(r)).await
    }
    pub async fn list_nodes(&self) -> Result<Vec<NodeView>, ClientError> {
        self.call("GET", "/v1/nodes".into(), None::<&()>).await
    }
    pub async fn create_node_key(&self, node: &str) -> Result<NodeKeyView, ClientError> {
        let r = NodeKeyRequest { node: node.into() };
        self.call("POST", "/v1/node-keys".into(), Some(&r)).await
    }
    pub async fn list_node_keys(&self) -> Result<Vec<NodeKeyView>, ClientError> {
        self.call("GET", "/v1/node-keys".into(), None::<&()>).await
    }
    pub async fn revoke_node_key(&self, id: &str) -> Result<(), ClientError> {
        self.call("DELETE", format!("/v1/node-keys/{}", seg(id)), None::<&()>)
            .await
    }
    pub async fn controller_certificates(&self) -> Result<Vec<ControllerCertView>, ClientError> {
        self.call("GET", "/v1/controller-certificates".into(), None::<&()>)
            .await
    }
    pub async fn revoke_controller_certificate(&self, serial: &str) -> Result<(), ClientError> {
        let path = format!("/v1/controller-certificates/{}", seg(serial));
        self.call("DELETE", path, None::<&()>).await
    }
    /// A node's heartbeat; the client's token is the node key.
    pub async fn heartbeat(&self, h: &Heartbeat) -> Result<HeartbeatAnswer, ClientError> {
        self.call("POST", "/v1/nodes/heartbeat".into(), Some(h))
            .await
    }
    pub async fn register_type(&self, t: &ResourceType) -> Result<ResourceType, ClientError> {
        self.call("POST", "/v1/resource-types".into(), Some(t))
            .await
    }
    pub async fn book(&self, project: &str, r: &BookingRequest) -> Result<Booking, ClientError> {
        self.call(
            "POST",
            format!("/v1/projects/{}/bookings", seg(project)),
            Some(r),
        )
        .await
    }
    pub async fn bookings(
        &self,
        project: &str,
        all: bool,
        after: Option<&str>,
    ) -> Result<Page<Booking>, ClientError> {
        let mut path = format!("/v1/projects/{}/bookings?all={all}", seg(project));
        if let Some(a) = after {
            path.push_str(&format!("&after={}", seg(a)));
        }
        self.call("GET", path, None::<&()>).await
    }
    /// A page of the project's bookings as `q` asks (name, state, page).
    pub async fn find_bookings(
        &self,
        project: &str,
        q: &ListQuery,
    ) -> Result<Page<Booking>, ClientError> {
        let first = format!("all={}", q.all);
        let pairs = [("after", &q.after), ("name", &q.name), ("state", &q.state)];
        let args = query_string(first, &pairs, q.limit);
        let path = format!("/v1/projects/{}/bookings?{args}", seg(project));
        self.call("GET", path, None::<&()>).await
    }
    /// Every page of [`Self::bookings`].
    pub async fn all_bookings(
        &self,
        project: &str,
        all: bool,
    ) -> Result<Vec<Booking>, ClientError> {
        let mut items = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let page = self.bookings(project, all, after.as_deref()).await?;
            items.extend(page.items);
            match page.next {
                Some(n) => after = Some(n),
                None => return Ok(items),
            }
        }
    }
    pub async fn booking(&self, project: &str, id: &str) -> Result<Booking, ClientError> {
        self.call(
            "GET",
            format!("/v1/projects/{}/bookings/{}", seg(project), seg(id)),
            None::<&()>,
        )
        .await
    }
    pub async fn provision(&self, project: &str, id: &str) -> Result<Booking, ClientError> {
        self.call(
            "POST",
            format!(
                "/v1/projects/{}/bookings/{}/provision",
                seg(project),
                seg(id)
            ),
            None::<&()>,
        )
        .await
    }
    pub async fn renew(
        &self,
        project: &str,
        id: &str,
        lease_s: i64,
    ) -> Result<Renewed, ClientError> {
        self.call(
            "POST",
            format!("/v1/projects/{}/bookings/{}/renew", seg(project), seg(id)),
            Some(&RenewRequest { lease_s }),
        )
        .await
    }
    pub async fn act(
        &self,
        project: &str,
        id: &str,
        action: Action,
    ) -> Result<Booking, ClientError> {
        self.call(
            "POST",
            format!("/v1/projects/{}/bookings/{}/action", seg(project), seg(id)),
            Some(&ActionRequest { action }),
        )
        .await
    }
    pub async fn release(&self, project: &str, id: &str) -> Result<Booking, ClientError> {
        self.call(
            "DELETE",
            format!("/v1/projects/{}/bookings/{}", seg(project), seg(id)),
            None::<&()>,
        )
        .await
    }
    /// Leases a public address (the gateway service).
    pub async fn lease_public(
        &self,
        project: &str,
        r: &PublicAddressRequest,
    ) -> Result<PublicAddress, ClientError> {
        let path = format!("/v1/projects/{}/public-addresses", seg(project));
        self.call("POST", path, Some(r)).await
    }
    pub async fn public_addresses(
        &self,
        project: &str,
        all: bool,
    ) -> Result<Vec<PublicAddress>, ClientError> {
        let path = format!("/v1/projects/{}/public-addresses?all={all}", seg(project));
        self.call("GET", path, None::<&()>).await
    }
    pub async fn renew_public(
        &self,
        project: &str,
        address: &str,
        lease_s: i64,
    ) -> Result<Renewed, ClientError> {
        let path = format!(
            "/v1/projects/{}/public-addresses/{}/renew",
            seg(project),
            seg(address)
        );
        self.call("POST", path, Some(&RenewRequest { lease_s }))
            .await
    }
    pub async fn release_public(
        &self,
        project: &str,
        address: &str,
    ) -> Result<PublicAddress, ClientError> {
        let path = format!(
            "/v1/projects/{}/public-addresses/{}",
            seg(project),
            seg(address)
        );
        self.call("DELETE", path, None::<&()>).await
    }
    pub async fn quota(&self, project: &str) -> Result<QuotaView, ClientError> {
        self.call(
            "GET",
            format!("/v1/projects/{}/quota", seg(project)),
            None::<&()>,
        )
        .await
    }
    pub async fn usage(
        &self,
        project: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<UsageReport, ClientError> {
        self.call(
            "GET",
            format!(
                "/v1/projects/{}/usage?from_ms={from_ms}&to_ms={to_ms}",
                seg(project)
            ),
            None::<&()>,
        )
        .await
    }
    pub async fn usage_csv(
        &self,
        project: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<String, ClientError> {
        let path = format!(
            "/v1/projects/{}/usage?from_ms={from_ms}&to_ms={to_ms}&format=csv",
            seg(project)
        );
        let (status, body) = self.raw("GET", &path, None).await?;
        let text = String::from_utf8_lossy(&body).into_owned();
        if status == 200 {
            Ok(text)
        } else {
            Err(ClientError::Unexpected {
                method: "GET",
                path,
                status,
                body: text,
            })
        }
    }
    pub async fn audit(&self, after: Option<&str>) -> Result<Page<AuditEntry>, ClientError> {
        let path = match after {
            Some(a) => format!("/v1/audit?after={}", seg(a)),
            None => "/v1/audit".into(),
        };
        self.call("GET", path, None::<&()>).await
    }

    /// A page of the audit log as `q` asks (order, principal, path).
    pub async fn audit_where(&self, q: &AuditQuery) -> Result<Page<AuditEntry>, ClientError> {
        let first = format!("newest_first={}", q.newest_first);
        let pairs = [
            ("after", &q.after),
            ("principal", &q.principal),
            ("path", &q.path),
        ];
        let args = query_string(first, &pairs, q.limit);
        self.call("GET", format!("/v1/audit?{args}"), None::<&()>)
            .await
    }

    /// Every page of [`Self::audit`].
    pub async fn all_audit(&self) -> Result<Vec<AuditEntry>, ClientError> {
        let mut items = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let page = self.audit(after.as_deref()).await?;
            items.extend(page.items);
            match page.next {
                Some(n) => after = Some(n),
                None => return Ok(items),
            }
        }
    }
}
