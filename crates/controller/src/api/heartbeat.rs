//! Node keys (administrators) and the heartbeats nodes send with them.

use super::{App, Body, Caller, NodeKey};
use crate::app::heartbeat::{Heartbeat, HeartbeatAnswer, NodeKeyRequest, NodeKeyView};
use crate::error::{Error, Result};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use prism_controller_api::ControllerCertView;
use prism_controller_api::areas::{ControllerApi, NodesApi};

pub fn routes<S: ControllerApi>() -> Router<App<S>> {
    Router::new()
        .route("/v1/nodes/heartbeat", post(heartbeat::<S>))
        .route(
            "/v1/node-keys",
            get(list_node_keys::<S>).post(create_node_key::<S>),
        )
        .route("/v1/node-keys/{id}", delete(revoke_node_key::<S>))
        .route(
            "/v1/controller-certificates",
            get(list_controller_certs::<S>),
        )
        .route(
            "/v1/controller-certificates/{serial}",
            delete(revoke_controller_cert::<S>),
        )
}

/// The client certificates controller replicas present to nodes
/// (administrators), newest first.
#[utoipa::path(get, path = "/v1/controller-certificates", tag = "nodes",
    responses((status = 200, body = Vec<ControllerCertView>), (status = 403, body = Error)))]
pub async fn list_controller_certs<S: NodesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
) -> Result<Json<Vec<ControllerCertView>>> {
    Ok(Json(app.ctl.list_controller_certificates(&p).await?))
}

/// Revokes a controller's client certificate (its key leaked, say): every
/// certified node refuses it from its next heartbeat, which carries the
/// CA's revocation list; the replica using it takes another.
#[utoipa::path(delete, path = "/v1/controller-certificates/{serial}", tag = "nodes",
    params(("serial" = String, Path, description = "Its serial number, in hex")),
    responses((status = 204), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn revoke_controller_cert<S: NodesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(serial): Path<String>,
) -> Result<StatusCode> {
    app.ctl.revoke_controller_certificate(&p, &serial).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A node registers itself, or says it is up, with its node key (not a
/// user's token). The first heartbeat registers the node; a restarted node
/// (another `boot_id`) is given its networks back at once.
#[utoipa::path(post, path = "/v1/nodes/heartbeat", tag = "nodes", request_body = Heartbeat,
    security(("node_key" = [])),
    responses((status = 200, body = HeartbeatAnswer), (status = 403, body = Error), (status = 409, body = Error)))]
pub async fn heartbeat<S: NodesApi>(
    State(app): State<App<S>>,
    NodeKey(n): NodeKey,
    Body(h): Body<Heartbeat>,
) -> Result<Json<HeartbeatAnswer>> {
    Ok(Json(app.ctl.heartbeat(&n, h).await?))
}

/// Node keys (administrators): the list, never the keys themselves.
#[utoipa::path(get, path = "/v1/node-keys", tag = "nodes",
    responses((status = 200, body = Vec<NodeKeyView>), (status = 403, body = Error)))]
pub async fn list_node_keys<S: NodesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
) -> Result<Json<Vec<NodeKeyView>>> {
    Ok(Json(app.ctl.list_node_keys(&p).await?))
}

/// Makes a key a node registers with (`prism node --controller-key-file`);
/// the answer holds it, once.
#[utoipa::path(post, path = "/v1/node-keys", tag = "nodes", request_body = NodeKeyRequest,
    responses((status = 201, body = NodeKeyView), (status = 403, body = Error)))]
pub async fn create_node_key<S: NodesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Body(r): Body<NodeKeyRequest>,
) -> Result<(StatusCode, Json<NodeKeyView>)> {
    Ok((
        StatusCode::CREATED,
        Json(app.ctl.create_node_key(&p, r).await?),
    ))
}

/// Revokes a node key: that node's heartbeats are refused from now on.
#[utoipa::path(delete, path = "/v1/node-keys/{id}", tag = "nodes",
    params(("id" = String, Path, description = "The key's id")),
    responses((status = 204), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn revoke_node_key<S: NodesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(id): Path<String>,
) -> Result<StatusCode> {
    app.ctl.revoke_node_key(&p, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}
