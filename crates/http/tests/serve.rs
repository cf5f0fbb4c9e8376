//! The server loop against slow and broken clients, over real sockets:
//! a request's header that never completes is cut at the header timeout
//! (slowloris), a TLS handshake that never completes at the handshake
//! timeout, and neither delays an honest client meanwhile.

use prism_http::{Limits, ServeStats, serve};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const LIMITS: Limits = Limits {
    handshake: Duration::from_millis(400),
    header: Duration::from_millis(400),
    max_connections: 1000,
};

fn app() -> axum::Router {
    axum::Router::new().route(
        "/peer",
        axum::routing::get(
            |axum::extract::ConnectInfo(peer): axum::extract::ConnectInfo<std::net::SocketAddr>| async move {
                peer.to_string()
            },
        ),
    )
}

async fn start(tls: Option<prism_http::ServerTls>) -> (String, Arc<ServeStats>) {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let stats = Arc::new(ServeStats::default());
    let tls = tls.map(prism_http::CurrentTls::fixed);
    tokio::spawn(serve(app(), l, tls, LIMITS, stats.clone()));
    (addr, stats)
}

/// One whole request in plain HTTP: the answer's text.
async fn get(addr: &str) -> String {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET /peer HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    out
}

/// Whether the server closed `s` within `within`.
async fn closed_within(s: &mut TcpStream, within: Duration) -> bool {
    let mut b = [0u8; 512];
    let t = Instant::now();
    loop {
        match tokio::time::timeout(within.saturating_sub(t.elapsed()), s.read(&mut b)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue,
            Err(_) => return false,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_header_that_never_ends_is_cut_and_others_are_served_meanwhile() {
    let (addr, _) = start(None).await;
    let mut slow = Vec::new();
    for _ in 0..100 {
        let mut s = TcpStream::connect(&addr).await.unwrap();
        s.write_all(b"GET /peer HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            .await
            .unwrap();
        slow.push(s);
    }
    let t = Instant::now();
    let answer = get(&addr).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    // The handler saw the client's own address.
    assert!(answer.contains("127.0.0.1:"), "{answer}");
    assert!(
        t.elapsed() < Duration::from_millis(300),
        "{:?}",
        t.elapsed()
    );
    // One more byte every 100 ms does not keep a header alive.
    let s = &mut slow[0];
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let _ = s.write_all(b"a").await;
    }
    for s in &mut slow {
        assert!(
            closed_within(s, Duration::from_secs(2)).await,
            "a slow header lived on"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handshake_that_never_ends_is_cut_and_counted() {
    let dir = std::env::temp_dir().join(format!("prism-http-tls-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let ca = prism_http::LabCa::create(&dir, &["localhost".into()], 1).unwrap();
    let tls = prism_http::tls::server_config(&ca.server_cert, &ca.server_key).unwrap();
    let (addr, stats) = start(Some(tls)).await;
    let mut silent = TcpStream::connect(&addr).await.unwrap();
    let mut garbage = TcpStream::connect(&addr).await.unwrap();
    garbage.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
    // A real TLS client meanwhile.
    let client = prism_http::ClientTls::new("localhost", Some(&ca.ca_cert)).unwrap();
    let mut s = client
        .connect(TcpStream::connect(&addr).await.unwrap())
        .await
        .unwrap();
    s.write_all(b"GET /peer HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out).await;
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    assert!(closed_within(&mut garbage, Duration::from_secs(2)).await);
    assert!(closed_within(&mut silent, Duration::from_secs(2)).await);
    assert_eq!(stats.handshake_failures.load(Ordering::Relaxed), 2);
    // Another CA's client refuses the server.
    let other = dir.join("other");
    let other = prism_http::LabCa::create(&other, &["localhost".into()], 1).unwrap();
    let stranger = prism_http::ClientTls::new("localhost", Some(&other.ca_cert)).unwrap();
    let e = stranger
        .connect(TcpStream::connect(&addr).await.unwrap())
        .await
        .unwrap_err();
    assert!(e.to_string().contains("UnknownIssuer"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
