//! The server loop: accepts TCP connections, completes TLS when there is
//! a configuration, and serves HTTP/1.1 with keep-alive to an axum router
//! that sees each request's peer as `ConnectInfo<SocketAddr>`.
//!
//! Each connection is its own task under a cap; a TLS handshake has
//! [`Limits::handshake`] to finish and a request's header
//! [`Limits::header`] to arrive, so half-open, slow or garbage connections
//! end on their own and never hold the accept loop (axum's own `serve` has
//! neither timeout).

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;

/// Whether a request came over TLS, in every request's extensions (a
/// cookie is `Secure` only where the connection is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transport {
    pub tls: bool,
}

/// How long a connection may take at each step, and how many there may be.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub handshake: Duration,
    /// From the connection's start or the last answer to a whole header
    /// (so also how long an idle keep-alive connection stays).
    pub header: Duration,
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            handshake: Duration::from_secs(10),
            header: Duration::from_secs(30),
            max_connections: 4096,
        }
    }
}

/// How often failed handshakes are reported (the controller's audit log,
/// a node's log): one entry per period at most, however many there were
/// (garbage at line rate must not become a write per connection).
pub const FAILURE_REPORT_EVERY: Duration = Duration::from_secs(2);

/// What the loop saw, for the server's log and metrics.
#[derive(Debug, Default)]
pub struct ServeStats {
    pub accepted: AtomicU64,
    /// TLS handshakes that failed or timed out (garbage, plain HTTP to
    /// the TLS port, an untrusted client).
    pub handshake_failures: AtomicU64,
    pub open: AtomicU64,
    /// The failures already reported, and the last one's peer and why.
    reported: AtomicU64,
    last_failure: std::sync::Mutex<Option<(SocketAddr, String)>>,
}

impl ServeStats {
    fn handshake_failed(&self, peer: SocketAddr, why: String) {
        if let Ok(mut l) = self.last_failure.lock() {
            *l = Some((peer, why));
        }
        self.handshake_failures.fetch_add(1, Ordering::Relaxed);
    }

    /// The handshakes that failed since the last call (if any), with the
    /// last one's peer and reason: for a log that must not grow with
    /// every garbage connection.
    /// Waits, a [`FAILURE_REPORT_EVERY`] at a time, until some handshakes
    /// have failed since the last report; then what
    /// [`Self::unreported_failures`] says. For a report that writes one
    /// line (or audit entry) per period at most.
    pub async fn next_failures(&self) -> (u64, SocketAddr, String) {
        loop {
            tokio::time::sleep(FAILURE_REPORT_EVERY).await;
            if let Some(f) = self.unreported_failures() {
                return f;
            }
        }
    }

    pub fn unreported_failures(&self) -> Option<(u64, SocketAddr, String)> {
        let now = self.handshake_failures.load(Ordering::Relaxed);
        let before = self.reported.swap(now, Ordering::Relaxed);
        let (peer, why) = self.last_failure.lock().ok()?.clone()?;
        (now > before).then_some((now - before, peer, why))
    }
}

/// The TLS configuration a listener completes handshakes with: fixed
/// (the controller's certificate) or replaced while it serves (a node's
/// certificate, renewed by its heartbeats). While it holds none, every
/// connection is refused at once: a node serves nothing on TCP before the
/// controller has given it an identity.
#[derive(Debug, Default)]
pub struct CurrentTls(std::sync::RwLock<Option<Arc<rustls::ServerConfig>>>);

impl CurrentTls {
    pub fn fixed(config: Arc<rustls::ServerConfig>) -> Arc<Self> {
        Arc::new(Self(std::sync::RwLock::new(Some(config))))
    }

    /// Takes effect from the next connection.
    pub fn set(&self, config: Arc<rustls::ServerConfig>) {
        if let Ok(mut c) = self.0.write() {
            *c = Some(config);
        }
    }

    pub fn get(&self) -> Option<Arc<rustls::ServerConfig>> {
        self.0.read().ok().and_then(|c| c.clone())
    }
}

/// Serves `router` on `listener` (TLS with `tls`) until the future is
/// dropped.
pub async fn serve(
    router: Router,
    listener: TcpListener,
    tls: Option<Arc<CurrentTls>>,
    limits: Limits,
    stats: Arc<ServeStats>,
) -> std::io::Result<()> {
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    loop {
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return Ok(());
        };
        let (tcp, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(e) if is_transient(&e) => {
                // Out of descriptors or the peer gave up: later, not never.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
            Err(e) => return Err(e),
        };
        let _ = tcp.set_nodelay(true);
        stats.accepted.fetch_add(1, Ordering::Relaxed);
        let acceptor = tls
            .as_ref()
            .map(|t| t.get().map(tokio_rustls::TlsAcceptor::from));
        let (router, stats) = (router.clone(), stats.clone());
        tokio::spawn(async move {
            let _slot = slot;
            stats.open.fetch_add(1, Ordering::Relaxed);
            match acceptor {
                None => serve_connection(tcp, peer, false, router, limits).await,
                Some(Some(a)) => {
                    match tokio::time::timeout(limits.handshake, a.accept(tcp)).await {
                        Ok(Ok(s)) => serve_connection(s, peer, true, router, limits).await,
                        Ok(Err(e)) => stats.handshake_failed(peer, e.to_string()),
                        Err(_) => stats.handshake_failed(
                            peer,
                            format!("no handshake within {:?}", limits.handshake),
                        ),
                    }
                }
                // No certificate yet: nothing to shake hands with.
                Some(None) => stats.handshake_failed(peer, "no certificate yet".into()),
            }
            stats.open.fetch_sub(1, Ordering::Relaxed);
        });
    }
}

fn is_transient(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    // ENFILE (23), EMFILE (24): out of descriptors, for now.
    matches!(e.kind(), ConnectionAborted | ConnectionReset | Interrupted)
        || matches!(e.raw_os_error(), Some(23 | 24))
}

async fn serve_connection<I>(io: I, peer: SocketAddr, tls: bool, router: Router, limits: Limits)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
        let mut req = req.map(axum::body::Body::new);
        req.extensions_mut().insert(ConnectInfo(peer));
        req.extensions_mut().insert(Transport { tls });
        let mut router = router.clone();
        // A router is always ready: `call` needs no `poll_ready` first.
        async move { tower_service::Service::call(&mut router, req).await }
    });
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header)
        .keep_alive(true);
    // A connection that ends badly (reset, timed out) ends only itself.
    let _ = http.serve_connection(TokioIo::new(io), service).await;
}
