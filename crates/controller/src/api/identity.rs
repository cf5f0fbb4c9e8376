//! Identity: logging in and out, who the caller is, users, and a project's
//! API keys.

use super::{App, Body, Caller, Source};
use crate::app::identity::{
    ApiKeyRequest, ApiKeyView, LoginRequest, TokenView, UserRequest, UserView, WhoAmI,
};
use crate::error::{Error, Result};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use prism_controller_api::areas::{ControllerApi, IdentityApi};
use prism_controller_api::{SshKeyRequest, SshKeyView};

pub fn routes<S: ControllerApi>() -> Router<App<S>> {
    Router::new()
        .route("/v1/login", post(login::<S>))
        .route("/v1/logout", post(logout::<S>))
        .route("/v1/whoami", get(whoami::<S>))
        .route("/v1/users", get(list_users::<S>).post(create_user::<S>))
        .route(
            "/v1/projects/{project}/api-keys",
            get(list_keys::<S>).post(create_key::<S>),
        )
        .route(
            "/v1/projects/{project}/api-keys/{id}",
            delete(revoke_key::<S>),
        )
        .route(
            "/v1/ssh-keys",
            get(list_ssh_keys::<S>).post(add_ssh_key::<S>),
        )
        .route("/v1/ssh-keys/{id}", delete(remove_ssh_key::<S>))
}

/// The caller's ssh public keys: their processing nodes' root accepts them.
#[utoipa::path(get, path = "/v1/ssh-keys", tag = "identity", responses((status = 200, body = Vec<SshKeyView>), (status = 401, body = Error),
    (status = 403, description = "an API key: ssh keys are the logged-in user's", body = Error)))]
pub async fn list_ssh_keys<S: IdentityApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
) -> Result<Json<Vec<SshKeyView>>> {
    Ok(Json(app.ctl.list_ssh_keys(&p).await?))
}

/// Adds an ssh public key (`TYPE BASE64 [COMMENT]`, as in a `.pub` file);
/// processing nodes booked from now on (or started again) accept it.
#[utoipa::path(post, path = "/v1/ssh-keys", tag = "identity", request_body = SshKeyRequest,
    responses((status = 201, body = SshKeyView), (status = 400, body = Error), (status = 401, body = Error),
        (status = 403, description = "an API key: ssh keys are the logged-in user's", body = Error), (status = 409, body = Error)))]
pub async fn add_ssh_key<S: IdentityApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Body(r): Body<SshKeyRequest>,
) -> Result<(StatusCode, Json<SshKeyView>)> {
    Ok((StatusCode::CREATED, Json(app.ctl.add_ssh_key(&p, r).await?)))
}

#[utoipa::path(delete, path = "/v1/ssh-keys/{id}", tag = "identity", params(("id" = String, Path)),
    responses((status = 204), (status = 401, body = Error),
        (status = 403, description = "an API key: ssh keys are the logged-in user's", body = Error), (status = 404, body = Error)))]
pub async fn remove_ssh_key<S: IdentityApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(id): Path<String>,
) -> Result<StatusCode> {
    app.ctl.remove_ssh_key(&p, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Logs in: a short-lived bearer token, scoped to a project if asked.
#[utoipa::path(post, path = "/v1/login", tag = "identity", request_body = LoginRequest, security(()),
    responses((status = 201, body = TokenView), (status = 401, body = Error),
        (status = 429, description = "too many failed logins for the user or from the address; `Retry-After` says when", body = Error)))]
pub async fn login<S: IdentityApi>(
    State(app): State<App<S>>,
    Source(source): Source,
    Body(r): Body<LoginRequest>,
) -> Result<(StatusCode, Json<TokenView>)> {
    Ok((
        StatusCode::CREATED,
        Json(app.ctl.login_from(r, source).await?),
    ))
}

/// Revokes the token (or key) the call carries.
#[utoipa::path(post, path = "/v1/logout", tag = "identity", responses((status = 204), (status = 401, body = Error)))]
pub async fn logout<S: IdentityApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
) -> Result<StatusCode> {
    app.ctl.logout(&p).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(get, path = "/v1/whoami", tag = "identity", responses((status = 200, body = WhoAmI), (status = 401, body = Error)))]
pub async fn whoami<S: IdentityApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
) -> Result<Json<WhoAmI>> {
    Ok(Json(app.ctl.whoami(&p).await?))
}

#[utoipa::path(get, path = "/v1/users", tag = "identity", responses((status = 200, body = Vec<UserView>), (status = 403, body = Error)))]
pub async fn list_users<S: IdentityApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
) -> Result<Json<Vec<UserView>>> {
    Ok(Json(app.ctl.list_users(&p).await?))
}

/// Creates a user (administrators).
#[utoipa::path(post, path = "/v1/users", tag = "identity", request_body = UserRequest,
    responses((status = 201, body = UserView), (status = 403, body = Error), (status = 409, body = Error)))]
pub async fn create_user<S: IdentityApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Body(r): Body<UserRequest>,
) -> Result<(StatusCode, Json<UserView>)> {
    Ok((StatusCode::CREATED, Json(app.ctl.create_user(&p, r).await?)))
}

#[utoipa::path(get, path = "/v1/projects/{project}/api-keys", tag = "identity", params(("project" = String, Path)),
    responses((status = 200, body = Vec<ApiKeyView>), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn list_keys<S: IdentityApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(project): Path<String>,
) -> Result<Json<Vec<ApiKeyView>>> {
    Ok(Json(app.ctl.list_api_keys(&p, &project).await?))
}

/// Creates an API key restricted to the project and to a set of
/// operations; the answer is the only place its secret appears.
#[utoipa::path(post, path = "/v1/projects/{project}/api-keys", tag = "identity", request_body = ApiKeyRequest,
    params(("project" = String, Path)),
    responses((status = 201, body = ApiKeyView), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn create_key<S: IdentityApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path(project): Path<String>,
    Body(r): Body<ApiKeyRequest>,
) -> Result<(StatusCode, Json<ApiKeyView>)> {
    Ok((
        StatusCode::CREATED,
        Json(app.ctl.create_api_key(&p, &project, r).await?),
    ))
}

/// Revokes an API key of the project: its creator, a project owner, or an
/// administrator (an override, audited as `admin-override`).
#[utoipa::path(delete, path = "/v1/projects/{project}/api-keys/{id}", tag = "identity",
    params(("project" = String, Path), ("id" = String, Path)),
    responses((status = 204), (status = 403, body = Error), (status = 404, body = Error)))]
pub async fn revoke_key<S: IdentityApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    Path((project, id)): Path<(String, String)>,
) -> Result<StatusCode> {
    app.ctl.revoke_api_key(&p, &project, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}
