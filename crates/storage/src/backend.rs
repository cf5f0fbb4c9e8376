//! Where objects are kept: a local directory (the embedded default, on
//! the controller's disk) or an S3 store (a bucket of Garage, or any S3
//! server), both through `object_store`. A project's objects are under
//! `BUCKET/` in the backend.

use object_store::ObjectStore;
use std::sync::Arc;

/// The backend a location names: `file:DIR` (or a bare path), or
/// `s3://BUCKET` with the endpoint and keys from the environment
/// (`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
/// `AWS_REGION`; `AWS_ALLOW_HTTP=true` for a plain-HTTP endpoint).
pub fn open(location: &str) -> Result<Arc<dyn ObjectStore>, String> {
    if let Some(bucket) = location.strip_prefix("s3://") {
        let s = object_store::aws::AmazonS3Builder::from_env()
            .with_bucket_name(bucket.trim_end_matches('/'))
            .build()
            .map_err(|e| format!("{location}: {e}"))?;
        return Ok(Arc::new(s));
    }
    let dir = location.strip_prefix("file:").unwrap_or(location);
    std::fs::create_dir_all(dir).map_err(|e| format!("{dir}: {e}"))?;
    // The projects' objects are the controller's to serve: no other user
    // of the machine passes the directory (whatever mode the files get).
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| format!("{dir}: {e}"))?;
    let fs = object_store::local::LocalFileSystem::new_with_prefix(dir)
        .map_err(|e| format!("{dir}: {e}"))?;
    Ok(Arc::new(fs))
}
