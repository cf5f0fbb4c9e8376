//! The pool. A transaction cancelled while its `BEGIN` is on the wire leaves its
//! connection clean (`db::begin`): the next statement on that connection
//! commits. On PostgreSQL (`PRISM_TEST_POSTGRES`) the pool reaches the
//! server through a proxy that holds the server's answers, so the
//! cancellation lands between `BEGIN` and its answer every run; on SQLite
//! (no wire) the same cancellation, wherever it lands.

use super::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// How long the proxy holds each answer after a `BEGIN`.
const HELD: Duration = Duration::from_millis(300);

#[tokio::test(flavor = "multi_thread")]
async fn a_transaction_cancelled_while_it_begins_leaves_its_connection_clean() {
    install_default_drivers();
    let armed = Arc::new(AtomicBool::new(false));
    let (pool, direct, _dir) = match std::env::var("PRISM_TEST_POSTGRES") {
        Ok(base) => postgres_through_proxy(&base, armed.clone()).await,
        Err(_) => sqlite().await,
    };
    sqlx::query("CREATE TABLE t (v INTEGER)")
        .execute(&pool)
        .await
        .unwrap();
    armed.store(true, Ordering::SeqCst);
    let wire = engine_of(&direct) == Engine::Postgres;
    let patience = if wire { HELD / 3 } else { Duration::ZERO };
    let cancelled = tokio::time::timeout(patience, begin(&pool)).await;
    assert!(!wire || cancelled.is_err(), "the begin was not cancelled");
    // SQLite's may have begun in time: its transaction ends here.
    drop(cancelled);
    armed.store(false, Ordering::SeqCst);
    // The held answer arrives; what the cancelled begin left is undone.
    tokio::time::sleep(HELD * 4).await;
    sqlx::query("INSERT INTO t (v) VALUES (1)")
        .execute(&pool)
        .await
        .unwrap();
    // Seen from another connection: committed, not inside a transaction
    // the cancelled begin left open.
    let other = connect(engine_of(&direct), &direct, "the test's database", 1)
        .await
        .unwrap();
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM t")
        .fetch_one(&other)
        .await
        .unwrap();
    assert_eq!(n, 1, "the insert ran inside a transaction nothing ended");
}

/// A replica keeps the PostgreSQL connections it is given (replicas on
/// one server divide them); SQLite keeps one, whatever it is given.
#[tokio::test(flavor = "multi_thread")]
async fn a_pool_keeps_the_connections_it_is_given() {
    install_default_drivers();
    let (target, want, _dir) = match std::env::var("PRISM_TEST_POSTGRES") {
        Ok(base) => (fresh_postgres(&base).await, 3, None),
        Err(_) => {
            let dir = tempdir::Dir::new();
            (dir.0.join("t.db").display().to_string(), 1, Some(dir))
        }
    };
    let (_, pool, _lock) = open(&target, 3, false).await.unwrap();
    assert_eq!(pool.options().get_max_connections(), want);
}

fn engine_of(url: &str) -> Engine {
    match url.starts_with("postgres") {
        true => Engine::Postgres,
        false => Engine::Sqlite,
    }
}

async fn sqlite() -> (Pool, String, Option<tempdir::Dir>) {
    let dir = tempdir::Dir::new();
    let path = dir.0.join("t.db").display().to_string();
    let (_, url) = url_for(&path);
    let pool = connect(Engine::Sqlite, &url, &path, 1).await.unwrap();
    (pool, url, Some(dir))
}

/// A new database on the server `base` names: its URL.
async fn fresh_postgres(base: &str) -> String {
    let name = format!("prism_test_{}", uuid::Uuid::new_v4().simple());
    let admin = connect(Engine::Postgres, base, "PRISM_TEST_POSTGRES", 1)
        .await
        .unwrap();
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&admin)
        .await
        .unwrap();
    let (head, _) = base.rsplit_once('/').expect("a URL ending in /database");
    format!("{head}/{name}")
}

/// A new database on the server `base` names; a pool reaching it through
/// a proxy that holds the answers to a `BEGIN` while `armed` is set, and
/// its direct URL.
async fn postgres_through_proxy(
    base: &str,
    armed: Arc<AtomicBool>,
) -> (Pool, String, Option<tempdir::Dir>) {
    let direct = fresh_postgres(base).await;
    let (head, name) = direct.rsplit_once('/').unwrap();
    let (creds, server) = head.rsplit_once('@').expect("a URL with user@host:port");
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    // In clear, so the proxy sees the `BEGIN` (Debian's server offers TLS).
    let via = format!(
        "{creds}@{}/{name}?sslmode=disable",
        listener.local_addr().unwrap()
    );
    tokio::spawn(proxy(listener, server.to_string(), armed));
    // One connection, so the next statement takes the one the cancelled
    // begin had.
    let pool = AnyPoolOptions::new()
        .max_connections(1)
        .connect(&via)
        .await
        .unwrap();
    (pool, direct, None)
}

/// Forwards every connection to `server`; once `armed` and a client has
/// sent a `BEGIN`, the server's bytes wait `HELD` each.
async fn proxy(listener: TcpListener, server: String, armed: Arc<AtomicBool>) {
    let hold = Arc::new(AtomicBool::new(false));
    while let Ok((client, _)) = listener.accept().await {
        let armed = armed.clone();
        let Ok(upstream) = TcpStream::connect(&server).await else {
            continue;
        };
        let (mut cr, mut cw) = client.into_split();
        let (mut ur, mut uw) = upstream.into_split();
        let (seen, hold, armed_in) = (hold.clone(), hold.clone(), armed.clone());
        tokio::spawn(async move {
            let mut buf = vec![0u8; 64 * 1024];
            while let Ok(n @ 1..) = cr.read(&mut buf).await {
                if armed_in.load(Ordering::SeqCst) && buf[..n].windows(5).any(|w| w == b"BEGIN") {
                    seen.store(true, Ordering::SeqCst);
                }
                if uw.write_all(&buf[..n]).await.is_err() {
                    break;
                }
            }
        });
        tokio::spawn(async move {
            let mut buf = vec![0u8; 64 * 1024];
            while let Ok(n @ 1..) = ur.read(&mut buf).await {
                if hold.load(Ordering::SeqCst) && armed.load(Ordering::SeqCst) {
                    tokio::time::sleep(HELD).await;
                }
                if cw.write_all(&buf[..n]).await.is_err() {
                    break;
                }
            }
        });
    }
}

mod tempdir {
    /// A directory removed at drop.
    pub struct Dir(pub std::path::PathBuf);

    impl Dir {
        pub fn new() -> Self {
            let d = std::env::temp_dir()
                .join(format!("prism-db-cancel-{}", uuid::Uuid::new_v4().simple()));
            std::fs::create_dir_all(&d).unwrap();
            Self(d)
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
