//! The API's errors: a stable machine-readable code, a message, and the
//! field concerned. The code alone decides the HTTP status, here and
//! nowhere else.

use hyper::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What kind of error: stable across versions; clients branch on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The request is malformed or its document is refused (400).
    InvalidInput,
    /// No credential, or not the right one (401).
    Unauthorized,
    /// No such network or path (404).
    NotFound,
    /// The path exists but not with this method (405).
    MethodNotAllowed,
    /// The change conflicts with what exists: a duplicate name, a router
    /// that cannot take the change (409).
    Conflict,
    /// No room: hardware slots, table sizes, software channels (409).
    Capacity,
    /// A desired state older than one the node has accepted (409): the
    /// sender is behind and must not overwrite what is newer.
    StaleGeneration,
    /// A change to a desired state the node does not hold (409): the
    /// generation it names as its base is not the node's, or the node
    /// restarted since; the sender sends the whole state instead.
    BaseMismatch,
    /// The body is larger than the node accepts (413).
    PayloadTooLarge,
    /// Not ready yet (503).
    Unavailable,
    /// The node failed to carry out a valid change (500).
    Internal,
    /// The node's state directory has no room to save a change: nothing
    /// was changed, and its networks go on forwarding (507).
    StorageFull,
}

impl ErrorCode {
    pub fn status(self) -> StatusCode {
        match self {
            ErrorCode::InvalidInput => StatusCode::BAD_REQUEST,
            ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
            ErrorCode::NotFound => StatusCode::NOT_FOUND,
            ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::Conflict
            | ErrorCode::Capacity
            | ErrorCode::StaleGeneration
            | ErrorCode::BaseMismatch => StatusCode::CONFLICT,
            ErrorCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::StorageFull => StatusCode::INSUFFICIENT_STORAGE,
        }
    }
}

/// Every error the API answers has this body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, thiserror::Error)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    /// The field of the request concerned, as a path (`route[0].action.port`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.field {
            Some(field) => write!(f, "field `{field}`: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            field: None,
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

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
    }
}

impl From<prism_netdoc::DocError> for ApiError {
    fn from(e: prism_netdoc::DocError) -> Self {
        ApiError::invalid(e.message).with_field(e.field)
    }
}

#[cfg(feature = "server")]
impl axum::response::IntoResponse for ApiError {
    fn into_response(self) -> axum::response::Response {
        (self.code.status(), axum::Json(self)).into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_snake_case_and_map_to_one_status_each() {
        let e = ApiError::invalid("bad").with_field("route[0]");
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"code": "invalid_input", "message": "bad", "field": "route[0]"})
        );
        assert_eq!(ErrorCode::Capacity.status(), StatusCode::CONFLICT);
        assert_eq!(ErrorCode::InvalidInput.status(), StatusCode::BAD_REQUEST);
        let e = ApiError::not_found("x").with_field("");
        assert_eq!(e.field, None);
    }
}
