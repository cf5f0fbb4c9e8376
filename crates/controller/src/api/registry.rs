//! The registry: nodes registered by address, and resource types.

use super::{App, Body, Caller, query};
use crate::app::nodes::{NodeRequest, NodeView};
use crate::error::{Error, Result};
use crate::model::ResourceType;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use prism_controller_api::NodeHardware;
use prism_controller_api::areas::{ControllerApi, NodesApi, RegistryApi};
use prism_node_api::NodeEvent;
use serde::Deserialize;
use utoipa::IntoParams;

pub fn routes<S: ControllerApi>() -> Router<App<S>> {
    Router::new()
        .route("/v1/nodes", get(list_nodes::<S>).post(register_node::<S>))
        .route("/v1/nodes/{name}/hardware", get(node_hardware::<S>))
        .route("/v1/nodes/{name}/events", get(node_events::<S>))
        .route(
            "/v1/resource-types",
            get(list_types::<S>).post(register_type::<S>),
        )
}

#[utoipa::path(get, path = "/v1/nodes", tag = "nodes", responses((status = 200, body = Vec<NodeView>), (status = 403, body = Error)))]
pub async fn list_nodes<S: NodesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
) -> Result<Json<Vec<NodeView>>> {
    Ok(Json(app.ctl.list_nodes(&p).await?))
}

/// A node's hardware tier now (administrators): each slot's state, the
/// network and module it holds with its booking, and power per region —
/// the device profile's model, never measured (Prism runs no FPGA).
#[utoipa::path(get, path = "/v1/nodes/{name}/hardware", tag = "nodes", params(("name" = String, Path)),
    responses((status = 200, body = NodeHardware), (status = 403, body = Error), (status = 404, body = Error),
        (status = 502, description = "the node could not be read", body = Error)))]
pub async fn node_hardware<S: NodesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(name): Path<String>,
) -> Result<Json<NodeHardware>> {
    Ok(Json(app.ctl.node_hardware(&p, &name).await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// Events numbered above this (default 0: all the node keeps).
    pub since: Option<u64>,
}

/// A node's events (administrators): reconfigurations with their modelled
/// and measured times, automatic tier moves with their reason.
#[utoipa::path(get, path = "/v1/nodes/{name}/events", tag = "nodes", params(("name" = String, Path), EventsQuery),
    responses((status = 200, body = Vec<NodeEvent>), (status = 403, body = Error), (status = 404, body = Error),
        (status = 502, description = "the node could not be read", body = Error)))]
pub async fn node_events<S: NodesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(name): Path<String>,
    q: std::result::Result<Query<EventsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Vec<NodeEvent>>> {
    let since = query(q)?.since.unwrap_or(0);
    Ok(Json(app.ctl.node_events(&p, &name, since).await?))
}

/// Registers a node (administrators): the controller asks the node what
/// it is, with the control plane's credential, before recording it.
#[utoipa::path(post, path = "/v1/nodes", tag = "nodes", request_body = NodeRequest,
    responses((status = 201, body = NodeView), (status = 403, body = Error),
        (status = 409, description = "a node of that name is registered", body = Error), (status = 502, body = Error)))]
pub async fn register_node<S: NodesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Body(r): Body<NodeRequest>,
) -> Result<(StatusCode, Json<NodeView>)> {
    Ok((
        StatusCode::CREATED,
        Json(app.ctl.register_node(&p, r).await?),
    ))
}

#[utoipa::path(get, path = "/v1/resource-types", tag = "registry", responses((status = 200, body = Vec<ResourceType>)))]
pub async fn list_types<S: RegistryApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
) -> Result<Json<Vec<ResourceType>>> {
    Ok(Json(app.ctl.list_resource_types(&p).await?))
}

/// Registers a resource type at run time (administrators).
#[utoipa::path(post, path = "/v1/resource-types", tag = "registry", request_body = ResourceType,
    responses((status = 201, body = ResourceType), (status = 400, body = Error), (status = 403, body = Error),
        (status = 409, description = "a type of that name is registered", body = Error)))]
pub async fn register_type<S: RegistryApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Body(t): Body<ResourceType>,
) -> Result<(StatusCode, Json<ResourceType>)> {
    Ok((
        StatusCode::CREATED,
        Json(app.ctl.register_resource_type(&p, t).await?),
    ))
}
