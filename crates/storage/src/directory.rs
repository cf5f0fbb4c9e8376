//! What the storage asks of the controller, whose database knows keys,
//! projects, quotas and shares (the storage holds none of them).

use async_trait::async_trait;

/// Who an access key stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyOwner {
    /// The key's project's bucket: read and written.
    pub bucket: String,
    /// Buckets of other projects shared with it: read only.
    pub readable: Vec<String>,
}

/// Why an upload is refused before a byte is stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the project's storage quota: {used} of {quota} bytes used, {asked} more asked")]
    Quota { used: i64, quota: i64, asked: i64 },
    #[error("{0}")]
    Failed(String),
}

/// The controller's side of the storage.
#[async_trait]
pub trait Directory: Send + Sync + std::fmt::Debug + 'static {
    /// The owner of live (not revoked) access key `access_key`.
    async fn key(&self, access_key: &str) -> Result<Option<KeyOwner>, Refusal>;
    /// Whether `bucket` is a project's.
    async fn bucket_exists(&self, bucket: &str) -> Result<bool, Refusal>;
    /// Takes `bytes` more of `bucket`'s project's quota, or refuses.
    async fn reserve(&self, bucket: &str, bytes: i64) -> Result<(), Refusal>;
    /// Gives `bytes` back (an object replaced or deleted, an upload that
    /// failed).
    async fn release(&self, bucket: &str, bytes: i64) -> Result<(), Refusal>;
}
