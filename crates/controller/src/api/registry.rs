//! The registry: nodes registered by address, and resource types.

use super::{App, Body, Caller};
use crate::error::{Error, Result};
use crate::model::ResourceType;
use crate::nodes::{NodeRequest, NodeView};
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};

pub fn routes() -> Router<App> {
    Router::new()
        .route("/v1/nodes", get(list_nodes).post(register_node))
        .route("/v1/resource-types", get(list_types).post(register_type))
}

#[utoipa::path(get, path = "/v1/nodes", tag = "nodes", responses((status = 200, body = Vec<NodeView>), (status = 403, body = Error)))]
pub async fn list_nodes(State(app): State<App>, Caller(p): Caller) -> Result<Json<Vec<NodeView>>> {
    Ok(Json(app.ctl.list_nodes(&p).await?))
}

/// Registers a node (administrators): the controller asks the node what
/// it is, with the control plane's credential, before recording it.
#[utoipa::path(post, path = "/v1/nodes", tag = "nodes", request_body = NodeRequest,
    responses((status = 201, body = NodeView), (status = 403, body = Error), (status = 502, body = Error)))]
pub async fn register_node(
    State(app): State<App>,
    Caller(p): Caller,
    Body(r): Body<NodeRequest>,
) -> Result<(StatusCode, Json<NodeView>)> {
    Ok((
        StatusCode::CREATED,
        Json(app.ctl.register_node(&p, r).await?),
    ))
}

#[utoipa::path(get, path = "/v1/resource-types", tag = "registry", responses((status = 200, body = Vec<ResourceType>)))]
pub async fn list_types(
    State(app): State<App>,
    Caller(p): Caller,
) -> Result<Json<Vec<ResourceType>>> {
    Ok(Json(app.ctl.list_resource_types(&p).await?))
}

/// Registers a resource type at run time (administrators).
#[utoipa::path(post, path = "/v1/resource-types", tag = "registry", request_body = ResourceType,
    responses((status = 201, body = ResourceType), (status = 400, body = Error), (status = 403, body = Error)))]
pub async fn register_type(
    State(app): State<App>,
    Caller(p): Caller,
    Body(t): Body<ResourceType>,
) -> Result<(StatusCode, Json<ResourceType>)> {
    Ok((
        StatusCode::CREATED,
        Json(app.ctl.register_resource_type(&p, t).await?),
    ))
}
