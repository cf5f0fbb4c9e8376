//! A typed client of the node API, over the node's Unix socket or over TCP
//! with the control plane's credential. Used by `prism ctl`, the tests and
//! (next) the controller.

use crate::error::ApiError;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::body::Bytes;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::path::PathBuf;

mod calls;

/// Where the node is.
#[derive(Clone)]
pub enum Endpoint {
    Unix(PathBuf),
    /// `host:port`, and the bearer token to send.
    Tcp {
        addr: String,
        token: Option<String>,
    },
    /// TLS over TCP to `addr`, the server checked by `tls`.
    Tls {
        addr: String,
        token: Option<String>,
        tls: prism_http::ClientTls,
    },
}

impl Endpoint {
    /// TCP to `addr` with the bearer token kept in file `file` (a node's
    /// credential file, as `prism node --api-credential-file` reads it).
    pub fn tcp_with_token_file(addr: &str, file: &std::path::Path) -> std::io::Result<Self> {
        let token = std::fs::read_to_string(file).map_err(|e| {
            std::io::Error::new(e.kind(), format!("credential file {}: {e}", file.display()))
        })?;
        Ok(Endpoint::Tcp {
            addr: addr.to_string(),
            token: Some(token.trim().to_string()),
        })
    }

    /// The same place with another bearer token (a Unix socket has none).
    pub fn with_token(&self, token: Option<String>) -> Self {
        match self {
            Endpoint::Unix(p) => Endpoint::Unix(p.clone()),
            Endpoint::Tcp { addr, .. } => Endpoint::Tcp {
                addr: addr.clone(),
                token,
            },
            Endpoint::Tls { addr, tls, .. } => Endpoint::Tls {
                addr: addr.clone(),
                token,
                tls: tls.clone(),
            },
        }
    }

    /// The endpoint of `target` (`https://…` with TLS, trusting `ca` or
    /// the system's roots; plain otherwise).
    pub fn of_target(
        target: &prism_http::Target,
        token: Option<String>,
        ca: Option<&std::path::Path>,
    ) -> Result<Self, prism_http::TlsError> {
        let addr = target.addr.clone();
        Ok(if target.tls {
            let tls = prism_http::ClientTls::new(&target.host, ca)?;
            Endpoint::Tls { addr, token, tls }
        } else {
            Endpoint::Tcp { addr, token }
        })
    }
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Endpoint::Unix(p) => write!(f, "unix:{}", p.display()),
            Endpoint::Tcp { addr, .. } => write!(f, "tcp:{addr}"),
            Endpoint::Tls { addr, .. } => write!(f, "https://{addr}"),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cannot reach the node at {at:?} (is `prism node` running?): {source}")]
    Connect {
        at: Endpoint,
        source: std::io::Error,
    },
    #[error("{method} {path}: {status}: {error}")]
    Api {
        method: &'static str,
        path: String,
        status: u16,
        error: ApiError,
    },
    #[error("{method} {path}: {status}: an answer that is not the API's: {body}")]
    Unexpected {
        method: &'static str,
        path: String,
        status: u16,
        body: String,
    },
    #[error("HTTP: {0}")]
    Http(String),
    /// The node took the connection (or not) and did not answer in time:
    /// a hung node must not hold its caller for ever.
    #[error("{what}: no answer from the node within {after:?}")]
    Timeout {
        /// The method, path and endpoint, in one string: the error stays
        /// small.
        what: String,
        after: std::time::Duration,
    },
}

impl ClientError {
    /// The API's error, if the node answered with one.
    pub fn api(&self) -> Option<&ApiError> {
        match self {
            ClientError::Api { error, .. } => Some(error),
            _ => None,
        }
    }

    pub fn status(&self) -> Option<u16> {
        match self {
            ClientError::Api { status, .. } | ClientError::Unexpected { status, .. } => {
                Some(*status)
            }
            _ => None,
        }
    }
}

/// The error a non-2xx answer carries: the API's body, or what came.
fn error_of(method: &'static str, path: String, status: u16, bytes: &[u8]) -> ClientError {
    match serde_json::from_slice::<ApiError>(bytes) {
        Ok(error) => ClientError::Api {
            method,
            path,
            status,
            error,
        },
        Err(_) => ClientError::Unexpected {
            method,
            path,
            status,
            body: String::from_utf8_lossy(bytes).into_owned(),
        },
    }
}

fn http(e: impl std::fmt::Display) -> ClientError {
    ClientError::Http(e.to_string())
}

/// What a path segment may not hold unencoded (RFC 3986 unreserved stays).
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// `s` as one path segment.
fn seg(s: &str) -> String {
    utf8_percent_encode(s, SEGMENT).to_string()
}

fn net(name: &str, rest: &str) -> String {
    format!("/v1/networks/{}{rest}", utf8_percent_encode(name, SEGMENT))
}

/// One HTTP/1.1 connection's sending half.
type Sender = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

/// The most idle connections a client keeps open.
const IDLE_MAX: usize = 64;

/// How long a call may take, connection included, unless told
/// (`NodeClient::with_timeout`): longer than any call a working node
/// makes its caller wait for (a desired state starting containers, a
/// trace waiting for packets gets its own wait on top).
pub const CALL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// How long a connection (TCP, and TLS's handshake) may take to open,
/// unless told (`NodeClient::with_connect_timeout`): a node that is up
/// accepts in milliseconds; one whose address drops packets must not hold
/// its caller for the kernel's SYN retries (about two minutes).
pub const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3);

/// The longest a trace or capture waits for its packets (`TapBody`).
const TAP_MAX_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

#[derive(Clone)]
pub struct NodeClient {
    endpoint: Endpoint,
    /// Connections kept open between calls (`keeping_connections`).
    idle: Option<std::sync::Arc<std::sync::Mutex<Vec<Sender>>>>,
    timeout: std::time::Duration,
    connect_timeout: std::time::Duration,
}

impl std::fmt::Debug for NodeClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NodeClient({:?})", self.endpoint)
    }
}

impl NodeClient {
    /// A client that opens a connection per call.
    pub fn new(endpoint: Endpoint) -> Self {
        Self {
            endpoint,
            idle: None,
            timeout: CALL_TIMEOUT,
            connect_timeout: CONNECT_TIMEOUT,
        }
    }

    /// The same client with calls ended (`ClientError::Timeout`) after
    /// `timeout` instead of [`CALL_TIMEOUT`].
    pub fn with_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The same client with a connection not opened within `timeout`
    /// failed (`ClientError::Timeout`) instead of [`CONNECT_TIMEOUT`].
    pub fn with_connect_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// The same client keeping connections open between calls (HTTP/1.1
    /// keep-alive; up to 64 idle), shared by its clones: for a client
    /// making many calls (a benchmark, an SDK session), not for one
    /// command.
    pub fn keeping_connections(mut self) -> Self {
        self.idle = Some(Default::default());
        self
    }

    /// Whether this client keeps connections open.
    pub fn keeps_connections(&self) -> bool {
        self.idle.is_some()
    }

    /// The same client (sharing its kept connections, if any) with
    /// another bearer token.
    pub fn with_token(&self, token: Option<String>) -> Self {
        Self {
            endpoint: self.endpoint.with_token(token),
            idle: self.idle.clone(),
            timeout: self.timeout,
            connect_timeout: self.connect_timeout,
        }
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// One request; the raw status and body. Ends after the client's
    /// timeout whatever the node does (a connection half-closed by the
    /// drop).
    pub async fn raw(
        &self,
        method: &'static str,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<(u16, Bytes), ClientError> {
        let after = self.timeout;
        tokio::time::timeout(after, self.raw_unbounded(method, path, body))
            .await
            .unwrap_or_else(|_| {
                Err(ClientError::Timeout {
                    what: format!("{method} {path} at {:?}", self.endpoint),
                    after,
                })
            })
    }

    async fn raw_unbounded(
        &self,
        method: &'static str,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<(u16, Bytes), ClientError> {
        let body = Bytes::from(body.unwrap_or_default());
        let request = || {
            let mut req = Request::builder()
                .method(method)
                .uri(path)
                .header("host", "prism-node")
                .header("content-type", "application/json");
            if let Endpoint::Tcp { token: Some(t), .. } | Endpoint::Tls { token: Some(t), .. } =
                &self.endpoint
            {
                req = req.header("authorization", format!("Bearer {t}"));
            }
            req.body(Full::new(body.clone())).map_err(http)
        };
        let (mut tx, reused) = match self.idle_sender().await {
            Some(tx) => (tx, true),
            None => (self.open().await?, false),
        };
        let resp = match tx.send_request(request()?).await {
            Ok(r) => r,
            // A kept connection the server closed before it took the
            // request (so it was not sent): once more on a new one.
            Err(e) if reused && e.is_canceled() => {
                tx = self.open().await?;
                tx.send_request(request()?).await.map_err(http)?
            }
            Err(e) => return Err(http(e)),
        };
        let status = resp.status().as_u16();
        let bytes = resp.into_body().collect().await.map_err(http)?.to_bytes();
        if let Some(pool) = &self.idle
            && !tx.is_closed()
            && let Ok(mut idle) = pool.lock()
            && idle.len() < IDLE_MAX
        {
            idle.push(tx);
        }
        Ok((status, bytes))
    }

    /// A kept connection ready for a request, if there is one.
    async fn idle_sender(&self) -> Option<Sender> {
        let pool = self.idle.as_ref()?;
        loop {
            let mut tx = pool.lock().ok()?.pop()?;
            if tx.ready().await.is_ok() {
                return Some(tx);
            }
        }
    }

    /// A new connection to the endpoint, its HTTP/1.1 handshake done,
    /// within the connect timeout.
    async fn open(&self) -> Result<Sender, ClientError> {
        let after = self.connect_timeout;
        tokio::time::timeout(after, self.open_unbounded())
            .await
            .unwrap_or_else(|_| {
                Err(ClientError::Timeout {
                    what: format!("connecting to {:?}", self.endpoint),
                    after,
                })
            })
    }

    async fn open_unbounded(&self) -> Result<Sender, ClientError> {
        let connect = |source| ClientError::Connect {
            at: self.endpoint.clone(),
            source,
        };
        match &self.endpoint {
            Endpoint::Unix(p) => {
                let s = tokio::net::UnixStream::connect(p).await.map_err(connect)?;
                handshake(hyper_util::rt::TokioIo::new(s)).await
            }
            Endpoint::Tcp { addr, .. } | Endpoint::Tls { addr, .. } => {
                let s = tokio::net::TcpStream::connect(addr)
                    .await
                    .map_err(connect)?;
                // A request is written whole; with kept connections,
                // Nagle would hold the next one for the last one's ACK.
                let _ = s.set_nodelay(true);
                match &self.endpoint {
                    Endpoint::Tls { tls, .. } => {
                        let s = tls.connect(s).await.map_err(connect)?;
                        handshake(hyper_util::rt::TokioIo::new(s)).await
                    }
                    _ => handshake(hyper_util::rt::TokioIo::new(s)).await,
                }
            }
        }
    }

    pub(crate) async fn call<R: DeserializeOwned>(
        &self,
        method: &'static str,
        path: String,
        body: Option<&(impl Serialize + ?Sized)>,
    ) -> Result<R, ClientError> {
        let body = body.map(serde_json::to_vec).transpose().map_err(http)?;
        let (status, bytes) = self.raw(method, &path, body).await?;
        if (200..300).contains(&status) {
            return serde_json::from_slice(&bytes).map_err(|_| ClientError::Unexpected {
                method,
                path,
                status,
                body: String::from_utf8_lossy(&bytes).into_owned(),
            });
        }
        Err(error_of(method, path, status, &bytes))
    }
}

/// The HTTP/1.1 handshake over `io`; its connection driven by a task.
async fn handshake<S>(io: S) -> Result<Sender, ClientError>
where
    S: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (tx, conn) = hyper::client::conn::http1::handshake(io)
        .await
        .map_err(http)?;
    tokio::spawn(conn);
    Ok(tx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_encoded_as_one_segment() {
        assert_eq!(net("a/b c", "/tier"), "/v1/networks/a%2Fb%20c/tier");
        assert_eq!(net("hw-red_1.x", ""), "/v1/networks/hw-red_1.x");
    }
}
