//! Images: a processing booking's file system saved into the storage
//! service, the project's images and those shared with it, sharing and
//! deleting (docs/processing.md).

use super::{App, Body, Caller};
use crate::error::{Error, Result};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, get, put};
use axum::{Json, Router};
use prism_controller_api::areas::{ControllerApi, ImagesApi};
use prism_controller_api::{ImageView, SaveImageRequest};

pub fn routes<S: ControllerApi>() -> Router<App<S>> {
    Router::new()
        .route(
            "/v1/projects/{project}/images",
            get(list::<S>).post(save::<S>),
        )
        .route("/v1/projects/{project}/images/{name}", delete(remove::<S>))
        .route(
            "/v1/projects/{project}/images/{name}/shares/{member}",
            put(share::<S>).delete(unshare::<S>),
        )
}

/// Saves a processing booking's file system, as it runs, as an OCI
/// image: one layer over the image it runs, without its host keys or
/// authorized keys; its blobs that the project's bucket lacks are
/// uploaded by the node (`prism-images/sha256/…`, within the bucket's
/// quota). Answers once the image is stored.
#[utoipa::path(post, path = "/v1/projects/{project}/images", tag = "images", params(("project" = String, Path)),
    request_body = SaveImageRequest,
    responses((status = 200, body = ImageView), (status = 400, description = "a bad name, or no live processing booking", body = Error), (status = 403, body = Error), (status = 404, description = "no such project or booking, or no storage service", body = Error), (status = 409, description = "the name is taken", body = Error), (status = 502, description = "the node could not save or upload it", body = Error)))]
pub async fn save<S: ImagesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(project): Path<String>,
    Body(r): Body<SaveImageRequest>,
) -> Result<Json<ImageView>> {
    Ok(Json(app.ctl.save_image(&p, &project, r).await?))
}

/// The project's images, then those other projects share with it (each
/// with the name a booking's `spec.image` gives it).
#[utoipa::path(get, path = "/v1/projects/{project}/images", tag = "images", params(("project" = String, Path)),
    responses((status = 200, body = Vec<ImageView>), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn list<S: ImagesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(project): Path<String>,
) -> Result<Json<Vec<ImageView>>> {
    Ok(Json(app.ctl.list_images(&p, &project).await?))
}

/// Deletes an image (its saver or a project owner), and the blobs no
/// other image of the project has (their bytes given back to the
/// bucket's quota); a booking running it is revoked at its node's next
/// pass.
#[utoipa::path(delete, path = "/v1/projects/{project}/images/{name}", tag = "images",
    params(("project" = String, Path), ("name" = String, Path)),
    responses((status = 204), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn remove<S: ImagesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, name)): Path<(String, String)>,
) -> Result<StatusCode> {
    app.ctl.delete_image(&p, &project, &name).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Shares an image with project `member`, read-only (project owners):
/// its bookings may run it as `PROJECT/NAME`.
#[utoipa::path(put, path = "/v1/projects/{project}/images/{name}/shares/{member}", tag = "images",
    params(("project" = String, Path), ("name" = String, Path), ("member" = String, Path)),
    responses((status = 204), (status = 400, description = "the image's own project", body = Error), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn share<S: ImagesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, name, member)): Path<(String, String, String)>,
) -> Result<StatusCode> {
    app.ctl.share_image(&p, &project, &name, &member).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Ends a share: the other project's new bookings may not run it.
#[utoipa::path(delete, path = "/v1/projects/{project}/images/{name}/shares/{member}", tag = "images",
    params(("project" = String, Path), ("name" = String, Path), ("member" = String, Path)),
    responses((status = 204), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn unshare<S: ImagesApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, name, member)): Path<(String, String, String)>,
) -> Result<StatusCode> {
    app.ctl.unshare_image(&p, &project, &name, &member).await?;
    Ok(StatusCode::NO_CONTENT)
}
