//! The controller killed (SIGKILL) half-way through provisioning and
//! through releasing, then started again on the same database: nothing is
//! lost and nothing is left on the node. The node is a fake served by this
//! test (its changes stall until the controller is dead, then fail as if
//! never made), so the restarted controller must finish the work itself.

use crate::common::{PASSWORD, free_port, start};
use prism_controller::{
    AllocationState, BookingRequest, ControllerClient, LoginRequest, NodeRequest, OperationalState,
    ProjectRequest, UserRequest,
};
use prism_testkit::fake_node::{FakeNode, SECRET};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

async fn until<F: std::future::Future<Output = bool>>(what: &str, mut f: impl FnMut() -> F) {
    let t = Instant::now();
    while !f().await {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn login_admin(addr: &str) -> ControllerClient {
    let anon = ControllerClient::new(addr, None);
    let t = Instant::now();
    loop {
        match anon
            .login(&LoginRequest {
                user: "admin".into(),
                password: PASSWORD.into(),
                project: None,
                ttl_s: None,
            })
            .await
        {
            Ok(tok) => return anon.with_token(Some(tok.token)),
            Err(e) if e.status().is_none() && t.elapsed() < Duration::from_secs(20) => {
                tokio::time::sleep(Duration::from_millis(50)).await
            }
            Err(e) => panic!("login: {e}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_controller_killed_mid_provision_and_mid_release_loses_and_leaks_nothing() {
    let dir = std::env::temp_dir().join(format!("prism-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("controller.db").display().to_string();
    let cred = dir.join("node.secret");
    std::fs::write(&cred, SECRET).unwrap();
    crate::common::bootstrap(&db);

    let node = FakeNode::new(&["a", "b"], 4);
    let node_addr = node.serve();
    let listen = format!("127.0.0.1:{}", free_port());
    let mut ctl = start(&db, &listen, &cred);
    let admin = login_admin(&listen).await;
    admin
        .create_user(&UserRequest {
            name: "ann".into(),
            password: PASSWORD.into(),
            admin: false,
        })
        .await
        .unwrap();
    admin
        .create_project(&ProjectRequest {
            name: "p".into(),
            service_level: "standard".into(),
            owner: "ann".into(),
        })
        .await
        .unwrap();
    admin
        .register_node(&NodeRequest {
            name: "n".into(),
            address: node_addr,
            hw_mbps: 1000,
            sw_mbps: 100,
        })
        .await
        .unwrap();
    let ann = {
        let t = ControllerClient::new(&listen, None)
            .login(&LoginRequest {
                user: "ann".into(),
                password: PASSWORD.into(),
                project: Some("p".into()),
                ttl_s: None,
            })
            .await
            .unwrap();
        ControllerClient::new(&listen, Some(t.token))
    };

    // Kill mid-provision: the node is being asked to add the network.
    node.stall.store(true, Ordering::SeqCst);
    let req = BookingRequest {
        name: "net".into(),
        resource_type: "network".into(),
        spec: serde_json::json!({"tier": "hardware", "forwarding": "destination",
            "route": [{"prefix": "10.0.0.0/8", "action": {"port": "b"}}]}),
        bandwidth_mbps: 10,
        lease_s: None,
        provision: true,
        parts: Vec::new(),
        nat: false,
    };
    let booking = tokio::spawn({
        let ann = ann.clone();
        async move { ann.book("p", &req).await }
    });
    until("the node to be asked", || async {
        node.stalled.load(Ordering::SeqCst) > 0
    })
    .await;
    ctl.child.kill().unwrap();
    ctl.child.wait().unwrap();
    assert!(
        booking.await.unwrap().is_err(),
        "the caller saw the controller die"
    );
    node.stall.store(false, Ordering::SeqCst);
    until("the stalled change to fail", || async {
        node.stalled.load(Ordering::SeqCst) == 0
    })
    .await;
    assert!(node.names().is_empty(), "the node did not take the change");

    let mut ctl = start(&db, &listen, &cred);
    let _ = login_admin(&listen).await;
    let list = ann.bookings("p", false, None).await.unwrap().items;
    assert_eq!(list.len(), 1, "the booking survived");
    let id = list[0].id.clone();
    until(
        "the restarted controller to finish provisioning",
        || async {
            ann.booking("p", &id)
                .await
                .is_ok_and(|b| b.operational_state == OperationalState::Ready)
        },
    )
    .await;
    let b = ann.booking("p", &id).await.unwrap();
    assert_eq!(b.allocation_state, AllocationState::Provisioned);
    assert_eq!(node.names(), vec![b.node_network.clone().unwrap()]);

    // Kill mid-release: the node is being asked to remove it.
    node.stall.store(true, Ordering::SeqCst);
    let release = tokio::spawn({
        let ann = ann.clone();
        let id = id.clone();
        async move { ann.release("p", &id).await }
    });
    until("the node to be asked", || async {
        node.stalled.load(Ordering::SeqCst) > 0
    })
    .await;
    ctl.child.kill().unwrap();
    ctl.child.wait().unwrap();
    assert!(release.await.unwrap().is_err());
    node.stall.store(false, Ordering::SeqCst);
    until("the stalled change to fail", || async {
        node.stalled.load(Ordering::SeqCst) == 0
    })
    .await;
    assert_eq!(node.names().len(), 1, "the node still has it");

    let _ctl = start(&db, &listen, &cred);
    let _ = login_admin(&listen).await;
    until("the restarted controller to remove it", || async {
        node.names().is_empty()
    })
    .await;
    let b = ann.booking("p", &id).await.unwrap();
    assert_eq!(b.allocation_state, AllocationState::Unallocated);
    let usage = ann.usage("p", 0, i64::MAX / 2).await.unwrap();
    assert_eq!(usage.lines.len(), 1, "the release was accounted");
    let _ = std::fs::remove_dir_all(&dir);
}
