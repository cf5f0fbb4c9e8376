//! Users, sessions, API keys and authentication.

use crate::app::audit::audit;
use crate::app::authz::{Operation, Principal, SeenProject};
use crate::app::checks::{MAX_KEY_TTL_S, check_name};
use crate::app::context::Context;
use crate::app::login_guard::Reserved;
use crate::app::login_guard::{login_reserve, login_succeeded};
use crate::app::projects::{membership_of, project_for};
use crate::datastore::identity::{self as store, CredentialRow};
use crate::error::{Error, Result};
use crate::infra::secrets::{self, KEY_PREFIX, TOKEN_PREFIX};
use std::net::IpAddr;
use std::sync::Arc;

/// A session's default and longest life (FABRIC's tokens last an hour).
pub const SESSION_TTL_S: i64 = 3600;
pub const SESSION_MAX_TTL_S: i64 = 24 * 3600;

pub use prism_controller_api::identity::{
    ApiKeyRequest, ApiKeyView, LoginRequest, TokenView, UserRequest, UserView, WhoAmI,
};

/// Creates the first administrator; refused once one exists.
pub async fn bootstrap_admin(cx: &Context, name: &str, password: &str) -> Result<UserView> {
    if store::count_admins(&cx.pool).await? > 0 {
        return Err(Error::conflict("an administrator exists already"));
    }
    insert_user(cx, name, password, true).await
}

async fn insert_user(cx: &Context, name: &str, password: &str, admin: bool) -> Result<UserView> {
    check_name("name", name)?;
    let hash = secrets::hash_password(password, cx.settings.password_cost)
        .map_err(|m| Error::invalid(m).with_field("password"))?;
    let u = UserView {
        id: secrets::new_id(),
        name: name.into(),
        admin,
        created_ms: cx.now_ms(),
    };
    store::insert_user(&cx.pool, &u, &hash).await?;
    Ok(u)
}

pub async fn create_user(cx: &Context, p: &Principal, r: UserRequest) -> Result<UserView> {
    p.require_admin()?;
    insert_user(cx, &r.name, &r.password, r.admin).await
}

pub async fn list_users(cx: &Context, p: &Principal) -> Result<Vec<UserView>> {
    p.require_admin()?;
    store::users(&cx.pool).await
}

pub async fn login(cx: &Context, r: LoginRequest) -> Result<TokenView> {
    login_from(cx, r, None).await
}

/// A login from `source` (the API's caller's address): refused with
/// 429 while the name or the address is blocked for failed logins
/// (`crate::app::login_guard`), before the password is checked. Every
/// refused login is a row of the audit log naming the user tried and
/// the address.
pub async fn login_from(
    cx: &Context,
    r: LoginRequest,
    source: Option<IpAddr>,
) -> Result<TokenView> {
    let who = match source {
        Some(a) => format!("login:{} from {a}", r.user),
        None => format!("login:{}", r.user),
    };
    let ttl = r.ttl_s.unwrap_or(SESSION_TTL_S);
    if !(1..=SESSION_MAX_TTL_S).contains(&ttl) {
        return Err(Error::invalid(format!("1 to {SESSION_MAX_TTL_S} seconds")).with_field("ttl_s"));
    }
    if let Reserved::Blocked(left_ms) = login_reserve(cx, &r.user, source).await? {
        let e = Error::rate_limited(
            "too many failed logins for this user or from this address; wait",
            u64::try_from(left_ms).unwrap_or(0).div_ceil(1000),
        );
        audit(cx, Some(&who), "POST", "/v1/login", 429).await;
        return Err(e);
    }
    let answer = check_login(cx, &r, ttl).await;
    if answer.is_ok() {
        login_succeeded(cx, &r.user, source).await?;
    }
    let status = answer
        .as_ref()
        .map_or_else(|e| e.code.http_status(), |_| 201);
    audit(cx, Some(&who), "POST", "/v1/login", status).await;
    answer
}

async fn check_login(cx: &Context, r: &LoginRequest, ttl: i64) -> Result<TokenView> {
    // No such user: a dummy hash is verified all the same, so the
    // time taken does not tell which names exist.
    let (user_id, hash) = match store::password_hash(&cx.pool, &r.user).await? {
        Some((id, hash)) => (Some(id), hash),
        None => (None, cx.dummy_hash.to_string()),
    };
    let password = r.password.clone();
    let ok = tokio::task::spawn_blocking(move || secrets::verify_password(&password, &hash))
        .await
        .unwrap_or(false);
    let refused = || Error::unauthorized("wrong user name or password");
    let user_id = match (ok, user_id) {
        (true, Some(id)) => id,
        _ => return Err(refused()),
    };
    let project_id = match &r.project {
        Some(name) => {
            let m = membership_of(cx, &user_id, name).await?;
            // Not a member (or no such project): the same refusal, so a
            // login does not reveal which projects exist.
            Some(m.ok_or_else(refused)?)
        }
        None => None,
    };
    let (token, digest) = secrets::new_secret(TOKEN_PREFIX);
    let id = secrets::new_id();
    let now = cx.now_ms();
    let expires = now + ttl * 1000;
    let c = store::NewCredential {
        id: &id,
        digest: &digest,
        kind: "session",
        name: "login",
        user_id: &user_id,
        project_id: project_id.as_deref(),
        operations: None,
        created_ms: now,
        expires_ms: Some(expires),
    };
    store::insert_credential(&cx.pool, &c).await?;
    Ok(TokenView {
        token,
        id,
        expires_ms: expires,
        project: r.project.clone(),
    })
}

/// The principal a bearer secret stands for; 401 unless it is a live
/// session token or API key.
pub async fn authenticate(cx: &Context, bearer: Option<&str>) -> Result<Principal> {
    authenticate_in(cx, bearer, None).await
}

/// As [`authenticate`], reading with the credential the project
/// named `project` (a request's path names it) as the caller sees it:
/// one round trip for both.
pub async fn authenticate_in(
    cx: &Context,
    bearer: Option<&str>,
    project: Option<&str>,
) -> Result<Principal> {
    let missing = || {
        Error::unauthorized(
            "this call needs `Authorization: Bearer <token or API key>` (`prism ctl login`)",
        )
    };
    let secret = bearer.ok_or_else(missing)?;
    if !(secret.starts_with(TOKEN_PREFIX) || secret.starts_with(KEY_PREFIX)) {
        return Err(missing());
    }
    let digest = secrets::digest(secret);
    let ttl = std::time::Duration::from_millis(cx.settings.auth_cache_ms);
    let (c, seen) = match cx.auth_cache.get(&digest, project, ttl) {
        Some((c, seen)) => (Some(c), seen),
        None => read_credential(cx, &digest, project, ttl).await?,
    };
    let c = c.ok_or_else(|| Error::unauthorized("unknown token or API key"))?;
    principal_of(cx, c, seen)
}

/// Reads credential `digest` (with project `project`) from the
/// database, and keeps what it stands for `ttl` (`crate::app::auth_cache`).
async fn read_credential(
    cx: &Context,
    digest: &str,
    project: Option<&str>,
    ttl: std::time::Duration,
) -> Result<(Option<CredentialRow>, Option<Arc<SeenProject>>)> {
    let (c, seen) = match project {
        Some(name) => match store::credential_in_project(&cx.pool, digest, name).await? {
            Some((c, found)) => {
                let name = name.to_string();
                (Some(c), Some(Arc::new(SeenProject { name, found })))
            }
            None => (None, None),
        },
        None => (store::credential_by_digest(&cx.pool, digest).await?, None),
    };
    // Only what the database knows is kept: an unknown secret is read
    // again at its next use.
    if let Some(c) = &c {
        cx.auth_cache.put(digest, project, c, seen.clone(), ttl);
    }
    Ok((c, seen))
}

/// Checks credential `c` (revoked, expired) and makes its principal.
fn principal_of(
    cx: &Context,
    c: CredentialRow,
    seen: Option<Arc<SeenProject>>,
) -> Result<Principal> {
    if c.revoked_ms.is_some() {
        return Err(Error::unauthorized("this token or API key was revoked"));
    }
    if c.expires_ms.is_some_and(|e| e <= cx.now_ms()) {
        return Err(Error::unauthorized(
            "this token or API key has expired; log in again",
        ));
    }
    Ok(Principal {
        credential_id: c.id,
        user_id: c.user_id,
        user: c.user,
        is_admin: c.is_admin,
        project_id: c.project_id,
        key_operations: c.operations,
        seen,
    })
}

pub async fn logout(cx: &Context, p: &Principal) -> Result<()> {
    store::revoke(&cx.pool, &p.credential_id, cx.now_ms()).await?;
    cx.auth_cache.clear();
    Ok(())
}

pub async fn whoami(cx: &Context, p: &Principal) -> Result<WhoAmI> {
    let project = match &p.project_id {
        Some(id) => store::project_name(&cx.pool, id).await?,
        None => None,
    };
    Ok(WhoAmI {
        user: p.user.clone(),
        admin: p.is_admin,
        project,
        operations: p.key_operations.clone(),
        credential: p.credential_id.clone(),
    })
}

pub async fn create_api_key(
    cx: &Context,
    p: &Principal,
    project: &str,
    r: ApiKeyRequest,
) -> Result<ApiKeyView> {
    let m = project_for(cx, p, project, Operation::KeysManage).await?;
    check_name("name", &r.name)?;
    if r.operations.is_empty() {
        return Err(Error::invalid("at least one operation").with_field("operations"));
    }
    for (i, op) in r.operations.iter().enumerate() {
        // A key never carries more than its creator may do.
        p.may(&m, *op)
            .map_err(|e| e.with_field(format!("operations[{i}]")))?;
    }
    if let Some(t) = r.ttl_s
        && !(1..=MAX_KEY_TTL_S).contains(&t)
    {
        return Err(
            Error::invalid(format!("1 to {MAX_KEY_TTL_S} seconds (ten years)")).with_field("ttl_s"),
        );
    }
    let (key, digest) = secrets::new_secret(KEY_PREFIX);
    let id = secrets::new_id();
    let now = cx.now_ms();
    let expires = r.ttl_s.map(|t| now + t * 1000);
    let c = store::NewCredential {
        id: &id,
        digest: &digest,
        kind: "api_key",
        name: &r.name,
        user_id: &p.user_id,
        project_id: Some(&m.project_id),
        operations: Some(&r.operations),
        created_ms: now,
        expires_ms: expires,
    };
    store::insert_credential(&cx.pool, &c).await?;
    Ok(ApiKeyView {
        id,
        name: r.name,
        user: p.user.clone(),
        operations: r.operations,
        created_ms: now,
        expires_ms: expires,
        revoked_ms: None,
        key: Some(key),
    })
}

pub async fn list_api_keys(cx: &Context, p: &Principal, project: &str) -> Result<Vec<ApiKeyView>> {
    let m = project_for(cx, p, project, Operation::KeysManage).await?;
    store::api_keys(&cx.pool, &m.project_id).await
}

/// Revokes a key of the project: its creator's, or any for an owner.
pub async fn revoke_api_key(cx: &Context, p: &Principal, project: &str, id: &str) -> Result<()> {
    let m = project_for(cx, p, project, Operation::KeysManage).await?;
    let owner = store::api_key_creator(&cx.pool, id, &m.project_id)
        .await?
        .ok_or_else(|| Error::not_found("such API key"))?;
    p.may_touch(&m, Operation::KeysManage, &owner, &format!("API key {id}"))?;
    store::revoke_api_key(&cx.pool, id, cx.now_ms()).await?;
    cx.auth_cache.clear();
    Ok(())
}
