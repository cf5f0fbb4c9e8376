//! Shared VLANs: a shared VLAN's invited projects (its booker's side) and
//! the shared VLANs a project is invited to (the invited side).

use super::{App, Caller};
use crate::error::{Error, Result};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, get, put};
use axum::{Json, Router};
use prism_controller_api::areas::{ControllerApi, SharedVlansApi};
use prism_controller_api::{SharedVlanView, VlanMember};

pub fn routes<S: ControllerApi>() -> Router<App<S>> {
    Router::new()
        .route(
            "/v1/projects/{project}/bookings/{id}/members",
            get(list_members::<S>),
        )
        .route(
            "/v1/projects/{project}/bookings/{id}/members/{member}",
            put(invite::<S>).delete(revoke::<S>),
        )
        .route("/v1/projects/{project}/shared-vlans", get(list_shared::<S>))
        .route(
            "/v1/projects/{project}/shared-vlans/{id}",
            delete(leave::<S>),
        )
}

/// The projects invited to a shared VLAN.
#[utoipa::path(get, path = "/v1/projects/{project}/bookings/{id}/members", tag = "shared-vlans",
    params(("project" = String, Path), ("id" = String, Path)),
    responses((status = 200, body = Vec<VlanMember>), (status = 400, description = "the booking is no shared VLAN", body = Error), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn list_members<S: SharedVlansApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, id)): Path<(String, String)>,
) -> Result<Json<Vec<VlanMember>>> {
    Ok(Json(app.ctl.list_vlan_members(&p, &project, &id).await?))
}

/// Invites project `member` to shared VLAN `id` (its booker or a
/// project owner): its processing nodes may attach to it as
/// `PROJECT/NAME`. Inviting again changes nothing.
#[utoipa::path(put, path = "/v1/projects/{project}/bookings/{id}/members/{member}", tag = "shared-vlans",
    params(("project" = String, Path), ("id" = String, Path), ("member" = String, Path)),
    responses((status = 200, body = VlanMember), (status = 400, description = "no live shared VLAN, or the VLAN's own project", body = Error), (status = 403, body = Error), (status = 404, description = "no such project or booking", body = Error)))]
pub async fn invite<S: SharedVlansApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, id, member)): Path<(String, String, String)>,
) -> Result<Json<VlanMember>> {
    Ok(Json(
        app.ctl.invite_to_vlan(&p, &project, &id, &member).await?,
    ))
}

/// Revokes project `member`'s invitation: its processing nodes on the
/// VLAN are unplugged from it (answered once the node has, or after the
/// change wait).
#[utoipa::path(delete, path = "/v1/projects/{project}/bookings/{id}/members/{member}", tag = "shared-vlans",
    params(("project" = String, Path), ("id" = String, Path), ("member" = String, Path)),
    responses((status = 204), (status = 403, body = Error), (status = 404, description = "no such booking, or the project is not invited", body = Error)))]
pub async fn revoke<S: SharedVlansApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, id, member)): Path<(String, String, String)>,
) -> Result<StatusCode> {
    app.ctl.revoke_from_vlan(&p, &project, &id, &member).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The live shared VLANs the project is invited to.
#[utoipa::path(get, path = "/v1/projects/{project}/shared-vlans", tag = "shared-vlans",
    params(("project" = String, Path)),
    responses((status = 200, body = Vec<SharedVlanView>), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn list_shared<S: SharedVlansApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(project): Path<String>,
) -> Result<Json<Vec<SharedVlanView>>> {
    Ok(Json(app.ctl.list_shared_vlans(&p, &project).await?))
}

/// The project leaves shared VLAN `id` (its owners, `members.manage`):
/// its processing nodes on it are unplugged from it.
#[utoipa::path(delete, path = "/v1/projects/{project}/shared-vlans/{id}", tag = "shared-vlans",
    params(("project" = String, Path), ("id" = String, Path)),
    responses((status = 204), (status = 403, body = Error), (status = 404, description = "no such shared VLAN the project is invited to", body = Error)))]
pub async fn leave<S: SharedVlansApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, id)): Path<(String, String)>,
) -> Result<StatusCode> {
    app.ctl.leave_shared_vlan(&p, &project, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}
