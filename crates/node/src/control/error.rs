//! Why a change to a network was refused or failed, as the node API
//! answers it.

use crate::runtime::{RuntimeError, RuntimeErrorKind};
use prism_node_api::{ApiError, ErrorCode};
use prism_pipeline::SubstrateError;

/// Why a change was refused or failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyError {
    pub code: ErrorCode,
    pub message: String,
    /// The document's field concerned, if any.
    pub field: Option<String>,
}

impl ApplyError {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            field: None,
        }
    }

    pub(crate) fn not_found(name: &str) -> Self {
        Self::new(ErrorCode::NotFound, format!("no network `{name}`"))
    }
}

impl std::fmt::Display for ApplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.field {
            Some(x) => write!(f, "field `{x}`: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ApplyError {}

impl From<ApplyError> for ApiError {
    fn from(e: ApplyError) -> Self {
        ApiError::new(e.code, e.message).with_field(e.field.unwrap_or_default())
    }
}

impl From<prism_netdoc::DocError> for ApplyError {
    fn from(e: prism_netdoc::DocError) -> Self {
        Self {
            code: ErrorCode::InvalidInput,
            message: e.message,
            field: (!e.field.is_empty()).then_some(e.field),
        }
    }
}

impl From<RuntimeError> for ApplyError {
    fn from(e: RuntimeError) -> Self {
        let code = match e.kind {
            RuntimeErrorKind::Unsupported => ErrorCode::InvalidInput,
            RuntimeErrorKind::Conflict => ErrorCode::Conflict,
            RuntimeErrorKind::Failed => ErrorCode::Internal,
        };
        Self::new(code, e.message)
    }
}

/// A substrate refusal: capacity (slots, tables, channels) or a conflict.
pub(super) fn substrate_error(e: SubstrateError) -> ApplyError {
    let code = match &e {
        SubstrateError::Placement { .. }
        | SubstrateError::Table { .. }
        | SubstrateError::TooManyNetworks
        | SubstrateError::ChannelTaken { .. } => ErrorCode::Capacity,
        SubstrateError::DuplicateName(_) | SubstrateError::TunnelTaken { .. } => {
            ErrorCode::Conflict
        }
        SubstrateError::UnknownNetwork(_) => ErrorCode::NotFound,
        SubstrateError::BadPort { .. }
        | SubstrateError::BadChannel { .. }
        | SubstrateError::NoSuchPort { .. }
        | SubstrateError::Bridge { .. } => ErrorCode::InvalidInput,
    };
    ApplyError::new(code, e.to_string())
}

/// A failure after the checks passed: the node's fault, not the caller's.
pub(super) fn internal(e: impl std::fmt::Display) -> ApplyError {
    ApplyError::new(ErrorCode::Internal, e.to_string())
}
