//! One software network booked (provisioned, its node converged) and
//! released (its node converged again) on a node already holding N
//! networks, N = 10, 1,000, 3,900 (the VLAN pool holds 3,995): the
//! controller's cost of a change as a node fills. The node is the test
//! kit's fake (the node API over documents, each checked as a node does,
//! over TCP), the database SQLite in a temporary directory, the calls the
//! library's (no HTTP). A cost that grows with N is the reconciler's: each
//! change sends the node its whole desired state.
//!
//!     cargo bench -p prism-controller --bench node_state

use criterion::{Criterion, criterion_group, criterion_main};
use prism_controller::prelude::*;
use prism_controller::{
    BookingRequest, Controller, NodeRequest, Principal, ProjectRequest, ServiceLevel, Settings,
    UserRequest,
};
use prism_testkit::fake_node::{FakeNode, SECRET};
use std::time::{Duration, Instant};

const PASSWORD: &str = "bench password 123";

/// A software network `name` of 1 Mbit/s, provisioned at once.
fn network(name: String) -> BookingRequest {
    let spec = prism_testkit::fake_node::software_spec();
    BookingRequest {
        provision: true,
        ..BookingRequest::network(name, spec, 1)
    }
}

/// A controller on a new SQLite file with user `u` in project `p` (room
/// for 10,000 networks) and one fake node, and `u`'s principal.
async fn controller(dir: &std::path::Path, node: String) -> (Controller, Principal) {
    let settings = Settings {
        rate_per_s: 1e9,
        rate_burst: 1e9,
        node_secret: Some(SECRET.into()),
        // Thousands of changes a minute: released VLANs must come back at
        // once (the hold-down is the pools' policy, not a change's cost).
        pool_hold_down_ms: 0,
        ..Settings::default()
    };
    let db = dir.join("controller.db").display().to_string();
    let ctl = Controller::open(&db, settings).await.unwrap();
    ctl.bootstrap_admin("admin", PASSWORD).await.unwrap();
    let admin = ctl.authenticate(Some(&token(&ctl, "admin").await)).await;
    let admin = admin.unwrap();
    let mut level = ServiceLevel::standard();
    level.name = "wide".into();
    level.max_sw_networks = 10_000;
    level.max_bandwidth_mbps = 100_000;
    level.max_lease_hours = 1 << 40;
    ctl.put_service_level(&admin, level).await.unwrap();
    let user = UserRequest {
        name: "u".into(),
        password: PASSWORD.into(),
        admin: false,
    };
    ctl.create_user(&admin, user).await.unwrap();
    let project = ProjectRequest {
        name: "p".into(),
        service_level: "wide".into(),
        owner: "u".into(),
    };
    ctl.create_project(&admin, project).await.unwrap();
    let n = NodeRequest {
        name: "n1".into(),
        address: node,
        hw_mbps: 10_000,
        sw_mbps: 100_000,
    };
    ctl.register_node(&admin, n).await.unwrap();
    let u = ctl.authenticate(Some(&token(&ctl, "u").await)).await;
    (ctl, u.unwrap())
}

async fn token(ctl: &Controller, user: &str) -> String {
    let r = prism_controller::LoginRequest {
        user: user.into(),
        password: PASSWORD.into(),
        project: None,
        ttl_s: None,
    };
    ctl.login(r).await.unwrap().token
}

fn change_on_a_full_node(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut g = c.benchmark_group("node_state");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    let dir = prism_testkit::TempDir::new("bench-node-state");
    let node = FakeNode::new(&["a", "b"], 4);
    let (ctl, u) = rt.block_on(controller(dir.path(), node.serve()));
    let mut held = 0;
    for n in [10usize, 1000, 3900] {
        rt.block_on(async {
            for i in held..n {
                ctl.allocate(&u, "p", network(format!("held-{i}")))
                    .await
                    .unwrap();
            }
        });
        held = n;
        assert_eq!(node.docs.lock().unwrap().len(), n, "the node holds them");
        g.bench_function(format!("book+release one network, {n} on the node"), |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let t = Instant::now();
                    for _ in 0..iters {
                        let b = ctl.allocate(&u, "p", network("probe".into())).await;
                        ctl.release(&u, "p", &b.unwrap().id).await.unwrap();
                        // A release answers before its node may have it.
                        ctl.settle().await;
                    }
                    t.elapsed()
                })
            })
        });
    }
    g.finish();
}

/// One network's routes changed through the controller (`PATCH
/// …/bookings/{id}`, answered once its node has taken the change) on a
/// node holding 100 networks: the time to the node's acceptance, which on
/// a real node is the new tables published to its workers. Besides
/// criterion's mean, the p50 and p99 of 1,000 changes are printed.
fn route_change_at_100_networks(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = prism_testkit::TempDir::new("bench-route-change");
    let node = FakeNode::new(&["a", "b"], 4);
    let (ctl, u) = rt.block_on(controller(dir.path(), node.serve()));
    let id = rt.block_on(async {
        for i in 0..99 {
            ctl.allocate(&u, "p", network(format!("held-{i}")))
                .await
                .unwrap();
        }
        ctl.allocate(&u, "p", network("changed".into()))
            .await
            .unwrap()
            .id
    });
    let mut k = 0u32;
    let mut change = || {
        k += 1;
        let route = serde_json::json!([{"prefix": format!("10.{}.0.0/16", k % 250), "action": {"port": "b"}}]);
        let spec = serde_json::json!({ "route": route });
        prism_controller::BookingChange {
            spec: spec.as_object().cloned(),
            ..Default::default()
        }
    };
    let mut took: Vec<Duration> = rt.block_on(async {
        let mut took = Vec::new();
        for _ in 0..1000 {
            let t = Instant::now();
            let r = ctl.edit_booking(&u, "p", &id, change()).await.unwrap();
            took.push(t.elapsed());
            assert!(!r.booking.converging, "the node took it");
        }
        took
    });
    took.sort();
    eprintln!(
        "route change through the controller, 100 networks on the node: p50 {:.2} ms, p99 {:.2} ms, slowest {:.2} ms (1,000 changes)",
        took[499].as_secs_f64() * 1e3,
        took[989].as_secs_f64() * 1e3,
        took[999].as_secs_f64() * 1e3
    );
    let mut g = c.benchmark_group("node_state");
    g.sample_size(20).measurement_time(Duration::from_secs(5));
    g.bench_function("route change, 100 on the node", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let t = Instant::now();
                for _ in 0..iters {
                    ctl.edit_booking(&u, "p", &id, change()).await.unwrap();
                }
                t.elapsed()
            })
        })
    });
    g.finish();
}

criterion_group!(benches, change_on_a_full_node, route_change_at_100_networks);
criterion_main!(benches);
