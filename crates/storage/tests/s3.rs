//! The storage service against an independent S3 client (`object_store`'s
//! `AmazonS3`, SigV4 in headers) and raw HTTP for what a client library
//! would not send: over the local backend, and over an S3 backend that is
//! a real S3 server of its own (`s3s-fs`, pinned 0.14.1). Every refusal
//! checks that nothing was stored and the quota was given back.

use async_trait::async_trait;
use object_store::path::Path;
use object_store::{ObjectStore, PutPayload, WriteMultipart};
use prism_storage::keys::{MasterKey, access_key_from};
use prism_storage::{Directory, KeyOwner, Refusal, Storage};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod support;
use support::serve;

/// Two projects, `alpha` and `beta`, one key each; `beta`'s bucket
/// shared with `alpha`; `alpha`'s quota `QUOTA` bytes, `beta`'s `BIG`.
#[derive(Debug, Default)]
struct Projects {
    used: Mutex<BTreeMap<String, i64>>,
}

const QUOTA: i64 = 4096;
const MIB: usize = 1024 * 1024;
const BIG: i64 = 20 * MIB as i64;

fn key_of(bucket: &str) -> String {
    access_key_from(if bucket == "alpha" { [1; 18] } else { [2; 18] })
}

#[async_trait]
impl Directory for Projects {
    async fn key(&self, access_key: &str) -> Result<Option<KeyOwner>, Refusal> {
        Ok(if access_key == key_of("alpha") {
            Some(KeyOwner {
                bucket: "alpha".into(),
                readable: vec!["beta".into()],
            })
        } else if access_key == key_of("beta") {
            Some(KeyOwner {
                bucket: "beta".into(),
                readable: Vec::new(),
            })
        } else {
            None
        })
    }
    async fn bucket_exists(&self, bucket: &str) -> Result<bool, Refusal> {
        Ok(bucket == "alpha" || bucket == "beta")
    }
    async fn reserve(&self, bucket: &str, bytes: i64) -> Result<(), Refusal> {
        let mut used = self.used.lock().unwrap();
        let u = used.entry(bucket.into()).or_default();
        let quota = if bucket == "beta" { BIG } else { QUOTA };
        if *u + bytes > quota {
            return Err(Refusal::Quota {
                used: *u,
                quota,
                asked: bytes,
            });
        }
        *u += bytes;
        Ok(())
    }
    async fn release(&self, bucket: &str, bytes: i64) -> Result<(), Refusal> {
        *self.used.lock().unwrap().entry(bucket.into()).or_default() -= bytes;
        Ok(())
    }
}

impl Projects {
    fn used(&self, bucket: &str) -> i64 {
        self.used.lock().unwrap().get(bucket).copied().unwrap_or(0)
    }
}

const MASTER: [u8; 32] = [9; 32];

/// A client of bucket `bucket` at `at` with project `as_bucket`'s key.
fn client(at: SocketAddr, bucket: &str, as_bucket: &str) -> object_store::aws::AmazonS3 {
    let key = key_of(as_bucket);
    let secret = MasterKey::new(MASTER).secret(&key);
    support::client(at, bucket, (&key, &secret))
}

/// One raw HTTP/1.1 request to `url` (its path and query) with `body`
/// after headers saying `length` bytes: the status line and body.
async fn raw(url: &url::Url, method: &str, extra: &str, length: usize, body: &[u8]) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let host = format!("{}:{}", url.host_str().unwrap(), url.port().unwrap());
    let mut s = tokio::net::TcpStream::connect(&host).await.unwrap();
    let target = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_string(),
    };
    let head = format!(
        "{method} {target} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {length}\r\n{extra}Connection: close\r\n\r\n"
    );
    s.write_all(head.as_bytes()).await.unwrap();
    s.write_all(body).await.unwrap();
    if body.len() < length {
        // The client gone before its body's end.
        s.shutdown().await.unwrap();
    }
    let mut out = String::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_string(&mut out)).await;
    out
}

async fn presigned(at: SocketAddr, method: http::Method, key: &str, secs: u64) -> url::Url {
    let k = key_of("alpha");
    let secret = MasterKey::new(MASTER).secret(&k);
    let endpoint = format!("http://{at}");
    prism_storage::presign::presign(
        &endpoint,
        (&k, &secret),
        method,
        ("alpha", key),
        Duration::from_secs(secs),
    )
    .await
    .unwrap()
}

async fn exercise(backend: Arc<dyn ObjectStore>) {
    let dir = Arc::new(Projects::default());
    let storage = Storage::new(backend, dir.clone());
    let at = serve(prism_storage::service(storage, MasterKey::new(MASTER))).await;
    let alpha = client(at, "alpha", "alpha");
    let data = PutPayload::from(vec![7u8; 1000]);
    alpha.put(&Path::from("images/a.bin"), data).await.unwrap();
    let got = alpha
        .get(&Path::from("images/a.bin"))
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(got.len(), 1000);
    assert_eq!(dir.used("alpha"), 1000);
    // Replaced: the quota counts the new size only.
    alpha
        .put(&Path::from("images/a.bin"), PutPayload::from(vec![1u8; 10]))
        .await
        .unwrap();
    assert_eq!(dir.used("alpha"), 10);

    // Another project's bucket: not there; one shared with it: read only.
    let beta = client(at, "beta", "beta");
    beta.put(&Path::from("shared.txt"), PutPayload::from_static(b"hello"))
        .await
        .unwrap();
    let alpha_on_beta = client(at, "beta", "alpha");
    let read = alpha_on_beta
        .get(&Path::from("shared.txt"))
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(&read[..], b"hello");
    let e = alpha_on_beta
        .put(&Path::from("x"), PutPayload::from_static(b"no"))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("AccessDenied"), "{e}");
    let beta_on_alpha = client(at, "alpha", "beta");
    let e = beta_on_alpha
        .get(&Path::from("images/a.bin"))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("NoSuchBucket"), "{e}");

    // Past the quota: refused before a byte is stored.
    let e = alpha
        .put(&Path::from("big"), PutPayload::from(vec![0u8; 5000]))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("QuotaExceeded"), "{e}");
    assert!(alpha.head(&Path::from("big")).await.is_err());
    assert_eq!(dir.used("alpha"), 10);

    // A presigned URL: its object, until it expires.
    let url = presigned(at, http::Method::PUT, "up.bin", 60).await;
    let answer = raw(&url, "PUT", "", 4, b"abcd").await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert_eq!(dir.used("alpha"), 14);
    let mut other = url.clone();
    other.set_path("/alpha/other.bin");
    let answer = raw(&other, "PUT", "", 4, b"abcd").await;
    assert!(
        answer.starts_with("HTTP/1.1 403") && answer.contains("SignatureDoesNotMatch"),
        "{answer}"
    );
    let short = presigned(at, http::Method::GET, "up.bin", 1).await;
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let answer = raw(&short, "GET", "", 0, b"").await;
    assert!(
        answer.starts_with("HTTP/1.1 403"),
        "an expired URL: {answer}"
    );

    // A digest that does not match, a truncated body: nothing stored.
    let url = presigned(at, http::Method::PUT, "bad.bin", 60).await;
    let wrong = "x-amz-checksum-sha256: 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\r\n";
    let answer = raw(&url, "PUT", wrong, 4, b"abcd").await;
    assert!(answer.contains("BadDigest"), "{answer}");
    let answer = raw(&url, "PUT", "", 1000, &[5u8; 500]).await;
    assert!(!answer.starts_with("HTTP/1.1 200"), "{answer}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        alpha.head(&Path::from("bad.bin")).await.is_err(),
        "nothing stored half"
    );
    assert_eq!(dir.used("alpha"), 14, "the quota given back");
}

/// Uploads in parts through `object_store`'s client (`put_multipart`: a
/// part every 5 MiB, then S3's `CompleteMultipartUpload`): a 12 MiB object
/// made of three, whole; one aborted and one refused at the quota leave
/// no object and give their bytes back; a bucket shared read-only takes
/// none.
async fn exercise_multipart(backend: Arc<dyn ObjectStore>) {
    let dir = Arc::new(Projects::default());
    let storage = Storage::new(backend, dir.clone());
    let at = serve(prism_storage::service(storage, MasterKey::new(MASTER))).await;
    let beta = client(at, "beta", "beta");
    let data: Vec<u8> = (0..12 * MIB).map(|i| (i % 251) as u8).collect();
    let upload = beta.put_multipart(&Path::from("disk.img")).await.unwrap();
    let mut w = WriteMultipart::new_with_chunk_size(upload, 5 * MIB);
    w.write(&data);
    w.finish().await.unwrap();
    let got = beta.get(&Path::from("disk.img")).await.unwrap();
    assert_eq!(got.bytes().await.unwrap(), data, "the parts, in order");
    assert_eq!(dir.used("beta"), 12 * MIB as i64);

    let part = || PutPayload::from(vec![1u8; 5 * MIB]);
    let mut gone = beta.put_multipart(&Path::from("gone.img")).await.unwrap();
    gone.put_part(part()).await.unwrap();
    assert_eq!(
        dir.used("beta"),
        17 * MIB as i64,
        "a part counts as it comes"
    );
    gone.abort().await.unwrap();
    assert_eq!(
        dir.used("beta"),
        12 * MIB as i64,
        "an aborted upload's bytes back"
    );
    assert!(beta.head(&Path::from("gone.img")).await.is_err());

    let mut over = beta.put_multipart(&Path::from("over.img")).await.unwrap();
    over.put_part(part()).await.unwrap();
    let e = over.put_part(part()).await.unwrap_err();
    assert!(e.to_string().contains("QuotaExceeded"), "{e}");
    over.abort().await.unwrap();
    assert_eq!(dir.used("beta"), 12 * MIB as i64);

    let alpha_on_beta = client(at, "beta", "alpha");
    let e = alpha_on_beta
        .put_multipart(&Path::from("x.img"))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("AccessDenied"), "{e}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_local_backend_keeps_whole_objects_within_quota_and_access() {
    let tmp = tempfile::tempdir().unwrap();
    exercise(prism_storage::backend::open(tmp.path().to_str().unwrap()).unwrap()).await;
    exercise_multipart(prism_storage::backend::open(tmp.path().to_str().unwrap()).unwrap()).await;
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(tmp.path()).unwrap().permissions().mode();
    assert_eq!(
        mode & 0o777,
        0o700,
        "the objects' directory is the controller's only"
    );
    let leftovers: Vec<_> = walk(tmp.path());
    assert!(
        leftovers
            .iter()
            .all(|p| !p.contains("bad.bin") && !p.contains("big") && !p.contains("_multipart/")),
        "no staging file or part left: {leftovers:?}"
    );
}

fn walk(p: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(p).unwrap().flatten() {
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path().display().to_string());
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn an_s3_backend_on_a_real_s3_server_serves_the_same() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("prism")).unwrap();
    let fs = s3s_fs::FileSystem::new(tmp.path()).unwrap();
    let mut b = s3s::service::S3ServiceBuilder::new(fs);
    b.set_auth(s3s::auth::SimpleAuth::from_single(
        "BACKENDKEY",
        "backend-secret",
    ));
    let backend_at = serve(b.build()).await;
    let backend = object_store::aws::AmazonS3Builder::new()
        .with_endpoint(format!("http://{backend_at}"))
        .with_allow_http(true)
        .with_region("us-east-1")
        .with_bucket_name("prism")
        .with_access_key_id("BACKENDKEY")
        .with_secret_access_key("backend-secret")
        .with_virtual_hosted_style_request(false)
        .build()
        .unwrap();
    let backend: Arc<dyn ObjectStore> = Arc::new(backend);
    exercise(backend.clone()).await;
    exercise_multipart(backend).await;
}
