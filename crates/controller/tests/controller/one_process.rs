//! SQLite serves one controller process: a second controller on the same
//! file is refused clearly (its lock file is held), and takes it once the
//! first is gone. (PostgreSQL is the database for replicas.)

use prism_controller::{Controller, ErrorCode, Settings};

#[tokio::test(flavor = "multi_thread")]
async fn a_second_controller_on_one_sqlite_file_is_refused_until_the_first_is_gone() {
    let dir = std::env::temp_dir().join(format!("prism-one-process-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let db = dir.join("controller.db").display().to_string();
    let first = Controller::open(&db, Settings::default()).await.unwrap();
    let e = Controller::open(&db, Settings::default())
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict, "{e}");
    assert!(
        e.message.contains(&db) && e.message.contains("PostgreSQL"),
        "the refusal names the file and the way out: {e}"
    );
    let clone = first.clone();
    drop(first);
    assert!(
        Controller::open(&db, Settings::default()).await.is_err(),
        "a clone still holds it"
    );
    drop(clone);
    let again = Controller::open(&db, Settings::default()).await;
    assert!(
        again.is_ok(),
        "free once the first is gone: {:?}",
        again.err()
    );
    drop(again);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The database holds Argon2id hashes and token digests: the file, its
/// WAL and its shared-memory index are made 0600 whatever the umask, and
/// a database others can read is refused at start (naming the file and
/// its mode) unless the operator allows it.
#[tokio::test(flavor = "multi_thread")]
async fn the_sqlite_database_is_private_and_a_readable_one_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("prism-private-db-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let db = dir.join("controller.db").display().to_string();
    let mode = |f: &str| {
        std::fs::metadata(f)
            .map(|m| m.permissions().mode() & 0o777)
            .unwrap_or_else(|e| panic!("{f}: {e}"))
    };
    let ctl = Controller::open(&db, Settings::default()).await.unwrap();
    ctl.bootstrap_admin("admin", "a password long enough")
        .await
        .unwrap();
    for f in [db.clone(), format!("{db}-wal"), format!("{db}-shm")] {
        assert_eq!(mode(&f), 0o600, "{f}");
    }
    assert_eq!(mode(&dir.display().to_string()) & 0o077, 0, "its directory");
    drop(ctl);
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let e = Controller::open(&db, Settings::default())
        .await
        .unwrap_err();
    assert!(
        e.message.contains(&db) && e.message.contains("0644"),
        "the refusal names the file and its mode: {e}"
    );
    let allowed = Settings {
        allow_readable_db: true,
        ..Settings::default()
    };
    let ctl = Controller::open(&db, allowed).await;
    assert!(ctl.is_ok(), "allowed: {:?}", ctl.err());
    drop(ctl);
    let _ = std::fs::remove_dir_all(&dir);
}
