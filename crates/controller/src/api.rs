//! The controller's REST API over axum: authentication and rate limiting
//! in one middleware (which also writes the audit log of mutating calls),
//! typed bodies refused with the field named, one error body everywhere.
//! Its handlers call the application (`crate::app`, through the
//! `Controller`); no SQL is written here.

mod heartbeat;
mod identity;
mod images;
mod leases;
mod openapi;
mod paths;
pub mod portal;
mod projects;
mod public;
mod registry;
mod shared_vlans;
mod storage;

pub use paths::PATHS;

pub use openapi::{ApiDoc, spec_json};

use crate::app::audit_scope::PendingAudit;
use crate::app::heartbeat::NodeCaller;
use crate::controller::Controller;
use crate::error::{Error, ErrorCode};
use crate::infra::secrets::NODE_KEY_PREFIX;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use prism_controller_api::areas::{CallerId, ControllerApi};
use prism_http::Limits;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The largest body accepted.
pub const MAX_BODY: usize = 1 << 20;

/// A token bucket per credential, and per source address for requests
/// without one (429 past `rate_per_s`).
#[derive(Debug)]
struct Limiter {
    rate: f64,
    burst: f64,
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

impl Limiter {
    fn allow(&self, key: &str) -> bool {
        let now = Instant::now();
        let mut m = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if m.len() > 100_000 {
            m.retain(|_, (_, t)| now.duration_since(*t).as_secs() < 60);
        }
        let (tokens, at) = m.entry(key.to_string()).or_insert((self.burst, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * self.rate).min(self.burst);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// The router's state: the API's implementation (the `Controller`, or a
/// test's fake) and the rate limiter.
#[derive(Debug, Clone)]
pub struct App<S> {
    pub ctl: S,
    limiter: Arc<Limiter>,
}

/// The caller's address, where the server knows it (`serve` records it;
/// a router called in-process has none).
#[derive(Debug, Clone, Copy)]
pub struct Source(pub Option<std::net::IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for Source {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Error> {
        let info = parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>();
        Ok(Source(info.map(|c| c.0.ip())))
    }
}

/// A query string as `T`, or 400 with the error body (`field`: `query`).
pub(super) fn query<T>(
    q: std::result::Result<axum::extract::Query<T>, axum::extract::rejection::QueryRejection>,
) -> Result<T, Error> {
    q.map(|axum::extract::Query(t)| t)
        .map_err(|e| Error::invalid(e.body_text()).with_field("query"))
}

/// The authenticated caller, or 401.
#[derive(Debug, Clone)]
pub struct Caller<P>(pub P);

#[derive(Debug, Clone)]
struct Authenticated<P>(Option<P>);

impl<S: Send + Sync, P: Clone + Send + Sync + 'static> FromRequestParts<S> for Caller<P> {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Error> {
        match parts.extensions.get::<Authenticated<P>>() {
            Some(Authenticated(Some(p))) => Ok(Caller(p.clone())),
            _ => Err(Error::unauthorized(
                "this call needs `Authorization: Bearer <token or API key>` (`prism ctl login`)",
            )),
        }
    }
}

/// A JSON body of type `T`, refused with the field named.
#[derive(Debug)]
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = Error;

    async fn from_request(req: Request, state: &S) -> Result<Self, Error> {
        let bytes = Bytes::from_request(req, state).await.map_err(|r| {
            if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
                Error::new(
                    ErrorCode::PayloadTooLarge,
                    format!("a body is at most {MAX_BODY} bytes"),
                )
            } else {
                Error::invalid(r.body_text())
            }
        })?;
        prism_netdoc::from_json(&bytes)
            .map(Body)
            .map_err(|e| Error::invalid(e.message).with_field(e.field))
    }
}

async fn authenticate<S: ControllerApi>(
    State(app): State<App<S>>,
    mut req: Request,
    next: Next,
) -> Response {
    let bearer = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_string);
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    if let Some(b) = bearer.as_deref().filter(|b| b.starts_with(NODE_KEY_PREFIX)) {
        return as_node(app, b, req, next).await;
    }
    // The portal's cookie, where no bearer is given (a login ignores a
    // stale one): a change needs its CSRF token too; an ended session is
    // no session (the page still loads, the API answers 401).
    let cookie = match bearer.is_none() && path != "/portal/login" {
        true => portal::session_cookie(req.headers()),
        false => None,
    };
    if let Some(token) = &cookie {
        let reads = matches!(method, Method::GET | Method::HEAD);
        if !reads && !portal::csrf_ok(req.headers(), token) {
            let e = Error::forbidden(
                "a change made with the portal's session cookie needs its `X-Prism-CSRF` header",
            );
            return refused(&app, &method, &path, e).await;
        }
        let project = project_in_path(&path);
        if let Ok(p) = app
            .ctl
            .authenticate_in(Some(token), project.as_deref())
            .await
        {
            req.extensions_mut()
                .insert(portal::SessionCookie(token.clone()));
            return as_principal(app, Some(p), req, next).await;
        }
    }
    let project = project_in_path(&path);
    let principal = match bearer {
        Some(b) => match app.ctl.authenticate_in(Some(&b), project.as_deref()).await {
            Ok(p) => Some(p),
            Err(e) if method != Method::GET => return refused(&app, &method, &path, e).await,
            Err(e) => return e.into_response(),
        },
        None => None,
    };
    as_principal(app, principal, req, next).await
}

/// `e`'s answer, the refusal audited.
async fn refused<S: ControllerApi>(
    app: &App<S>,
    method: &Method,
    path: &str,
    e: Error,
) -> Response {
    let status = e.code.status().as_u16();
    app.ctl
        .audit_noted(None, method.as_str(), path, status, None)
        .await;
    e.into_response()
}

/// The project a path names (`/v1/projects/{name}…`), decoded as the
/// handlers' `Path` decodes it: read with the caller's credential. A name
/// decoded otherwise only costs the project's own read again.
fn project_in_path(path: &str) -> Option<String> {
    let segment = path.strip_prefix("/v1/projects/")?.split('/').next()?;
    let name = percent_encoding::percent_decode_str(segment)
        .decode_utf8()
        .ok()?;
    (!name.is_empty()).then(|| name.into_owned())
}

/// Serves a request as `principal` (none: anonymous), rate-limited per
/// credential (anonymous: per source address), its change audited.
async fn as_principal<S: ControllerApi>(
    app: App<S>,
    principal: Option<S::Caller>,
    mut req: Request,
    next: Next,
) -> Response {
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    // Requests without a credential are limited per source address: a
    // flood from one address must not stop every other address's logins.
    let peer = req
        .extensions()
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|c| c.0.ip());
    let key = match (&principal, peer) {
        (Some(p), _) => p.credential_id().to_string(),
        (None, Some(ip)) => format!("anonymous:{ip}"),
        (None, None) => "anonymous".to_string(),
    };
    if !app.limiter.allow(&key) {
        return rate_limited();
    }
    req.extensions_mut()
        .insert(Authenticated(principal.clone()));
    let who = principal.as_ref().map(|p| p.user());
    let pending = PendingAudit::new(who, method.as_str(), &path);
    let resp = pending.scope(next.run(req)).await;
    // A login audits itself, with the name tried and the address; a
    // change committed with its audit row is audited already.
    let mut resp = resp;
    portal::harden(&mut resp);
    let status = resp.status().as_u16();
    let login = path == "/v1/login" || path == "/portal/login";
    if method != Method::GET && !login && pending.written() != Some(status) {
        app.ctl
            .audit_noted(who, method.as_str(), &path, status, pending.note())
            .await;
    }
    resp
}

/// 429, with when to try again.
fn rate_limited() -> Response {
    Error::rate_limited("too many requests with this credential; slow down", 1).into_response()
}

/// A node's key: good for heartbeats only. A heartbeat that registers or
/// restarts a node is audited by the controller; the rest would flood the
/// log, so only refusals are.
async fn as_node<S: ControllerApi>(
    app: App<S>,
    bearer: &str,
    mut req: Request,
    next: Next,
) -> Response {
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let node = match app.ctl.node_key(bearer).await {
        Ok(n) => n,
        Err(refused) => {
            // A revoked key's refusal is the node's own entry.
            let who = refused.node.map(|n| format!("node:{n}"));
            let status = refused.error.code.status().as_u16();
            app.ctl
                .audit_noted(who.as_deref(), method.as_str(), &path, status, None)
                .await;
            return refused.error.into_response();
        }
    };
    if !app.limiter.allow(&node.key_id) {
        return rate_limited();
    }
    let who = format!("node:{}", node.node);
    req.extensions_mut().insert(node);
    req.extensions_mut()
        .insert(Authenticated::<S::Caller>(None));
    let resp = next.run(req).await;
    if resp.status() != StatusCode::OK {
        app.ctl
            .audit_noted(
                Some(&who),
                method.as_str(),
                &path,
                resp.status().as_u16(),
                None,
            )
            .await;
    }
    resp
}

/// The node a heartbeat comes from, or 401.
#[derive(Debug, Clone)]
pub struct NodeKey(pub NodeCaller);

impl<S: Send + Sync> FromRequestParts<S> for NodeKey {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Error> {
        parts
            .extensions
            .get::<NodeCaller>()
            .map(|n| NodeKey(n.clone()))
            .ok_or_else(|| {
                Error::unauthorized(
                    "a heartbeat needs `Authorization: Bearer <node key>` (`prism ctl node-key`)",
                )
            })
    }
}

async fn not_found() -> Error {
    Error::new(
        ErrorCode::NotFound,
        "no such path; see docs/api/controller.json",
    )
}

async fn wrong_method() -> Error {
    Error::new(
        ErrorCode::MethodNotAllowed,
        "this path does not take that method",
    )
}

/// The whole API for `ctl` (the `Controller`, or a test's fake).
pub fn router<S: ControllerApi>(ctl: S) -> Router {
    let (rate, burst) = ctl.rate();
    let app = App {
        ctl,
        limiter: Arc::new(Limiter {
            rate,
            burst,
            buckets: Mutex::new(HashMap::new()),
        }),
    };
    identity::routes::<S>()
        .merge(portal::routes::<S>())
        .merge(projects::routes::<S>())
        .merge(registry::routes::<S>())
        .merge(leases::routes::<S>())
        .merge(public::routes::<S>())
        .merge(shared_vlans::routes::<S>())
        .merge(storage::routes::<S>())
        .merge(images::routes::<S>())
        .merge(heartbeat::routes::<S>())
        .fallback(not_found)
        .method_not_allowed_fallback(wrong_method)
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            authenticate::<S>,
        ))
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY))
        .with_state(app)
}

/// Serves the API in plain HTTP on `listener` until the task is dropped
/// (tests, demos on loopback; `prism controller serve` decides when plain
/// HTTP is allowed).
pub async fn serve<S: ControllerApi>(
    ctl: S,
    listener: tokio::net::TcpListener,
) -> std::io::Result<()> {
    serve_with(ctl, listener, None, Limits::default()).await
}

/// Serves `router` (the API's, wrapped: a test's recorder) in plain HTTP
/// on `listener` until the task is dropped.
pub async fn serve_router(
    router: Router,
    listener: tokio::net::TcpListener,
) -> std::io::Result<()> {
    let stats = Arc::new(prism_http::ServeStats::default());
    prism_http::serve(router, listener, None, Limits::default(), stats).await
}

/// Serves the API on `listener`, in TLS with `tls`, until the task is
/// dropped: a connection's handshake and each request's header within
/// `limits` (see [`prism_http::serve`]).
pub async fn serve_with<S: ControllerApi>(
    ctl: S,
    listener: tokio::net::TcpListener,
    tls: Option<prism_http::ServerTls>,
    limits: Limits,
) -> std::io::Result<()> {
    let stats = Arc::new(prism_http::ServeStats::default());
    let audit = audit_handshakes(ctl.clone(), stats.clone());
    let tls = tls.map(prism_http::CurrentTls::fixed);
    tokio::select! {
        r = prism_http::serve(router(ctl), listener, tls, limits, stats) => r,
        _ = audit => Ok(()),
    }
}

/// Writes failed TLS handshakes to the audit log as `tls:ADDRESS`, method
/// `TLS`: how many since the last entry, the last one's reason; one entry
/// per `prism_http::FAILURE_REPORT_EVERY` at most.
async fn audit_handshakes<S: ControllerApi>(ctl: S, stats: Arc<prism_http::ServeStats>) {
    loop {
        let (n, peer, why) = stats.next_failures().await;
        let who = format!("tls:{}", peer.ip());
        let what = format!("handshake refused ({n} since the last entry; the last: {why})");
        ctl.audit_noted(Some(&who), "TLS", &what, 400, None).await;
    }
}

/// `prism controller serve`: the API on `listener` (TLS with `tls`) with
/// the background work (operations resumed, the reaper, the convergence passes)
/// until SIGINT or SIGTERM, then the background work stopped.
pub async fn serve_until_signalled(
    ctl: Controller,
    listener: tokio::net::TcpListener,
    tls: Option<prism_http::ServerTls>,
) -> std::io::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let background = ctl.spawn_background();
    let mut term = signal(SignalKind::terminate())?;
    let served = tokio::select! {
        r = serve_with(ctl.clone(), listener, tls, Limits::default()) => r,
        _ = tokio::signal::ctrl_c() => Ok(()),
        _ = term.recv() => Ok(()),
    };
    background.abort();
    // Another replica takes the background work at once, not at expiry.
    if let Err(e) = ctl.step_down().await {
        eprintln!("prism controller: giving up the background lease: {e}");
    }
    served
}

#[cfg(test)]
mod tests {
    use super::project_in_path;

    #[test]
    fn the_project_a_path_names_is_decoded_as_its_handler_decodes_it() {
        let p = |s: &str| project_in_path(s);
        assert_eq!(p("/v1/projects/exp/bookings").as_deref(), Some("exp"));
        assert_eq!(p("/v1/projects/exp").as_deref(), Some("exp"));
        assert_eq!(p("/v1/projects/a%20b/usage").as_deref(), Some("a b"));
        assert_eq!(p("/v1/projects/%FF/usage"), None, "not UTF-8");
        assert_eq!(p("/v1/projects//bookings"), None);
        assert_eq!(p("/v1/projects"), None);
        assert_eq!(p("/v1/nodes/n1"), None);
    }
}
