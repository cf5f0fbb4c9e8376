//! The node API: HTTP+JSON on a Unix socket (spec: docs/api/openapi.yaml).
//!
//! Every change goes through the `Substrate`, which checks it against the
//! device profile, compiles a whole new `Dataplane` and publishes it with
//! one pointer store: a packet sees the old tables or the new ones, never a
//! mix. A refused change leaves everything as it was.
//!
//! Software-tier networks' routes live in their container's router, so
//! route changes and removal are for hardware-tier networks in this
//! version; rate limits apply to both (they are enforced at the output
//! stage).

use super::node::WorkerReport;
use anyhow::Result;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};
use axum::{Json, Router};
use prism_pipeline::{Action, CounterSnapshot, ForwardingSpec, Substrate, Tier};
use prism_tables::Ipv4Prefix;
use prism_wire::EthernetAddress;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

#[derive(Clone)]
pub struct ApiState {
    pub substrate: Arc<Mutex<Substrate>>,
    pub reports: Arc<Mutex<Vec<WorkerReport>>>,
}

/// The paths the router serves, as the OpenAPI spec names them.
pub const PATHS: [&str; 5] = [
    "/v1/networks",
    "/v1/networks/{name}",
    "/v1/networks/{name}/routes",
    "/v1/networks/{name}/rate-limit",
    "/v1/counters",
];

pub fn router(state: ApiState) -> Router {
    Router::new()
        .route(PATHS[0], get(list))
        .route(PATHS[1], get(show).delete(remove))
        .route(PATHS[2], put(set_routes))
        .route(PATHS[3], put(set_rate))
        .route(PATHS[4], get(counters))
        .with_state(state)
}

#[derive(Debug, Serialize)]
struct NetworkView {
    id: u16,
    name: String,
    tier: &'static str,
    forwarding: &'static str,
    entries: usize,
    rate_bps: Option<u64>,
    burst_bytes: Option<u64>,
}

#[derive(Debug, Serialize)]
struct ApiError {
    error: String,
}

fn err(code: StatusCode, msg: impl Into<String>) -> Response {
    (code, Json(ApiError { error: msg.into() })).into_response()
}

fn view(id: u16, s: &prism_pipeline::NetworkSpec) -> NetworkView {
    NetworkView {
        id,
        name: s.name.clone(),
        tier: s.tier.as_str(),
        forwarding: s.forwarding.module().as_str(),
        entries: s.forwarding.entries(),
        rate_bps: s.rate_limit.map(|r| r.0),
        burst_bytes: s.rate_limit.map(|r| r.1),
    }
}

async fn list(State(st): State<ApiState>) -> Response {
    let s = st.substrate.lock().unwrap_or_else(|e| e.into_inner());
    let v: Vec<NetworkView> = s.networks().map(|(id, n)| view(id, n)).collect();
    Json(v).into_response()
}

async fn show(State(st): State<ApiState>, Path(name): Path<String>) -> Response {
    let s = st.substrate.lock().unwrap_or_else(|e| e.into_inner());
    show_locked(&s, &name)
}

async fn remove(State(st): State<ApiState>, Path(name): Path<String>) -> Response {
    let mut s = st.substrate.lock().unwrap_or_else(|e| e.into_inner());
    match s.spec(&name).map(|n| n.tier) {
        None => err(StatusCode::NOT_FOUND, format!("no network `{name}`")),
        Some(Tier::Software) => err(
            StatusCode::CONFLICT,
            format!(
                "`{name}` is a software-tier network: its container is removed with the scenario in this version"
            ),
        ),
        Some(Tier::Hardware) => match s.remove_network(&name) {
            Ok(()) => StatusCode::NO_CONTENT.into_response(),
            Err(e) => err(StatusCode::CONFLICT, e.to_string()),
        },
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RateBody {
    /// Bits per second; `null` removes the limit.
    rate_bps: Option<u64>,
    burst_bytes: Option<u64>,
}

async fn set_rate(
    State(st): State<ApiState>,
    Path(name): Path<String>,
    Json(b): Json<RateBody>,
) -> Response {
    let mut s = st.substrate.lock().unwrap_or_else(|e| e.into_inner());
    let Some(mut spec) = s.spec(&name).cloned() else {
        return err(StatusCode::NOT_FOUND, format!("no network `{name}`"));
    };
    spec.rate_limit = b.rate_bps.map(|r| {
        // Default burst: 10 ms of the rate, at least two full frames.
        (r, b.burst_bytes.unwrap_or((r / 800).max(3028)))
    });
    match s.replace_network(spec) {
        Ok(()) => show_locked(&s, &name),
        Err(e) => err(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()),
    }
}

fn show_locked(s: &Substrate, name: &str) -> Response {
    match s.id(name).zip(s.spec(name)) {
        Some((id, n)) => Json(view(id, n)).into_response(),
        None => err(StatusCode::NOT_FOUND, format!("no network `{name}`")),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RouteBody {
    prefix: String,
    /// Output port index; absent with `drop = true`.
    port: Option<u16>,
    #[serde(default)]
    drop: bool,
    #[serde(default)]
    decrement_ttl: bool,
    set_src_mac: Option<String>,
    set_dst_mac: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RoutesBody {
    routes: Vec<RouteBody>,
}

fn mac(s: &Option<String>, field: &str, i: usize) -> Result<Option<EthernetAddress>, String> {
    s.as_deref()
        .map(|m| {
            prism_io::netns::parse_mac(m)
                .map(EthernetAddress)
                .ok_or_else(|| format!("routes[{i}].{field}: `{m}` is not a MAC address"))
        })
        .transpose()
}

fn routes(b: &RoutesBody, ports: u16) -> Result<Vec<(Ipv4Prefix, Action)>, String> {
    b.routes
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let prefix: Ipv4Prefix = r
                .prefix
                .parse()
                .map_err(|_| format!("routes[{i}].prefix: `{}` is not an IPv4 prefix", r.prefix))?;
            if let Some(p) = r.port
                && p >= ports
            {
                return Err(format!(
                    "routes[{i}].port: no port {p} (the node has {ports})"
                ));
            }
            if r.port.is_none() && !r.drop {
                return Err(format!("routes[{i}]: needs `port` or `drop = true`"));
            }
            Ok((
                prefix,
                Action {
                    out_port: r.port,
                    drop: r.drop,
                    decrement_ttl: r.decrement_ttl,
                    set_src_mac: mac(&r.set_src_mac, "set_src_mac", i)?,
                    set_dst_mac: mac(&r.set_dst_mac, "set_dst_mac", i)?,
                    ..Action::default()
                },
            ))
        })
        .collect()
}

async fn set_routes(
    State(st): State<ApiState>,
    Path(name): Path<String>,
    Json(b): Json<RoutesBody>,
) -> Response {
    let mut s = st.substrate.lock().unwrap_or_else(|e| e.into_inner());
    let Some(mut spec) = s.spec(&name).cloned() else {
        return err(StatusCode::NOT_FOUND, format!("no network `{name}`"));
    };
    if spec.tier == Tier::Software {
        return err(
            StatusCode::CONFLICT,
            format!(
                "`{name}` is a software-tier network: its routes live in its container's router"
            ),
        );
    }
    let r = match routes(&b, s.ports()) {
        Ok(r) => r,
        Err(e) => return err(StatusCode::UNPROCESSABLE_ENTITY, e),
    };
    spec.forwarding = match spec.forwarding {
        ForwardingSpec::Destination(_) => ForwardingSpec::Destination(r),
        ForwardingSpec::Source(_) => ForwardingSpec::Source(r),
        _ => {
            return err(
                StatusCode::CONFLICT,
                format!("`{name}` is not a destination- or source-routed network"),
            );
        }
    };
    match s.replace_network(spec) {
        Ok(()) => show_locked(&s, &name),
        Err(e) => err(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()),
    }
}

async fn counters(State(st): State<ApiState>) -> Response {
    let r = st.reports.lock().unwrap_or_else(|e| e.into_inner());
    let mut it = r.iter().filter_map(|w| w.counters.clone());
    let Some(mut total) = it.next() else {
        return err(StatusCode::SERVICE_UNAVAILABLE, "no counters yet");
    };
    for s in it {
        total.merge(&s);
    }
    Json::<CounterSnapshot>(total).into_response()
}

/// Serves the API on Unix socket `path` until `stop` is set. Runs on its own
/// thread with a single-threaded runtime: the fast path never waits on it.
pub fn serve(
    path: std::path::PathBuf,
    state: ApiState,
    stop: Arc<std::sync::atomic::AtomicBool>,
) -> Result<std::thread::JoinHandle<()>> {
    let _ = std::fs::remove_file(&path);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let listener = rt.block_on(async { tokio::net::UnixListener::bind(&path) })?;
    Ok(std::thread::spawn(move || {
        rt.block_on(async move {
            let app = router(state);
            let shutdown = async move {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
            };
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(shutdown)
                .await;
        });
        let _ = std::fs::remove_file(&path);
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checked_in_spec_names_exactly_the_served_paths() {
        let spec = include_str!("../../../../docs/api/openapi.yaml");
        let in_spec: Vec<&str> = spec
            .lines()
            .filter(|l| l.starts_with("  /"))
            .map(|l| l.trim().trim_end_matches(':'))
            .collect();
        let mut served = PATHS.to_vec();
        served.sort();
        let mut listed = in_spec.clone();
        listed.sort();
        assert_eq!(listed, served);
    }

    #[test]
    fn route_bodies_are_checked_with_their_index() {
        let b: RoutesBody = serde_json::from_str(
            r#"{"routes":[{"prefix":"10.0.0.0/8","port":1},{"prefix":"10.1.0.0/33","port":1}]}"#,
        )
        .unwrap();
        assert!(routes(&b, 2).unwrap_err().contains("routes[1].prefix"));
        let b: RoutesBody =
            serde_json::from_str(r#"{"routes":[{"prefix":"10.0.0.0/8","port":2}]}"#).unwrap();
        assert!(routes(&b, 2).unwrap_err().contains("no port 2"));
        let b: RoutesBody = serde_json::from_str(
            r#"{"routes":[{"prefix":"10.0.0.0/8","port":1,"set_dst_mac":"02:00:00:00:00:zz"}]}"#,
        )
        .unwrap();
        assert!(routes(&b, 2).unwrap_err().contains("set_dst_mac"));
        let b: RoutesBody =
            serde_json::from_str(r#"{"routes":[{"prefix":"10.0.0.0/8","drop":true}]}"#).unwrap();
        assert!(routes(&b, 2).unwrap()[0].1.drop);
    }
}
