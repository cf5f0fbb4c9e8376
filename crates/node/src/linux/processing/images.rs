//! Images on a Linux node (docs/processing.md): a processing node's
//! image is a layout in the node's image directory (`base`) or an image
//! in the storage service, pulled into the node's store blob by blob,
//! each checked against its digest before it is taken in (so pulled once
//! per node); and a running node's file system saved as a new image
//! there, then pushed to the URLs the controller signed.

use super::{ID_BASE, ProcessingPlaces, Running};
use crate::linux::LinuxRuntime;
use prism_io::oci::{self, store};
use prism_node_api::{
    ApiError, BlobRef, ErrorCode, ImageRef, PushImage, PushedImage, SavedImage, StoredImage,
};
use std::io;
use std::path::PathBuf;

/// How long a blob's transfer may move nothing before it is given up (a
/// storage endpoint that hangs must not hold the node, whose API waits on
/// a start).
const STALL: std::time::Duration = std::time::Duration::from_secs(30);

/// What a saved image leaves out: the booking's own host keys (another
/// booking from the image makes its own) and root's authorized keys (its
/// researcher's, given again at each boot).
const MASKS: [&str; 3] = [
    "/etc/ssh/ssh_host_ed25519_key",
    "/etc/ssh/ssh_host_ed25519_key.pub",
    "/root/.ssh",
];

impl ProcessingPlaces {
    /// The node's image store: an OCI layout of the images it pulled or
    /// saved, tagged by manifest digest.
    pub fn store(&self) -> PathBuf {
        self.dir.join("store")
    }

    /// Images unpacked once each (per manifest digest), read-only
    /// beneath the containers' own layers.
    pub fn unpacked(&self) -> PathBuf {
        self.dir.join("images")
    }

    /// The layout and tag `image` is unpacked from: a layout in the
    /// node's image directory, or the store once the image's blobs are
    /// there.
    pub fn resolve(&self, image: &ImageRef) -> io::Result<(PathBuf, String)> {
        match &image.stored {
            // An absolute path stays as it is (`Path::join`).
            None => Ok((self.images.join(&image.layout), image.tag.clone())),
            Some(s) => self.pull(s),
        }
    }

    /// Fetches what the store lacks of `s`: its manifest, then each blob
    /// the manifest names, which must be one `s` lists.
    fn pull(&self, s: &StoredImage) -> io::Result<(PathBuf, String)> {
        let at = self.store();
        store::open(&at)?;
        let ca = self.ca_file(s.ca_pem.as_deref())?;
        let t = store::Transfer {
            ca: ca.as_deref(),
            stall: STALL,
        };
        let m = blob(&s.manifest.digest, s.manifest.size);
        let mut fetched = u64::from(store::fetch(&at, &m, &s.manifest.url, t)?);
        for b in store::manifest_blobs(&at, &m.digest)? {
            let from = (s.blobs.iter())
                .find(|x| x.digest == b.digest && x.size == b.size)
                .ok_or_else(|| {
                    io::Error::other(format!(
                        "image {}: its manifest names blob {} ({} bytes), which the image does not list",
                        m.digest, b.digest, b.size
                    ))
                })?;
            fetched += u64::from(store::fetch(&at, &b, &from.url, t)?);
        }
        if fetched > 0 {
            eprintln!(
                "prism node: image {}: {fetched} blobs pulled, each checked",
                m.digest
            );
        }
        let tag = store::tag_of(&m.digest)?;
        store::set_tag(&at, &tag, &m)?;
        Ok((at, tag))
    }

    /// The storage endpoint's lab certificate as a file curl reads.
    fn ca_file(&self, pem: Option<&str>) -> io::Result<Option<PathBuf>> {
        let Some(pem) = pem else { return Ok(None) };
        let file = self.dir.join("storage-ca.pem");
        if std::fs::read_to_string(&file).ok().as_deref() != Some(pem) {
            std::fs::create_dir_all(&self.dir)?;
            let partial = file.with_extension("partial");
            std::fs::write(&partial, pem)?;
            std::fs::rename(&partial, &file)?;
        }
        Ok(Some(file))
    }

    /// Saves running `r`'s file system as a new image in the store (its
    /// own image brought there first), the container frozen meanwhile so
    /// that no file is caught half-written.
    pub fn save_image(&self, r: &Running) -> io::Result<SavedImage> {
        let name = &r.doc.name;
        let (layout, tag) = self.resolve(&r.doc.image)?;
        let lower = oci::image::unpack_cached(&layout, &tag, &self.unpacked(), ID_BASE)?;
        let at = self.store();
        if r.doc.image.stored.is_none() {
            store::import(&at, &layout, &tag)?;
        }
        let work = self.dir.join(format!("{name}.save"));
        let paused = self.runc.pause(name).is_ok();
        let rootfs = self.dir.join(name).join("rootfs");
        let made = oci::image::save(&at, &lower, &rootfs, &work, &MASKS);
        if paused {
            self.runc.resume(name)?;
        }
        let m = made?;
        let blobs = store::manifest_blobs(&at, &m.digest)?;
        Ok(SavedImage {
            manifest: BlobRef {
                digest: m.digest,
                size: m.size,
            },
            blobs: (blobs.into_iter())
                .map(|b| BlobRef {
                    digest: b.digest,
                    size: b.size,
                })
                .collect(),
        })
    }

    /// Uploads `body`'s blobs from the store.
    pub fn push_image(&self, body: &PushImage) -> io::Result<PushedImage> {
        let ca = self.ca_file(body.ca_pem.as_deref())?;
        let t = store::Transfer {
            ca: ca.as_deref(),
            stall: STALL,
        };
        let mut bytes = 0;
        for b in &body.blobs {
            bytes += store::push(&self.store(), &b.digest, &b.url, t)?;
        }
        Ok(PushedImage {
            blobs: body.blobs.len() as u32,
            bytes,
        })
    }
}

fn blob(digest: &str, size: u64) -> store::Blob {
    store::Blob {
        digest: digest.to_string(),
        size,
    }
}

fn failed(what: &str, e: io::Error) -> ApiError {
    ApiError::new(ErrorCode::Internal, format!("{what}: {e}"))
}

impl LinuxRuntime {
    /// `POST /v1/processing/{name}/image`.
    pub fn save_processing_image(&mut self, name: &str) -> Result<SavedImage, ApiError> {
        let p = self.processing()?;
        let r = (p.running.get(name))
            .ok_or_else(|| ApiError::not_found(format!("no processing node `{name}` runs here")))?;
        p.places
            .save_image(r)
            .map_err(|e| failed(&format!("saving `{name}`"), e))
    }

    /// `POST /v1/images/push`.
    pub fn push_processing_image(&self, body: PushImage) -> Result<PushedImage, ApiError> {
        for b in &body.blobs {
            if !prism_node_api::is_digest(&b.digest) {
                return Err(ApiError::invalid(format!("`{}` is not a digest", b.digest))
                    .with_field("blobs"));
            }
        }
        let p = self.processing.as_ref().ok_or_else(|| {
            ApiError::new(ErrorCode::Unavailable, "this node runs no processing nodes")
        })?;
        p.places.push_image(&body).map_err(|e| failed("pushing", e))
    }
}
