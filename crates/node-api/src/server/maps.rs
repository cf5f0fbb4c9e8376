//! The handlers of a network's program's maps.

use super::{Ans, Body, blocking};
use crate::api::NodeApi;
use crate::error::ApiError;
use crate::maps::{MapView, MapWrite};
use axum::Json;
use axum::extract::{Path, State};
use std::sync::Arc;

/// A map of the network's program, every entry.
#[utoipa::path(get, path = "/v1/networks/{name}/maps/{map}", tag = "networks",
    params(("name" = String, Path, description = "The network's name"),
        ("map" = String, Path, description = "The map's name in the program's object")),
    responses((status = 200, body = MapView), (status = "default", body = ApiError)))]
pub(crate) async fn read_map<A: NodeApi>(
    State(a): State<Arc<A>>,
    Path((name, map)): Path<(String, String)>,
) -> Ans<MapView> {
    blocking(a, move |a| a.read_map(&name, &map))
        .await
        .map(Json)
}

/// Sets (or deletes) one entry of a map of the network's program; answers
/// the map after.
#[utoipa::path(put, path = "/v1/networks/{name}/maps/{map}", tag = "networks", request_body = MapWrite,
    params(("name" = String, Path, description = "The network's name"),
        ("map" = String, Path, description = "The map's name in the program's object")),
    responses((status = 200, body = MapView), (status = "default", body = ApiError)))]
pub(crate) async fn write_map<A: NodeApi>(
    State(a): State<Arc<A>>,
    Path((name, map)): Path<(String, String)>,
    Body(b): Body<MapWrite>,
) -> Ans<MapView> {
    blocking(a, move |a| a.write_map(&name, &map, b))
        .await
        .map(Json)
}
