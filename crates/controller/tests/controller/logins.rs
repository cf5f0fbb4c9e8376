//! Password guessing slowed down (`login_guard`): failed logins per user
//! name and per source address back off, 429 with `Retry-After` while
//! blocked (the right password too), a success starts the count over,
//! and every attempt is in the audit log with the name and address.

use crate::common::{Harness, PASSWORD, login};
use prism_controller::LoginRequest;
use prism_controller::prelude::*;
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

/// A login over a raw HTTP/1.1 connection from `source` (a loopback
/// address of its own): the status line and headers.
async fn raw_login_from(addr: &str, source: &str, body: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{source}:0").parse().unwrap()).unwrap();
    let mut s = socket.connect(addr.parse().unwrap()).await.unwrap();
    let req = format!(
        "POST /v1/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    out.to_ascii_lowercase()
}

/// Fifty wrong passwords sent at once, for one name or from one address
/// under fifty names, get no more password checks than guesses sent one
/// by one would: the free failures and the one that starts the block
/// (each attempt is counted before its password is checked).
#[tokio::test(flavor = "multi_thread")]
async fn fifty_guesses_at_once_get_no_more_checks_than_the_allowance() {
    let h = Harness::start().await;
    h.user("ann").await;
    let allowance = prism_controller::LOGIN_FREE_FAILURES as usize + 1;
    for names in [false, true] {
        let guesses = (0..50).map(|i| {
            let anon = h.anonymous();
            let user = if names {
                format!("name{i}")
            } else {
                "ann".into()
            };
            async move { anon.login(&attempt(&user, "guess")).await.unwrap_err() }
        });
        let answers = futures_join_all(guesses).await;
        let checked = answers.iter().filter(|e| e.status() == Some(401)).count();
        let refused = answers.iter().filter(|e| e.status() == Some(429)).count();
        let what = if names {
            "fifty names from one address"
        } else {
            "one name"
        };
        assert_eq!(checked + refused, 50, "{what}: only 401 and 429");
        assert!(
            checked <= allowance,
            "{what}: {checked} of 50 guesses sent at once were checked (allowance {allowance})"
        );
        // Both the name's and the address's blocks pass; the next round
        // starts from a clean address.
        h.clock.advance_ms(prism_controller::LOGIN_MAX_BLOCK_MS + 1);
        h.anonymous().login(&login("ann", None)).await.unwrap();
    }
}

/// Every future of `fs`, run at once, in order.
async fn futures_join_all<F: std::future::Future + Send + 'static>(
    fs: impl Iterator<Item = F>,
) -> Vec<F::Output>
where
    F::Output: Send + 'static,
{
    let handles: Vec<_> = fs.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.unwrap());
    }
    out
}

/// Requests without a token are limited per source address: a flood from
/// one address is refused (429) while another address logs in.
#[tokio::test(flavor = "multi_thread")]
async fn a_flood_without_a_token_from_one_address_leaves_others_logging_in() {
    let mut s = crate::common::settings();
    (s.rate_per_s, s.rate_burst) = (2.0, 10.0);
    let h = Harness::start_with(s).await;
    let flood = h.anonymous();
    let mut limited = 0;
    for _ in 0..40 {
        let (status, _) = flood.raw("GET", "/v1/whoami", None).await.unwrap();
        limited += usize::from(status == 429);
    }
    assert!(limited >= 25, "{limited} of 40 anonymous requests refused");
    let body = serde_json::json!({"user": "admin", "password": PASSWORD}).to_string();
    let head = raw_login_from(&h.addr, "127.0.0.2", &body).await;
    assert!(
        head.starts_with("http/1.1 201"),
        "another address logs in: {head}"
    );
    let (status, _) = flood.raw("GET", "/v1/whoami", None).await.unwrap();
    assert_eq!(status, 429, "the flooding address is still limited");
}
