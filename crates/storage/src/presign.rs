//! Time-limited URLs the controller signs with a key's derived secret
//! (SigV4 query authentication, as an S3 client's presigned URL): whoever
//! holds one may make that one request to that one object until it
//! expires, and nothing else; the storage endpoint checks it as any
//! signature.

use object_store::path::Path;
use object_store::signer::Signer;
use std::time::Duration;

pub use http::Method;

/// The longest a URL may live (S3's own limit for SigV4).
pub const MAX_EXPIRY: Duration = Duration::from_secs(7 * 24 * 3600);

/// A URL for `method` (`GET` or `PUT`) on object `key` of `bucket` at
/// `endpoint` (`http(s)://host:port`), signed with `access_key` and
/// `secret`, valid for `expires`.
pub async fn presign(
    endpoint: &str,
    (access_key, secret): (&str, &str),
    method: http::Method,
    (bucket, key): (&str, &str),
    expires: Duration,
) -> Result<url::Url, String> {
    if expires.is_zero() || expires > MAX_EXPIRY {
        return Err(format!("an expiry from 1 s to {} s", MAX_EXPIRY.as_secs()));
    }
    let s3 = object_store::aws::AmazonS3Builder::new()
        .with_endpoint(endpoint)
        .with_allow_http(true)
        .with_region("us-east-1")
        .with_bucket_name(bucket)
        .with_access_key_id(access_key)
        .with_secret_access_key(secret)
        .with_virtual_hosted_style_request(false)
        .build()
        .map_err(|e| e.to_string())?;
    let path = Path::parse(key).map_err(|e| e.to_string())?;
    s3.signed_url(method, &path, expires)
        .await
        .map_err(|e| e.to_string())
}
