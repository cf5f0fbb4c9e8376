//! The storage service's control calls: a project's bucket, its S3 keys,
//! URLs the controller signs, and read-only sharing. The objects
//! themselves go through the S3 endpoint (docs/storage.md).

use super::{App, Body, Caller};
use crate::error::{Error, Result};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, get, post, put};
use axum::{Json, Router};
use prism_controller_api::areas::{ControllerApi, StorageApi};
use prism_controller_api::{PresignRequest, PresignedUrl, StorageKeyView, StorageView};

pub fn routes<S: ControllerApi>() -> Router<App<S>> {
    Router::new()
        .route("/v1/projects/{project}/storage", get(info::<S>))
        .route(
            "/v1/projects/{project}/storage/keys",
            get(list_keys::<S>).post(create_key::<S>),
        )
        .route(
            "/v1/projects/{project}/storage/keys/{id}",
            delete(revoke_key::<S>),
        )
        .route("/v1/projects/{project}/storage/urls", post(presign::<S>))
        .route(
            "/v1/projects/{project}/storage/shares/{member}",
            put(share::<S>).delete(unshare::<S>),
        )
}

/// The project's bucket: its endpoint, name, use and quota, and sharing.
#[utoipa::path(get, path = "/v1/projects/{project}/storage", tag = "storage", params(("project" = String, Path)),
    responses((status = 200, body = StorageView), (status = 403, body = Error), (status = 404, description = "no such project, or the controller serves no storage", body = Error)))]
pub async fn info<S: StorageApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(project): Path<String>,
) -> Result<Json<StorageView>> {
    Ok(Json(app.ctl.storage(&p, &project).await?))
}

#[utoipa::path(get, path = "/v1/projects/{project}/storage/keys", tag = "storage", params(("project" = String, Path)),
    responses((status = 200, body = Vec<StorageKeyView>), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn list_keys<S: StorageApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(project): Path<String>,
) -> Result<Json<Vec<StorageKeyView>>> {
    Ok(Json(app.ctl.list_storage_keys(&p, &project).await?))
}

/// A new S3 key of the caller's: its secret is in this answer only.
#[utoipa::path(post, path = "/v1/projects/{project}/storage/keys", tag = "storage", params(("project" = String, Path)),
    responses((status = 201, body = StorageKeyView), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn create_key<S: StorageApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(project): Path<String>,
) -> Result<(StatusCode, Json<StorageKeyView>)> {
    let k = app.ctl.create_storage_key(&p, &project).await?;
    Ok((StatusCode::CREATED, Json(k)))
}

/// Revokes a key (its user's, or a project owner's): refused from the
/// next request on.
#[utoipa::path(delete, path = "/v1/projects/{project}/storage/keys/{id}", tag = "storage",
    params(("project" = String, Path), ("id" = String, Path)),
    responses((status = 204), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn revoke_key<S: StorageApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, id)): Path<(String, String)>,
) -> Result<StatusCode> {
    app.ctl.revoke_storage_key(&p, &project, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A URL for one request to one object (GET: the project's bucket or one
/// shared with it; PUT: the project's), signed with a key of the
/// caller's, until it expires.
#[utoipa::path(post, path = "/v1/projects/{project}/storage/urls", tag = "storage", request_body = PresignRequest,
    params(("project" = String, Path)),
    responses((status = 200, body = PresignedUrl), (status = 400, body = Error), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn presign<S: StorageApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(project): Path<String>,
    Body(r): Body<PresignRequest>,
) -> Result<Json<PresignedUrl>> {
    Ok(Json(app.ctl.presign(&p, &project, r).await?))
}

/// Shares the project's bucket with project `member`, read-only (the
/// project's owners, `members.manage`).
#[utoipa::path(put, path = "/v1/projects/{project}/storage/shares/{member}", tag = "storage",
    params(("project" = String, Path), ("member" = String, Path)),
    responses((status = 204), (status = 400, body = Error), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn share<S: StorageApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, member)): Path<(String, String)>,
) -> Result<StatusCode> {
    app.ctl.share_storage(&p, &project, &member).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(delete, path = "/v1/projects/{project}/storage/shares/{member}", tag = "storage",
    params(("project" = String, Path), ("member" = String, Path)),
    responses((status = 204), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn unshare<S: StorageApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, member)): Path<(String, String)>,
) -> Result<StatusCode> {
    app.ctl.unshare_storage(&p, &project, &member).await?;
    Ok(StatusCode::NO_CONTENT)
}
