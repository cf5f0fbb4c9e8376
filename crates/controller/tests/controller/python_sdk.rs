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
