//! The node API: HTTP+JSON on a Unix socket (spec: docs/api/openapi.yaml).
//!
//! A network is written as a document with the fields of a scenario file's
//! `[[network]]` table (`crate::netdoc`); every change, whole or partial
//! (routes, rules, rate limit, tier), becomes that network's new document
//! and goes through `Control::apply`, which checks it completely before it
//! changes anything and publishes the data plane with one pointer store.
//! A refused change answers 422 (or 404, 409) naming the field and leaves
//! everything as it was.
//!
//! Changes run on a blocking thread, one at a time (starting a container
//! takes a while); reads of counters are not held up by them.

use super::control::{ApplyError, Control};
use super::node::sum_counters;
use super::worker::WorkerReport;
use anyhow::Result;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};
use axum::{Json, Router};
use prism_pipeline::CounterSnapshot;
use serde::Serialize;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

#[derive(Clone)]
pub struct ApiState {
    pub control: Arc<Mutex<Control>>,
    pub reports: Arc<Mutex<Vec<WorkerReport>>>,
}

/// The paths the router serves, as the OpenAPI spec names them.
pub const PATHS: [&str; 9] = [
    "/v1/networks",
    "/v1/networks/{name}",
    "/v1/networks/{name}/routes",
    "/v1/networks/{name}/rules",
    "/v1/networks/{name}/rate-limit",
    "/v1/networks/{name}/tier",
    "/v1/counters",
    "/v1/ports",
    "/v1/node",
];

pub fn router(state: ApiState) -> Router {
    Router::new()
        .route(PATHS[0], get(list).post(add))
        .route(PATHS[1], get(show).put(replace).delete(remove))
        .route(PATHS[2], put(set_routes))
        .route(PATHS[3], put(set_rules))
        .route(PATHS[4], put(set_rate))
        .route(PATHS[5], put(set_tier))
        .route(PATHS[6], get(counters))
        .route(PATHS[7], get(ports))
        .route(PATHS[8], get(node))
        .with_state(state)
}

#[derive(Debug, Serialize)]
struct RouterView {
    kind: &'static str,
    container: String,
    /// Substrate ports the container has a link on.
    ports: Vec<u16>,
    /// Links on the multi-receiver path (joined to a bridge).
    bridged: Vec<u16>,
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
    /// The hardware slot (region) it occupies.
    slot: Option<usize>,
    router: Option<RouterView>,
}

fn err(code: StatusCode, msg: impl Into<String>) -> Response {
    (code, Json(json!({ "error": msg.into() }))).into_response()
}

fn apply_err(e: ApplyError) -> Response {
    let code = match &e {
        ApplyError::NotFound(_) => StatusCode::NOT_FOUND,
        ApplyError::Conflict(_) => StatusCode::CONFLICT,
        ApplyError::Invalid(_) => StatusCode::UNPROCESSABLE_ENTITY,
        ApplyError::Failed(_) => StatusCode::INTERNAL_SERVER_ERROR,
    };
    err(code, e.to_string())
}

fn view(c: &Control, name: &str) -> Option<NetworkView> {
    let id = c.substrate.id(name)?;
    let s = c.substrate.spec(name)?;
    Some(NetworkView {
        id,
        name: s.name.clone(),
        tier: s.tier.as_str(),
        forwarding: s.forwarding.module().as_str(),
        entries: s.forwarding.entries(),
        rate_bps: s.rate_limit.map(|r| r.0),
        burst_bytes: s.rate_limit.map(|r| r.1),
        slot: c.substrate.hardware().slot_of(id),
        router: c.router(name).map(|r| RouterView {
            kind: r.cfg.kind.as_str(),
            container: r.namespace().to_string(),
            ports: r.links.iter().map(|l| l.port).collect(),
            bridged: r
                .links
                .iter()
                .filter(|l| l.bridged)
                .map(|l| l.port)
                .collect(),
        }),
    })
}

fn lock(st: &ApiState) -> std::sync::MutexGuard<'_, Control> {
    st.control.lock().unwrap_or_else(|e| e.into_inner())
}

async fn list(State(st): State<ApiState>) -> Response {
    let c = lock(&st);
    let v: Vec<NetworkView> = c
        .substrate
        .networks()
        .filter_map(|(_, n)| view(&c, &n.name))
        .collect();
    Json(v).into_response()
}

async fn show(State(st): State<ApiState>, Path(name): Path<String>) -> Response {
    let c = lock(&st);
    match (view(&c, &name), c.doc(&name)) {
        (Some(v), Some(d)) => Json(json!({ "network": v, "definition": d })).into_response(),
        _ => err(StatusCode::NOT_FOUND, format!("no network `{name}`")),
    }
}

/// Runs `change` (which edits the network's current document, `None` if
/// it has none) and applies the result, on a blocking thread.
async fn change(
    st: ApiState,
    name: String,
    created: bool,
    edit: impl FnOnce(Option<Value>) -> Result<Option<Value>, ApplyError> + Send + 'static,
) -> Response {
    let r = tokio::task::spawn_blocking(move || {
        let mut c = lock(&st);
        let desired = edit(c.doc(&name).cloned())?;
        let done = c.apply(&name, desired)?;
        Ok::<_, ApplyError>(json!({ "result": done, "network": view(&c, &name) }))
    })
    .await;
    match r {
        Ok(Ok(v)) if created => (StatusCode::CREATED, Json(v)).into_response(),
        Ok(Ok(v)) => Json(v).into_response(),
        Ok(Err(e)) => apply_err(e),
        Err(e) => err(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

fn existing(name: &str, doc: Option<Value>) -> Result<Value, ApplyError> {
    doc.ok_or_else(|| ApplyError::NotFound(format!("no network `{name}`")))
}

fn object(body: &Value, what: &str) -> Result<(), ApplyError> {
    if body.is_object() {
        Ok(())
    } else {
        Err(ApplyError::Invalid(format!(
            "the body is {what}, a JSON object"
        )))
    }
}

/// Fields of `body` other than those `allowed`.
fn unknown(body: &Value, allowed: &[&str]) -> Result<(), ApplyError> {
    match body
        .as_object()
        .and_then(|o| o.keys().find(|k| !allowed.contains(&k.as_str())))
    {
        Some(k) => Err(ApplyError::Invalid(format!(
            "unknown field `{k}` (expected: {})",
            allowed.join(", ")
        ))),
        None => Ok(()),
    }
}

async fn add(State(st): State<ApiState>, Json(body): Json<Value>) -> Response {
    let name = match crate::netdoc::name(&body) {
        Ok(n) => n.to_string(),
        Err(e) => return err(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()),
    };
    let n = name.clone();
    change(st, name, true, move |cur| match cur {
        Some(_) => Err(ApplyError::Conflict(format!(
            "a network named `{n}` already exists (PUT /v1/networks/{n} changes it)"
        ))),
        None => Ok(Some(body)),
    })
    .await
}

async fn replace(
    State(st): State<ApiState>,
    Path(name): Path<String>,
    Json(body): Json<Value>,
) -> Response {
    let n = name.clone();
    change(st, name, false, move |cur| {
        existing(&n, cur)?;
        object(&body, "the network's definition")?;
        Ok(Some(body))
    })
    .await
}

async fn remove(State(st): State<ApiState>, Path(name): Path<String>) -> Response {
    let n = name.clone();
    change(st, name, false, move |cur| {
        existing(&n, cur)?;
        Ok(None)
    })
    .await
}

/// A partial change: checks `body` has the shape `shape` (fields in
/// `allowed` only), then lets `edit` fold it into the network's definition.
async fn patch(
    st: ApiState,
    name: String,
    body: Value,
    shape: &'static str,
    allowed: &'static [&'static str],
    edit: impl FnOnce(&mut serde_json::Map<String, Value>, &Value) + Send + 'static,
) -> Response {
    let n = name.clone();
    change(st, name, false, move |cur| {
        let mut doc = existing(&n, cur)?;
        object(&body, shape)?;
        unknown(&body, allowed)?;
        edit(doc.as_object_mut().expect("documents are objects"), &body);
        Ok(Some(doc))
    })
    .await
}

async fn set_routes(
    State(st): State<ApiState>,
    Path(name): Path<String>,
    Json(body): Json<Value>,
) -> Response {
    patch(
        st,
        name,
        body,
        "`{\"route\": [...]}`",
        &["route"],
        |o, b| {
            o.insert("route".into(), b.get("route").cloned().unwrap_or(json!([])));
        },
    )
    .await
}

async fn set_rules(
    State(st): State<ApiState>,
    Path(name): Path<String>,
    Json(body): Json<Value>,
) -> Response {
    let shape = "`{\"rule\": [...], \"default_action\": {...}}`";
    patch(
        st,
        name,
        body,
        shape,
        &["rule", "default_action"],
        |o, b| {
            o.insert("rule".into(), b.get("rule").cloned().unwrap_or(json!([])));
            match b.get("default_action") {
                Some(a) => o.insert("default_action".into(), a.clone()),
                None => o.remove("default_action"),
            };
        },
    )
    .await
}

async fn set_rate(
    State(st): State<ApiState>,
    Path(name): Path<String>,
    Json(body): Json<Value>,
) -> Response {
    let shape = "`{\"rate_bps\": N or null, \"burst_bytes\": N}`";
    patch(
        st,
        name,
        body,
        shape,
        &["rate_bps", "burst_bytes"],
        |o, b| match b.get("rate_bps").filter(|r| !r.is_null()) {
            None => {
                o.remove("rate_limit");
            }
            Some(r) => {
                let mut rl = json!({ "rate": r });
                if let Some(burst) = b.get("burst_bytes").filter(|x| !x.is_null()) {
                    rl["burst"] = burst.clone();
                }
                o.insert("rate_limit".into(), rl);
            }
        },
    )
    .await
}

async fn set_tier(
    State(st): State<ApiState>,
    Path(name): Path<String>,
    Json(body): Json<Value>,
) -> Response {
    let shape = "`{\"tier\": \"hardware\" or \"software\"}`";
    patch(st, name, body, shape, &["tier"], |o, b| {
        o.insert("tier".into(), b.get("tier").cloned().unwrap_or(Value::Null));
    })
    .await
}

async fn counters(State(st): State<ApiState>) -> Response {
    let r = st.reports.lock().unwrap_or_else(|e| e.into_inner());
    match sum_counters(&r) {
        Some(total) => Json::<CounterSnapshot>(total).into_response(),
        None => err(StatusCode::SERVICE_UNAVAILABLE, "no counters yet"),
    }
}

async fn ports(State(st): State<ApiState>) -> Response {
    let r = st.reports.lock().unwrap_or_else(|e| e.into_inner());
    let v: Vec<Value> = r
        .iter()
        .enumerate()
        .flat_map(|(w, rep)| {
            rep.ports.iter().map(move |p| {
                let mut v = serde_json::to_value(p).unwrap_or_default();
                v["worker"] = json!(w);
                v
            })
        })
        .collect();
    Json(v).into_response()
}

async fn node(State(st): State<ApiState>) -> Response {
    let c = lock(&st);
    let hw = c.substrate.hardware();
    Json(json!({
        "device": c.device,
        "ports": c.port_names,
        "software_interfaces": c.bridges.iter().map(|b| b.is_some()).collect::<Vec<_>>(),
        "io": c.io.choice.as_str(),
        "workers": c.opts.workers.max(1),
        "hardware_slots": { "total": hw.profile.slots, "free": hw.free_slots() },
    }))
    .into_response()
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
    fn partial_bodies_are_checked_for_stray_fields() {
        let e = unknown(&json!({"route": [], "routes": []}), &["route"]).unwrap_err();
        assert!(e.to_string().contains("unknown field `routes`"), "{e}");
        assert!(object(&json!([1]), "x").is_err());
    }
}
