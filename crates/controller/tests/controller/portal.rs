//! The portal's server side, spoken to as a browser would (raw HTTP, the
//! cookie and headers by hand): its files under a policy without inline
//! script, a session cookie the page cannot read, changes refused without
//! the CSRF token (and nothing changed), logout ending the session on the
//! server, and a booking's counters read through the controller. The
//! browser itself is `portal_browser`.

use crate::common::fake_node::FakeNode;
use crate::common::{Harness, PASSWORD, network};
use prism_controller::ControllerClient;
use prism_controller::api::portal::{COOKIE, CSRF_HEADER};
use prism_controller::{MemberRequest, Role};
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// An answer: status, headers (lower-case names), body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

/// One request on its own connection, as a browser would send it.
async fn send(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (n, v) in headers {
        req.push_str(&format!("{n}: {v}\r\n"));
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    s.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines.next().unwrap_or("")[9..12].parse().unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(": "))
        .map(|(n, v)| (n.to_ascii_lowercase(), v.to_string()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_string(),
    }
}

/// A controller with fake node `n1` and user `fay`, owner of project `p`.
async fn fay_in_p() -> (Harness, Arc<FakeNode>, ControllerClient) {
    let h = Harness::start().await;
    let node = h.node("n1", 4, 100).await;
    let fay = h.user("fay").await;
    h.project("p", "fay", prism_controller::STANDARD).await;
    (h, node, fay)
}

/// `POST /portal/login` with JSON `body`.
async fn post_login(addr: &str, body: &str) -> Answer {
    let json = [("Content-Type", "application/json")];
    send(addr, "POST", "/portal/login", &json, body).await
}

/// Logs `user` in through the portal: its cookie (`name=value`) and CSRF token.
async fn portal_login(addr: &str, user: &str) -> (String, String) {
    let body = json!({"user": user, "password": PASSWORD}).to_string();
    let a = post_login(addr, &body).await;
    assert_eq!(a.status, 201, "{}", a.body);
    let set = a
        .header("set-cookie")
        .expect("a session cookie")
        .to_string();
    let cookie = set.split(';').next().unwrap().to_string();
    (cookie, a.json()["csrf"].as_str().unwrap().to_string())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_portal_is_served_under_a_policy_without_inline_script() {
    let h = Harness::start().await;
    let page = send(&h.addr, "GET", "/", &[], "").await;
    assert_eq!(page.status, 200);
    assert!(
        page.header("content-type")
            .unwrap()
            .starts_with("text/html")
    );
    let csp = page.header("content-security-policy").expect("a policy");
    assert!(
        csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
        "{csp}"
    );
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert_eq!(page.header("x-content-type-options"), Some("nosniff"));
    // The page's script is the file served, not inline.
    assert!(
        page.body
            .contains(r#"<script type="module" src="/portal/app.js"></script>"#)
    );
    assert!(!page.body.contains("<script>"));
    let js = send(&h.addr, "GET", "/portal/app.js", &[], "").await;
    assert_eq!(js.status, 200);
    assert!(
        js.header("content-type")
            .unwrap()
            .starts_with("text/javascript")
    );
    // Its modules, each served as script; the one that calls the API sends
    // the session's token.
    for module in ["core", "bookings", "network", "account", "operator"] {
        let m = send(&h.addr, "GET", &format!("/portal/{module}.js"), &[], "").await;
        assert_eq!(m.status, 200, "{module}.js");
        assert!(
            m.header("content-type")
                .unwrap()
                .starts_with("text/javascript")
        );
    }
    let core = send(&h.addr, "GET", "/portal/core.js", &[], "").await;
    assert!(core.body.contains("X-Prism-CSRF"));
    // Asked again each time, and 304 while it has not changed.
    assert_eq!(core.header("cache-control"), Some("no-cache"));
    let tag = core.header("etag").expect("a validator").to_string();
    let again = send(
        &h.addr,
        "GET",
        "/portal/core.js",
        &[("If-None-Match", &tag)],
        "",
    )
    .await;
    assert_eq!((again.status, again.body.as_str()), (304, ""));
    let other = send(
        &h.addr,
        "GET",
        "/portal/app.js",
        &[("If-None-Match", &tag)],
        "",
    )
    .await;
    assert_eq!(
        other.status, 200,
        "another file's validator is not this one's"
    );
    let missing = send(&h.addr, "GET", "/portal/other.js", &[], "").await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json()["code"], "not_found");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_portal_session_is_a_cookie_the_page_cannot_read() {
    let h = Harness::start().await;
    let body = json!({"user": "admin", "password": PASSWORD}).to_string();
    let a = post_login(&h.addr, &body).await;
    assert_eq!(a.status, 201, "{}", a.body);
    let set = a.header("set-cookie").unwrap();
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=28800"] {
        assert!(set.contains(flag), "{flag} in {set}");
    }
    assert!(!set.contains("Secure"), "plain HTTP on loopback: {set}");
    assert!(
        !a.body.contains("prt_"),
        "the token is in the cookie only: {}",
        a.body
    );
    assert_eq!(a.json()["admin"], true);
    let cookie = set.split(';').next().unwrap();
    let who = send(&h.addr, "GET", "/v1/whoami", &[("Cookie", cookie)], "").await;
    assert_eq!(who.status, 200);
    assert_eq!(who.json()["user"], "admin");
    assert_eq!(who.header("cache-control"), Some("no-store"));
    // A form cross-site cannot log a browser in: a login is JSON.
    let form = "user=admin&password=x";
    let refused = send(
        &h.addr,
        "POST",
        "/portal/login",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        form,
    )
    .await;
    assert_eq!(refused.status, 400);
    let wrong = json!({"user": "admin", "password": "wrong"}).to_string();
    let refused = post_login(&h.addr, &wrong).await;
    assert_eq!(refused.status, 401);
    assert!(refused.header("set-cookie").is_none());
    // An API key is never a cookie session.
    let forged = send(
        &h.addr,
        "GET",
        "/v1/whoami",
        &[("Cookie", "prism_session=prk_x")],
        "",
    )
    .await;
    assert_eq!(forged.status, 401);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_change_with_the_cookie_needs_the_csrf_token_and_changes_nothing_without() {
    let (h, _node, fay) = fay_in_p().await;
    let (cookie, csrf) = portal_login(&h.addr, "fay").await;
    let body = serde_json::to_string(&network("a", "software", 1, true)).unwrap();
    let path = "/v1/projects/p/bookings";
    let json_type = ("Content-Type", "application/json");
    for forged in [vec![], vec![(CSRF_HEADER, "0".repeat(64))]] {
        let mut headers = vec![
            ("Cookie", cookie.clone()),
            (json_type.0, json_type.1.into()),
        ];
        headers.extend(forged);
        let hs: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let a = send(&h.addr, "POST", path, &hs, &body).await;
        assert_eq!(a.status, 403, "{}", a.body);
        assert_eq!(a.json()["code"], "forbidden");
    }
    assert!(
        fay.bookings("p", false, None)
            .await
            .unwrap()
            .items
            .is_empty(),
        "nothing booked"
    );
    let hs = [
        ("Cookie", cookie.as_str()),
        json_type,
        (CSRF_HEADER, csrf.as_str()),
    ];
    let a = send(&h.addr, "POST", path, &hs, &body).await;
    assert_eq!(a.status, 201, "{}", a.body);
    assert_eq!(fay.bookings("p", false, None).await.unwrap().items.len(), 1);
    // The token of one session is not another's.
    let (other, _) = portal_login(&h.addr, "fay").await;
    let hs = [
        ("Cookie", other.as_str()),
        json_type,
        (CSRF_HEADER, csrf.as_str()),
    ];
    let body = serde_json::to_string(&network("b", "software", 1, false)).unwrap();
    assert_eq!(send(&h.addr, "POST", path, &hs, &body).await.status, 403);
}

#[tokio::test(flavor = "multi_thread")]
async fn logout_ends_the_session_on_the_server() {
    let h = Harness::start().await;
    let (cookie, csrf) = portal_login(&h.addr, "admin").await;
    let token = cookie
        .strip_prefix(&format!("{COOKIE}="))
        .unwrap()
        .to_string();
    let forged = send(
        &h.addr,
        "POST",
        "/portal/logout",
        &[("Cookie", &cookie)],
        "",
    )
    .await;
    assert_eq!(
        forged.status, 403,
        "a logout without the token is a forgery too"
    );
    let out = send(
        &h.addr,
        "POST",
        "/portal/logout",
        &[("Cookie", &cookie), (CSRF_HEADER, &csrf)],
        "",
    )
    .await;
    assert_eq!(out.status, 204);
    assert!(out.header("set-cookie").unwrap().contains("Max-Age=0"));
    // Replayed after logout, by cookie or as a bearer: refused.
    let again = send(&h.addr, "GET", "/v1/whoami", &[("Cookie", &cookie)], "").await;
    assert_eq!(again.status, 401);
    let bearer = format!("Bearer {token}");
    let again = send(
        &h.addr,
        "GET",
        "/v1/whoami",
        &[("Authorization", &bearer)],
        "",
    )
    .await;
    assert_eq!(again.status, 401);
    // The page itself still loads (and shows the login).
    assert_eq!(
        send(&h.addr, "GET", "/", &[("Cookie", &cookie)], "")
            .await
            .status,
        200
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bookings_counters_come_from_its_node_through_the_controller() {
    let (h, node, fay) = fay_in_p().await;
    let held = fay
        .book("p", &network("held", "software", 1, false))
        .await
        .unwrap();
    let e = fay.booking_counters("p", &held.id).await.unwrap_err();
    assert_eq!(e.status(), Some(409), "{e}");
    let b = fay
        .book("p", &network("a", "software", 1, true))
        .await
        .unwrap();
    let on_node = b.node_network.clone().unwrap();
    node.pass(&on_node, 1000, 64);
    node.drop_for(&on_node, "stage3/no_route", 7);
    let c = fay.booking_counters("p", &b.id).await.unwrap();
    assert_eq!(
        (c.rx_packets, c.tx_packets, c.tx_bytes),
        (1007, 1000, 64_000)
    );
    assert_eq!((c.dropped, c.drops["stage3/no_route"]), (7, 7));
    assert_eq!(
        (c.node.as_str(), c.network.as_str()),
        ("n1", on_node.as_str())
    );
    // A viewer reads it; another project's user does not see it.
    h.user("vic").await;
    fay.set_member("p", "vic", &MemberRequest { role: Role::Viewer })
        .await
        .unwrap();
    let vic = h.login_as("vic", None).await;
    assert_eq!(
        vic.booking_counters("p", &b.id).await.unwrap().rx_packets,
        1007
    );
    let eve = h.user("eve").await;
    h.project("q", "eve", prism_controller::STANDARD).await;
    let e = eve.booking_counters("p", &b.id).await.unwrap_err();
    assert_eq!(e.status(), Some(404), "{e}");
    let e = eve.booking_counters("q", &b.id).await.unwrap_err();
    assert_eq!(e.status(), Some(404), "{e}");
    // A node that does not answer is said.
    node.down.store(true, std::sync::atomic::Ordering::SeqCst);
    let e = fay.booking_counters("p", &b.id).await.unwrap_err();
    assert_eq!(e.status(), Some(502), "{e}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_operator_sees_each_slot_and_the_nodes_events() {
    use prism_node_api::NodeApi;
    let (h, node, fay) = fay_in_p().await;
    let b = fay
        .book("p", &network("hw", "hardware", 1, true))
        .await
        .unwrap();
    let on_node = b.node_network.clone().unwrap();
    let hw = h.admin.node_hardware("n1").await.unwrap();
    assert_eq!(hw.slots.len(), 4);
    let s0 = &hw.slots[0];
    assert_eq!(
        (s0.state.as_str(), s0.network.as_deref()),
        ("active", Some(on_node.as_str()))
    );
    assert_eq!(
        (s0.booking.as_deref(), s0.project.as_deref()),
        (Some("hw"), Some("p"))
    );
    assert_eq!((s0.module.as_deref(), s0.mw), (Some("destination"), 100.0));
    assert!(
        hw.slots[1..]
            .iter()
            .all(|s| s.state == "blank" && s.network.is_none())
    );
    assert!(hw.total_mw > 100.0);
    // A reconfiguration on the node is on its timeline, with its times.
    let detail = node.get_network(&on_node).unwrap();
    let body = prism_node_api::ReconfigureBody {
        definition: detail.definition,
        strategy: None,
    };
    node.reconfigure(&on_node, body).unwrap();
    let events = h.admin.node_events("n1", 0).await.unwrap();
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[1].measured_ms, Some(612.5));
    assert_eq!(h.admin.node_events("n1", 1).await.unwrap().len(), 1);
    // Operators only; a node that is not there is 404.
    assert_eq!(
        fay.node_hardware("n1").await.unwrap_err().status(),
        Some(403)
    );
    assert_eq!(
        fay.node_events("n1", 0).await.unwrap_err().status(),
        Some(403)
    );
    assert_eq!(
        h.admin.node_hardware("n9").await.unwrap_err().status(),
        Some(404)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_trace_or_capture_is_for_the_networks_booker_or_owner_only() {
    let (h, _node, fay) = fay_in_p().await;
    let b = fay
        .book("p", &network("a", "software", 1, true))
        .await
        .unwrap();
    let ask = |count| prism_controller::TraceRequest {
        count,
        timeout_ms: Some(100),
    };
    let t = fay.trace_booking("p", &b.id, &ask(3)).await.unwrap();
    // The fake echoes: the network asked is the booking's on the node.
    assert_eq!(t.packets[0].network, b.node_network);
    let e = fay.trace_booking("p", &b.id, &ask(0)).await.unwrap_err();
    assert_eq!(e.api().and_then(|a| a.field.as_deref()), Some("count"));
    h.user("vic").await;
    h.user("meg").await;
    fay.set_member("p", "vic", &MemberRequest { role: Role::Viewer })
        .await
        .unwrap();
    fay.set_member("p", "meg", &MemberRequest { role: Role::Member })
        .await
        .unwrap();
    for who in ["vic", "meg"] {
        let c = h.login_as(who, None).await;
        let e = c.trace_booking("p", &b.id, &ask(1)).await.unwrap_err();
        assert_eq!(e.status(), Some(403), "{who}: {e}");
    }
    let eve = h.user("eve").await;
    let e = eve.trace_booking("p", &b.id, &ask(1)).await.unwrap_err();
    assert_eq!(e.status(), Some(404));
    // A capture is a pcapng file (the fake's one frame, a byte long), for
    // the same callers only; its sizes are checked.
    let cap = |count, snaplen| prism_controller::CaptureRequest {
        count,
        snaplen,
        timeout_ms: Some(100),
    };
    let file = fay
        .capture_booking("p", &b.id, &cap(2, None))
        .await
        .unwrap();
    assert_eq!(
        file[..4],
        [0x0a, 0x0d, 0x0d, 0x0a],
        "a pcapng section header"
    );
    let e = fay
        .capture_booking("p", &b.id, &cap(2, Some(4096)))
        .await
        .unwrap_err();
    assert_eq!(e.api().and_then(|a| a.field.as_deref()), Some("snaplen"));
    let e = fay
        .capture_booking("p", &b.id, &cap(0, None))
        .await
        .unwrap_err();
    assert_eq!(e.api().and_then(|a| a.field.as_deref()), Some("count"));
    let vic = h.login_as("vic", None).await;
    let e = vic
        .capture_booking("p", &b.id, &cap(1, None))
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(403));
    let e = eve
        .capture_booking("p", &b.id, &cap(1, None))
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(404));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_audit_log_pages_newest_first_by_principal_and_path() {
    use prism_controller::AuditQuery;
    let (h, _node, fay) = fay_in_p().await;
    for i in 0..5 {
        fay.book("p", &network(&format!("n{i}"), "software", 1, false))
            .await
            .unwrap();
        h.clock.advance_ms(1);
    }
    let all = h.admin.all_audit().await.unwrap();
    let q = |principal: Option<&str>, path: Option<&str>, after: Option<String>| AuditQuery {
        after,
        limit: Some(2),
        newest_first: true,
        principal: principal.map(str::to_string),
        path: path.map(str::to_string),
    };
    // Fay's bookings, newest first, two a page, every one once.
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let page = h
            .admin
            .audit_where(&q(Some("fay"), Some("/BOOKINGS"), after))
            .await
            .unwrap();
        seen.extend(page.items);
        match page.next {
            Some(n) => after = Some(n),
            None => break,
        }
    }
    let mine: Vec<_> = all
        .iter()
        .rev()
        .filter(|e| e.principal == "fay" && e.path.contains("/bookings"))
        .cloned()
        .collect();
    assert_eq!(seen.len(), 5);
    assert_eq!(seen, mine);
    // LIKE's own characters are the text asked for, not patterns.
    for (path, found) in [("%", false), ("/v1/_sers", false), ("/v1/users", true)] {
        let page = h
            .admin
            .audit_where(&q(None, Some(path), None))
            .await
            .unwrap();
        assert_eq!(!page.items.is_empty(), found, "{path}: {:?}", page.items);
    }
    // Administrators only; a bad cursor is named.
    assert_eq!(
        fay.audit_where(&q(None, None, None))
            .await
            .unwrap_err()
            .status(),
        Some(403)
    );
    let e = h
        .admin
        .audit_where(&q(None, None, Some("x".into())))
        .await
        .unwrap_err();
    assert_eq!(e.api().and_then(|a| a.field.as_deref()), Some("after"));
}

#[tokio::test(flavor = "multi_thread")]
async fn bookings_are_found_by_name_and_state_on_the_server() {
    use prism_controller::{Action, ListQuery};
    let (h, _node, fay) = fay_in_p().await;
    let mut ids = Vec::new();
    for name in ["web-a", "web-b", "db-1", "x_y"] {
        // A page is in creation order (ties by id): one booking a ms.
        h.clock.advance_ms(1);
        ids.push(
            fay.book("p", &network(name, "software", 1, true))
                .await
                .unwrap()
                .id,
        );
    }
    fay.act("p", &ids[1], Action::Stop).await.unwrap();
    fay.release("p", &ids[2]).await.unwrap();
    let find = |name: Option<&str>, state: Option<&str>| ListQuery {
        name: name.map(str::to_string),
        state: state.map(str::to_string),
        ..ListQuery::default()
    };
    let names = |page: prism_controller::Page<prism_controller::Booking>| {
        page.items.into_iter().map(|b| b.name).collect::<Vec<_>>()
    };
    let got = fay
        .find_bookings("p", &find(Some("WEB"), None))
        .await
        .unwrap();
    assert_eq!(names(got), ["web-a", "web-b"]);
    let got = fay
        .find_bookings("p", &find(Some("web"), Some("stopped")))
        .await
        .unwrap();
    assert_eq!(names(got), ["web-b"]);
    let got = fay
        .find_bookings("p", &find(None, Some("unallocated")))
        .await
        .unwrap();
    assert_eq!(names(got), ["db-1"], "released ones when asked by state");
    // `_` and `%` are the characters asked for, not patterns.
    let got = fay
        .find_bookings("p", &find(Some("_"), None))
        .await
        .unwrap();
    assert_eq!(names(got), ["x_y"]);
    let got = fay
        .find_bookings("p", &find(Some("%"), None))
        .await
        .unwrap();
    assert!(names(got).is_empty());
    let e = fay
        .find_bookings("p", &find(None, Some("busy")))
        .await
        .unwrap_err();
    assert_eq!(e.api().and_then(|a| a.field.as_deref()), Some("state"));
    // A page at a time, the filter kept across pages.
    let first = ListQuery {
        limit: Some(1),
        ..find(Some("web"), None)
    };
    let p1 = fay.find_bookings("p", &first).await.unwrap();
    let second = ListQuery {
        after: p1.next.clone(),
        ..first.clone()
    };
    let p2 = fay.find_bookings("p", &second).await.unwrap();
    assert_eq!(
        (names(p1), names(p2.clone()), p2.next),
        (vec!["web-a".to_string()], vec!["web-b".to_string()], None)
    );
}
