//! The storage service end to end (docs/storage.md): `prism controller
//! serve --storage-listen`, keys made through the API, and boto3 from PyPI
//! as the researcher's S3 client (`storage_boto3.py`: objects up and down,
//! listing, read-only sharing, URLs boto3 signs and URLs the controller
//! signs, an expired URL and one for another object, a digest that does
//! not match, an upload past the quota, uploads in parts with boto3's
//! transfer manager and call by call); then the usage report's
//! byte-hours, and a revoked key refused.

use crate::common::{bootstrap, free_port, login, start_with};
use prism_controller::{PresignRequest, ProjectRequest, ServiceLevel, UrlMethod, UserRequest};
use std::process::Command;

/// Room for an upload in three parts of S3's least part size (5 MiB).
const QUOTA: i64 = 16 * 1024 * 1024;

async fn setup(admin: &prism_controller::ControllerClient) {
    let mut small = ServiceLevel::standard();
    small.name = "small".into();
    small.max_storage_bytes = QUOTA;
    admin.put_service_level(&small).await.unwrap();
    for (user, project) in [("alice", "exp"), ("bob", "other")] {
        let u = UserRequest {
            name: user.into(),
            password: crate::common::PASSWORD.into(),
            admin: false,
        };
        admin.create_user(&u).await.unwrap();
        let p = ProjectRequest {
            name: project.into(),
            service_level: "small".into(),
            owner: user.into(),
        };
        admin.create_project(&p).await.unwrap();
    }
}

fn url(method: UrlMethod, key: &str, expires_s: u64) -> PresignRequest {
    PresignRequest {
        method,
        key: key.into(),
        bucket: None,
        expires_s: Some(expires_s),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn boto3_stores_shares_and_is_refused_as_it_should() {
    let Some(python) = prism_testkit::gates::sdk_program("storage boto3", "PRISM_SDK_PYTHON")
    else {
        return;
    };
    let dir = prism_testkit::TempDir::new("storage");
    let db = dir.path().join("controller.db").display().to_string();
    bootstrap(&db);
    let (listen, s3) = (
        format!("127.0.0.1:{}", free_port()),
        format!("127.0.0.1:{}", free_port()),
    );
    let cred = dir.path().join("node.secret");
    std::fs::write(&cred, prism_testkit::fake_node::SECRET).unwrap();
    let objects = dir.path().join("objects").display().to_string();
    let key_file = dir.path().join("storage.key").display().to_string();
    let more = [
        "--storage-listen",
        &s3,
        "--storage",
        &objects,
        "--storage-key-file",
        &key_file,
    ];
    let _ctl = start_with(&db, &listen, &cred, &more);
    let admin = login(&listen, "admin").await;
    setup(&admin).await;
    let (alice, bob) = (login(&listen, "alice").await, login(&listen, "bob").await);
    let info = alice.storage("exp").await.unwrap();
    assert_eq!((info.bucket.as_str(), info.quota_bytes), ("exp", QUOTA));
    assert_eq!(info.endpoint, format!("http://{s3}"));
    let (ka, kb) = (
        alice.create_storage_key("exp").await.unwrap(),
        bob.create_storage_key("other").await.unwrap(),
    );
    let listed = alice.storage_keys("exp").await.unwrap();
    assert!(
        listed.iter().all(|k| k.secret_key.is_none()),
        "a secret is shown once"
    );
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(&key_file).unwrap().permissions(),
    );
    assert_eq!(
        mode & 0o777,
        0o600,
        "the master key is the controller's only"
    );
    alice.share_storage("exp", "other").await.unwrap();
    let put = alice
        .presign("exp", &url(UrlMethod::Put, "uploads/from-url.txt", 60))
        .await
        .unwrap();
    let get = alice
        .presign("exp", &url(UrlMethod::Get, "uploads/from-url.txt", 60))
        .await
        .unwrap();
    let short = alice
        .presign("exp", &url(UrlMethod::Get, "images/base.txt", 1))
        .await
        .unwrap();
    let e = bob
        .presign(
            "other",
            &PresignRequest {
                bucket: Some("exp".into()),
                ..url(UrlMethod::Put, "x", 60)
            },
        )
        .await;
    assert_eq!(
        e.unwrap_err().status(),
        Some(404),
        "a shared bucket is not written"
    );

    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/offline/storage_boto3.py"
    );
    let run = |args: &[&str]| {
        Command::new(&python)
            .arg(script)
            .args(args)
            .env("ENDPOINT", &info.endpoint)
            .env("ALICE_AK", &ka.access_key)
            .env("ALICE_SK", ka.secret_key.as_deref().unwrap())
            .env("BOB_AK", &kb.access_key)
            .env("BOB_SK", kb.secret_key.as_deref().unwrap())
            .env("PUT_URL", &put.url)
            .env("GET_URL", &get.url)
            .env("SHORT_URL", &short.url)
            .env(
                "SHORT_URL_EXPIRES",
                (short.expires_ms as f64 / 1000.0).to_string(),
            )
            .env("QUOTA", QUOTA.to_string())
            .output()
            .unwrap()
    };
    let out = run(&[]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success() && said.contains("boto3: ok"), "{said}");

    let used = alice.storage("exp").await.unwrap().used_bytes;
    assert_eq!(
        used,
        39 * 20,
        "the base image's bytes, the rest deleted or refused"
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let report = alice.usage("exp", now - 3_600_000, now).await.unwrap();
    assert!(report.storage_byte_hours > 0.0, "{report:?}");
    alice
        .revoke_storage_key("exp", &ka.access_key)
        .await
        .unwrap();
    let out = run(&["revoked"]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && said.contains("revoked key refused"),
        "{said}"
    );
}
