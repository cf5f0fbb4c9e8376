//! The processing nodes' handlers (`crate::processing`'s bodies).

use super::{Ans, Body, blocking};
use crate::api::NodeApi;
use crate::images::{PushImage, PushedImage, SavedImage};
use crate::processing::{ProcessingApplied, ProcessingState, ProcessingView};
use axum::Json;
use axum::extract::{Path, State};
use std::sync::Arc;

/// Converges the processing nodes of a scope (containers from images,
/// each with an interface on its networks' VLANs) to a whole desired
/// state under its own generation. Answers per node.
#[utoipa::path(put, path = "/v1/processing", tag = "processing", request_body = ProcessingState,
    responses((status = 200, body = ProcessingApplied), (status = "default", body = crate::ApiError)))]
pub(crate) async fn put_processing<A: NodeApi>(
    State(a): State<Arc<A>>,
    Body(b): Body<ProcessingState>,
) -> Ans<ProcessingApplied> {
    blocking(a, move |a| a.put_processing(b)).await.map(Json)
}

/// The processing nodes as the node runs them: each container's status,
/// first process and interfaces' MACs.
#[utoipa::path(get, path = "/v1/processing", tag = "processing",
    responses((status = 200, body = [ProcessingView]), (status = "default", body = crate::ApiError)))]
pub(crate) async fn list_processing<A: NodeApi>(
    State(a): State<Arc<A>>,
) -> Ans<Vec<ProcessingView>> {
    blocking(a, |a| a.list_processing()).await.map(Json)
}

/// Saves a processing node's file system, as it runs, as a new image in
/// the node's store: one layer over its image, without the booking's
/// host keys or authorized keys. Kept there until pushed.
#[utoipa::path(post, path = "/v1/processing/{name}/image", tag = "processing",
    params(("name" = String, Path, description = "The processing node's name")),
    responses((status = 200, body = SavedImage), (status = "default", body = crate::ApiError)))]
pub(crate) async fn save_image<A: NodeApi>(
    State(a): State<Arc<A>>,
    Path(name): Path<String>,
) -> Ans<SavedImage> {
    blocking(a, move |a| a.save_image(&name)).await.map(Json)
}

/// Uploads blobs of the node's image store to the URLs given (the
/// storage service's, signed by the controller).
#[utoipa::path(post, path = "/v1/images/push", tag = "processing", request_body = PushImage,
    responses((status = 200, body = PushedImage), (status = "default", body = crate::ApiError)))]
pub(crate) async fn push_image<A: NodeApi>(
    State(a): State<Arc<A>>,
    Body(b): Body<PushImage>,
) -> Ans<PushedImage> {
    blocking(a, move |a| a.push_image(b)).await.map(Json)
}
