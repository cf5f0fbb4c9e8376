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
