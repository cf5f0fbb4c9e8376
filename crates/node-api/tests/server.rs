//! The server glue against a real client over real sockets: the
//! credential on TCP (401 without it, 200 with it), the one error body for
//! every refusal (the framework's own included), and typed bodies.

use prism_netdoc::{NetworkDoc, TierChoice};
use prism_node_api::{
    Credential, Endpoint, ErrorCode, Listener, NodeClient, ReconfigureBody, StrategyName, TapBody,
};
use prism_testkit::FakeNode;
use prism_testkit::fake_node::DEVICE;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

const SECRET: &str = "6f1d0c3a9b8e7d6c5b4a39281706f5e4";

/// The one fake node (`prism_testkit`), one port and two slots.
fn fake() -> Arc<FakeNode> {
    FakeNode::new(&["a"], 2)
}

fn serve_tcp() -> (String, Arc<AtomicBool>) {
    let stop = Arc::new(AtomicBool::new(false));
    let (at, _t) = prism_node_api::spawn(
        Listener::Tcp(
            "127.0.0.1:0".parse().unwrap(),
            Credential::new(SECRET).unwrap(),
        ),
        prism_node_api::router(fake()),
        stop.clone(),
    )
    .unwrap();
    (at, stop)
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn tcp_needs_the_control_planes_credential() {
    let (addr, stop) = serve_tcp();
    let rt = rt();
    for token in [
        None,
        Some("wrong".to_string()),
        Some(SECRET[1..].to_string()),
    ] {
        let c = NodeClient::new(Endpoint::Tcp {
            addr: addr.clone(),
            token,
        });
        let e = rt.block_on(c.node()).unwrap_err();
        assert_eq!(e.status(), Some(401), "{e}");
        assert_eq!(e.api().unwrap().code, ErrorCode::Unauthorized);
        // Refused before the handler: nothing was added.
        let doc = prism_netdoc::NetworkDoc::new(
            "x",
            TierChoice::Hardware,
            prism_netdoc::ForwardingMode::Destination,
        );
        assert_eq!(
            rt.block_on(c.add_network(&doc)).unwrap_err().status(),
            Some(401)
        );
    }
    let c = NodeClient::new(Endpoint::Tcp {
        addr: addr.clone(),
        token: Some(SECRET.into()),
    });
    assert_eq!(rt.block_on(c.node()).unwrap().device, DEVICE);
    assert!(rt.block_on(c.list_networks()).unwrap().is_empty());
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
}

#[test]
fn every_refusal_has_the_one_error_body() {
    let (addr, stop) = serve_tcp();
    let rt = rt();
    let c = NodeClient::new(Endpoint::Tcp {
        addr,
        token: Some(SECRET.into()),
    });
    let body = |s: &str| Some(s.as_bytes().to_vec());
    for (method, path, b, status, code, field) in [
        ("GET", "/v1/nothing", None, 404, "not_found", None),
        ("DELETE", "/v1/node", None, 405, "method_not_allowed", None),
        (
            "POST",
            "/v1/networks",
            body("{"),
            400,
            "invalid_input",
            None,
        ),
        (
            "POST",
            "/v1/networks",
            body("[1]"),
            400,
            "invalid_input",
            None,
        ),
        (
            "POST",
            "/v1/networks",
            body(
                r#"{"name": "a", "tier": "hardware", "forwarding": "destination", "route": [{"prefix": "10.0.0.0/33", "action": {"drop": true}}]}"#,
            ),
            400,
            "invalid_input",
            Some("route[0].prefix"),
        ),
        (
            "POST",
            "/v1/networks",
            // The message names the duplicate; the path is the object's.
            body(r#"{"name": "a", "name": "b", "tier": "hardware", "forwarding": "source"}"#),
            400,
            "invalid_input",
            None,
        ),
        (
            "PUT",
            "/v1/networks/x/tier",
            body(r#"{"tier": "auto"}"#),
            400,
            "invalid_input",
            Some("tier"),
        ),
        (
            "PUT",
            "/v1/networks/x/tier",
            body(r#"{"tier": "software"}"#),
            404,
            "not_found",
            None,
        ),
    ] {
        let (st, bytes) = rt.block_on(c.raw(method, path, b)).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_else(|_| {
            panic!(
                "{method} {path}: not JSON: {}",
                String::from_utf8_lossy(&bytes)
            )
        });
        assert_eq!(st, status, "{method} {path}: {v}");
        assert_eq!(v["code"], code, "{method} {path}: {v}");
        assert!(v["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
        assert_eq!(v["field"].as_str(), field, "{method} {path}: {v}");
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
}

#[test]
fn a_unix_socket_serves_typed_bodies_and_encoded_names() {
    let path = std::env::temp_dir().join(format!("prism-api-test-{}.sock", std::process::id()));
    let stop = Arc::new(AtomicBool::new(false));
    let (_, server) = prism_node_api::spawn(
        Listener::Unix(path.clone()),
        prism_node_api::router(fake()),
        stop.clone(),
    )
    .unwrap();
    let rt = rt();
    let c = NodeClient::new(Endpoint::Unix(path.clone()));
    let doc: NetworkDoc = prism_netdoc::from_json(
        br#"{"name": "a/b c", "tier": "hardware", "forwarding": "destination",
             "route": [{"prefix": "10.0.0.0/8", "action": {"port": "a"}}]}"#,
    )
    .unwrap();
    let added = rt.block_on(c.add_network(&doc)).unwrap();
    assert_eq!(added.network.unwrap().entries, 1);
    let got = rt.block_on(c.get_network("a/b c")).unwrap();
    assert_eq!(got.definition, doc);
    drop((c, rt)); // no client connection keeps the server's shutdown waiting
    stop_and_check_removed(&stop, server, &path);
}

/// Stops a Unix-socket server and waits for it: the server removes its
/// socket file when it stops (so a test run leaves none behind either).
fn stop_and_check_removed(
    stop: &AtomicBool,
    server: std::thread::JoinHandle<()>,
    path: &std::path::Path,
) {
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    server.join().unwrap();
    assert!(!path.exists(), "{} left behind", path.display());
}

#[test]
fn a_body_over_the_limit_is_413_with_the_error_body() {
    let path = std::env::temp_dir().join(format!("prism-api-limit-{}.sock", std::process::id()));
    let stop = Arc::new(AtomicBool::new(false));
    let (_, server) = prism_node_api::spawn(
        Listener::Unix(path.clone()),
        prism_node_api::router_with_body_limit(fake(), 1024),
        stop.clone(),
    )
    .unwrap();
    let c = NodeClient::new(Endpoint::Unix(path.clone()));
    let big = format!(
        r#"{{"name": "{}", "tier": "hardware", "forwarding": "source"}}"#,
        "x".repeat(2000)
    );
    let (st, bytes) = rt()
        .block_on(c.raw("POST", "/v1/networks", Some(big.into_bytes())))
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(
        (st, v["code"].as_str()),
        (413, Some("payload_too_large")),
        "{v}"
    );
    drop(c); // no client connection keeps the server's shutdown waiting
    stop_and_check_removed(&stop, server, &path);
}

#[test]
fn metrics_need_the_credential_and_are_openmetrics() {
    let (addr, stop) = serve_tcp();
    let rt = rt();
    let anon = NodeClient::new(Endpoint::Tcp {
        addr: addr.clone(),
        token: None,
    });
    let (st, _) = rt.block_on(anon.raw("GET", "/metrics", None)).unwrap();
    assert_eq!(st, 401);
    let c = NodeClient::new(Endpoint::Tcp {
        addr,
        token: Some(SECRET.into()),
    });
    let doc = prism_netdoc::NetworkDoc::new(
        "net-a",
        TierChoice::Hardware,
        prism_netdoc::ForwardingMode::Destination,
    );
    rt.block_on(c.add_network(&doc)).unwrap();
    let (st, body) = rt.block_on(c.raw("GET", "/metrics", None)).unwrap();
    let text = String::from_utf8_lossy(&body);
    assert_eq!(st, 200, "{text}");
    // The families of a node with one hardware network and no traffic.
    for line in [
        "prism_node_info{device=\"netfpga-v2p\",io=\"packet\"} 1",
        "prism_hardware_slots{state=\"free\"} 2",
        "prism_network_info{network=\"net-a\",tier=\"hardware\",forwarding=\"destination\",slot=\"0\"} 1",
        "prism_network_hardware{network=\"net-a\"} 1",
        "prism_network_tier_moves_total{network=\"net-a\"} 0",
        "# TYPE prism_network_tier_moves counter",
    ] {
        assert!(text.lines().any(|l| l == line), "no `{line}` in:\n{text}");
    }
    assert!(text.ends_with("# EOF\n"), "{text}");
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
}

#[test]
fn trace_and_capture_reach_the_api_by_their_paths() {
    let (addr, stop) = serve_tcp();
    let rt = rt();
    let c = NodeClient::new(Endpoint::Tcp {
        addr,
        token: Some(SECRET.into()),
    });
    let doc = prism_netdoc::NetworkDoc::new(
        "a/b",
        TierChoice::Hardware,
        prism_netdoc::ForwardingMode::Destination,
    );
    rt.block_on(c.add_network(&doc)).unwrap();
    let body = |capture| TapBody {
        count: 7,
        capture,
        snaplen: None,
        timeout_ms: None,
    };
    let t = rt.block_on(c.tap(Some("a/b"), &body(false))).unwrap();
    assert_eq!(
        (t.packets[0].timestamp_ns, t.packets[0].data.as_str()),
        (7, "")
    );
    let t = rt.block_on(c.tap(Some("a/b"), &body(true))).unwrap();
    assert_eq!(t.packets[0].data, "00");
    assert_eq!(t.packets[0].network.as_deref(), Some("a/b"));
    let t = rt.block_on(c.tap(None, &body(false))).unwrap();
    assert_eq!(t.packets[0].network, None);
    let e = rt.block_on(c.tap(Some("nope"), &body(false))).unwrap_err();
    assert_eq!(e.status(), Some(404));
    // Unknown fields are refused, naming the field.
    let (st, b) = rt
        .block_on(c.raw(
            "POST",
            "/v1/trace",
            Some(br#"{"count": 1, "cout": 2}"#.to_vec()),
        ))
        .unwrap();
    assert_eq!(st, 400, "{}", String::from_utf8_lossy(&b));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
}

#[test]
fn reconfigure_events_and_power_reach_the_api_by_their_paths() {
    let (addr, stop) = serve_tcp();
    let rt = rt();
    let c = NodeClient::new(Endpoint::Tcp {
        addr: addr.clone(),
        token: Some(SECRET.into()),
    });
    let doc = prism_netdoc::NetworkDoc::new(
        "b",
        TierChoice::Hardware,
        prism_netdoc::ForwardingMode::Flow,
    );
    rt.block_on(c.add_network(&doc)).unwrap();
    let body = ReconfigureBody {
        definition: doc.clone(),
        strategy: Some(StrategyName::Fallback),
    };
    let r = rt.block_on(c.reconfigure("b", &body)).unwrap();
    assert_eq!(r.event.strategy, Some(StrategyName::Fallback));
    assert_eq!(
        rt.block_on(c.reconfigure("nope", &body))
            .unwrap_err()
            .status(),
        Some(404)
    );
    // 202, and a strategy that does not exist is refused by name.
    let raw = |b: &str| {
        rt.block_on(c.raw(
            "POST",
            "/v1/networks/b/reconfigure",
            Some(b.as_bytes().to_vec()),
        ))
        .unwrap()
    };
    let ok = serde_json::json!({"definition": doc, "strategy": "partial"}).to_string();
    assert_eq!(raw(&ok).0, 202);
    let bad = serde_json::json!({"definition": doc, "strategy": "static"}).to_string();
    let (st, b) = raw(&bad);
    assert_eq!(st, 400);
    assert!(String::from_utf8_lossy(&b).contains("strategy"));
    let seqs: Vec<u64> = rt
        .block_on(c.events(1))
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    // Two reconfigurations, each started and done.
    assert_eq!(seqs, [2, 3, 4]);
    assert_eq!(rt.block_on(c.power()).unwrap().kind, "model");
    // Without the credential: 401, as everywhere.
    let anon = NodeClient::new(Endpoint::Tcp { addr, token: None });
    assert_eq!(rt.block_on(anon.power()).unwrap_err().status(), Some(401));
    assert_eq!(rt.block_on(anon.events(0)).unwrap_err().status(), Some(401));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Handshakes a node's TLS listener refuses are reported (for the node's
/// log), at most one line per period, with how many and the last one's
/// peer and reason: here two connections to a node not yet certified.
#[test]
fn refused_tls_handshakes_are_reported_once_a_period_with_the_peer() {
    let node = fake();
    let addr = node.serve_tls(Arc::new(prism_http::CurrentTls::default()));
    let mut peers = Vec::new();
    for _ in 0..2 {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        peers.push(s.local_addr().unwrap().to_string());
        let _ = s.write_all(b"GET /v1/node HTTP/1.1\r\nHost: x\r\n\r\n");
        // Refused: closed without an answer.
        let mut answer = Vec::new();
        let _ = s.read_to_end(&mut answer);
        assert!(answer.is_empty(), "{}", String::from_utf8_lossy(&answer));
    }
    // Both usually in one line; in two should a period end between them.
    let counted = |r: &[String]| -> u64 {
        r.iter()
            .filter_map(|l| {
                l.split("API on TCP: ")
                    .nth(1)?
                    .split(' ')
                    .next()?
                    .parse::<u64>()
                    .ok()
            })
            .sum()
    };
    let deadline = std::time::Instant::now() + 3 * prism_http::FAILURE_REPORT_EVERY;
    while counted(&node.refusals()) < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let r = node.refusals();
    assert_eq!(counted(&r), 2, "{r:?}");
    assert!(r.len() <= 2, "{r:?}");
    let last = r.last().unwrap();
    assert!(last.contains("TLS handshake(s) refused"), "{r:?}");
    assert!(last.contains("no certificate yet"), "{r:?}");
    assert!(
        last.contains(&peers[1]),
        "the last peer, {}: {r:?}",
        peers[1]
    );
}

#[test]
fn a_node_that_cannot_answer_says_unavailable_in_the_one_error_body() {
    let stop = Arc::new(AtomicBool::new(false));
    let node = fake();
    node.down.store(true, std::sync::atomic::Ordering::Relaxed);
    let (addr, _t) = prism_node_api::spawn(
        Listener::Tcp(
            "127.0.0.1:0".parse().unwrap(),
            Credential::new(SECRET).unwrap(),
        ),
        prism_node_api::router(node),
        stop.clone(),
    )
    .unwrap();
    let c = NodeClient::new(Endpoint::Tcp {
        addr,
        token: Some(SECRET.into()),
    });
    let (st, bytes) = rt().block_on(c.raw("GET", "/v1/counters", None)).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!((st, v["code"].as_str()), (503, Some("unavailable")), "{v}");
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
}
