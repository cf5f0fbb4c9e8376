//! A controller on a fresh database (SQLite in a temporary file, or
//! PostgreSQL when `PRISM_TEST_POSTGRES` names a server: a new database per
//! test), served on 127.0.0.1, with fake nodes and a clock the test moves.

#![allow(dead_code)]

pub use prism_testkit::fake_node;

pub mod statuses;

use fake_node::{FakeNode, SECRET};
use prism_controller::{
    BookingRequest, Controller, ControllerClient, LoginRequest, ManualClock, NodeRequest,
    ProjectRequest, Settings, UserRequest,
};
use serde_json::json;
use std::sync::Arc;

pub const START_MS: i64 = 1_800_000_000_000;
pub const PASSWORD: &str = "a password long enough";

pub struct Harness {
    pub ctl: Controller,
    pub addr: String,
    pub clock: ManualClock,
    pub admin: ControllerClient,
    pub target: String,
    /// Every (method, route, status) served: checked against the OpenAPI
    /// document when the harness is dropped (`statuses`).
    pub seen: statuses::Seen,
    _dir: Option<TempDir>,
}

impl Drop for Harness {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        assert_eq!(
            self.ctl.change_mismatches(),
            0,
            "a change sent to a node differed from the node's whole desired state"
        );
        let seen = self.seen.lock().unwrap();
        // The administrator's login at least: the recorder sees routes.
        assert!(
            seen.iter().any(|(_, route, _)| route == "/v1/login"),
            "the status recorder saw no route"
        );
        let wrong = statuses::undocumented(&seen);
        assert!(
            wrong.is_empty(),
            "the API answered statuses docs/api/controller.json does not list:\n{}",
            wrong.join("\n")
        );
    }
}

pub struct TempDir(pub std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A database for one test: its URL or path.
pub async fn fresh_database() -> (String, Option<TempDir>) {
    if let Ok(base) = std::env::var("PRISM_TEST_POSTGRES") {
        use sqlx::Connection;
        let name = format!("prism_test_{}", uuid::Uuid::new_v4().simple());
        let mut c = sqlx::PgConnection::connect(&base)
            .await
            .expect("PRISM_TEST_POSTGRES: connect");
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut c)
            .await
            .unwrap();
        let (head, _) = base.rsplit_once('/').expect("a URL ending in /database");
        return (format!("{head}/{name}"), None);
    }
    let dir =
        std::env::temp_dir().join(format!("prism-ctl-test-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    (
        dir.join("controller.db").display().to_string(),
        Some(TempDir(dir)),
    )
}

pub fn settings() -> Settings {
    Settings {
        node_secret: Some(SECRET.into()),
        rate_per_s: 10_000.0,
        rate_burst: 10_000.0,
        // Every change a node is sent is checked against its whole state.
        check_changes: true,
        // Argon2id at its least cost: the tests make and check hundreds of
        // passwords, and what they test is who may log in, not the cost
        // (the server's default cost is the library's, `PasswordCost`).
        password_cost: prism_controller::PasswordCost {
            memory_kib: 8,
            passes: 1,
            lanes: 1,
        },
        ..Settings::default()
    }
}

impl Harness {
    pub async fn start() -> Self {
        Self::start_with(settings()).await
    }

    pub async fn start_with(settings: Settings) -> Self {
        let (target, dir) = fresh_database().await;
        let clock = ManualClock::new(START_MS);
        let ctl = Controller::open_with_clock(&target, settings, Arc::new(clock.clone()))
            .await
            .unwrap();
        ctl.bootstrap_admin("admin", PASSWORD).await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let seen = statuses::Seen::default();
        let router = prism_controller::api::router(ctl.clone()).layer(
            axum::middleware::from_fn_with_state(seen.clone(), statuses::record),
        );
        tokio::spawn(prism_controller::api::serve_router(router, listener));
        let anon = ControllerClient::new(&addr, None);
        let t = anon.login(&login("admin", None)).await.unwrap();
        let admin = anon.with_token(Some(t.token));
        Self {
            ctl,
            addr,
            clock,
            admin,
            target,
            seen,
            _dir: dir,
        }
    }

    pub fn anonymous(&self) -> ControllerClient {
        ControllerClient::new(&self.addr, None)
    }

    /// A user, logged in (unscoped).
    pub async fn user(&self, name: &str) -> ControllerClient {
        self.admin
            .create_user(&UserRequest {
                name: name.into(),
                password: PASSWORD.into(),
                admin: false,
            })
            .await
            .unwrap();
        self.login_as(name, None).await
    }

    /// A fresh session token of `name`.
    pub async fn login_token(&self, name: &str) -> String {
        self.anonymous()
            .login(&login(name, None))
            .await
            .unwrap()
            .token
    }

    pub async fn login_as(&self, name: &str, project: Option<&str>) -> ControllerClient {
        let t = self.anonymous().login(&login(name, project)).await.unwrap();
        self.anonymous().with_token(Some(t.token))
    }

    pub async fn project(&self, name: &str, owner: &str, level: &str) {
        self.admin
            .create_project(&ProjectRequest {
                name: name.into(),
                service_level: level.into(),
                owner: owner.into(),
            })
            .await
            .unwrap();
    }

    /// A node whose port `c` is its WAN port with a router beyond it and
    /// the public-address pool `pool`: the gateway service's node.
    pub async fn gateway_node(&self, name: &str, pool: &str) -> Arc<FakeNode> {
        let n = FakeNode::new(&["a", "b", "c"], 8)
            .with_wan("c", "203.0.113.1", "02:0a:00:00:00:01")
            .with_gateway("02:0e:00:00:00:01", pool);
        self.register(name, n, 100_000).await
    }

    /// A fake node whose WAN port `c` has a pool of public MACs, registered.
    pub async fn public_mac_node(&self, name: &str, pool: &str) -> Arc<FakeNode> {
        let n = FakeNode::new(&["a", "b", "c"], 8)
            .with_wan("c", "203.0.113.1", "02:0a:00:00:00:01")
            .with_public_macs(pool);
        self.register(name, n, 100_000).await
    }

    /// A fake node with ports `a`, `b`, `c` and `slots` hardware slots,
    /// registered.
    /// Registers resource type `probe`: any object, no node.
    pub async fn register_probe(&self) {
        self.admin
            .register_type(&prism_controller::ResourceType {
                name: "probe".into(),
                description: "no node".into(),
                schema: json!({"type": "object"}),
                operations: vec![
                    prism_controller::GenericOp::Get,
                    prism_controller::GenericOp::Release,
                ],
                builtin: false,
            })
            .await
            .unwrap();
    }

    pub async fn node(&self, name: &str, slots: u16, sw_mbps: i64) -> Arc<FakeNode> {
        self.register(name, FakeNode::new(&["a", "b", "c"], slots), sw_mbps)
            .await
    }

    /// The same, running processing nodes behind its port `c`.
    pub async fn processing_node(&self, name: &str, slots: u16, sw_mbps: i64) -> Arc<FakeNode> {
        let n = FakeNode::new(&["a", "b", "c"], slots).with_processing("c");
        self.register(name, n, sw_mbps).await
    }

    /// Serves `n` and registers it as `name`.
    async fn register(&self, name: &str, n: Arc<FakeNode>, sw_mbps: i64) -> Arc<FakeNode> {
        let addr = n.serve();
        self.admin
            .register_node(&NodeRequest {
                name: name.into(),
                address: addr,
                hw_mbps: 10_000,
                sw_mbps,
            })
            .await
            .unwrap();
        n
    }
}

pub fn login(user: &str, project: Option<&str>) -> LoginRequest {
    LoginRequest {
        user: user.into(),
        password: PASSWORD.into(),
        project: project.map(str::to_string),
        ttl_s: Some(86_400),
    }
}

/// User `fay` of project `p` books and provisions network `a` in `tier`;
/// her client and the network's name on the node.
pub async fn book_one(h: &Harness, tier: &str) -> (ControllerClient, String) {
    let fay = h.user("fay").await;
    h.project("p", "fay", prism_controller::STANDARD).await;
    let b = fay.book("p", &network("a", tier, 1, true)).await.unwrap();
    (fay, b.node_network.unwrap())
}

pub fn network(name: &str, tier: &str, mbps: i64, provision: bool) -> BookingRequest {
    BookingRequest {
        name: name.into(),
        resource_type: "network".into(),
        spec: json!({
            "tier": tier,
            "forwarding": "destination",
            "route": [{"prefix": "10.1.0.0/16", "action": {"port": "b", "decrement_ttl": true}}]
        }),
        bandwidth_mbps: mbps,
        lease_s: None,
        provision,
        parts: Vec::new(),
        nat: false,
    }
}

/// A booking of type `probe` (`Harness::register_probe`) for an hour.
pub fn probe(name: &str) -> BookingRequest {
    BookingRequest {
        name: name.into(),
        resource_type: "probe".into(),
        spec: json!({}),
        bandwidth_mbps: 0,
        lease_s: Some(3600),
        provision: false,
        parts: Vec::new(),
        nat: false,
    }
}
