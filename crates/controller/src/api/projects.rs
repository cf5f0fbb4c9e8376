//! Service levels, projects and their members.

use super::{App, Body, Caller};
use crate::app::projects::{MemberRequest, MemberView, ProjectRequest, ProjectView, ServiceLevel};
use crate::error::{Error, Result};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, put};
use axum::{Json, Router};
use prism_controller_api::areas::{ControllerApi, ProjectsApi};

pub fn routes<S: ControllerApi>() -> Router<App<S>> {
    Router::new()
        .route("/v1/service-levels", get(list_levels::<S>))
        .route("/v1/service-levels/{name}", put(put_level::<S>))
        .route(
            "/v1/projects",
            get(list_projects::<S>).post(create_project::<S>),
        )
        .route("/v1/projects/{project}", get(get_project::<S>))
        .route("/v1/projects/{project}/members", get(list_members::<S>))
        .route(
            "/v1/projects/{project}/members/{user}",
            put(set_member::<S>).delete(remove_member::<S>),
        )
}

#[utoipa::path(get, path = "/v1/service-levels", tag = "projects", responses((status = 200, body = Vec<ServiceLevel>)))]
pub async fn list_levels<S: ProjectsApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
) -> Result<Json<Vec<ServiceLevel>>> {
    Ok(Json(app.ctl.list_service_levels(&p).await?))
}

/// Adds or replaces a service level (administrators).
#[utoipa::path(put, path = "/v1/service-levels/{name}", tag = "projects", request_body = ServiceLevel,
    params(("name" = String, Path)), responses((status = 200, body = ServiceLevel), (status = 403, body = Error)))]
pub async fn put_level<S: ProjectsApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(name): Path<String>,
    Body(l): Body<ServiceLevel>,
) -> Result<Json<ServiceLevel>> {
    if l.name != name {
        return Err(Error::invalid(format!("the path names `{name}`")).with_field("name"));
    }
    Ok(Json(app.ctl.put_service_level(&p, l).await?))
}

/// The projects the caller belongs to (all, for an administrator).
#[utoipa::path(get, path = "/v1/projects", tag = "projects", responses((status = 200, body = Vec<ProjectView>)))]
pub async fn list_projects<S: ProjectsApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
) -> Result<Json<Vec<ProjectView>>> {
    Ok(Json(app.ctl.list_projects(&p).await?))
}

/// Creates a project with its owner (administrators).
#[utoipa::path(post, path = "/v1/projects", tag = "projects", request_body = ProjectRequest,
    responses((status = 201, body = ProjectView), (status = 403, body = Error), (status = 404, description = "no such owner or service level", body = Error), (status = 409, body = Error)))]
pub async fn create_project<S: ProjectsApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Body(r): Body<ProjectRequest>,
) -> Result<(StatusCode, Json<ProjectView>)> {
    Ok((
        StatusCode::CREATED,
        Json(app.ctl.create_project(&p, r).await?),
    ))
}

#[utoipa::path(get, path = "/v1/projects/{project}", tag = "projects", params(("project" = String, Path)),
    responses((status = 200, body = ProjectView), (status = 403, description = "the caller's role, the project's service level or the API key does not allow the read", body = Error), (status = 404, body = Error)))]
pub async fn get_project<S: ProjectsApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(project): Path<String>,
) -> Result<Json<ProjectView>> {
    Ok(Json(app.ctl.get_project(&p, &project).await?))
}

#[utoipa::path(get, path = "/v1/projects/{project}/members", tag = "projects", params(("project" = String, Path)),
    responses((status = 200, body = Vec<MemberView>), (status = 403, description = "the caller's role, the project's service level or the API key does not allow the read", body = Error), (status = 404, body = Error)))]
pub async fn list_members<S: ProjectsApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(project): Path<String>,
) -> Result<Json<Vec<MemberView>>> {
    Ok(Json(app.ctl.list_members(&p, &project).await?))
}

/// Adds a member, or changes their role (`members.manage`).
#[utoipa::path(put, path = "/v1/projects/{project}/members/{user}", tag = "projects", request_body = MemberRequest,
    params(("project" = String, Path), ("user" = String, Path)),
    responses((status = 200, body = MemberView), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn set_member<S: ProjectsApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, user)): Path<(String, String)>,
    Body(r): Body<MemberRequest>,
) -> Result<Json<MemberView>> {
    Ok(Json(app.ctl.set_member(&p, &project, &user, r).await?))
}

#[utoipa::path(delete, path = "/v1/projects/{project}/members/{user}", tag = "projects",
    params(("project" = String, Path), ("user" = String, Path)),
    responses((status = 204), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn remove_member<S: ProjectsApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, user)): Path<(String, String)>,
) -> Result<StatusCode> {
    app.ctl.remove_member(&p, &project, &user).await?;
    Ok(StatusCode::NO_CONTENT)
}
