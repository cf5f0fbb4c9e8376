//! Serves any [`NodeApi`] over HTTP+JSON, on a Unix socket (root's, by
//! file permission) or on TCP (with the control plane's credential).
//!
//! Bodies are read as bytes and parsed by `prism_netdoc::from_json`, so a
//! refused body names its field, and every error, the framework's own
//! included (unknown path, wrong method, body too large), has the one
//! [`ApiError`] body.

pub(crate) mod maps;
pub(crate) mod processing;

use crate::api::NodeApi;
use crate::auth::{Credential, require_bearer};
use crate::counters::CounterSnapshot;
use crate::desired::{DesiredApplied, DesiredChange, DesiredState};
use crate::error::{ApiError, ErrorCode};
use crate::metrics::{CONTENT_TYPE, NodeMetrics};
use crate::types::{
    Changed, NetworkDetail, NetworkView, NodeEvent, NodeInfo, PortView, PowerView, RateLimitBody,
    ReconfigureBody, Reconfiguring, RoutesBody, RulesBody, TapAnswer, TapBody, TierBody,
};
use axum::body::Bytes;
use axum::extract::{FromRequest, Path, Query, Request, State};
use axum::http::StatusCode;
use axum::routing::{get, post, put};
use axum::{Json, Router};
use prism_netdoc::NetworkDoc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The paths served, as the OpenAPI document names them.
pub const PATHS: [&str; 21] = [
    "/v1/networks",
    "/v1/networks/{name}",
    "/v1/networks/{name}/routes",
    "/v1/networks/{name}/rules",
    "/v1/networks/{name}/rate-limit",
    "/v1/networks/{name}/tier",
    "/v1/counters",
    "/v1/ports",
    "/v1/node",
    "/metrics",
    "/v1/networks/{name}/trace",
    "/v1/networks/{name}/capture",
    "/v1/trace",
    "/v1/networks/{name}/reconfigure",
    "/v1/events",
    "/v1/power",
    "/v1/desired",
    "/v1/processing",
    "/v1/processing/{name}/image",
    "/v1/images/push",
    "/v1/networks/{name}/maps/{map}",
];

/// A JSON body of type `T`, refused with an [`ApiError`] naming the field.
#[derive(Debug)]
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(req, state).await.map_err(|r| {
            let code = if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ErrorCode::PayloadTooLarge
            } else {
                ErrorCode::InvalidInput
            };
            ApiError::new(code, r.body_text())
        })?;
        Ok(Body(prism_netdoc::from_json(&bytes)?))
    }
}

async fn blocking<A: NodeApi, T: Send + 'static>(
    api: Arc<A>,
    f: impl FnOnce(&A) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(move || f(&api))
        .await
        .map_err(|e| ApiError::internal(format!("the change did not complete: {e}")))?
}

type Ans<T> = Result<Json<T>, ApiError>;

#[utoipa::path(get, path = "/v1/networks", tag = "networks",
    responses((status = 200, body = Vec<NetworkView>), (status = "default", body = ApiError)))]
pub(crate) async fn list_networks<A: NodeApi>(State(a): State<Arc<A>>) -> Ans<Vec<NetworkView>> {
    blocking(a, |a| a.list_networks()).await.map(Json)
}

/// Adds a network defined by a document (the fields of a scenario's `[[network]]`).
#[utoipa::path(post, path = "/v1/networks", tag = "networks", request_body = NetworkDoc,
    responses((status = 201, body = Changed), (status = "default", body = ApiError)))]
pub(crate) async fn add_network<A: NodeApi>(
    State(a): State<Arc<A>>,
    Body(doc): Body<NetworkDoc>,
) -> Result<(StatusCode, Json<Changed>), ApiError> {
    let c = blocking(a, move |a| a.add_network(doc)).await?;
    Ok((StatusCode::CREATED, Json(c)))
}

#[utoipa::path(get, path = "/v1/networks/{name}", tag = "networks",
    params(("name" = String, Path, description = "The network's name")),
    responses((status = 200, body = NetworkDetail), (status = "default", body = ApiError)))]
pub(crate) async fn get_network<A: NodeApi>(
    State(a): State<Arc<A>>,
    Path(name): Path<String>,
) -> Ans<NetworkDetail> {
    blocking(a, move |a| a.get_network(&name)).await.map(Json)
}

/// Replaces a network's definition: routes, router, tier, anything.
#[utoipa::path(put, path = "/v1/networks/{name}", tag = "networks", request_body = NetworkDoc,
    params(("name" = String, Path, description = "The network's name")),
    responses((status = 200, body = Changed), (status = "default", body = ApiError)))]
pub(crate) async fn replace_network<A: NodeApi>(
    State(a): State<Arc<A>>,
    Path(name): Path<String>,
    Body(doc): Body<NetworkDoc>,
) -> Ans<Changed> {
    blocking(a, move |a| a.replace_network(&name, doc))
        .await
        .map(Json)
}

/// Removes a network (and its container).
#[utoipa::path(delete, path = "/v1/networks/{name}", tag = "networks",
    params(("name" = String, Path, description = "The network's name")),
    responses((status = 200, body = Changed), (status = "default", body = ApiError)))]
pub(crate) async fn remove_network<A: NodeApi>(
    State(a): State<Arc<A>>,
    Path(name): Path<String>,
) -> Ans<Changed> {
    blocking(a, move |a| a.remove_network(&name))
        .await
        .map(Json)
}

/// Replaces a network's routes, atomically under traffic.
#[utoipa::path(put, path = "/v1/networks/{name}/routes", tag = "networks", request_body = RoutesBody,
    params(("name" = String, Path, description = "The network's name")),
    responses((status = 200, body = Changed), (status = "default", body = ApiError)))]
pub(crate) async fn set_routes<A: NodeApi>(
    State(a): State<Arc<A>>,
    Path(name): Path<String>,
    Body(b): Body<RoutesBody>,
) -> Ans<Changed> {
    blocking(a, move |a| a.set_routes(&name, b)).await.map(Json)
}

/// Replaces a rules network's rule table, atomically under traffic.
#[utoipa::path(put, path = "/v1/networks/{name}/rules", tag = "networks", request_body = RulesBody,
    params(("name" = String, Path, description = "The network's name")),
    responses((status = 200, body = Changed), (status = "default", body = ApiError)))]
pub(crate) async fn set_rules<A: NodeApi>(
    State(a): State<Arc<A>>,
    Path(name): Path<String>,
    Body(b): Body<RulesBody>,
) -> Ans<Changed> {
    blocking(a, move |a| a.set_rules(&name, b)).await.map(Json)
}

/// Sets or removes a network's bandwidth guarantee.
#[utoipa::path(put, path = "/v1/networks/{name}/rate-limit", tag = "networks", request_body = RateLimitBody,
    params(("name" = String, Path, description = "The network's name")),
    responses((status = 200, body = Changed), (status = "default", body = ApiError)))]
pub(crate) async fn set_rate_limit<A: NodeApi>(
    State(a): State<Arc<A>>,
    Path(name): Path<String>,
    Body(b): Body<RateLimitBody>,
) -> Ans<Changed> {
    blocking(a, move |a| a.set_rate_limit(&name, b))
        .await
        .map(Json)
}

/// Moves a network between the tiers (make-before-break).
#[utoipa::path(put, path = "/v1/networks/{name}/tier", tag = "networks", request_body = TierBody,
    params(("name" = String, Path, description = "The network's name")),
    responses((status = 200, body = Changed), (status = "default", body = ApiError)))]
pub(crate) async fn set_tier<A: NodeApi>(
    State(a): State<Arc<A>>,
    Path(name): Path<String>,
    Body(b): Body<TierBody>,
) -> Ans<Changed> {
    blocking(a, move |a| a.set_tier(&name, b)).await.map(Json)
}

/// The pipeline's counters summed over the workers.
#[utoipa::path(get, path = "/v1/counters", tag = "node",
    responses((status = 200, body = CounterSnapshot), (status = "default", body = ApiError)))]
pub(crate) async fn counters<A: NodeApi>(State(a): State<Arc<A>>) -> Ans<CounterSnapshot> {
    blocking(a, |a| a.counters()).await.map(Json)
}

/// Every worker's sockets and their statistics.
#[utoipa::path(get, path = "/v1/ports", tag = "node",
    responses((status = 200, body = Vec<PortView>), (status = "default", body = ApiError)))]
pub(crate) async fn ports<A: NodeApi>(State(a): State<Arc<A>>) -> Ans<Vec<PortView>> {
    blocking(a, |a| a.ports()).await.map(Json)
}

/// The node: device profile, ports, I/O, workers, free hardware slots.
#[utoipa::path(get, path = "/v1/node", tag = "node",
    responses((status = 200, body = NodeInfo), (status = "default", body = ApiError)))]
pub(crate) async fn node<A: NodeApi>(State(a): State<Arc<A>>) -> Ans<NodeInfo> {
    blocking(a, |a| a.node()).await.map(Json)
}

/// The node in OpenMetrics text, for Prometheus (see `metrics` for the
/// families). Over TCP it takes the same bearer credential as every call.
#[utoipa::path(get, path = "/metrics", tag = "node",
    responses((status = 200, content_type = "application/openmetrics-text", body = String),
        (status = "default", body = ApiError)))]
pub(crate) async fn metrics<A: NodeApi>(
    State(a): State<Arc<A>>,
) -> Result<impl axum::response::IntoResponse, ApiError> {
    let text = blocking(a, |a| NodeMetrics::gather(a)?.encode()).await?;
    Ok(([(axum::http::header::CONTENT_TYPE, CONTENT_TYPE)], text))
}

/// Traces the next `count` packets of a network: each stage's decision
/// (parsed key, mapping rule, action, verdict), as VPP's `trace add` does.
#[utoipa::path(post, path = "/v1/networks/{name}/trace", tag = "observe", request_body = TapBody,
    params(("name" = String, Path, description = "The network's name")),
    responses((status = 200, body = TapAnswer), (status = "default", body = ApiError)))]
pub(crate) async fn trace_network<A: NodeApi>(
    State(a): State<Arc<A>>,
    Path(name): Path<String>,
    Body(b): Body<TapBody>,
) -> Ans<TapAnswer> {
    let b = TapBody {
        capture: false,
        ..b
    };
    blocking(a, move |a| a.tap(Some(&name), b)).await.map(Json)
}

/// Captures the next `count` frames of a network at ingress and egress
/// (`prism ctl capture` writes them as pcapng).
#[utoipa::path(post, path = "/v1/networks/{name}/capture", tag = "observe", request_body = TapBody,
    params(("name" = String, Path, description = "The network's name")),
    responses((status = 200, body = TapAnswer), (status = "default", body = ApiError)))]
pub(crate) async fn capture_network<A: NodeApi>(
    State(a): State<Arc<A>>,
    Path(name): Path<String>,
    Body(b): Body<TapBody>,
) -> Ans<TapAnswer> {
    let b = TapBody { capture: true, ..b };
    blocking(a, move |a| a.tap(Some(&name), b)).await.map(Json)
}

/// Traces the next `count` packets of any network, and those mapped to
/// none (to see why a packet is not where it should be).
#[utoipa::path(post, path = "/v1/trace", tag = "observe", request_body = TapBody,
    responses((status = 200, body = TapAnswer), (status = "default", body = ApiError)))]
pub(crate) async fn trace_all<A: NodeApi>(
    State(a): State<Arc<A>>,
    Body(b): Body<TapBody>,
) -> Ans<TapAnswer> {
    let b = TapBody {
        capture: false,
        ..b
    };
    blocking(a, move |a| a.tap(None, b)).await.map(Json)
}

/// Loads a hardware network's new module into its slot: a modelled
/// reconfiguration (`partial`, `fallback` or `full`). Answers when it has
/// started; `GET /v1/events` says when it is done and how long it took.
#[utoipa::path(post, path = "/v1/networks/{name}/reconfigure", tag = "networks",
    request_body = ReconfigureBody,
    params(("name" = String, Path, description = "The network's name")),
    responses((status = 202, body = Reconfiguring), (status = "default", body = ApiError)))]
pub(crate) async fn reconfigure<A: NodeApi>(
    State(a): State<Arc<A>>,
    Path(name): Path<String>,
    Body(b): Body<ReconfigureBody>,
) -> Result<(StatusCode, Json<Reconfiguring>), ApiError> {
    let r = blocking(a, move |a| a.reconfigure(&name, b)).await?;
    Ok((StatusCode::ACCEPTED, Json(r)))
}

/// Which events to return.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
pub struct EventsQuery {
    /// Only events numbered above this one.
    pub since: Option<u64>,
}

/// The node's event log: reconfigurations (started, done, with modelled
/// and measured durations) and automatic moves, oldest first.
#[utoipa::path(get, path = "/v1/events", tag = "observe", params(EventsQuery),
    responses((status = 200, body = Vec<NodeEvent>), (status = "default", body = ApiError)))]
pub(crate) async fn events<A: NodeApi>(
    State(a): State<Arc<A>>,
    Query(q): Query<EventsQuery>,
) -> Ans<Vec<NodeEvent>> {
    blocking(a, move |a| a.events(q.since.unwrap_or(0)))
        .await
        .map(Json)
}

/// The device's power, per region and per network, from the profile's
/// model (never measured).
#[utoipa::path(get, path = "/v1/power", tag = "observe",
    responses((status = 200, body = PowerView), (status = "default", body = ApiError)))]
pub(crate) async fn power<A: NodeApi>(State(a): State<Arc<A>>) -> Ans<PowerView> {
    blocking(a, |a| a.power()).await.map(Json)
}

/// Converges the networks of a scope to a whole desired state, under a
/// generation number: what the control plane sends. Answers per network;
/// one network refused does not stop the others. A generation older than
/// the node's is refused whole (409 `stale_generation`).
#[utoipa::path(put, path = "/v1/desired", tag = "networks", request_body = DesiredState,
    responses((status = 200, body = DesiredApplied), (status = "default", body = ApiError)))]
pub(crate) async fn put_desired<A: NodeApi>(
    State(a): State<Arc<A>>,
    Body(b): Body<DesiredState>,
) -> Ans<DesiredApplied> {
    blocking(a, move |a| a.put_desired(b)).await.map(Json)
}

/// Converges to a change of the desired state the node holds: the
/// networks added, replaced and removed since generation `base`, the rest
/// as the base state sent them. What the control plane sends when the
/// node holds its last state (a change then costs what changed); 409
/// `base_mismatch` when it does not (the sender sends the whole state).
#[utoipa::path(patch, path = "/v1/desired", tag = "networks", request_body = DesiredChange,
    responses((status = 200, body = DesiredApplied), (status = "default", body = ApiError)))]
pub(crate) async fn patch_desired<A: NodeApi>(
    State(a): State<Arc<A>>,
    Body(b): Body<DesiredChange>,
) -> Ans<DesiredApplied> {
    blocking(a, move |a| a.patch_desired(b)).await.map(Json)
}

/// The largest request body: a route table as large as a device profile
/// allows (a million routes per slot, about 100 bytes each as JSON).
pub const MAX_BODY: usize = 128 << 20;

/// The API's routes over `api`.
pub fn router<A: NodeApi>(api: Arc<A>) -> Router {
    router_with_body_limit(api, MAX_BODY)
}

/// As [`router`], refusing bodies over `limit` bytes (413).
pub fn router_with_body_limit<A: NodeApi>(api: Arc<A>, limit: usize) -> Router {
    Router::new()
        .route(PATHS[0], get(list_networks::<A>).post(add_network::<A>))
        .route(
            PATHS[1],
            get(get_network::<A>)
                .put(replace_network::<A>)
                .delete(remove_network::<A>),
        )
        .route(PATHS[2], put(set_routes::<A>))
        .route(PATHS[3], put(set_rules::<A>))
        .route(PATHS[4], put(set_rate_limit::<A>))
        .route(PATHS[5], put(set_tier::<A>))
        .route(PATHS[6], get(counters::<A>))
        .route(PATHS[7], get(ports::<A>))
        .route(PATHS[8], get(node::<A>))
        .route(PATHS[9], get(metrics::<A>))
        .route(PATHS[10], post(trace_network::<A>))
        .route(PATHS[11], post(capture_network::<A>))
        .route(PATHS[12], post(trace_all::<A>))
        .route(PATHS[13], post(reconfigure::<A>))
        .route(PATHS[14], get(events::<A>))
        .route(PATHS[15], get(power::<A>))
        .route(PATHS[16], put(put_desired::<A>).patch(patch_desired::<A>))
        .route(
            PATHS[17],
            get(processing::list_processing::<A>).put(processing::put_processing::<A>),
        )
        .route(PATHS[18], post(processing::save_image::<A>))
        .route(PATHS[19], post(processing::push_image::<A>))
        .route(
            PATHS[20],
            get(maps::read_map::<A>).put(maps::write_map::<A>),
        )
        .fallback(|| async { ApiError::not_found("no such path (see docs/api/node.json)") })
        .method_not_allowed_fallback(|| async {
            ApiError::new(
                ErrorCode::MethodNotAllowed,
                "this path does not take that method (see docs/api/node.json)",
            )
        })
        .layer(axum::extract::DefaultBodyLimit::max(limit))
        .with_state(api)
}

/// Where the API listens.
#[derive(Debug)]
pub enum Listener {
    /// A Unix socket: whoever can open the file may call.
    Unix(std::path::PathBuf),
    /// TCP: every request must carry the credential.
    Tcp(std::net::SocketAddr, Credential),
    /// TCP in mutual TLS with the node's certificate (from the controller;
    /// none yet: every connection refused): only a client whose
    /// certificate the controller's CA signed gets an answer. Refused
    /// handshakes go to the [`Refusals`] report.
    Tls(std::net::SocketAddr, Arc<prism_http::CurrentTls>, Refusals),
}

/// Where a TLS listener reports the handshakes it refused: one line per
/// `prism_http::FAILURE_REPORT_EVERY` at most, however many there were (garbage at
/// line rate must not become a line per connection), with how many and
/// the last one's peer and reason. The node writes them to its log.
#[derive(Clone)]
pub struct Refusals(Arc<dyn Fn(String) + Send + Sync>);

impl Refusals {
    pub fn new(report: impl Fn(String) + Send + Sync + 'static) -> Self {
        Self(Arc::new(report))
    }
}

impl std::fmt::Debug for Refusals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Refusals")
    }
}

async fn report_refusals(stats: Arc<prism_http::ServeStats>, report: Refusals) {
    loop {
        let (n, peer, why) = stats.next_failures().await;
        (report.0)(format!(
            "API on TCP: {n} TLS handshake(s) refused since the last report; the last from {peer}: {why}"
        ));
    }
}

/// Serves `app` on `listener` from a thread of its own (a single-threaded
/// runtime: the fast path never waits on it) until `stop` is set. Returns
/// the address bound (for TCP port 0) and the thread.
pub fn spawn(
    listener: Listener,
    app: Router,
    stop: Arc<AtomicBool>,
) -> std::io::Result<(String, std::thread::JoinHandle<()>)> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let shutdown = async move {
        while !stop.load(Ordering::Relaxed) {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    };
    match listener {
        Listener::Unix(path) => {
            let _ = std::fs::remove_file(&path);
            let l = rt.block_on(async { tokio::net::UnixListener::bind(&path) })?;
            let at = path.display().to_string();
            let t = std::thread::spawn(move || {
                rt.block_on(async move {
                    let _ = axum::serve(l, app).with_graceful_shutdown(shutdown).await;
                });
                let _ = std::fs::remove_file(&path);
            });
            Ok((at, t))
        }
        Listener::Tcp(addr, cred) => {
            let app = app.layer(axum::middleware::from_fn_with_state(cred, require_bearer));
            let l = rt.block_on(async { tokio::net::TcpListener::bind(addr).await })?;
            let at = l.local_addr()?.to_string();
            let t = std::thread::spawn(move || {
                rt.block_on(async move {
                    let _ = axum::serve(l, app).with_graceful_shutdown(shutdown).await;
                });
            });
            Ok((at, t))
        }
        Listener::Tls(addr, tls, report) => {
            let l = rt.block_on(async { tokio::net::TcpListener::bind(addr).await })?;
            let at = l.local_addr()?.to_string();
            let stats = Arc::new(prism_http::ServeStats::default());
            let limits = prism_http::Limits::default();
            let t = std::thread::spawn(move || {
                rt.block_on(async move {
                    tokio::select! {
                        _ = prism_http::serve(app, l, Some(tls), limits, stats.clone()) => {}
                        _ = report_refusals(stats, report) => {}
                        _ = shutdown => {}
                    }
                });
            });
            Ok((at, t))
        }
    }
}
