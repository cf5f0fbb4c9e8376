//! The storage service's state (the backend, the controller's directory)
//! and how a bucket's object is named in the backend.

use crate::directory::Directory;
use object_store::ObjectStore;
use object_store::path::Path;
use s3s::{S3Result, s3_error};
use std::sync::Arc;

/// The storage service: the backend and the controller's directory.
#[derive(Debug, Clone)]
pub struct Storage {
    pub(crate) store: Arc<dyn ObjectStore>,
    pub(crate) dir: Arc<dyn Directory>,
}

impl Storage {
    pub fn new(store: Arc<dyn ObjectStore>, dir: Arc<dyn Directory>) -> Self {
        Self { store, dir }
    }

    pub(crate) fn directory(&self) -> Arc<dyn Directory> {
        self.dir.clone()
    }

    /// Deletes object `key` of `bucket` if it is there, its bytes given
    /// back to the bucket's quota: whether it was.
    pub async fn remove(&self, bucket: &str, key: &str) -> S3Result<bool> {
        let path = object_path(bucket, key)?;
        let Ok(meta) = self.store.head(&path).await else {
            return Ok(false);
        };
        self.store.delete(&path).await.map_err(not_found)?;
        let size = i64::try_from(meta.size).unwrap_or(i64::MAX);
        self.dir.release(bucket, size).await.map_err(internal)?;
        Ok(true)
    }
}

/// Object `key` of `bucket` in the backend; a key that would not name
/// one object there (an empty segment, `.` or `..`) is refused.
pub(crate) fn object_path(bucket: &str, key: &str) -> S3Result<Path> {
    let bad = key.is_empty()
        || key.len() > 1024
        || key
            .split('/')
            .any(|s| s.is_empty() || s == "." || s == "..");
    if bad {
        return Err(s3_error!(
            InvalidArgument,
            "a key of non-empty segments, without `.` or `..`"
        ));
    }
    Path::parse(format!("{bucket}/{key}")).map_err(|e| s3_error!(InvalidArgument, "{e}"))
}

/// The length of object `key` of `bucket` in `store`, if it holds it.
pub async fn object_len(
    store: &dyn ObjectStore,
    bucket: &str,
    key: &str,
) -> Result<Option<u64>, String> {
    let path = object_path(bucket, key).map_err(|e| format!("{bucket}/{key}: {e:?}"))?;
    match store.head(&path).await {
        Ok(m) => Ok(Some(m.size)),
        Err(object_store::Error::NotFound { .. }) => Ok(None),
        Err(e) => Err(format!("the storage backend: {e}")),
    }
}

pub(crate) fn not_found(e: object_store::Error) -> s3s::S3Error {
    match e {
        object_store::Error::NotFound { .. } => s3_error!(NoSuchKey),
        e => internal(e),
    }
}

pub(crate) fn internal(e: impl std::fmt::Display) -> s3s::S3Error {
    s3_error!(InternalError, "the storage backend: {e}")
}
