//! An upload, whole or not at all: its length declared up front and its
//! growth over the object it replaces taken from the project's quota
//! before a byte is stored; the body streamed
//! into the backend's staging (a temporary file, or an S3 multipart
//! upload) and its SHA-256 computed on the way; kept (renamed, completed)
//! only when every declared byte came and the digest, if the client gave
//! one, matches; otherwise aborted, the quota given back.

use crate::directory::Refusal;
use crate::storage::{Storage, internal, object_path};
use base64::Engine;
use futures::StreamExt;
use object_store::{ObjectStore, WriteMultipart};
use s3s::dto::{ChecksumSHA256, ETag, PutObjectInput, PutObjectOutput, StreamingBlob};
use s3s::{S3Result, s3_error};
use sha2::{Digest, Sha256};

pub(crate) fn refused(e: Refusal) -> s3s::S3Error {
    match e {
        Refusal::Quota { .. } => {
            let mut err = s3s::S3Error::with_message(
                s3s::S3ErrorCode::Custom("QuotaExceeded".into()),
                e.to_string(),
            );
            err.set_status_code(http::StatusCode::FORBIDDEN);
            err
        }
        Refusal::Failed(m) => internal(m),
    }
}

pub(crate) async fn put_object(s: &Storage, i: PutObjectInput) -> S3Result<PutObjectOutput> {
    let path = match object_path(&i.bucket, &i.key) {
        Ok(p) => p,
        Err(e) => return Err(refuse_unread(i.content_length, i.body, e).await),
    };
    let body = Upload {
        declared: i.content_length,
        body: i.body,
        sha256: i.checksum_sha256.as_ref(),
    };
    let (e_tag, digest) = store_within_quota(s, &i.bucket, &path, body).await?;
    Ok(PutObjectOutput {
        e_tag,
        checksum_sha256: Some(base64::engine::general_purpose::STANDARD.encode(digest)),
        ..Default::default()
    })
}

/// A body as a request brings it: its declared length, the body and the
/// client's SHA-256 of it, if given.
pub(crate) struct Upload<'a> {
    pub declared: Option<i64>,
    pub body: Option<StreamingBlob>,
    pub sha256: Option<&'a ChecksumSHA256>,
}

/// `e`, for an upload refused before its body was read: the body read and
/// dropped first (up to its declared length), so that the client, still
/// sending it, reads the refusal and may send its next request on the
/// same connection; without a declared length, the answer says to close
/// the connection instead (RFC 9112 §9.6).
pub(crate) async fn refuse_unread(
    declared: Option<i64>,
    body: Option<StreamingBlob>,
    mut e: s3s::S3Error,
) -> s3s::S3Error {
    let (Some(declared), Some(mut body)) = (declared, body) else {
        let mut h = e.headers().cloned().unwrap_or_default();
        h.insert(
            http::header::CONNECTION,
            http::HeaderValue::from_static("close"),
        );
        e.set_headers(h);
        return e;
    };
    let mut got: i64 = 0;
    while got <= declared {
        match body.next().await {
            Some(Ok(chunk)) => got = got.saturating_add(chunk.len() as i64),
            _ => break,
        }
    }
    e
}

/// Stores `u` at `path` whole or not at all, its bytes counted against
/// `bucket`'s quota: only its growth over what `path` held is taken
/// before, a shrink given back after, and what was taken given back if
/// it fails. Its ETag and SHA-256.
pub(crate) async fn store_within_quota(
    s: &Storage,
    bucket: &str,
    path: &object_store::path::Path,
    u: Upload<'_>,
) -> S3Result<(Option<ETag>, [u8; 32])> {
    let want = match u.sha256.map(decode_sha256).transpose() {
        Ok(w) => w,
        Err(e) => return Err(refuse_unread(u.declared, u.body, e).await),
    };
    let (declared, body) = match (u.declared, u.body) {
        (Some(d), Some(b)) => (d, b),
        (d, b) => return Err(refuse_unread(d, b, s3_error!(MissingContentLength)).await),
    };
    let old = s.store.head(path).await.ok().map(|m| m.size);
    let growth = declared - old.map_or(0, |n| i64::try_from(n).unwrap_or(i64::MAX));
    if growth > 0
        && let Err(e) = s.dir.reserve(bucket, growth).await
    {
        return Err(refuse_unread(Some(declared), Some(body), refused(e)).await);
    }
    let written = match s.store.put_multipart(path).await {
        Ok(w) => write_checked(WriteMultipart::new(w), body, declared, want).await,
        Err(e) => Err(internal(e)),
    };
    let digest = match written {
        Ok(d) => d,
        Err(e) => {
            if growth > 0 {
                let _ = s.dir.release(bucket, growth).await;
            }
            return Err(e);
        }
    };
    if growth < 0 {
        s.dir.release(bucket, -growth).await.map_err(refused)?;
    }
    let meta = s.store.head(path).await.map_err(internal)?;
    Ok((meta.e_tag.map(ETag::Strong), digest))
}

fn decode_sha256(b64: &ChecksumSHA256) -> S3Result<[u8; 32]> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .map_err(|_| s3_error!(InvalidDigest, "x-amz-checksum-sha256: not base64"))?;
    bytes
        .try_into()
        .map_err(|_| s3_error!(InvalidDigest, "x-amz-checksum-sha256: not 32 bytes"))
}

/// Streams `body` into `w`: completed if exactly `declared` bytes came
/// and their SHA-256 is `want` (when given); aborted otherwise.
async fn write_checked(
    mut w: WriteMultipart,
    mut body: StreamingBlob,
    declared: i64,
    want: Option<[u8; 32]>,
) -> S3Result<[u8; 32]> {
    let mut hash = Sha256::new();
    let mut got: i64 = 0;
    let failure = loop {
        match body.next().await {
            Some(Ok(chunk)) => {
                got = got.saturating_add(i64::try_from(chunk.len()).unwrap_or(i64::MAX));
                if got > declared {
                    break Some(s3_error!(
                        IncompleteBody,
                        "more than the {declared} bytes declared"
                    ));
                }
                hash.update(&chunk);
                if let Err(e) = w.wait_for_capacity(4).await {
                    break Some(internal(e));
                }
                w.write(&chunk);
            }
            Some(Err(e)) => break Some(s3_error!(IncompleteBody, "the body ended early: {e}")),
            None if got < declared => {
                break Some(s3_error!(
                    IncompleteBody,
                    "{got} of the {declared} bytes declared"
                ));
            }
            None => break None,
        }
    };
    let digest: [u8; 32] = hash.finalize().into();
    let failure = failure.or_else(|| {
        (want.is_some_and(|w| w != digest)).then(|| {
            s3_error!(
                BadDigest,
                "the body's SHA-256 is not x-amz-checksum-sha256's"
            )
        })
    });
    if let Some(e) = failure {
        let _ = w.abort().await;
        return Err(e);
    }
    w.finish().await.map_err(internal)?;
    Ok(digest)
}
