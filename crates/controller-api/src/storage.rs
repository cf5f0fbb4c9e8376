//! The storage service's bodies (VANI §2.2, docs/storage.md): a project's
//! bucket and quota, its S3 keys, the URLs the controller signs, and
//! read-only sharing with another project.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A project's bucket on the storage service.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct StorageView {
    /// The S3 endpoint (`http(s)://host:port`, path-style requests).
    pub endpoint: String,
    /// The project's bucket: read and written with its keys.
    pub bucket: String,
    pub used_bytes: i64,
    /// The service level's `max_storage_bytes`.
    pub quota_bytes: i64,
    /// Projects this bucket is shared with, read-only.
    pub shared_with: Vec<String>,
    /// Other projects' buckets shared with this one (read-only).
    pub readable: Vec<String>,
}

/// An S3 key of the project (SigV4: access key ID and secret).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct StorageKeyView {
    pub access_key: String,
    /// Only when the key is made: the controller keeps no copy (it
    /// derives it from its master key to sign URLs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_key: Option<String>,
    /// Whose key it is.
    pub user: String,
    pub created_ms: i64,
}

/// What a signed URL may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum UrlMethod {
    /// Download the object.
    Get,
    /// Upload it (replacing it).
    Put,
}

/// A URL to sign.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PresignRequest {
    pub method: UrlMethod,
    /// The object's key in the bucket (`images/base.tar`).
    pub key: String,
    /// The bucket: the project's (default) or, for `GET`, one shared
    /// with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bucket: Option<String>,
    /// How long it lives, seconds (1 to 604800; default 3600).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_s: Option<u64>,
}

impl PresignRequest {
    /// A `PUT` (`put`) or `GET` of `key` in `bucket` (the project's when
    /// `None`) for `expires_s` seconds.
    pub fn of(key: &str, put: bool, bucket: Option<&str>, expires_s: u64) -> Self {
        PresignRequest {
            method: if put { UrlMethod::Put } else { UrlMethod::Get },
            key: key.to_string(),
            bucket: bucket.map(str::to_string),
            expires_s: Some(expires_s),
        }
    }
}

/// A URL the controller signed: one request to one object until it
/// expires, no other credential needed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PresignedUrl {
    pub url: String,
    pub method: UrlMethod,
    pub expires_ms: i64,
}
