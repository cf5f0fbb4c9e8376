//! The generated Python SDK (sdk/python) drives a booking against this
//! controller over HTTPS (a lab CA the SDK is given; without it the SDK
//! refuses the server): `sdk/test_booking.py`, run by the Python whose environment
//! has the SDK installed (`$PRISM_SDK_PYTHON`; scripts/test makes it).
//! Without it the test is skipped, and fails where every prerequisite is
//! required (`prism_testkit::gates`; CI).

use crate::common::{Harness, PASSWORD};

#[tokio::test(flavor = "multi_thread")]
async fn the_python_sdk_books_renews_and_releases() {
    let Some(python) = prism_testkit::gates::sdk_program("python_sdk", "PRISM_SDK_PYTHON") else {
        return;
    };
    let h = Harness::start().await;
    let node = h.node("n1", 4, 100).await;
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sdk/test_booking.py");
    // The same controller on a second, TLS listener.
    let dir = prism_testkit::TempDir::new("sdk-tls");
    let ca = prism_http::LabCa::create(dir.path(), &["localhost".into()], 1).unwrap();
    let tls = prism_http::tls::server_config(&ca.server_cert, &ca.server_key).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let limits = prism_http::Limits::default();
    tokio::spawn(prism_controller::api::serve_with(
        h.ctl.clone(),
        listener,
        Some(tls),
        limits,
    ));
    let url = format!("https://localhost:{port}");
    // A blocking child on a blocking thread: the controller keeps serving.
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(&python)
            .arg(&script)
            .env("PRISM_CONTROLLER_URL", url)
            .env("PRISM_CA", &ca.ca_cert)
            .env("PRISM_ADMIN_PASSWORD", PASSWORD)
            .output()
    })
    .await
    .unwrap()
    .expect("running the SDK's test");
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("python sdk: booked"));
    assert!(node.names().is_empty(), "released: gone from the node");
}

/// The SDK's README example (sdk/python-README.md's Python block), run as
/// it is: a network and a processing node booked, ready, released.
#[tokio::test(flavor = "multi_thread")]
async fn the_sdk_readmes_example_runs_as_written() {
    let Some(python) = prism_testkit::gates::sdk_program("sdk readme", "PRISM_SDK_PYTHON") else {
        return;
    };
    let h = Harness::start().await;
    let node = crate::processing::node(&h, "n1", true).await;
    h.user("alice").await;
    h.project("exp", "alice", prism_controller::STANDARD).await;
    let readme =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sdk/python-README.md");
    let text = std::fs::read_to_string(readme).unwrap();
    let start = text.find("```python\n").expect("a Python block") + "```python\n".len();
    let code = text[start..][..text[start..].find("\n```").unwrap()].to_string();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(prism_controller::api::serve_with(
        h.ctl.clone(),
        listener,
        None,
        prism_http::Limits::default(),
    ));
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(&python)
            .args(["-c", &code])
            .env("PRISM_CONTROLLER_URL", url)
            .env("PRISM_PROJECT", "exp")
            .env("PRISM_USER", "alice")
            .env("PRISM_PASSWORD", PASSWORD)
            .output()
    })
    .await
    .unwrap()
    .expect("running the README's example");
    let said = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("ready on n1") && said.contains("released"),
        "{said}"
    );
    assert!(
        node.processing_nodes().is_empty(),
        "released: gone from the node"
    );
}
