//! Public addresses: the gateway service's leases (docs/wan.md).

use super::{App, Body, Caller};
use crate::app::public::{PublicAddress, PublicAddressRequest};
use crate::error::{Error, Result};
use crate::model::{RenewRequest, Renewed};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use prism_controller_api::areas::{ControllerApi, PublicApi};
use serde::Deserialize;
use utoipa::IntoParams;

pub fn routes<S: ControllerApi>() -> Router<App<S>> {
    Router::new()
        .route(
            "/v1/projects/{project}/public-addresses",
            get(list::<S>).post(lease::<S>),
        )
        .route(
            "/v1/projects/{project}/public-addresses/{address}",
            axum::routing::delete(release::<S>),
        )
        .route(
            "/v1/projects/{project}/public-addresses/{address}/renew",
            post(renew::<S>),
        )
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PublicQuery {
    /// Released leases too.
    #[serde(default)]
    pub all: bool,
}

/// The project's public addresses.
#[utoipa::path(get, path = "/v1/projects/{project}/public-addresses", tag = "gateway",
    params(("project" = String, Path), PublicQuery),
    responses((status = 200, body = Vec<PublicAddress>), (status = 403, description = "the caller's role, the project's service level or the API key does not allow the read", body = Error), (status = 404, body = Error)))]
pub async fn list<S: PublicApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(project): Path<String>,
    q: std::result::Result<Query<PublicQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Vec<PublicAddress>>> {
    let Query(q) = q.map_err(|e| Error::invalid(e.body_text()).with_field("query"))?;
    Ok(Json(app.ctl.list_public(&p, &project, q.all).await?))
}

/// Leases a public address from a node's pool for a host of a provisioned
/// network: traffic to it reaches the host (its VLAN, its address), and the
/// host's traffic out leaves from it. The node has converged when this
/// answers.
#[utoipa::path(post, path = "/v1/projects/{project}/public-addresses", tag = "gateway",
    request_body = PublicAddressRequest, params(("project" = String, Path)),
    responses((status = 201, body = PublicAddress), (status = 400, body = Error), (status = 403, body = Error),
        (status = 404, body = Error),
        (status = 409, description = "over quota (`quota` says so), no pool on the node, or the host has one", body = Error),
        (status = 503, description = "the node's pool is exhausted (named)", body = Error)))]
pub async fn lease<S: PublicApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(project): Path<String>,
    Body(r): Body<PublicAddressRequest>,
) -> Result<(StatusCode, Json<PublicAddress>)> {
    Ok((
        StatusCode::CREATED,
        Json(app.ctl.lease_public(&p, &project, r).await?),
    ))
}

/// Renews a public address's lease (never past its booking's end): its
/// leaser, a project owner, or an administrator (an override, audited as
/// `admin-override`).
#[utoipa::path(post, path = "/v1/projects/{project}/public-addresses/{address}/renew", tag = "gateway",
    request_body = RenewRequest, params(("project" = String, Path), ("address" = String, Path)),
    responses((status = 200, body = Renewed), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn renew<S: PublicApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, address)): Path<(String, String)>,
    Body(r): Body<RenewRequest>,
) -> Result<Json<Renewed>> {
    Ok(Json(
        app.ctl
            .renew_public(&p, &project, &address, r.lease_s)
            .await?,
    ))
}

/// Releases a public address: from now, traffic to it is dropped. Its
/// leaser, a project owner, or an administrator (an override, audited as
/// `admin-override`).
#[utoipa::path(delete, path = "/v1/projects/{project}/public-addresses/{address}", tag = "gateway",
    params(("project" = String, Path), ("address" = String, Path)),
    responses((status = 200, body = PublicAddress), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn release<S: PublicApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, address)): Path<(String, String)>,
) -> Result<Json<PublicAddress>> {
    Ok(Json(app.ctl.release_public(&p, &project, &address).await?))
}
