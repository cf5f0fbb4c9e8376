//! The images a node pulls (docs/processing.md): what a processing
//! booking's `spec.image` names in the storage service, and its blobs
//! with URLs signed for a key of its saver's.

use crate::app::context::{Context, StorageSettings};
use crate::app::storage::{bucket_name, settings};
use crate::datastore::images::{self as store, ImageRow};
use crate::error::{Error, Result};
use prism_controller_api::BLOB_PREFIX;
use prism_node_api::{BlobRef, BlobSource, StoredImage};

/// How long a node has to push or pull an image's blobs: a few hundred
/// megabytes on a slow link.
pub(crate) const TRANSFER_S: u64 = 3600;

/// Blob `digest`'s key in its project's bucket.
pub(crate) fn key_of(digest: &str) -> String {
    format!("{BLOB_PREFIX}{}", digest.trim_start_matches("sha256:"))
}

/// A signed URL for `blob` of `bucket`, good for [`TRANSFER_S`].
pub(crate) async fn sign(
    s: &StorageSettings,
    key: &str,
    method: prism_storage::presign::Method,
    bucket: &str,
    blob: &BlobRef,
) -> Result<BlobSource> {
    let secret = s.master.secret(key);
    let expires = std::time::Duration::from_secs(TRANSFER_S);
    let object = key_of(&blob.digest);
    let url = prism_storage::presign::presign(
        &s.endpoint,
        (key, &secret),
        method,
        (bucket, &object),
        expires,
    )
    .await
    .map_err(|e| Error::internal(e.to_string()))?;
    Ok(BlobSource {
        digest: blob.digest.clone(),
        size: blob.size,
        url: url.to_string(),
    })
}

/// The image `spec_image` names for a booking of project `project_id`:
/// its own image `NAME`, or `OWNER/NAME` shared with it; `None` for a
/// name no stored image has (an image of the node's own, `base`).
pub(crate) async fn find(
    cx: &Context,
    project_id: &str,
    spec_image: &str,
) -> Result<Option<ImageRow>> {
    if cx.settings.storage.is_none() {
        return Ok(None);
    }
    match spec_image.split_once('/') {
        Some((owner, name)) => {
            let found = store::shared_named(&cx.pool, project_id, owner, name).await?;
            match found {
                Some(i) => Ok(Some(i)),
                None => Err(Error::not_found(format!(
                    "image `{spec_image}`: no image `{name}` of project `{owner}` is shared with this one"
                ))
                .with_field("spec.image")),
            }
        }
        None => store::named(&cx.pool, project_id, spec_image).await,
    }
}

/// What a node pulls image `i` from: every blob with a URL signed by a
/// key of its saver's in its project (the controller's authority: a
/// project it is shared with reads no more of the bucket than this).
pub(crate) async fn pull_source(cx: &Context, i: &ImageRow) -> Result<StoredImage> {
    let s = settings(cx)?;
    let key = crate::app::storage::key_of_user(cx, &i.project_id, &i.created_by_id).await?;
    let bucket = bucket_name(&i.project, &i.project_id);
    let get = prism_storage::presign::Method::GET;
    let manifest = BlobRef {
        digest: i.manifest_digest.clone(),
        size: i.manifest_size as u64,
    };
    let layers: Vec<BlobRef> =
        serde_json::from_str(&i.blobs).map_err(|e| Error::internal(e.to_string()))?;
    let mut blobs = Vec::new();
    for b in &layers {
        blobs.push(sign(s, &key, get.clone(), &bucket, b).await?);
    }
    Ok(StoredImage {
        manifest: sign(s, &key, get, &bucket, &manifest).await?,
        blobs,
        ca_pem: s.ca_pem.clone(),
    })
}
