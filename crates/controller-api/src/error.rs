//! The controller API's errors: a stable code, a message, the field
//! concerned and, for a refused quota, what was asked against what is left.
//! The code alone decides the HTTP status, here and nowhere else.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What kind of error: stable across versions; clients branch on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The request is malformed or refused by a check (400).
    InvalidInput,
    /// No credential, an unknown one, or an expired or revoked one (401).
    Unauthorized,
    /// Authenticated, but the caller's role, service level or API key does
    /// not allow this operation (403).
    Forbidden,
    /// No such thing, or not one the caller may see (404).
    NotFound,
    /// The path exists but not with this method (405).
    MethodNotAllowed,
    /// The change conflicts with what exists: a duplicate name, a booking
    /// in a state that does not allow it (409).
    Conflict,
    /// The project's quota does not allow it; `quota` says why (409).
    QuotaExceeded,
    /// The body is larger than the controller accepts (413).
    PayloadTooLarge,
    /// Too many requests with this credential; retry later (429).
    RateLimited,
    /// Internal failure (500).
    Internal,
    /// No node has the physical capacity left (503).
    NoCapacity,
    /// A node could not be reached or refused the change (502).
    NodeFailed,
    /// The controller's database is out of space: nothing was changed;
    /// the same call succeeds once space is freed (507).
    StorageFull,
}

impl ErrorCode {
    /// The HTTP status this code is answered with.
    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::InvalidInput => 400,
            ErrorCode::Unauthorized => 401,
            ErrorCode::Forbidden => 403,
            ErrorCode::NotFound => 404,
            ErrorCode::MethodNotAllowed => 405,
            ErrorCode::Conflict | ErrorCode::QuotaExceeded => 409,
            ErrorCode::PayloadTooLarge => 413,
            ErrorCode::RateLimited => 429,
            ErrorCode::Internal => 500,
            ErrorCode::NoCapacity => 503,
            ErrorCode::NodeFailed => 502,
            ErrorCode::StorageFull => 507,
        }
    }
}

/// Which quota refused a request (OpenStack's {used, limit} with what was
/// requested beside them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct QuotaDetail {
    /// `hw_networks`, `sw_networks`, `bandwidth_mbps` or `lease_hours`.
    pub resource: String,
    pub limit: i64,
    pub used: i64,
    pub requested: i64,
}

/// Every error the controller answers has this body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, thiserror::Error)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    /// The field of the request concerned (`spec.route[0].action.port`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// For `quota_exceeded`: which quota, what is used and what was asked.
    // Boxed: rare, and this error travels in every `Result`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota: Option<Box<QuotaDetail>>,
    /// For `rate_limited`: seconds until a retry may succeed (also the
    /// `Retry-After` header).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_s: Option<u64>,
    /// Text too long for `message` that the caller needs to act on: for a
    /// program the kernel's verifier refused, its whole log (the
    /// instructions it walked, each register's state, the reason last).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.field {
            Some(field) => write!(f, "field `{field}`: {}", self.message)?,
            None => f.write_str(&self.message)?,
        }
        match &self.detail {
            Some(detail) => write!(f, "\n{}", detail.trim_end()),
            None => Ok(()),
        }
    }
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            field: None,
            quota: None,
            retry_after_s: None,
            detail: None,
        }
    }

    /// 429: too many requests, or too many failed logins; retry after
    /// `retry_after_s` seconds.
    pub fn rate_limited(message: impl Into<String>, retry_after_s: u64) -> Self {
        let mut e = Self::new(ErrorCode::RateLimited, message);
        e.retry_after_s = Some(retry_after_s);
        e
    }

    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        let f = field.into();
        self.field = (!f.is_empty()).then_some(f);
        self
    }

    /// The same error with `detail`, the text the caller needs beyond
    /// the message (none if empty).
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        let d = detail.into();
        self.detail = (!d.trim().is_empty()).then_some(d);
        self
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidInput, message)
    }

    pub fn not_found(what: impl std::fmt::Display) -> Self {
        Self::new(ErrorCode::NotFound, format!("no {what}"))
    }

    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Conflict, message)
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Forbidden, message)
    }

    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Unauthorized, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
    }

    pub fn quota(q: QuotaDetail) -> Self {
        let mut e = Self::new(
            ErrorCode::QuotaExceeded,
            format!(
                "the project's quota of {} {} is reached: {} used, {} requested",
                q.limit, q.resource, q.used, q.requested
            ),
        );
        e.quota = Some(Box::new(q));
        e
    }
}

impl From<prism_netdoc::DocError> for Error {
    fn from(e: prism_netdoc::DocError) -> Self {
        Error::invalid(e.message).with_field(format!("spec.{}", e.field))
    }
}

/// The server's side: the body as an axum response (with
/// `WWW-Authenticate` on a 401), and the database's errors kept out of it.
#[cfg(feature = "server")]
mod server {
    use super::{Error, ErrorCode};
    use axum::http::StatusCode;
    use axum::response::{IntoResponse, Response};

    impl ErrorCode {
        pub fn status(self) -> StatusCode {
            StatusCode::from_u16(self.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
        }
    }

    impl From<sqlx::Error> for Error {
        fn from(e: sqlx::Error) -> Self {
            // The database's own message may name tables and values: it goes to
            // the controller's log, not to the caller.
            eprintln!("prism controller: database: {e}");
            if out_of_space(&e) {
                return Error::new(
                    ErrorCode::StorageFull,
                    "the controller's database is out of space: nothing was changed; \
                     try again once space is freed",
                );
            }
            Error::internal("the controller's database failed; see its log")
        }
    }

    /// Whether `e` is the database's disk being full: SQLite's
    /// `SQLITE_FULL` (13), PostgreSQL's `disk_full` (53100), or the
    /// system's `ENOSPC` (28).
    fn out_of_space(e: &sqlx::Error) -> bool {
        match e {
            sqlx::Error::Database(d) => {
                matches!(d.code().as_deref(), Some("13") | Some("53100"))
                    || d.message().contains("database or disk is full")
            }
            sqlx::Error::Io(io) => io.raw_os_error() == Some(28),
            _ => false,
        }
    }

    impl IntoResponse for Error {
        fn into_response(self) -> Response {
            let mut r = (self.code.status(), axum::Json(&self)).into_response();
            if let Some(s) = self.retry_after_s
                && let Ok(v) = axum::http::HeaderValue::from_str(&s.to_string())
            {
                r.headers_mut().insert(axum::http::header::RETRY_AFTER, v);
            }
            if self.code == ErrorCode::Unauthorized {
                r.headers_mut().insert(
                    axum::http::header::WWW_AUTHENTICATE,
                    axum::http::HeaderValue::from_static("Bearer"),
                );
            }
            r
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_its_status_and_a_body_reads_back() {
        let all = [
            (ErrorCode::InvalidInput, 400, "invalid_input"),
            (ErrorCode::Unauthorized, 401, "unauthorized"),
            (ErrorCode::Forbidden, 403, "forbidden"),
            (ErrorCode::NotFound, 404, "not_found"),
            (ErrorCode::MethodNotAllowed, 405, "method_not_allowed"),
            (ErrorCode::Conflict, 409, "conflict"),
            (ErrorCode::QuotaExceeded, 409, "quota_exceeded"),
            (ErrorCode::PayloadTooLarge, 413, "payload_too_large"),
            (ErrorCode::RateLimited, 429, "rate_limited"),
            (ErrorCode::Internal, 500, "internal"),
            (ErrorCode::NoCapacity, 503, "no_capacity"),
            (ErrorCode::NodeFailed, 502, "node_failed"),
            (ErrorCode::StorageFull, 507, "storage_full"),
        ];
        for (code, status, name) in all {
            assert_eq!(code.http_status(), status, "{name}");
            let e = Error::new(code, "why").with_field("spec.tier");
            let text = serde_json::to_string(&e).unwrap();
            assert!(text.contains(&format!("\"code\":\"{name}\"")), "{text}");
            assert_eq!(serde_json::from_str::<Error>(&text).unwrap(), e);
        }
    }
}
