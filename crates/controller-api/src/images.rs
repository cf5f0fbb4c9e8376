//! Images in the storage service (VANI §2.2: a researcher "makes an
//! image of their own, saves it to the storage service, shares it, and
//! programs other nodes with it"): a processing node's file system saved
//! as an OCI image, its blobs in the project's bucket under
//! [`BLOB_PREFIX`], named in the project and shared read-only.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Where an image's blobs are kept in its project's bucket, each under
/// its digest's hex (`prism-images/sha256/<hex>`).
pub const BLOB_PREFIX: &str = "prism-images/sha256/";

/// `POST /v1/projects/{project}/images`: save a processing booking's
/// file system as image `name`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SaveImageRequest {
    /// The processing booking's id.
    pub booking: String,
    /// The image's name in the project (a-z, 0-9, `.`, `_`, `-`; at most
    /// 63), what a booking's `spec.image` names it by.
    pub name: String,
}

/// An image a project may run: its own, or one shared with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ImageView {
    pub name: String,
    /// The project it belongs to.
    pub project: String,
    /// What a booking of the asking project names it by in `spec.image`:
    /// `NAME` for its own, `OWNER/NAME` for one shared with it.
    pub use_as: String,
    /// Its manifest's SHA-256 (`sha256:<hex>`): the image's identity,
    /// checked by every node that pulls it.
    pub digest: String,
    /// Its blobs' bytes (manifest, config and layers).
    pub size_bytes: i64,
    /// Its layers, the base image's first.
    pub layers: u32,
    pub created_by: String,
    pub created_ms: i64,
    /// The booking it was saved from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_booking: Option<String>,
    /// The projects it is shared with (for its own project only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared_with: Vec<String>,
}

/// Whether `name` is an image's name (and a valid object key segment).
pub fn is_image_name(name: &str) -> bool {
    let ok = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b);
    (1..=63).contains(&name.len())
        && name.bytes().all(ok)
        && name.as_bytes()[0].is_ascii_alphanumeric()
}
