//! Replicas and the one leader of the background work (`leader`): the
//! lease in the database has one holder however many claim it at once,
//! passes on when its holder stops renewing it or steps down, and its
//! token rises at each change; a replica whose background task dies is
//! replaced within five seconds. Replicas here share one database pool in
//! one process (`Controller::as_replica`), on SQLite and on PostgreSQL.

use crate::common::{Harness, START_MS, fresh_database, network, settings};
use prism_controller::Controller;
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread")]
async fn the_background_lease_has_one_holder_and_passes_on_at_expiry_or_step_down() {
    let h = Harness::start().await;
    let a = h.ctl.as_replica("a");
    let b = h.ctl.as_replica("b");
    assert_eq!(a.lead().await.unwrap(), Some(1));
    assert_eq!(b.lead().await.unwrap(), None, "two leaders");
    assert_eq!(
        a.lead().await.unwrap(),
        Some(1),
        "a renewal keeps the token"
    );
    // Renewed at START_MS for 3 s: still a's a millisecond before.
    h.clock.advance_ms(2_999);
    assert_eq!(b.lead().await.unwrap(), None);
    h.clock.advance_ms(2);
    assert_eq!(
        b.lead().await.unwrap(),
        Some(2),
        "expired: taken, the token raised"
    );
    assert_eq!(
        a.lead().await.unwrap(),
        None,
        "the old leader learns it lost"
    );
    // b stops in order: a takes over at once, without waiting for expiry.
    b.step_down().await.unwrap();
    assert_eq!(a.lead().await.unwrap(), Some(3));
    let l = a.leader().await.unwrap().unwrap();
    assert_eq!((l.replica.as_str(), l.token), ("a", 3));
    assert_eq!(l.expires_ms, START_MS + 3_001 + 3_000);
    // Sixteen replicas claiming at once, the lease expired: one wins.
    h.clock.advance_ms(10_000);
    let claims = (0..16).map(|i| {
        let r = h.ctl.as_replica(&format!("r{i}"));
        tokio::spawn(async move { r.lead().await.unwrap() })
    });
    let mut won = Vec::new();
    for c in claims {
        won.extend(c.await.unwrap());
    }
    assert_eq!(won, vec![4], "exactly one claim wins, with the next token");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replica_whose_background_dies_is_replaced_within_five_seconds() {
    let (target, _dir) = fresh_database().await;
    // The system's clock: the lease expires in real time here.
    let ctl = Controller::open(&target, settings()).await.unwrap();
    let a = ctl.as_replica("a");
    let b = ctl.as_replica("b");
    let task_a = a.spawn_background();
    let task_b = b.spawn_background();
    let first = until_led(&ctl, &target, None).await;
    let (dead, survivor) = if first.replica == "a" {
        (task_a, task_b)
    } else {
        (task_b, task_a)
    };
    // A kill: the task ends without stepping down.
    dead.abort();
    let t = Instant::now();
    let next = until_led(&ctl, &target, Some(&first.replica)).await;
    let took = t.elapsed();
    eprintln!(
        "fail-over: {} after {:.2} s (token {} → {})",
        next.replica,
        took.as_secs_f64(),
        first.token,
        next.token
    );
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert!(next.token > first.token);
    survivor.abort();
}

/// Waits (up to 10 s) for a leader other than `not`.
async fn until_led(
    ctl: &Controller,
    target: &str,
    not: Option<&str>,
) -> prism_controller::app::leader::Leader {
    let t = Instant::now();
    loop {
        let seen = ctl.leader().await.unwrap();
        if let Some(l) = &seen
            && Some(l.replica.as_str()) != not
            && l.expires_ms > ctl.now_ms()
        {
            return l.clone();
        }
        // Says whether the dead holder kept renewing (its task not
        // stopped) or its lease ran out and no one took it (the others'
        // claims not made or not answered: the sessions say which, and
        // what a waiting claim waits for).
        if t.elapsed() > Duration::from_secs(10) {
            panic!(
                "no new leader in 10 s: the lease {seen:?} at {} ms; the database's sessions: {}",
                ctl.now_ms(),
                sessions(target).await
            );
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// What PostgreSQL's sessions on `target` do and wait for (empty on
/// SQLite).
async fn sessions(target: &str) -> String {
    use sqlx::Connection;
    if !target.starts_with("postgres") {
        return String::new();
    }
    let Ok(mut c) = sqlx::PgConnection::connect(target).await else {
        return "(cannot connect)".into();
    };
    // pid, state, what it waits for, its last statement.
    type Session = (
        i32,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
    );
    let rows: Vec<Session> = sqlx::query_as(
        "SELECT pid, state, wait_event_type, wait_event, left(query, 120) FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
    )
    .fetch_all(&mut c)
    .await
    .unwrap_or_default();
    format!("{rows:?}")
}

/// Replica b reads node n1's desired state and its request is held in the
/// network while replica a books another network and sends the newer
/// generation; b's older request then arrives: the node refuses it (the
/// generation fence), keeps the newest, and b records no error.
#[tokio::test(flavor = "multi_thread")]
async fn two_replicas_racing_on_one_node_leave_it_at_the_newest_generation() {
    use std::sync::atomic::Ordering::SeqCst;
    let h = Harness::start().await;
    let node = h.node("n1", 4, 1000).await;
    let fay = h.user("fay").await;
    h.project("p", "fay", prism_controller::STANDARD).await;
    let a = fay
        .book("p", &network("a", "hardware", 1, true))
        .await
        .unwrap();
    let n1 = h.admin.list_nodes().await.unwrap()[0].id.clone();

    let b = h.ctl.as_replica("b");
    node.hold_next_desired.store(true, SeqCst);
    let late = tokio::spawn({
        let n1 = n1.clone();
        async move { b.converge_node(&n1).await }
    });
    let t = Instant::now();
    while !node.held_desired.load(SeqCst) {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "b's request never came"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let sent_late = node.desired_generation.load(SeqCst);
    let c = fay
        .book("p", &network("c", "hardware", 1, true))
        .await
        .unwrap();
    let newest = node.desired_generation.load(SeqCst);
    assert!(newest > sent_late, "a's booking reached the node first");
    node.held_desired.store(false, SeqCst);
    late.await.unwrap();

    let mut want = vec![a.node_network.unwrap(), c.node_network.unwrap()];
    want.sort();
    let mut held = node.names();
    held.sort();
    assert_eq!(held, want, "the older state undid the newer");
    let v = &h.admin.list_nodes().await.unwrap()[0];
    assert_eq!(node.desired_generation.load(SeqCst), v.generation as u64);
    assert_eq!(v.applied_generation, v.generation);
    assert_eq!(v.last_error, None, "a race is not the node's error");
}
