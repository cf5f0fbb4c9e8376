//! The API's handlers served over the test kit's fake controller: the
//! router, its middleware (authentication, audit) and its bodies and
//! errors go through the area traits, not the database, so the fake serves
//! them too; what each call means is tested over the real controller in
//! the other modules.

use prism_controller::{
    AllocationState, BookingRequest, ControllerClient, ErrorCode, LoginRequest, NodeRequest,
    ProjectRequest, STANDARD, TraceRequest, UserRequest,
};
use prism_testkit::FakeController;

async fn serve(fake: FakeController) -> ControllerClient {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(prism_controller::api::serve(fake, listener));
    ControllerClient::new(&addr, None)
}

async fn login(anon: &ControllerClient, user: &str, password: &str) -> ControllerClient {
    let r = LoginRequest {
        user: user.into(),
        password: password.into(),
        project: None,
        ttl_s: None,
    };
    anon.with_token(Some(anon.login(&r).await.unwrap().token))
}

fn code(e: prism_controller::ClientError) -> ErrorCode {
    e.api().expect("the error body").code
}

#[tokio::test]
async fn the_handlers_serve_the_test_kits_fake_through_the_area_traits() {
    let fake = FakeController::new("root", "root-pw");
    let anon = serve(fake.clone()).await;
    assert_eq!(
        code(anon.whoami().await.unwrap_err()),
        ErrorCode::Unauthorized
    );
    let root = login(&anon, "root", "root-pw").await;
    assert!(root.whoami().await.unwrap().admin);
    let ada = UserRequest {
        name: "ada".into(),
        password: "ada-pw".into(),
        admin: false,
    };
    root.create_user(&ada).await.unwrap();
    for (name, owner) in [("exp", "ada"), ("other", "root")] {
        let p = ProjectRequest {
            name: name.into(),
            service_level: STANDARD.into(),
            owner: owner.into(),
        };
        root.create_project(&p).await.unwrap();
    }
    let node = NodeRequest {
        name: "n1".into(),
        address: "127.0.0.1:1".into(),
        hw_mbps: 1000,
        sw_mbps: 1000,
    };
    root.register_node(&node).await.unwrap();
    let ada = login(&anon, "ada", "ada-pw").await;
    assert_eq!(
        code(ada.register_node(&node).await.unwrap_err()),
        ErrorCode::Forbidden
    );
    let r = BookingRequest::network("net", serde_json::json!({}), 10);
    let b = ada.book("exp", &r).await.unwrap();
    assert_eq!(b.allocation_state, AllocationState::Allocated);
    let b = ada.provision("exp", &b.id).await.unwrap();
    assert_eq!(b.node.as_deref(), Some("n1"));
    // Another project is invisible: 404, as the controller answers.
    let e = ada.booking("other", &b.id).await.unwrap_err();
    assert_eq!(code(e), ErrorCode::NotFound);
    // What needs a node's data plane, the fake refuses with its code.
    let trace = TraceRequest {
        count: 1,
        timeout_ms: None,
    };
    let e = ada.trace_booking("exp", &b.id, &trace).await.unwrap_err();
    assert_eq!((e.status(), code(e)), (Some(502), ErrorCode::NodeFailed));
    // A malformed body never reaches the fake: 400, the field named.
    let bad = br#"{"name": "x", "type": "network", "spec": {}, "bandwidth_mbps": "ten"}"#;
    let (status, body) = ada
        .raw("POST", "/v1/projects/exp/bookings", Some(bad.to_vec()))
        .await
        .unwrap();
    assert_eq!(status, 400, "{}", String::from_utf8_lossy(&body));
    assert!(String::from_utf8_lossy(&body).contains("bandwidth_mbps"));
    let b = ada.release("exp", &b.id).await.unwrap();
    assert_eq!(b.allocation_state, AllocationState::Unallocated);
    assert_eq!(fake.bookings().len(), 1);
    // The middleware audits changes and refusals through the fake.
    let log = fake.audit_log();
    let entry = |method: &str, path: &str, status: i64| {
        log.iter()
            .any(|e| e.method == method && e.path == path && e.status == status)
    };
    assert!(entry("POST", "/v1/projects/exp/bookings", 201), "{log:?}");
    assert!(entry("POST", "/v1/projects/exp/bookings", 400), "{log:?}");
    assert!(entry("POST", "/v1/nodes", 403), "{log:?}");
}
