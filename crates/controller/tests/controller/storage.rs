//! The storage service over the controller's database (SQLite, and
//! PostgreSQL in its lane): keys made through the API and checked by the
//! S3 endpoint; an upload within the service level's bytes kept, one past
//! them refused; a replaced or deleted object's bytes given back; a share
//! read-only and gone when unshared; a revoked key refused; the usage
//! report's byte-hours the integral of the bucket's size on the
//! controller's clock. The S3 client is `object_store`'s.

use crate::common::{Harness, settings};
use object_store::path::Path;
use object_store::{ObjectStore, PutPayload};
use prism_controller::{ServiceLevel, StorageKeyView, StorageSettings};

fn s3(endpoint: &str, bucket: &str, k: &StorageKeyView) -> object_store::aws::AmazonS3 {
    object_store::aws::AmazonS3Builder::new()
        .with_endpoint(endpoint)
        .with_allow_http(true)
        .with_region("us-east-1")
        .with_bucket_name(bucket)
        .with_access_key_id(&k.access_key)
        .with_secret_access_key(k.secret_key.as_deref().unwrap())
        .with_virtual_hosted_style_request(false)
        .with_retry(object_store::RetryConfig {
            max_retries: 0,
            ..Default::default()
        })
        .build()
        .unwrap()
}

fn payload(n: usize) -> PutPayload {
    PutPayload::from(vec![b'x'; n])
}

#[tokio::test(flavor = "multi_thread")]
async fn buckets_keep_their_quota_shares_and_byte_hours() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let objects = prism_testkit::TempDir::new("storage-objects");
    let backend = prism_storage::backend::open(objects.path().to_str().unwrap()).unwrap();
    let storage = StorageSettings {
        endpoint: endpoint.clone(),
        master: prism_storage::keys::MasterKey::new([5; 32]),
        backend,
        ca_pem: None,
    };
    let h = Harness::start_with(prism_controller::Settings {
        storage: Some(storage),
        ..settings()
    })
    .await;
    let router = h.ctl.storage_router().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let mut small = ServiceLevel::standard();
    (small.name, small.max_storage_bytes) = ("small".into(), 2000);
    h.admin.put_service_level(&small).await.unwrap();
    let (alice, bob) = (h.user("alice").await, h.user("bob").await);
    h.project("exp", "alice", "small").await;
    h.project("other", "bob", "small").await;
    let (ka, kb) = (
        alice.create_storage_key("exp").await.unwrap(),
        bob.create_storage_key("other").await.unwrap(),
    );
    let exp = s3(&endpoint, "exp", &ka);
    exp.put(&Path::from("a"), payload(1500)).await.unwrap();
    let e = exp.put(&Path::from("b"), payload(1000)).await.unwrap_err();
    assert!(e.to_string().contains("QuotaExceeded"), "{e}");
    assert!(exp.head(&Path::from("b")).await.is_err(), "nothing stored");
    exp.put(&Path::from("a"), payload(1000)).await.unwrap();
    assert_eq!(alice.storage("exp").await.unwrap().used_bytes, 1000);
    // An hour at 1000 bytes, then none: 1000 byte-hours.
    h.clock.advance_ms(3_600_000);
    exp.delete(&Path::from("a")).await.unwrap();
    assert_eq!(alice.storage("exp").await.unwrap().used_bytes, 0);
    h.clock.advance_ms(3_600_000);
    let now = h.ctl.now_ms();
    let report = alice.usage("exp", now - 3 * 3_600_000, now).await.unwrap();
    assert!(
        (report.storage_byte_hours - 1000.0).abs() < 1.0,
        "{}",
        report.storage_byte_hours
    );

    // Shared: bob reads and cannot write; unshared, it is not there.
    exp.put(&Path::from("img"), payload(10)).await.unwrap();
    alice.share_storage("exp", "other").await.unwrap();
    let bob_on_exp = s3(&endpoint, "exp", &kb);
    assert_eq!(
        bob_on_exp
            .get(&Path::from("img"))
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap()
            .len(),
        10
    );
    let e = bob_on_exp
        .put(&Path::from("x"), payload(1))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("AccessDenied"), "{e}");
    assert_eq!(bob.storage("other").await.unwrap().readable, ["exp"]);
    alice.unshare_storage("exp", "other").await.unwrap();
    let e = bob_on_exp.get(&Path::from("img")).await.unwrap_err();
    assert!(e.to_string().contains("NoSuchBucket"), "{e}");

    // Revoked: refused from the next request on; bob cannot revoke it.
    let e = bob
        .revoke_storage_key("exp", &ka.access_key)
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(404));
    alice
        .revoke_storage_key("exp", &ka.access_key)
        .await
        .unwrap();
    let e = exp.get(&Path::from("img")).await.unwrap_err();
    assert!(e.to_string().contains("InvalidAccessKeyId"), "{e}");
}
