//! The bodies of the identity API: logins and tokens, users, the caller,
//! API keys.

use crate::operation::Operation;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LoginRequest {
    pub user: String,
    pub password: String,
    /// Scope the token to one project (recommended); without it the token
    /// acts in every project the user belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// Seconds (default 3600, at most 86400).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_s: Option<i64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TokenView {
    /// The bearer secret: shown once, kept by the controller only as a digest.
    pub token: String,
    pub id: String,
    pub expires_ms: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UserRequest {
    pub name: String,
    pub password: String,
    #[serde(default)]
    pub admin: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct UserView {
    pub id: String,
    pub name: String,
    pub admin: bool,
    pub created_ms: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WhoAmI {
    pub user: String,
    pub admin: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// An API key's operations; absent for a session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operations: Option<Vec<Operation>>,
    pub credential: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ApiKeyRequest {
    pub name: String,
    /// What the key may do: a subset of what its creator may.
    pub operations: Vec<Operation>,
    /// Seconds until it expires (default: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_s: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ApiKeyView {
    pub id: String,
    pub name: String,
    pub user: String,
    pub operations: Vec<Operation>,
    pub created_ms: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_ms: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked_ms: Option<i64>,
    /// The secret: only in the answer that creates the key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// A public key the user's processing nodes accept for root's ssh
/// (`authorized_keys`), as OpenSSH writes it: `TYPE BASE64 [COMMENT]`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SshKeyRequest {
    /// Unique among the user's keys.
    pub name: String,
    pub public_key: String,
}

impl SshKeyRequest {
    /// Key `name` from a `.pub` file.
    pub fn from_file(name: &str, file: &std::path::Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("reading {}: {e}", file.display()))?;
        Ok(Self {
            name: name.to_string(),
            public_key: text.trim().to_string(),
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SshKeyView {
    pub id: String,
    pub name: String,
    /// `TYPE BASE64` (the comment dropped).
    pub public_key: String,
    /// OpenSSH's `SHA256:…` fingerprint.
    pub fingerprint: String,
    pub created_ms: i64,
}
