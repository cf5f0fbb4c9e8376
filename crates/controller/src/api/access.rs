//! Identity, projects, nodes and the registry.

use super::{App, Body, Caller};
use crate::error::{Error, Result};
use crate::identity::{
    ApiKeyRequest, ApiKeyView, LoginRequest, TokenView, UserRequest, UserView, WhoAmI,
};
use crate::model::ResourceType;
use crate::nodes::{NodeRequest, NodeView};
use crate::projects::{MemberRequest, MemberView, ProjectRequest, ProjectView, ServiceLevel};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, get, post, put};
use axum::{Json, Router};

pub fn routes() -> Router<App> {
    Router::new()
        .route("/v1/login", post(login))
        .route("/v1/logout", post(logout))
        .route("/v1/whoami", get(whoami))
        .route("/v1/users", get(list_users).post(create_user))
        .route("/v1/service-levels", get(list_levels))
        .route("/v1/service-levels/{name}", put(put_level))
        .route("/v1/projects", get(list_projects).post(create_project))
        .route("/v1/projects/{project}", get(get_project))
        .route("/v1/projects/{project}/members", get(list_members))
        .route(
            "/v1/projects/{project}/members/{user}",
            put(set_member).delete(remove_member),
        )
        .route(
            "/v1/projects/{project}/api-keys",
            get(list_keys).post(create_key),
        )
        .route("/v1/projects/{project}/api-keys/{id}", delete(revoke_key))
        .route("/v1/nodes", get(list_nodes).post(register_node))
        .route("/v1/resource-types", get(list_types).post(register_type))
}

/// Logs in: a short-lived bearer token, scoped to a project if asked.
#[utoipa::path(post, path = "/v1/login", tag = "identity", request_body = LoginRequest, security(()),
    responses((status = 201, body = TokenView), (status = 401, body = Error)))]
pub async fn login(
    State(app): State<App>,
    Body(r): Body<LoginRequest>,
) -> Result<(StatusCode, Json<TokenView>)> {
    Ok((StatusCode::CREATED, Json(app.ctl.login(r).await?)))
}

/// Revokes the token (or key) the call carries.
#[utoipa::path(post, path = "/v1/logout", tag = "identity", responses((status = 204), (status = 401, body = Error)))]
pub async fn logout(State(app): State<App>, Caller(p): Caller) -> Result<StatusCode> {
    app.ctl.logout(&p).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(get, path = "/v1/whoami", tag = "identity", responses((status = 200, body = WhoAmI), (status = 401, body = Error)))]
pub async fn whoami(State(app): State<App>, Caller(p): Caller) -> Result<Json<WhoAmI>> {
    Ok(Json(app.ctl.whoami(&p).await?))
}

#[utoipa::path(get, path = "/v1/users", tag = "identity", responses((status = 200, body = Vec<UserView>), (status = 403, body = Error)))]
pub async fn list_users(State(app): State<App>, Caller(p): Caller) -> Result<Json<Vec<UserView>>> {
    Ok(Json(app.ctl.list_users(&p).await?))
}

/// Creates a user (administrators).
#[utoipa::path(post, path = "/v1/users", tag = "identity", request_body = UserRequest,
    responses((status = 201, body = UserView), (status = 403, body = Error), (status = 409, body = Error)))]
pub async fn create_user(
    State(app): State<App>,
    Caller(p): Caller,
    Body(r): Body<UserRequest>,
) -> Result<(StatusCode, Json<UserView>)> {
    Ok((StatusCode::CREATED, Json(app.ctl.create_user(&p, r).await?)))
}

#[utoipa::path(get, path = "/v1/service-levels", tag = "projects", responses((status = 200, body = Vec<ServiceLevel>)))]
pub async fn list_levels(
    State(app): State<App>,
    Caller(p): Caller,
) -> Result<Json<Vec<ServiceLevel>>> {
    Ok(Json(app.ctl.list_service_levels(&p).await?))
}

/// Adds or replaces a service level (administrators).
#[utoipa::path(put, path = "/v1/service-levels/{name}", tag = "projects", request_body = ServiceLevel,
    params(("name" = String, Path)), responses((status = 200, body = ServiceLevel), (status = 403, body = Error)))]
pub async fn put_level(
    State(app): State<App>,
    Caller(p): Caller,
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
pub async fn list_projects(
    State(app): State<App>,
    Caller(p): Caller,
) -> Result<Json<Vec<ProjectView>>> {
    Ok(Json(app.ctl.list_projects(&p).await?))
}

/// Creates a project with its owner (administrators).
#[utoipa::path(post, path = "/v1/projects", tag = "projects", request_body = ProjectRequest,
    responses((status = 201, body = ProjectView), (status = 403, body = Error), (status = 404, description = "no such owner or service level", body = Error), (status = 409, body = Error)))]
pub async fn create_project(
    State(app): State<App>,
    Caller(p): Caller,
    Body(r): Body<ProjectRequest>,
) -> Result<(StatusCode, Json<ProjectView>)> {
    Ok((
        StatusCode::CREATED,
        Json(app.ctl.create_project(&p, r).await?),
    ))
}

#[utoipa::path(get, path = "/v1/projects/{project}", tag = "projects", params(("project" = String, Path)),
    responses((status = 200, body = ProjectView), (status = 404, body = Error)))]
pub async fn get_project(
    State(app): State<App>,
    Caller(p): Caller,
    Path(project): Path<String>,
) -> Result<Json<ProjectView>> {
    Ok(Json(app.ctl.get_project(&p, &project).await?))
}

#[utoipa::path(get, path = "/v1/projects/{project}/members", tag = "projects", params(("project" = String, Path)),
    responses((status = 200, body = Vec<MemberView>), (status = 404, body = Error)))]
pub async fn list_members(
    State(app): State<App>,
    Caller(p): Caller,
    Path(project): Path<String>,
) -> Result<Json<Vec<MemberView>>> {
    Ok(Json(app.ctl.list_members(&p, &project).await?))
}

/// Adds a member, or changes their role (`members.manage`).
#[utoipa::path(put, path = "/v1/projects/{project}/members/{user}", tag = "projects", request_body = MemberRequest,
    params(("project" = String, Path), ("user" = String, Path)),
    responses((status = 200, body = MemberView), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn set_member(
    State(app): State<App>,
    Caller(p): Caller,
    Path((project, user)): Path<(String, String)>,
    Body(r): Body<MemberRequest>,
) -> Result<Json<MemberView>> {
    Ok(Json(app.ctl.set_member(&p, &project, &user, r).await?))
}

#[utoipa::path(delete, path = "/v1/projects/{project}/members/{user}", tag = "projects",
    params(("project" = String, Path), ("user" = String, Path)),
    responses((status = 204), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn remove_member(
    State(app): State<App>,
    Caller(p): Caller,
    Path((project, user)): Path<(String, String)>,
) -> Result<StatusCode> {
    app.ctl.remove_member(&p, &project, &user).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(get, path = "/v1/projects/{project}/api-keys", tag = "identity", params(("project" = String, Path)),
    responses((status = 200, body = Vec<ApiKeyView>), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn list_keys(
    State(app): State<App>,
    Caller(p): Caller,
    Path(project): Path<String>,
) -> Result<Json<Vec<ApiKeyView>>> {
    Ok(Json(app.ctl.list_api_keys(&p, &project).await?))
}

/// Creates an API key restricted to the project and to a set of
/// operations; the answer is the only place its secret appears.
#[utoipa::path(post, path = "/v1/projects/{project}/api-keys", tag = "identity", request_body = ApiKeyRequest,
    params(("project" = String, Path)),
    responses((status = 201, body = ApiKeyView), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn create_key(
    State(app): State<App>,
    Caller(p): Caller,
    Path(project): Path<String>,
    Body(r): Body<ApiKeyRequest>,
) -> Result<(StatusCode, Json<ApiKeyView>)> {
    Ok((
        StatusCode::CREATED,
        Json(app.ctl.create_api_key(&p, &project, r).await?),
    ))
}

#[utoipa::path(delete, path = "/v1/projects/{project}/api-keys/{id}", tag = "identity",
    params(("project" = String, Path), ("id" = String, Path)),
    responses((status = 204), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn revoke_key(
    State(app): State<App>,
    Caller(p): Caller,
    Path((project, id)): Path<(String, String)>,
) -> Result<StatusCode> {
    app.ctl.revoke_api_key(&p, &project, &id).await?;
    Ok(StatusCode::NO_CONTENT)
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
