//! The S3 operations Prism serves over its backend: buckets (one per
//! project, listed as the key may see them), objects listed, read (whole
//! or a range), written (`crate::put`, or in parts: `crate::multipart`)
//! and deleted. Anything else answers `NotImplemented` (s3s's default).

use crate::storage::{Storage, internal, not_found, object_path};
use futures::stream::BoxStream;
use futures::{Stream, TryStreamExt};
use object_store::path::Path;
use object_store::{GetOptions, GetRange, ObjectMeta, ObjectStore};
use s3s::dto::*;
use s3s::{S3, S3Request, S3Response, S3Result, s3_error};

fn timestamp(meta: &ObjectMeta) -> Timestamp {
    Timestamp::from(std::time::SystemTime::from(meta.last_modified))
}

fn etag(meta: &ObjectMeta) -> Option<ETag> {
    meta.e_tag.clone().map(ETag::Strong)
}

impl Storage {
    async fn known_bucket(&self, bucket: &str) -> S3Result<()> {
        match self.dir.bucket_exists(bucket).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(s3_error!(NoSuchBucket)),
            Err(e) => Err(internal(e)),
        }
    }

    /// Every object of `bucket` under `prefix`, by key.
    async fn keys_under(&self, bucket: &str, prefix: &str) -> S3Result<Vec<(String, ObjectMeta)>> {
        let root = Path::from(bucket);
        let mut all: Vec<(String, ObjectMeta)> = (self.store.list(Some(&root)))
            .map_err(internal)
            .try_filter_map(|m| {
                let key = m
                    .location
                    .as_ref()
                    .strip_prefix(&format!("{bucket}/"))
                    .map(str::to_string);
                futures::future::ok(key.filter(|k| k.starts_with(prefix)).map(|k| (k, m)))
            })
            .try_collect()
            .await?;
        all.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(all)
    }
}

/// The page of `all` (sorted) after `after`, at most `max` entries, with
/// keys folded at `delimiter` past `prefix` into common prefixes.
fn page(
    all: Vec<(String, ObjectMeta)>,
    (prefix, delimiter, after, max): (&str, Option<&str>, Option<&str>, usize),
) -> (Vec<Object>, Vec<String>, Option<String>) {
    let mut objects = Vec::new();
    let mut prefixes: Vec<String> = Vec::new();
    let mut last = None;
    for (key, meta) in all
        .into_iter()
        .filter(|(k, _)| after.is_none_or(|a| k.as_str() > a))
    {
        if objects.len() + prefixes.len() >= max {
            return (objects, prefixes, last);
        }
        let folded = delimiter.and_then(|d| {
            let rest = &key[prefix.len()..];
            rest.find(d)
                .map(|i| key[..prefix.len() + i + d.len()].to_string())
        });
        match folded {
            Some(p) if prefixes.last() == Some(&p) => {}
            Some(p) => prefixes.push(p),
            None => objects.push(Object {
                key: Some(key.clone()),
                size: i64::try_from(meta.size).ok(),
                last_modified: Some(timestamp(&meta)),
                e_tag: etag(&meta),
                ..Default::default()
            }),
        }
        last = Some(key);
    }
    (objects, prefixes, None)
}

/// A backend's read stream as the S3 body wants it (`Sync`): only ever
/// polled through `&mut`, so its lock is never contended.
struct Shared(std::sync::Mutex<BoxStream<'static, object_store::Result<bytes::Bytes>>>);

impl Stream for Shared {
    type Item = object_store::Result<bytes::Bytes>;

    fn poll_next(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        let inner = self
            .get_mut()
            .0
            .get_mut()
            .unwrap_or_else(|e| e.into_inner());
        inner.as_mut().poll_next(cx)
    }
}

#[async_trait::async_trait]
impl S3 for Storage {
    async fn list_buckets(
        &self,
        req: S3Request<ListBucketsInput>,
    ) -> S3Result<S3Response<ListBucketsOutput>> {
        let cred = req.credentials.ok_or_else(|| s3_error!(AccessDenied))?;
        let owner = (self.dir.key(&cred.access_key).await)
            .map_err(internal)?
            .ok_or_else(|| s3_error!(InvalidAccessKeyId))?;
        let names = std::iter::once(owner.bucket).chain(owner.readable);
        let buckets = names
            .map(|name| Bucket {
                name: Some(name),
                ..Default::default()
            })
            .collect();
        Ok(S3Response::new(ListBucketsOutput {
            buckets: Some(buckets),
            ..Default::default()
        }))
    }

    async fn head_bucket(
        &self,
        req: S3Request<HeadBucketInput>,
    ) -> S3Result<S3Response<HeadBucketOutput>> {
        self.known_bucket(&req.input.bucket).await?;
        Ok(S3Response::new(HeadBucketOutput::default()))
    }

    async fn list_objects_v2(
        &self,
        req: S3Request<ListObjectsV2Input>,
    ) -> S3Result<S3Response<ListObjectsV2Output>> {
        let i = req.input;
        self.known_bucket(&i.bucket).await?;
        let prefix = i.prefix.clone().unwrap_or_default();
        let all = self.keys_under(&i.bucket, &prefix).await?;
        let after = i.continuation_token.as_deref().or(i.start_after.as_deref());
        let max = usize::try_from(i.max_keys.unwrap_or(1000).clamp(0, 1000)).unwrap_or(1000);
        let (objects, prefixes, next) = page(all, (&prefix, i.delimiter.as_deref(), after, max));
        let common = prefixes
            .into_iter()
            .map(|p| CommonPrefix { prefix: Some(p) })
            .collect::<Vec<_>>();
        Ok(S3Response::new(ListObjectsV2Output {
            name: Some(i.bucket),
            prefix: i.prefix,
            delimiter: i.delimiter,
            max_keys: i.max_keys,
            key_count: i32::try_from(objects.len() + common.len()).ok(),
            is_truncated: Some(next.is_some()),
            next_continuation_token: next,
            continuation_token: i.continuation_token,
            contents: Some(objects),
            common_prefixes: (!common.is_empty()).then_some(common),
            ..Default::default()
        }))
    }

    async fn head_object(
        &self,
        req: S3Request<HeadObjectInput>,
    ) -> S3Result<S3Response<HeadObjectOutput>> {
        let path = object_path(&req.input.bucket, &req.input.key)?;
        let meta = self.store.head(&path).await.map_err(not_found)?;
        Ok(S3Response::new(HeadObjectOutput {
            content_length: i64::try_from(meta.size).ok(),
            last_modified: Some(timestamp(&meta)),
            e_tag: etag(&meta),
            ..Default::default()
        }))
    }

    async fn get_object(
        &self,
        req: S3Request<GetObjectInput>,
    ) -> S3Result<S3Response<GetObjectOutput>> {
        let i = req.input;
        let path = object_path(&i.bucket, &i.key)?;
        let meta = self.store.head(&path).await.map_err(not_found)?;
        let range = match &i.range {
            Some(r) => Some(r.check(meta.size).map_err(|_| s3_error!(InvalidRange))?),
            None => None,
        };
        let opts = GetOptions {
            range: range.clone().map(GetRange::Bounded),
            ..Default::default()
        };
        let got = self.store.get_opts(&path, opts).await.map_err(not_found)?;
        let len = range.as_ref().map_or(meta.size, |r| r.end - r.start);
        let stream = Shared(std::sync::Mutex::new(got.into_stream()));
        Ok(S3Response::new(GetObjectOutput {
            body: Some(StreamingBlob::wrap(stream)),
            content_length: i64::try_from(len).ok(),
            content_range: range.map(|r| format!("bytes {}-{}/{}", r.start, r.end - 1, meta.size)),
            last_modified: Some(timestamp(&meta)),
            e_tag: etag(&meta),
            ..Default::default()
        }))
    }

    async fn put_object(
        &self,
        req: S3Request<PutObjectInput>,
    ) -> S3Result<S3Response<PutObjectOutput>> {
        crate::put::put_object(self, req.input)
            .await
            .map(S3Response::new)
    }

    async fn create_multipart_upload(
        &self,
        req: S3Request<CreateMultipartUploadInput>,
    ) -> S3Result<S3Response<CreateMultipartUploadOutput>> {
        self.known_bucket(&req.input.bucket).await?;
        crate::multipart::create(self, req.input)
            .await
            .map(S3Response::new)
    }

    async fn upload_part(
        &self,
        req: S3Request<UploadPartInput>,
    ) -> S3Result<S3Response<UploadPartOutput>> {
        crate::multipart::upload_part(self, req.input)
            .await
            .map(S3Response::new)
    }

    async fn complete_multipart_upload(
        &self,
        req: S3Request<CompleteMultipartUploadInput>,
    ) -> S3Result<S3Response<CompleteMultipartUploadOutput>> {
        crate::multipart::complete(self, req.input)
            .await
            .map(S3Response::new)
    }

    async fn abort_multipart_upload(
        &self,
        req: S3Request<AbortMultipartUploadInput>,
    ) -> S3Result<S3Response<AbortMultipartUploadOutput>> {
        crate::multipart::abort(self, req.input)
            .await
            .map(S3Response::new)
    }

    async fn delete_object(
        &self,
        req: S3Request<DeleteObjectInput>,
    ) -> S3Result<S3Response<DeleteObjectOutput>> {
        let i = req.input;
        self.known_bucket(&i.bucket).await?;
        self.remove(&i.bucket, &i.key).await?;
        Ok(S3Response::new(DeleteObjectOutput::default()))
    }
}
