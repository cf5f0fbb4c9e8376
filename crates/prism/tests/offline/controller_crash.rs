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

/// A controller (SQLite in its own directory) with node `n` (a fake
/// served here: 4 slots, the NetFPGA profile) and user `ann`, owner of
/// project `p`.
struct Lab {
    dir: std::path::PathBuf,
    db: String,
    cred: std::path::PathBuf,
    listen: String,
    node: std::sync::Arc<FakeNode>,
    ann: ControllerClient,
    admin: ControllerClient,
}

impl Lab {
    fn restart(&self) -> crate::common::Controller {
        start(&self.db, &self.listen, &self.cred)
    }
}

async fn lab(name: &str) -> (Lab, crate::common::Controller) {
    let dir = std::env::temp_dir().join(format!("prism-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("controller.db").display().to_string();
    let cred = dir.join("node.secret");
    std::fs::write(&cred, SECRET).unwrap();
    crate::common::bootstrap(&db);

    let node = FakeNode::new(&["a", "b"], 4);
    let node_addr = node.serve();
    let listen = format!("127.0.0.1:{}", free_port());
    let ctl = start(&db, &listen, &cred);
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
    let t = ControllerClient::new(&listen, None)
        .login(&LoginRequest {
            user: "ann".into(),
            password: PASSWORD.into(),
            project: Some("p".into()),
            ttl_s: None,
        })
        .await
        .unwrap();
    let ann = ControllerClient::new(&listen, Some(t.token));
    let lab = Lab {
        dir,
        db,
        cred,
        listen,
        node,
        ann,
        admin,
    };
    (lab, ctl)
}

fn network() -> BookingRequest {
    BookingRequest {
        name: "net".into(),
        resource_type: "network".into(),
        spec: serde_json::json!({"tier": "hardware", "forwarding": "destination",
            "route": [{"prefix": "10.0.0.0/8", "action": {"port": "b"}}]}),
        bandwidth_mbps: 10,
        lease_s: None,
        provision: true,
        parts: Vec::new(),
        nat: false,
    }
}

/// Kills controller `ctl` once fake node `node` is being asked for a
/// change (stalled until then), and lets the change fail as if never made.
async fn kill_mid_change(node: &FakeNode, ctl: &mut crate::common::Controller) {
    until("the node to be asked", || async {
        node.stalled.load(Ordering::SeqCst) > 0
    })
    .await;
    ctl.child.kill().unwrap();
    ctl.child.wait().unwrap();
    node.stall.store(false, Ordering::SeqCst);
    until("the stalled change to fail", || async {
        node.stalled.load(Ordering::SeqCst) == 0
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_controller_killed_mid_provision_and_mid_release_loses_and_leaks_nothing() {
    let (lab, mut ctl) = lab("crash").await;
    let (node, ann, listen) = (&lab.node, &lab.ann, &lab.listen);
    // Kill mid-provision: the node is being asked to add the network.
    node.stall.store(true, Ordering::SeqCst);
    let booking = tokio::spawn({
        let ann = ann.clone();
        async move { ann.book("p", &network()).await }
    });
    kill_mid_change(node, &mut ctl).await;
    assert!(
        booking.await.unwrap().is_err(),
        "the caller saw the controller die"
    );
    assert!(node.names().is_empty(), "the node did not take the change");

    let mut ctl = lab.restart();
    let _ = login_admin(listen).await;
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
    kill_mid_change(node, &mut ctl).await;
    assert!(release.await.unwrap().is_err());
    assert_eq!(node.names().len(), 1, "the node still has it");

    let _ctl = lab.restart();
    let _ = login_admin(listen).await;
    until("the restarted controller to remove it", || async {
        node.names().is_empty()
    })
    .await;
    let b = ann.booking("p", &id).await.unwrap();
    assert_eq!(b.allocation_state, AllocationState::Unallocated);
    let usage = ann.usage("p", 0, i64::MAX / 2).await.unwrap();
    assert_eq!(usage.lines.len(), 1, "the release was accounted");
    let _ = std::fs::remove_dir_all(&lab.dir);
}

/// Killed while its node is being sent a module change (`destination` to
/// `source`, served by software while the slot loads): the change was
/// committed whole (one generation, in the history), so the restarted
/// controller carries it to the node; never half there.
#[tokio::test(flavor = "multi_thread")]
async fn a_controller_killed_mid_module_change_finishes_it_at_restart() {
    let (lab, mut ctl) = lab("crash-change").await;
    let (node, ann) = (&lab.node, &lab.ann);
    let b = ann.book("p", &network()).await.unwrap();
    let on_node = b.node_network.clone().unwrap();
    node.stall.store(true, Ordering::SeqCst);
    let change = prism_controller::BookingChange {
        spec: serde_json::json!({"forwarding": "source", "reconfigure": "fallback"})
            .as_object()
            .cloned(),
        ..Default::default()
    };
    let edit = tokio::spawn({
        let (ann, id) = (ann.clone(), b.id.clone());
        async move { ann.edit_booking("p", &id, &change).await }
    });
    kill_mid_change(node, &mut ctl).await;
    assert!(
        edit.await.unwrap().is_err(),
        "the caller saw the controller die"
    );
    let mode = || node.doc(&on_node).map(|d| d.forwarding);
    assert_eq!(mode(), Some(prism_netdoc::ForwardingMode::Destination));

    let _ctl = lab.restart();
    let _ = login_admin(&lab.listen).await;
    until("the restarted controller to finish the change", || async {
        mode() == Some(prism_netdoc::ForwardingMode::Source)
    })
    .await;
    let now = ann.booking("p", &b.id).await.unwrap();
    assert_eq!(now.generation, 2);
    let history = ann.booking_changes("p", &b.id).await.unwrap();
    assert_eq!(history.len(), 1, "{history:?}");
    assert_eq!(history[0].strategy.as_deref(), Some("fallback"));
    let doc = node.doc(&on_node).unwrap();
    assert_eq!(
        doc.reconfigure,
        Some(prism_netdoc::ReconfigureChoice::Fallback)
    );
    let _ = std::fs::remove_dir_all(&lab.dir);
}

/// Killed while a part is being added to a network spanning nodes (its
/// new node stalls on the change): the restarted controller gives the new
/// node its part and the others their tunnels to it.
#[tokio::test(flavor = "multi_thread")]
async fn a_controller_killed_mid_part_added_finishes_it_at_restart() {
    let (lab, mut ctl) = lab("crash-part").await;
    let mut wan = Vec::new();
    for i in 1..=3u8 {
        let (ip, mac) = (format!("203.0.113.{i}"), format!("02:0a:00:00:00:0{i}"));
        let n = FakeNode::new(&["a", "b"], 4).with_wan("a", &ip, &mac);
        let address = n.serve();
        let name = format!("w{i}");
        let r = NodeRequest {
            name,
            address,
            hw_mbps: 1000,
            sw_mbps: 100,
        };
        lab.admin.register_node(&r).await.unwrap();
        wan.push(n);
    }
    let part = |node: &str, prefix: &str| -> prism_controller::PartRequest {
        serde_json::from_value(serde_json::json!({"node": node,
            "route": [{"prefix": prefix, "action": {"port": "b"}}]}))
        .unwrap()
    };
    let mut req = network();
    req.spec = serde_json::json!({"tier": "hardware", "forwarding": "destination"});
    req.parts = vec![part("w1", "10.1.0.0/24"), part("w2", "10.2.0.0/24")];
    let b = lab.ann.book("p", &req).await.unwrap();
    let on_node = b.node_network.clone().unwrap();
    wan[2].stall.store(true, Ordering::SeqCst);
    let mut three = req.parts.clone();
    three.push(part("w3", "10.3.0.0/24"));
    let change = prism_controller::BookingChange {
        parts: Some(three),
        ..Default::default()
    };
    let edit = tokio::spawn({
        let (ann, id) = (lab.ann.clone(), b.id.clone());
        async move { ann.edit_booking("p", &id, &change).await }
    });
    kill_mid_change(&wan[2], &mut ctl).await;
    assert!(
        edit.await.unwrap().is_err(),
        "the caller saw the controller die"
    );
    assert!(wan[2].doc(&on_node).is_none());

    let _ctl = lab.restart();
    let _ = login_admin(&lab.listen).await;
    until("the restarted controller to give w3 its part", || async {
        wan[2].doc(&on_node).is_some()
    })
    .await;
    let reaches_w3 = |n: &FakeNode| {
        n.doc(&on_node).is_some_and(|d| {
            d.route
                .iter()
                .any(|r| r.prefix.is_some_and(|p| p.0.to_string() == "10.3.0.0/24"))
        })
    };
    until("w1 and w2 to route to w3's part", || async {
        reaches_w3(&wan[0]) && reaches_w3(&wan[1])
    })
    .await;
    let now = lab.ann.booking("p", &b.id).await.unwrap();
    assert_eq!((now.generation, now.parts.len()), (2, 3));
    let _ = std::fs::remove_dir_all(&lab.dir);
}
