//! Bookings, quotas, usage and the audit log.

use super::{App, Body, Caller, query};
use crate::app::accounting::{AuditEntry, AuditQuery, UsageReport};
use crate::app::quota::QuotaView;
use crate::error::{Error, Result};
use crate::model::{
    ActionRequest, Booking, BookingChange, BookingChangeView, BookingChanged, BookingCounters,
    BookingRequest, ListQuery, Page, RenewRequest, Renewed,
};
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use prism_controller_api::areas::{ControllerApi, LeasesApi};
use prism_controller_api::{CaptureRequest, TraceRequest};
use prism_node_api::TapAnswer;
use serde::Deserialize;
use utoipa::IntoParams;

pub fn routes<S: ControllerApi>() -> Router<App<S>> {
    Router::new()
        .route(
            "/v1/projects/{project}/bookings",
            get(list::<S>).post(create::<S>),
        )
        .route(
            "/v1/projects/{project}/bookings/{id}",
            get(status::<S>).delete(release::<S>).patch(edit::<S>),
        )
        .route(
            "/v1/projects/{project}/bookings/{id}/changes",
            get(changes::<S>),
        )
        .route(
            "/v1/projects/{project}/bookings/{id}/provision",
            post(provision::<S>),
        )
        .route(
            "/v1/projects/{project}/bookings/{id}/renew",
            post(renew::<S>),
        )
        .route(
            "/v1/projects/{project}/bookings/{id}/counters",
            get(counters::<S>),
        )
        .route(
            "/v1/projects/{project}/bookings/{id}/trace",
            post(trace::<S>),
        )
        .route(
            "/v1/projects/{project}/bookings/{id}/maps/{map}",
            get(read_map::<S>).put(write_map::<S>),
        )
        .route(
            "/v1/projects/{project}/bookings/{id}/capture",
            post(capture::<S>),
        )
        .route(
            "/v1/projects/{project}/bookings/{id}/action",
            post(act::<S>),
        )
        .route("/v1/projects/{project}/quota", get(quota::<S>))
        .route("/v1/projects/{project}/usage", get(usage::<S>))
        .route("/v1/audit", get(audit::<S>))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UsageQuery {
    /// Unix ms (default: 0).
    pub from_ms: Option<i64>,
    /// Unix ms (default: now).
    pub to_ms: Option<i64>,
    /// `json` (default) or `csv`.
    pub format: Option<String>,
}

#[utoipa::path(get, path = "/v1/projects/{project}/bookings", tag = "bookings",
    params(("project" = String, Path), ListQuery),
    responses((status = 200, body = Page<Booking>), (status = 403, description = "the caller's role, the project's service level or the API key does not allow the read", body = Error), (status = 404, body = Error)))]
pub async fn list<S: LeasesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(project): Path<String>,
    q: std::result::Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Page<Booking>>> {
    Ok(Json(app.ctl.find_bookings(&p, &project, &query(q)?).await?))
}

/// Allocates a booking (a short hold on quota and capacity); with
/// `provision`, applies it to a node in the same call.
#[utoipa::path(post, path = "/v1/projects/{project}/bookings", tag = "bookings", request_body = BookingRequest,
    params(("project" = String, Path)),
    responses((status = 201, body = Booking), (status = 400, body = Error), (status = 403, body = Error),
        (status = 404, body = Error), (status = 409, description = "over quota (`quota` says which) or a duplicate name", body = Error),
        (status = 503, description = "no node has the capacity", body = Error)))]
pub async fn create<S: LeasesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(project): Path<String>,
    Body(r): Body<BookingRequest>,
) -> Result<(StatusCode, Json<Booking>)> {
    Ok((
        StatusCode::CREATED,
        Json(app.ctl.allocate(&p, &project, r).await?),
    ))
}

/// A booking's allocation and operational state (GENI's Status).
#[utoipa::path(get, path = "/v1/projects/{project}/bookings/{id}", tag = "bookings",
    params(("project" = String, Path), ("id" = String, Path)),
    responses((status = 200, body = Booking), (status = 403, description = "the caller's role, the project's service level or the API key does not allow the read", body = Error), (status = 404, body = Error)))]
pub async fn status<S: LeasesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, id)): Path<(String, String)>,
) -> Result<Json<Booking>> {
    Ok(Json(app.ctl.get_booking(&p, &project, &id).await?))
}

/// What the booking's network has forwarded on its node, read now by the
/// controller (the portal's live graph: two readings make a rate).
#[utoipa::path(get, path = "/v1/projects/{project}/bookings/{id}/counters", tag = "bookings",
    params(("project" = String, Path), ("id" = String, Path)),
    responses((status = 200, body = BookingCounters), (status = 403, body = Error), (status = 404, body = Error),
        (status = 409, description = "not provisioned, or not on its node yet", body = Error),
        (status = 502, description = "its node could not be read", body = Error)))]
pub async fn counters<S: LeasesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, id)): Path<(String, String)>,
) -> Result<Json<BookingCounters>> {
    Ok(Json(app.ctl.booking_counters(&p, &project, &id).await?))
}

/// A map of the booking's program (its object's maps: docs/customizing.md),
/// read from its node: keys and values in hex.
#[utoipa::path(get, path = "/v1/projects/{project}/bookings/{id}/maps/{map}", tag = "bookings",
    params(("project" = String, Path), ("id" = String, Path), ("map" = String, Path)),
    responses((status = 200, body = prism_node_api::MapView), (status = 403, body = Error),
        (status = 404, description = "no such booking or map", body = Error),
        (status = 409, description = "not provisioned, or its network runs no program", body = Error),
        (status = 502, description = "its node could not be read", body = Error)))]
pub async fn read_map<S: LeasesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, id, map)): Path<(String, String, String)>,
) -> Result<Json<prism_node_api::MapView>> {
    Ok(Json(app.ctl.read_map(&p, &project, &id, &map).await?))
}

/// Sets one entry of a map of the booking's program (or deletes it: no
/// `value`); answers the map after. Its booker, a project owner or an
/// administrator; audited.
#[utoipa::path(put, path = "/v1/projects/{project}/bookings/{id}/maps/{map}", tag = "bookings",
    params(("project" = String, Path), ("id" = String, Path), ("map" = String, Path)),
    request_body = prism_node_api::MapWrite,
    responses((status = 200, body = prism_node_api::MapView), (status = 400, body = Error), (status = 403, body = Error),
        (status = 404, description = "no such booking, map or key", body = Error),
        (status = 409, description = "not provisioned, or its network runs no program", body = Error),
        (status = 502, description = "its node could not be reached", body = Error)))]
pub async fn write_map<S: LeasesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, id, map)): Path<(String, String, String)>,
    Body(w): Body<prism_node_api::MapWrite>,
) -> Result<Json<prism_node_api::MapView>> {
    Ok(Json(app.ctl.write_map(&p, (&project, &id, &map), w).await?))
}

/// Traces the next packets of the booking's network through the node's
/// stages (its booker, a project owner or an administrator: an override,
/// audited as `admin-override`): each stage's decision. Answers
/// when it has them or the wait is over (`timed_out`).
#[utoipa::path(post, path = "/v1/projects/{project}/bookings/{id}/trace", tag = "bookings",
    params(("project" = String, Path), ("id" = String, Path)), request_body = TraceRequest,
    responses((status = 200, body = TapAnswer), (status = 403, body = Error), (status = 404, body = Error),
        (status = 409, description = "not provisioned", body = Error),
        (status = 502, description = "its node could not be read", body = Error)))]
pub async fn trace<S: LeasesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, id)): Path<(String, String)>,
    Body(r): Body<TraceRequest>,
) -> Result<Json<TapAnswer>> {
    Ok(Json(app.ctl.trace_booking(&p, &project, &id, r).await?))
}

/// Captures the next frames of the booking's network at ingress and egress
/// (its booker, a project owner or an administrator: an override, audited
/// as `admin-override`): a pcapng file, a port an interface,
/// each frame's direction in its flags.
#[utoipa::path(post, path = "/v1/projects/{project}/bookings/{id}/capture", tag = "bookings",
    params(("project" = String, Path), ("id" = String, Path)), request_body = CaptureRequest,
    responses((status = 200, description = "The frames, pcapng", content_type = "application/x-pcapng", body = Vec<u8>),
        (status = 403, body = Error), (status = 404, body = Error),
        (status = 409, description = "not provisioned", body = Error),
        (status = 502, description = "its node could not be read", body = Error)))]
pub async fn capture<S: LeasesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, id)): Path<(String, String)>,
    Body(r): Body<CaptureRequest>,
) -> Result<Response> {
    let (name, bytes) = app.ctl.capture_booking(&p, &project, &id, r).await?;
    let disposition = format!("attachment; filename=\"{name}.pcapng\"");
    Ok((
        [
            (
                header::CONTENT_TYPE,
                prism_wire::pcapng::CONTENT_TYPE.to_string(),
            ),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        bytes,
    )
        .into_response())
}

/// Releases a booking: its network leaves its node, its VLAN and quota
/// are freed, and the release is accounted.
///
/// Its creator, a project owner, or an administrator (an override,
/// audited as `admin-override`).
#[utoipa::path(delete, path = "/v1/projects/{project}/bookings/{id}", tag = "bookings",
    params(("project" = String, Path), ("id" = String, Path)),
    responses((status = 200, body = Booking), (status = 403, body = Error), (status = 404, body = Error), (status = 409, body = Error)))]
pub async fn release<S: LeasesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, id)): Path<(String, String)>,
) -> Result<Json<Booking>> {
    Ok(Json(app.ctl.release(&p, &project, &id).await?))
}

/// Changes a live network booking: its tables (`spec.route`,
/// `spec.rule`, `spec.default_action`: a table update on its node, no
/// reconfiguration), its forwarding mode (`spec.forwarding`: another
/// module in its hardware slot, loaded as `spec.reconfigure` says, the
/// device model's time in the answer), its tier and its bandwidth (the
/// quota and its nodes' capacity checked first). With `dry_run` the
/// change is only checked and answered as if made. The change is checked whole before anything moves (a
/// refusal names its field and changes nothing), is one generation of the
/// booking (`generation` given and not current: 409), and is kept in its
/// history; the answer comes once its nodes have it (or says
/// `converging`).
///
/// Its creator, a project owner, or an administrator (an override,
/// audited as `admin-override`).
#[utoipa::path(patch, path = "/v1/projects/{project}/bookings/{id}", tag = "bookings", request_body = BookingChange,
    params(("project" = String, Path), ("id" = String, Path)),
    responses((status = 200, body = BookingChanged), (status = 400, body = Error), (status = 403, body = Error), (status = 404, body = Error),
        (status = 409, description = "released, over quota, or not at the `generation` given", body = Error),
        (status = 503, description = "a node of the booking has not the bandwidth", body = Error)))]
pub async fn edit<S: LeasesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, id)): Path<(String, String)>,
    Body(c): Body<BookingChange>,
) -> Result<Json<BookingChanged>> {
    Ok(Json(app.ctl.edit_booking(&p, &project, &id, c).await?))
}

/// A booking's accepted changes, oldest first: each one's generation,
/// time, author and fields before and after.
#[utoipa::path(get, path = "/v1/projects/{project}/bookings/{id}/changes", tag = "bookings",
    params(("project" = String, Path), ("id" = String, Path)),
    responses((status = 200, body = Vec<BookingChangeView>), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn changes<S: LeasesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, id)): Path<(String, String)>,
) -> Result<Json<Vec<BookingChangeView>>> {
    Ok(Json(app.ctl.booking_changes(&p, &project, &id).await?))
}

/// Provisions an allocated booking: applies it to its node and starts
/// its lease.
///
/// Its creator, a project owner, or an administrator (an override,
/// audited as `admin-override`).
#[utoipa::path(post, path = "/v1/projects/{project}/bookings/{id}/provision", tag = "bookings",
    params(("project" = String, Path), ("id" = String, Path)),
    responses((status = 200, body = Booking), (status = 403, body = Error), (status = 404, body = Error), (status = 409, body = Error)))]
pub async fn provision<S: LeasesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, id)): Path<(String, String)>,
) -> Result<Json<Booking>> {
    Ok(Json(app.ctl.provision(&p, &project, &id).await?))
}

/// Renews a lease; the answer says the end granted (the service level's
/// longest lease clamps it).
///
/// Its creator, a project owner, or an administrator (an override,
/// audited as `admin-override`).
#[utoipa::path(post, path = "/v1/projects/{project}/bookings/{id}/renew", tag = "bookings", request_body = RenewRequest,
    params(("project" = String, Path), ("id" = String, Path)),
    responses((status = 200, body = Renewed), (status = 403, body = Error), (status = 404, body = Error), (status = 409, body = Error)))]
pub async fn renew<S: LeasesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, id)): Path<(String, String)>,
    Body(r): Body<RenewRequest>,
) -> Result<Json<Renewed>> {
    Ok(Json(app.ctl.renew(&p, &project, &id, r.lease_s).await?))
}

/// Starts or stops a provisioned network (an operational action).
///
/// Its creator, a project owner, or an administrator (an override,
/// audited as `admin-override`).
#[utoipa::path(post, path = "/v1/projects/{project}/bookings/{id}/action", tag = "bookings", request_body = ActionRequest,
    params(("project" = String, Path), ("id" = String, Path)),
    responses((status = 200, body = Booking), (status = 403, body = Error), (status = 404, body = Error), (status = 409, body = Error)))]
pub async fn act<S: LeasesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, id)): Path<(String, String)>,
    Body(r): Body<ActionRequest>,
) -> Result<Json<Booking>> {
    Ok(Json(app.ctl.act(&p, &project, &id, r.action).await?))
}

#[utoipa::path(get, path = "/v1/projects/{project}/quota", tag = "bookings", params(("project" = String, Path)),
    responses((status = 200, body = QuotaView), (status = 403, description = "the caller's role, the project's service level or the API key does not allow the read", body = Error), (status = 404, body = Error)))]
pub async fn quota<S: LeasesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(project): Path<String>,
) -> Result<Json<QuotaView>> {
    Ok(Json(app.ctl.quota(&p, &project).await?))
}

/// Resource-hours and bandwidth-hours per user and tier over a range, as
/// JSON or CSV.
#[utoipa::path(get, path = "/v1/projects/{project}/usage", tag = "accounting", params(("project" = String, Path), UsageQuery),
    responses((status = 200, description = "The report: JSON, or CSV with `format=csv`", content((UsageReport = "application/json"), (String = "text/csv"))), (status = 403, description = "the caller's role, the project's service level or the API key does not allow the read", body = Error), (status = 404, body = Error)))]
pub async fn usage<S: LeasesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(project): Path<String>,
    q: std::result::Result<Query<UsageQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response> {
    let q = query(q)?;
    let r = app
        .ctl
        .usage(
            &p,
            &project,
            q.from_ms.unwrap_or(0),
            q.to_ms.unwrap_or_else(|| app.ctl.now_ms()),
        )
        .await?;
    match q.format.as_deref() {
        None | Some("json") => Ok(Json(r).into_response()),
        Some("csv") => Ok((
            [(header::CONTENT_TYPE, "text/csv; charset=utf-8")],
            r.to_csv(),
        )
            .into_response()),
        Some(_) => Err(Error::invalid("`json` or `csv`").with_field("format")),
    }
}

/// Every mutating call (administrators): oldest first unless asked, by
/// principal and path when asked.
#[utoipa::path(get, path = "/v1/audit", tag = "accounting", params(AuditQuery),
    responses((status = 200, body = Page<AuditEntry>), (status = 403, body = Error)))]
pub async fn audit<S: LeasesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    q: std::result::Result<Query<AuditQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Page<AuditEntry>>> {
    Ok(Json(app.ctl.list_audit(&p, &query(q)?).await?))
}
