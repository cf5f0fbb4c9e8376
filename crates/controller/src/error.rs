//! The controller API's errors: a stable code, a message, the field
//! concerned and, for a refused quota, what was asked against what is left.
//! The code alone decides the HTTP status, here and nowhere else.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
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
}

impl ErrorCode {
    pub fn status(self) -> StatusCode {
        match self {
            ErrorCode::InvalidInput => StatusCode::BAD_REQUEST,
            ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
            ErrorCode::Forbidden => StatusCode::FORBIDDEN,
            ErrorCode::NotFound => StatusCode::NOT_FOUND,
            ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::Conflict | ErrorCode::QuotaExceeded => StatusCode::CONFLICT,
            ErrorCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::NoCapacity => StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::NodeFailed => StatusCode::BAD_GATEWAY,
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota: Option<QuotaDetail>,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.field {
            Some(field) => write!(f, "field `{field}`: {}", self.message),
            None => f.write_str(&self.message),
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
        }
    }

    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        let f = field.into();
        self.field = (!f.is_empty()).then_some(f);
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
        e.quota = Some(q);
        e
    }
}

impl From<sqlx::Error> for Error {
    fn from(e: sqlx::Error) -> Self {
        // The database's own message may name tables and values: it goes to
        // the controller's log, not to the caller.
        eprintln!("prism controller: database: {e}");
        Error::internal("the controller's database failed; see its log")
    }
}

impl From<prism_netdoc::DocError> for Error {
    fn from(e: prism_netdoc::DocError) -> Self {
        Error::invalid(e.message).with_field(format!("spec.{}", e.field))
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let mut r = (self.code.status(), axum::Json(&self)).into_response();
        if self.code == ErrorCode::Unauthorized {
            r.headers_mut().insert(
                axum::http::header::WWW_AUTHENTICATE,
                axum::http::HeaderValue::from_static("Bearer"),
            );
        }
        r
    }
}

pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quota_refusal_carries_its_numbers_and_maps_to_409() {
        let e = Error::quota(QuotaDetail {
            resource: "hw_networks".into(),
            limit: 2,
            used: 2,
            requested: 1,
        });
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["code"], "quota_exceeded");
        assert_eq!(v["quota"]["limit"], 2);
        assert_eq!(e.code.status(), StatusCode::CONFLICT);
        assert_eq!(
            ErrorCode::NoCapacity.status(),
            StatusCode::SERVICE_UNAVAILABLE
        );
        assert!(v.get("field").is_none());
    }
}
