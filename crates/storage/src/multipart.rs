//! Multipart uploads (S3's `CreateMultipartUpload`, `UploadPart`,
//! `CompleteMultipartUpload`, `AbortMultipartUpload`: what boto3's
//! `upload_file` sends past 8 MiB), whole or not at all as a single upload
//! is. Each part is stored in the backend outside every bucket
//! (`_multipart/UPLOAD/…`: no bucket's name has `_`), checked as it comes
//! (its declared length, its SHA-256 when the client gives one) and its
//! bytes taken from the bucket's quota then; the object is made only at
//! completion, from the parts the client names, in order, each the one it
//! was answered for (its ETag), and the parts are removed after; an
//! aborted upload's parts go and their bytes are given back.

use crate::put::{Upload, refuse_unread, refused, store_within_quota};
use crate::storage::{Storage, internal, object_path};
use base64::Engine;
use futures::{StreamExt, TryStreamExt};
use object_store::path::Path;
use object_store::{ObjectMeta, ObjectStore, PutPayload, WriteMultipart};
use s3s::dto::*;
use s3s::{S3Result, s3_error};
use sha2::{Digest, Sha256};

/// Where uploads in progress are kept in the backend.
const ROOT: &str = "_multipart";
/// S3's least size of a part but the last.
pub const MIN_PART: u64 = 5 * 1024 * 1024;
/// S3's most parts in one upload.
const MAX_PARTS: i32 = 10_000;

fn upload_dir(id: &str) -> Path {
    Path::from_iter([ROOT, id])
}

fn target_of(id: &str) -> Path {
    Path::from_iter([ROOT, id, "target"])
}

fn part_of(id: &str, n: i32) -> Path {
    Path::from_iter([ROOT, id, &format!("part-{n:05}")])
}

/// The bucket and key upload `id` makes, as written at its creation.
fn target_text(bucket: &str, key: &str) -> String {
    format!("{bucket}\n{key}")
}

pub(crate) async fn create(
    s: &Storage,
    i: CreateMultipartUploadInput,
) -> S3Result<CreateMultipartUploadOutput> {
    object_path(&i.bucket, &i.key)?;
    let id = hex::encode(crate::keys::random::<16>().map_err(internal)?);
    let target = PutPayload::from(target_text(&i.bucket, &i.key).into_bytes());
    s.store
        .put(&target_of(&id), target)
        .await
        .map_err(internal)?;
    Ok(CreateMultipartUploadOutput {
        bucket: Some(i.bucket),
        key: Some(i.key),
        upload_id: Some(id),
        ..Default::default()
    })
}

/// Refuses an upload ID that is not one this service made for `bucket`'s
/// `key` (as S3 does, `NoSuchUpload`: another project's uploads are not
/// there for the caller).
async fn owned(s: &Storage, id: &str, bucket: &str, key: &str) -> S3Result<()> {
    let well_formed = id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit());
    let target = match well_formed {
        true => s.store.get(&target_of(id)).await.ok(),
        false => None,
    };
    let text = match target {
        Some(t) => t.bytes().await.map_err(internal)?,
        None => return Err(s3_error!(NoSuchUpload)),
    };
    match text == target_text(bucket, key).as_bytes() {
        true => Ok(()),
        false => Err(s3_error!(NoSuchUpload)),
    }
}

pub(crate) async fn upload_part(s: &Storage, i: UploadPartInput) -> S3Result<UploadPartOutput> {
    let body = Upload {
        declared: i.content_length,
        body: i.body,
        sha256: i.checksum_sha256.as_ref(),
    };
    let known = match (1..=MAX_PARTS).contains(&i.part_number) {
        true => owned(s, &i.upload_id, &i.bucket, &i.key).await,
        false => Err(s3_error!(
            InvalidArgument,
            "a part number from 1 to {MAX_PARTS}"
        )),
    };
    if let Err(e) = known {
        return Err(refuse_unread(body.declared, body.body, e).await);
    }
    // A part sent again replaces the one before, as an object does.
    let path = part_of(&i.upload_id, i.part_number);
    let (e_tag, digest) = store_within_quota(s, &i.bucket, &path, body).await?;
    Ok(UploadPartOutput {
        e_tag,
        checksum_sha256: Some(base64::engine::general_purpose::STANDARD.encode(digest)),
        ..Default::default()
    })
}

/// The parts of upload `id` in the backend and their bytes.
async fn parts_kept(s: &Storage, id: &str) -> S3Result<(Vec<ObjectMeta>, i64)> {
    let all: Vec<ObjectMeta> = s
        .store
        .list(Some(&upload_dir(id)))
        .try_collect()
        .await
        .map_err(internal)?;
    let parts: Vec<ObjectMeta> = all
        .into_iter()
        .filter(|m| {
            m.location
                .filename()
                .is_some_and(|f| f.starts_with("part-"))
        })
        .collect();
    let bytes = parts.iter().map(|m| m.size as i64).sum();
    Ok((parts, bytes))
}

/// The parts `listed` names, checked: in ascending order, each one
/// uploaded and the one its ETag was answered for, each but the last at
/// least [`MIN_PART`].
async fn chosen(s: &Storage, id: &str, listed: &[CompletedPart]) -> S3Result<Vec<ObjectMeta>> {
    if listed.is_empty() {
        return Err(s3_error!(MalformedXML, "no parts named"));
    }
    let mut out: Vec<ObjectMeta> = Vec::with_capacity(listed.len());
    let mut last = 0;
    for p in listed {
        let n = p.part_number.unwrap_or(0);
        if n <= last {
            return Err(s3_error!(InvalidPartOrder, "part {n} after part {last}"));
        }
        last = n;
        let meta = match (1..=MAX_PARTS).contains(&n) {
            true => s.store.head(&part_of(id, n)).await.ok(),
            false => None,
        };
        let meta = meta.ok_or_else(|| s3_error!(InvalidPart, "no part {n} was uploaded"))?;
        let answered = meta.e_tag.as_deref();
        if p.e_tag
            .as_ref()
            .is_some_and(|e| Some(e.value()) != answered)
        {
            return Err(s3_error!(
                InvalidPart,
                "part {n}'s ETag is not the one it was given"
            ));
        }
        if let Some(before) = out.last()
            && before.size < MIN_PART
        {
            return Err(s3_error!(
                EntityTooSmall,
                "a part but the last of 5 MiB at least"
            ));
        }
        out.push(meta);
    }
    Ok(out)
}

pub(crate) async fn complete(
    s: &Storage,
    i: CompleteMultipartUploadInput,
) -> S3Result<CompleteMultipartUploadOutput> {
    owned(s, &i.upload_id, &i.bucket, &i.key).await?;
    let path = object_path(&i.bucket, &i.key)?;
    let listed = i.multipart_upload.and_then(|m| m.parts).unwrap_or_default();
    let parts = chosen(s, &i.upload_id, &listed).await?;
    let (_, kept) = parts_kept(s, &i.upload_id).await?;
    let replaced = s.store.head(&path).await.ok().map_or(0, |m| m.size as i64);
    let digest = concatenate(s, &parts, &path).await?;
    let made: i64 = parts.iter().map(|m| m.size as i64).sum();
    // The parts' bytes were taken as they came: the object keeps those it
    // is made of; those of parts left out, and the object it replaced,
    // are given back.
    remove_upload(s, &i.upload_id).await?;
    let back = kept - made + replaced;
    if back > 0 {
        s.dir.release(&i.bucket, back).await.map_err(refused)?;
    }
    let meta = s.store.head(&path).await.map_err(internal)?;
    Ok(CompleteMultipartUploadOutput {
        bucket: Some(i.bucket),
        key: Some(i.key),
        e_tag: meta.e_tag.map(ETag::Strong),
        checksum_sha256: Some(base64::engine::general_purpose::STANDARD.encode(digest)),
        ..Default::default()
    })
}

/// Writes `parts` one after another as the object at `path`, made whole
/// only at the end (the backend's staging, as for a single upload).
async fn concatenate(s: &Storage, parts: &[ObjectMeta], path: &Path) -> S3Result<[u8; 32]> {
    let mut w = WriteMultipart::new(s.store.put_multipart(path).await.map_err(internal)?);
    let mut hash = Sha256::new();
    for p in parts {
        let got = s.store.get(&p.location).await;
        let mut body = match got {
            Ok(g) => g.into_stream(),
            Err(e) => {
                let _ = w.abort().await;
                return Err(internal(e));
            }
        };
        while let Some(chunk) = body.next().await {
            let chunk = match chunk {
                Ok(c) => c,
                Err(e) => {
                    let _ = w.abort().await;
                    return Err(internal(e));
                }
            };
            hash.update(&chunk);
            if let Err(e) = w.wait_for_capacity(4).await {
                let _ = w.abort().await;
                return Err(internal(e));
            }
            w.write(&chunk);
        }
    }
    w.finish().await.map_err(internal)?;
    Ok(hash.finalize().into())
}

/// Deletes every object of upload `id` (its parts, then its target).
async fn remove_upload(s: &Storage, id: &str) -> S3Result<()> {
    let (parts, _) = parts_kept(s, id).await?;
    for p in parts {
        s.store.delete(&p.location).await.map_err(internal)?;
    }
    s.store.delete(&target_of(id)).await.map_err(internal)
}

pub(crate) async fn abort(
    s: &Storage,
    i: AbortMultipartUploadInput,
) -> S3Result<AbortMultipartUploadOutput> {
    owned(s, &i.upload_id, &i.bucket, &i.key).await?;
    let (_, kept) = parts_kept(s, &i.upload_id).await?;
    remove_upload(s, &i.upload_id).await?;
    if kept > 0 {
        s.dir.release(&i.bucket, kept).await.map_err(refused)?;
    }
    Ok(AbortMultipartUploadOutput::default())
}
