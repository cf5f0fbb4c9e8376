//! The processing nodes' handlers (`crate::processing`'s bodies).

use super::{Ans, Body, blocking};
use crate::api::NodeApi;
use crate::processing::{ProcessingApplied, ProcessingState, ProcessingView};
use axum::Json;
use axum::extract::State;
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
