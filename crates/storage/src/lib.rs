//! Prism's storage service (VANI §2.2, docs/storage.md): objects in
//! per-project buckets, up- and downloaded over HTTP(S) through an S3
//! endpoint, so that boto3, the aws CLI or any S3 client works with it
//! unchanged (SigV4 headers and presigned URLs).
//!
//! - [`Storage`]: the S3 operations Prism serves (`s3s::S3`) over a
//!   backend ([`backend::open`]: a local directory, the embedded default,
//!   or an S3 store), each upload written whole or not at all, checked
//!   against its SHA-256 when the client gives one, and within its
//!   project's quota;
//! - [`Directory`]: what the storage asks the controller (who an access
//!   key is, which buckets it may read, the quota), so that it holds no
//!   secret of its own but the master key its secrets derive from
//!   ([`keys`]);
//! - [`presign`]: time-limited URLs the controller signs for a key.

mod access;
pub mod backend;
pub mod directory;
pub mod keys;
mod multipart;
mod objects;
pub mod presign;
mod put;
mod storage;

pub use directory::{Directory, KeyOwner, Refusal};
pub use object_store::ObjectStore;
pub use s3s::HttpError;
pub use storage::{Storage, object_len};

/// The S3 service of `storage`, its keys checked against `directory`
/// with `master`'s derived secrets: what an HTTP server serves.
pub fn service(storage: Storage, master: keys::MasterKey) -> s3s::service::S3Service {
    let dir = storage.directory();
    let mut b = s3s::service::S3ServiceBuilder::new(storage);
    b.set_auth(access::Auth {
        dir: dir.clone(),
        master: master.clone(),
    });
    b.set_access(access::Access { dir });
    b.build()
}
