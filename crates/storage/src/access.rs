//! Who may call what: a request's key is checked against its derived
//! secret (SigV4, headers or a presigned URL), then its bucket against the
//! key's project: its own bucket read and written, a bucket shared with
//! it only read, every other bucket denied as if it were not there.

use crate::directory::Directory;
use crate::keys::{MasterKey, is_access_key};
use async_trait::async_trait;
use s3s::access::{S3Access, S3AccessContext};
use s3s::auth::{S3Auth, SecretKey};
use s3s::{S3Result, s3_error};
use std::sync::Arc;

#[derive(Debug)]
pub(crate) struct Auth {
    pub dir: Arc<dyn Directory>,
    pub master: MasterKey,
}

#[async_trait]
impl S3Auth for Auth {
    async fn get_secret_key(&self, access_key: &str) -> S3Result<SecretKey> {
        let known = is_access_key(access_key)
            && (self.dir.key(access_key).await)
                .map_err(|e| s3_error!(InternalError, "{e}"))?
                .is_some();
        if !known {
            return Err(s3_error!(InvalidAccessKeyId));
        }
        Ok(SecretKey::from(self.master.secret(access_key)))
    }
}

#[derive(Debug)]
pub(crate) struct Access {
    pub dir: Arc<dyn Directory>,
}

/// The operations a shared (read-only) bucket allows.
const READS: &[&str] = &[
    "GetObject",
    "HeadObject",
    "HeadBucket",
    "ListObjects",
    "ListObjectsV2",
    "GetBucketLocation",
];

#[async_trait]
impl S3Access for Access {
    async fn check(&self, cx: &mut S3AccessContext<'_>) -> S3Result<()> {
        let Some(cred) = cx.credentials() else {
            return Err(s3_error!(
                AccessDenied,
                "sign the request (a storage key, or a presigned URL)"
            ));
        };
        let owner = (self.dir.key(&cred.access_key).await)
            .map_err(|e| s3_error!(InternalError, "{e}"))?
            .ok_or_else(|| s3_error!(InvalidAccessKeyId))?;
        let Some(bucket) = cx.s3_path().get_bucket_name() else {
            // The root: ListBuckets, which lists only the key's buckets.
            return Ok(());
        };
        if bucket == owner.bucket {
            return Ok(());
        }
        let op = cx.s3_op().name();
        if owner.readable.iter().any(|b| b == bucket) && READS.contains(&op) {
            return Ok(());
        }
        if owner.readable.iter().any(|b| b == bucket) {
            return Err(s3_error!(
                AccessDenied,
                "`{bucket}` is shared with this project read-only"
            ));
        }
        Err(s3_error!(NoSuchBucket))
    }
}
