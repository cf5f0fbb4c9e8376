//! Images kept in the storage service (VANI §2.2): a processing node's
//! file system saved as an OCI image (`POST /v1/processing/{name}/image`),
//! its blobs uploaded to URLs the controller signed (`POST
//! /v1/images/push`), and pulled by any node that runs it from the blobs a
//! [`StoredImage`] lists, each checked against its SHA-256 before the
//! node takes it in.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A blob of an image: its digest (`sha256:<64 hex>`) and length.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BlobRef {
    pub digest: String,
    pub size: u64,
}

/// A blob and where it is fetched from or sent to (a signed URL).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BlobSource {
    pub digest: String,
    pub size: u64,
    pub url: String,
}

/// An image in the storage service, as a node pulls it: its manifest
/// (the image's identity) and the blobs it names, each with a signed URL
/// the node fetches it from if it lacks it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StoredImage {
    pub manifest: BlobSource,
    /// Its config and layers.
    pub blobs: Vec<BlobSource>,
    /// The certificate (PEM) the storage endpoint is checked against,
    /// when it is the lab's own; else the system's roots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_pem: Option<String>,
}

/// The same image: the URLs (signed anew at each pass) do not count.
impl PartialEq for StoredImage {
    fn eq(&self, other: &Self) -> bool {
        self.manifest.digest == other.manifest.digest
    }
}

/// The answer to `POST /v1/processing/{name}/image`: the new image,
/// kept in the node's store until it is pushed (and after, as a cache).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SavedImage {
    pub manifest: BlobRef,
    /// Its config and layers, the base image's first.
    pub blobs: Vec<BlobRef>,
}

/// `POST /v1/images/push`: blobs of the node's store to upload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PushImage {
    pub blobs: Vec<BlobSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_pem: Option<String>,
}

/// What `POST /v1/images/push` sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PushedImage {
    pub blobs: u32,
    pub bytes: u64,
}

/// Whether `d` is `sha256:` and 64 lowercase hex digits.
pub fn is_digest(d: &str) -> bool {
    d.strip_prefix("sha256:")
        .is_some_and(|h| h.len() == 64 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
}
