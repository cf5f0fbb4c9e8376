//! The database round trips of one booking and its release, counted on
//! the wire: a proxy between the controller and PostgreSQL counts the
//! client's Sync and Query messages (one ends every round trip of the
//! protocol). Bookings per second over TLS to the database are bound by
//! round trips; this fails if a change adds one. On PostgreSQL only (the
//! controller's tests run again there); SQLite has no wire.

use crate::common::probe;
use prism_controller::app::audit_scope::PendingAudit;
use prism_controller::prelude::*;
use prism_controller::{
    Controller, LoginRequest, ProjectRequest, ResourceType, ServiceLevel, Settings, UserRequest,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What one allocate and one release of a booking with no node may cost,
/// each in a request's audit scope (five each: the transaction begun with
/// its lock; the insert with its quota check, or the release's read and
/// write in one statement; the accounting and the audit row in one
/// statement; the commit; and sqlx's test of the connection when it goes
/// back to its pool).
const MOST: usize = 10;

/// A proxy to `upstream` on a port of its own; `trips` counts the round
/// trips the clients start on every connection: each ends its requests
/// with a Sync ('S', the extended protocol) or is one simple Query ('Q').
/// Counted on the client's side: a client that goes on before reading its
/// last answer whole (sqlx reads the rest at the next use) has still sent
/// everything of its call.
async fn proxy(upstream: String, trips: Arc<AtomicUsize>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let server = tokio::net::TcpStream::connect(&upstream).await.unwrap();
            let (mut cr, mut cw) = client.into_split();
            let (mut sr, mut sw) = server.into_split();
            tokio::spawn(async move { tokio::io::copy(&mut sr, &mut cw).await });
            let trips = trips.clone();
            tokio::spawn(async move {
                let (mut buf, mut chunk) = (Vec::new(), vec![0u8; 65536]);
                // The startup message has no type byte: its length first.
                let mut started = false;
                loop {
                    let n = match cr.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => n,
                    };
                    buf.extend_from_slice(&chunk[..n]);
                    loop {
                        let at = usize::from(started);
                        if buf.len() < at + 4 {
                            break;
                        }
                        let l =
                            u32::from_be_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]]);
                        let whole = at + l as usize;
                        if buf.len() < whole {
                            break;
                        }
                        if started && (buf[0] == b'S' || buf[0] == b'Q') {
                            trips.fetch_add(1, Ordering::SeqCst);
                        }

                        buf.drain(..whole);
                        started = true;
                    }
                    if sw.write_all(&chunk[..n]).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    addr
}

#[tokio::test(flavor = "multi_thread")]
async fn a_booking_and_its_release_take_no_more_round_trips_than_counted() {
    let Ok(base) = std::env::var("PRISM_TEST_POSTGRES") else {
        // The run on PostgreSQL counts them; without a server, say so.
        let pg_run_follows = std::env::var_os("PRISM_POSTGRES_URL").is_some();
        if !pg_run_follows {
            prism_testkit::gates::prerequisite(
                "round_trips",
                "a PostgreSQL server (PRISM_TEST_POSTGRES)",
                false,
                "PRISM_REQUIRE_ROOT",
            );
        }
        return;
    };
    let (url, _) = crate::common::fresh_database().await;
    let (head, db) = url.rsplit_once('/').unwrap();
    let (auth, server) = head.rsplit_once('@').unwrap();
    let trips = Arc::new(AtomicUsize::new(0));
    let via = proxy(server.to_string(), trips.clone()).await;
    let proxied = format!("{auth}@{via}/{db}?sslmode=disable");
    let _ = base;
    let settings = Settings {
        db_connections: 1,
        ..crate::common::settings()
    };
    let ctl = Controller::open(&proxied, settings).await.unwrap();
    let (admin, user) = setup(&ctl).await;
    let _ = admin;
    // In the audit scope of a request, as the API serves it: its audit
    // row goes in the booking's transaction.
    let audited = |method: &str, path: &str| PendingAudit::new(Some("u"), method, path);
    // Warm: the resource type's schema cached, the statements prepared.
    let b = audited("POST", "/v1/projects/p/bookings")
        .scope(ctl.allocate(&user, "p", probe("warm")))
        .await
        .unwrap();
    audited("DELETE", "/v1/projects/p/bookings/x")
        .scope(ctl.release(&user, "p", &b.id))
        .await
        .unwrap();
    settled(&ctl).await;
    let before = trips.load(Ordering::SeqCst);
    let b = audited("POST", "/v1/projects/p/bookings")
        .scope(ctl.allocate(&user, "p", probe("counted")))
        .await
        .unwrap();
    settled(&ctl).await;
    let booked = trips.load(Ordering::SeqCst) - before;
    let read = ctl.get_booking(&user, "p", &b.id).await.unwrap();
    settled(&ctl).await;
    assert_eq!(
        read, b,
        "the answer is the booking as the database holds it"
    );
    let before = before + (trips.load(Ordering::SeqCst) - before - booked);
    audited("DELETE", "/v1/projects/p/bookings/x")
        .scope(ctl.release(&user, "p", &b.id))
        .await
        .unwrap();
    settled(&ctl).await;
    let all = trips.load(Ordering::SeqCst) - before;
    eprintln!("round trips: allocate {booked}, release {}", all - booked);
    assert!(
        all <= MOST,
        "an allocate and a release took {all} round trips (allocate {booked}); at most {MOST}"
    );
}

/// Waits until the pool has its connection back: sqlx tests a connection
/// returned to its pool with a round trip of its own (a lone Sync), after
/// the call that used it has answered; it is the call's.
async fn settled(ctl: &Controller) {
    while ctl.idle_db_connections() < 1 {
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
}

/// User `u`'s principal in project `p` (with type `probe` registered).
pub async fn setup_in(ctl: &Controller) -> prism_controller::Principal {
    setup(ctl).await.1
}

/// An administrator, user `u` in project `p`, type `probe`; their principals.
async fn setup(ctl: &Controller) -> (prism_controller::Principal, prism_controller::Principal) {
    const PASSWORD: &str = "a password long enough";
    ctl.bootstrap_admin("admin", PASSWORD).await.unwrap();
    let token = |user: &'static str| async move {
        let r = LoginRequest {
            user: user.into(),
            password: PASSWORD.into(),
            project: None,
            ttl_s: None,
        };
        let t = ctl.login(r).await.unwrap().token;
        // As the API reads a caller: the credential and the project its
        // path names, together.
        ctl.authenticate_in(Some(&t), Some("p")).await.unwrap()
    };
    let admin = token("admin").await;
    let user = UserRequest {
        name: "u".into(),
        password: PASSWORD.into(),
        admin: false,
    };
    ctl.create_user(&admin, user).await.unwrap();
    let mut level = ServiceLevel::standard();
    level.name = "wide".into();
    ctl.put_service_level(&admin, level).await.unwrap();
    let project = ProjectRequest {
        name: "p".into(),
        service_level: "wide".into(),
        owner: "u".into(),
    };
    ctl.create_project(&admin, project).await.unwrap();
    let probe = ResourceType {
        name: "probe".into(),
        description: "no node".into(),
        schema: serde_json::json!({"type": "object"}),
        operations: vec![
            prism_controller::GenericOp::Get,
            prism_controller::GenericOp::Release,
        ],
        builtin: false,
    };
    ctl.register_resource_type(&admin, probe).await.unwrap();
    let u = token("u").await;
    (admin, u)
}
