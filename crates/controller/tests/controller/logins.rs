//! Password guessing slowed down (`login_guard`): failed logins per user
//! name and per source address back off, 429 with `Retry-After` while
//! blocked (the right password too), a success starts the count over,
//! and every attempt is in the audit log with the name and address.

use crate::common::{Harness, PASSWORD, login};
use prism_controller::LoginRequest;
use std::io::{Read, Write};
use std::net::IpAddr;

fn attempt(user: &str, password: &str) -> LoginRequest {
    LoginRequest {
        user: user.into(),
        password: password.into(),
        project: None,
        ttl_s: None,
    }
}

/// A login over a raw HTTP/1.1 connection: the status line and headers.
fn raw_login(addr: &str, body: &str) -> String {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST /v1/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out.to_ascii_lowercase()
}

#[tokio::test(flavor = "multi_thread")]
async fn failed_logins_back_off_with_retry_after_then_a_success_starts_over() {
    let h = Harness::start().await;
    h.user("ann").await;
    let anon = h.anonymous();
    for i in 0..6 {
        let e = anon.login(&attempt("ann", "guess")).await.unwrap_err();
        assert_eq!(e.status(), Some(401), "failure {i} is a plain refusal");
    }
    // Blocked for a second: the right password too, before it is checked.
    let e = anon.login(&login("ann", None)).await.unwrap_err();
    assert_eq!(e.status(), Some(429), "{e}");
    assert_eq!(e.api().and_then(|a| a.retry_after_s), Some(1));
    let addr = h.addr.clone();
    let body = serde_json::json!({"user": "ann", "password": PASSWORD}).to_string();
    let head = tokio::task::spawn_blocking(move || raw_login(&addr, &body))
        .await
        .unwrap();
    assert!(head.starts_with("http/1.1 429"), "{head}");
    assert!(head.contains("\r\nretry-after: 1\r\n"), "{head}");
    h.clock.advance_ms(1000);
    anon.login(&login("ann", None))
        .await
        .expect("the block has passed");
    // Counted from zero again: five free failures, then a block.
    for _ in 0..5 {
        let e = anon.login(&attempt("ann", "guess")).await.unwrap_err();
        assert_eq!(e.status(), Some(401));
    }
    let audit = h.admin.all_audit().await.unwrap();
    let ann: Vec<_> = audit
        .iter()
        .filter(|a| a.principal == "login:ann from 127.0.0.1")
        .map(|a| a.status)
        .collect();
    assert_eq!(ann.iter().filter(|s| **s == 401).count(), 11, "{ann:?}");
    assert_eq!(ann.iter().filter(|s| **s == 429).count(), 2, "{ann:?}");
    // Two successes: the harness's first login of ann, and the one after
    // the block.
    assert_eq!(ann.iter().filter(|s| **s == 201).count(), 2, "{ann:?}");
    assert!(
        audit.iter().all(|a| !a.principal.contains(PASSWORD)),
        "no password in the log"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_address_guessing_many_names_is_blocked_for_every_name_and_only_it() {
    let h = Harness::start().await;
    h.user("bob").await;
    let guesser: Option<IpAddr> = Some("192.0.2.7".parse().unwrap());
    let elsewhere: Option<IpAddr> = Some("198.51.100.9".parse().unwrap());
    for i in 0..6 {
        let e = h
            .ctl
            .login_from(attempt(&format!("name{i}"), "guess"), guesser)
            .await
            .unwrap_err();
        assert_eq!(e.code.http_status(), 401);
    }
    let e = h
        .ctl
        .login_from(login("bob", None), guesser)
        .await
        .unwrap_err();
    assert_eq!(
        e.code.http_status(),
        429,
        "the guessing address, a real user"
    );
    h.ctl
        .login_from(login("bob", None), elsewhere)
        .await
        .expect("bob from another address is not held up by the guesser");
}

/// Guesses spread over replicas count together: the counts are in the
/// database. On PostgreSQL a second controller with its own pool stands
/// for another replica; SQLite has one process (a second is refused), so
/// there the second is the same controller under another replica name.
#[tokio::test(flavor = "multi_thread")]
async fn guesses_spread_over_replicas_are_counted_together() {
    let h = Harness::start().await;
    h.user("ann").await;
    let other = if h.target.starts_with("postgres") {
        let clock = std::sync::Arc::new(h.clock.clone());
        prism_controller::Controller::open_with_clock(&h.target, crate::common::settings(), clock)
            .await
            .unwrap()
    } else {
        h.ctl.as_replica("second")
    };
    let from: Option<IpAddr> = Some("198.51.100.7".parse().unwrap());
    for i in 0..6 {
        let replica = if i % 2 == 0 { &h.ctl } else { &other };
        let e = replica
            .login_from(attempt("ann", "guess"), from)
            .await
            .unwrap_err();
        assert_eq!(e.code.http_status(), 401, "failure {i}");
    }
    for replica in [&h.ctl, &other] {
        let e = replica
            .login_from(login("ann", None), from)
            .await
            .unwrap_err();
        assert_eq!(
            e.code.http_status(),
            429,
            "three failures on each, six in all"
        );
    }
    h.clock.advance_ms(1000);
    other.login_from(login("ann", None), from).await.unwrap();
}
