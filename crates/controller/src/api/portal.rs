//! The web portal: its files (`crates/controller/portal/`: ES modules, a
//! style sheet and an icon, compiled into the binary: nothing is fetched
//! from elsewhere) and its session.
//!
//! A browser logs in at `POST /portal/login` and holds the session token
//! in a cookie it cannot read from script (`HttpOnly`, `SameSite=Strict`,
//! `Secure` over TLS); the portal then calls the same `/v1` API as every
//! client, authorized the same way. A call that changes something with
//! that cookie must also carry `X-Prism-CSRF`, a digest of the session
//! token that only a page which asked `GET /portal/session` knows
//! (`super::authenticate` checks it). Logout revokes the token on the
//! server, not only in the browser.

use super::{App, Body, Caller, Source};
use crate::app::identity::LoginRequest;
use crate::error::{Error, Result};
use crate::infra::secrets::TOKEN_PREFIX;
use axum::extract::{FromRequest, Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use prism_controller_api::areas::{CallerId, ControllerApi, Gate, IdentityApi};
use prism_http::Transport;
use serde::Serialize;
use sha2::{Digest, Sha256};

/// The session cookie's name.
pub const COOKIE: &str = "prism_session";
/// The header a cookie-authenticated change carries.
pub const CSRF_HEADER: &str = "x-prism-csrf";
/// A portal session's length (seconds): a working day.
const SESSION_S: i64 = 8 * 3600;

/// The portal's files: path under `/portal/`, content type, bytes.
const FILES: [(&str, &str, &str); 11] = [
    ("app.js", JS, include_str!("../../portal/app.js")),
    ("core.js", JS, include_str!("../../portal/core.js")),
    ("bookings.js", JS, include_str!("../../portal/bookings.js")),
    ("network.js", JS, include_str!("../../portal/network.js")),
    ("editor.js", JS, include_str!("../../portal/editor.js")),
    ("program.js", JS, include_str!("../../portal/program.js")),
    (
        "processing.js",
        JS,
        include_str!("../../portal/processing.js"),
    ),
    ("account.js", JS, include_str!("../../portal/account.js")),
    ("operator.js", JS, include_str!("../../portal/operator.js")),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../../portal/style.css"),
    ),
    (
        "icon.svg",
        "image/svg+xml",
        include_str!("../../portal/icon.svg"),
    ),
];
const JS: &str = "text/javascript; charset=utf-8";
const INDEX: &str = include_str!("../../portal/index.html");

/// Scripts and styles from this origin only (none inline), no frames, no
/// forms or calls elsewhere.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' blob:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The session token the request's cookie carries, if any.
pub fn session_cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, v)| *k == COOKIE && v.starts_with(TOKEN_PREFIX) && v.len() < 200)
        .map(|(_, v)| v.to_string())
}

/// The CSRF token of session `token`: a digest a cross-site page cannot
/// compute (it cannot read the cookie).
pub fn csrf_for(token: &str) -> String {
    let digest = Sha256::new()
        .chain_update(b"prism portal csrf\0")
        .chain_update(token.as_bytes())
        .finalize();
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether the request carries session `token`'s CSRF token.
pub fn csrf_ok(headers: &HeaderMap, token: &str) -> bool {
    use subtle::ConstantTimeEq;
    let Some(given) = headers.get(CSRF_HEADER) else {
        return false;
    };
    given.as_bytes().ct_eq(csrf_for(token).as_bytes()).into()
}

/// The session token a cookie-authenticated request came with.
#[derive(Debug, Clone)]
pub struct SessionCookie(pub String);

pub fn routes<S: ControllerApi>() -> Router<App<S>> {
    Router::new()
        .route("/", get(index))
        .route("/portal/login", post(login::<S>))
        .route("/portal/session", get(session::<S>))
        .route("/portal/logout", post(logout::<S>))
        .route("/portal/{file}", get(file))
}

/// Headers every answer carries; the page's policy on pages.
pub fn harden(resp: &mut Response) {
    let h = resp.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    // Answers hold a project's data: not kept by the browser, so the back
    // button after logout shows nothing.
    h.entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
}

async fn index() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, CSP),
        ],
        INDEX,
    )
        .into_response()
}

/// A file's validator: a digest of its bytes, so a browser asks again
/// each time (`no-cache`) and a file that did not change costs a 304.
fn etag(body: &str) -> String {
    let d = Sha256::digest(body.as_bytes());
    let hex: String = d[..12].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

async fn file(Path(name): Path<String>, headers: HeaderMap) -> Response {
    let Some((_, kind, body)) = FILES.iter().find(|(n, _, _)| *n == name) else {
        return super::not_found().await.into_response();
    };
    let tag = etag(body);
    let cache = [
        (header::ETAG, tag.clone()),
        (header::CACHE_CONTROL, "no-cache".into()),
    ];
    let asked = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok());
    if asked.is_some_and(|a| a.split(',').any(|t| t.trim() == tag)) {
        return (StatusCode::NOT_MODIFIED, cache).into_response();
    }
    (cache, [(header::CONTENT_TYPE, *kind)], *body).into_response()
}

/// The portal's view of its session.
#[derive(Debug, Serialize)]
struct PortalSession {
    user: String,
    admin: bool,
    /// Sent back as `X-Prism-CSRF` on every change.
    csrf: String,
}

fn set_cookie(token: &str, max_age_s: i64, tls: bool) -> HeaderValue {
    let secure = if tls { "; Secure" } else { "" };
    let v =
        format!("{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age_s}{secure}");
    HeaderValue::from_str(&v).unwrap_or_else(|_| HeaderValue::from_static(""))
}

fn over_tls(req: &Request) -> bool {
    req.extensions().get::<Transport>().is_some_and(|t| t.tls)
}

/// Logs in with a user's name and password (the API's login: the same
/// throttling and audit); the token goes into the cookie only.
async fn login<S: IdentityApi>(
    State(app): State<App<S>>,
    Source(source): Source,
    req: Request,
) -> Result<Response> {
    let tls = over_tls(&req);
    let json = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    // A cross-site form cannot send JSON without the browser asking first
    // (CORS), which this server never allows: no login CSRF.
    if !json {
        return Err(Error::invalid(
            "a login is a JSON body (`Content-Type: application/json`)",
        ));
    }
    let Body(mut r) = Body::<LoginRequest>::from_request(req, &()).await?;
    r.project = None;
    r.ttl_s = Some(SESSION_S);
    let t = app.ctl.login_from(r, source).await?;
    let p = app.ctl.authenticate_in(Some(&t.token), None).await?;
    let body = PortalSession {
        user: p.user().to_string(),
        admin: p.is_admin(),
        csrf: csrf_for(&t.token),
    };
    let mut resp = (StatusCode::CREATED, Json(body)).into_response();
    resp.headers_mut()
        .insert(header::SET_COOKIE, set_cookie(&t.token, SESSION_S, tls));
    Ok(resp)
}

/// Who the cookie's session is, with its CSRF token (a reloaded page asks).
async fn session<S: Gate>(
    Caller(p): Caller<S::Caller>,
    req: Request,
) -> Result<Json<PortalSession>> {
    let Some(SessionCookie(token)) = req.extensions().get::<SessionCookie>() else {
        return Err(Error::unauthorized("no portal session (log in at /)"));
    };
    Ok(Json(PortalSession {
        user: p.user().to_string(),
        admin: p.is_admin(),
        csrf: csrf_for(token),
    }))
}

/// Ends the session on the server and in the browser.
async fn logout<S: IdentityApi>(
    State(app): State<App<S>>,
    Caller(p): Caller<S::Caller>,
    req: Request,
) -> Result<Response> {
    app.ctl.logout(&p).await?;
    let mut resp = StatusCode::NO_CONTENT.into_response();
    resp.headers_mut()
        .insert(header::SET_COOKIE, set_cookie("", 0, over_tls(&req)));
    Ok(resp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookie_is_secure_over_tls_only() {
        let tls = set_cookie("prt_x", 60, true);
        assert_eq!(
            tls.to_str().unwrap(),
            "prism_session=prt_x; Path=/; HttpOnly; SameSite=Strict; Max-Age=60; Secure"
        );
        let plain = set_cookie("prt_x", 60, false);
        assert!(!plain.to_str().unwrap().contains("Secure"));
    }

    #[test]
    fn only_a_session_token_is_read_from_the_cookie() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("a=b; prism_session=prt_abc; c=d"),
        );
        assert_eq!(session_cookie(&h).as_deref(), Some("prt_abc"));
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("prism_session=prk_key"),
        );
        assert_eq!(
            session_cookie(&h),
            None,
            "an API key is never a cookie session"
        );
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("xprism_session=prt_abc"),
        );
        assert_eq!(session_cookie(&h), None);
    }

    #[test]
    fn the_csrf_token_is_the_sessions_own() {
        let mut h = HeaderMap::new();
        assert!(!csrf_ok(&h, "prt_a"));
        h.insert(
            CSRF_HEADER,
            HeaderValue::from_str(&csrf_for("prt_a")).unwrap(),
        );
        assert!(csrf_ok(&h, "prt_a"));
        assert!(!csrf_ok(&h, "prt_b"));
        assert_ne!(csrf_for("prt_a"), "prt_a");
    }
}
