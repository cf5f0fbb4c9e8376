//! What the application's functions work over: the settings a
//! controller is started with, and the context (database, clock, settings,
//! what this replica keeps of nodes and credentials) passed to each.

use crate::infra::clock::Clock;
use crate::infra::db::{self, Engine, Pool};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What a controller is told at start.
#[derive(Debug, Clone)]
pub struct Settings {
    /// An allocated booking's hold before it is provisioned (GENI: minutes).
    pub hold_s: i64,
    /// How often expired leases are looked for.
    pub reaper_every_ms: u64,
    /// How often every node is checked against its desired state.
    pub converge_every_ms: u64,
    /// A node not heard from for this long is down: nothing is placed on it.
    pub node_timeout_ms: i64,
    /// A call to a node that has not answered in this long has failed (a
    /// hung node must not hold a pass over it for ever; no other node's
    /// work and no API answer waits for it, `crate::app::node_work`).
    pub node_call_timeout_ms: u64,
    /// A connection to a node not made in this long has failed.
    pub node_connect_timeout_ms: u64,
    /// How long a release or a stop waits for its node before answering
    /// with the node's convergence pending (`converging`).
    pub change_wait_ms: u64,
    /// Requests per second per credential before 429, and the burst.
    pub rate_per_s: f64,
    pub rate_burst: f64,
    /// The credential nodes accept (`prism node --api-credential-file`).
    pub node_secret: Option<String>,
    /// Where the tunnel source addresses of networks spanning nodes come
    /// from (`crate::app::span`).
    pub tunnel_pool: prism_netdoc::Prefix,
    /// The S-tags bridged networks spanning nodes take (802.1ad VIDs).
    pub s_tag_pool: std::ops::RangeInclusive<u16>,
    /// How long a released VLAN, tunnel address or S-tag is not handed
    /// out again (`crate::app::pools`; docs/wan.md, "Threat model").
    pub pool_hold_down_ms: i64,
    /// Argon2id's cost for new password hashes.
    pub password_cost: crate::infra::secrets::PasswordCost,
    /// How long the background lease lasts unrenewed (`crate::app::leader`),
    /// and how often its holder renews it (and others try to take it).
    pub lead_ttl_ms: i64,
    pub lead_every_ms: u64,
    /// The CA that certifies nodes (`crate::app::node_identity`; the lab CA's
    /// key), and a node certificate's life.
    pub node_ca: Option<std::sync::Arc<prism_http::NodeCa>>,
    pub node_cert_life_ms: i64,
    /// The connections this replica keeps to PostgreSQL (SQLite: always
    /// one). Replicas on one server share its cores: with R of them,
    /// `DB_CONNECTIONS / R` each keeps the server's backends as many as
    /// one replica's (bench-controller: 3 replicas of 8 connections on two
    /// cores booked 793-871/s, of 3 each 975-1,055/s).
    pub db_connections: u32,
    /// Open an SQLite database that other users may read (refused unless
    /// set: it holds password hashes and token digests).
    pub allow_readable_db: bool,
    /// How long what a credential stood for is kept before it is read
    /// again (`crate::app::auth_cache`; 0: read at every call).
    pub auth_cache_ms: u64,
    /// Check every change sent to a node against the whole desired state
    /// read anew (the tests': a change record that missed a booking would
    /// show; `Controller::change_mismatches`).
    pub check_changes: bool,
    /// The storage service, when the controller serves it
    /// (`--storage-listen`): its endpoint as clients reach it, and the
    /// master key its keys' secrets derive from.
    pub storage: Option<StorageSettings>,
}

/// A call to a node: well under a client's patience (a node takes a
/// whole desired state of software networks in well under a second).
pub const NODE_CALL_TIMEOUT_MS: u64 = 10_000;
/// A connection to a node.
pub const NODE_CONNECT_TIMEOUT_MS: u64 = 3_000;

/// A released pool value's hold-down: far longer than a frame is in flight
/// or a working node takes to converge (seconds).
pub const POOL_HOLD_DOWN_MS: i64 = 300_000;

/// The connections to PostgreSQL a lone replica keeps.
pub const DB_CONNECTIONS: u32 = 8;

/// A node certificate's life unless told (`--node-cert-hours`); renewed
/// after two thirds of it (`crate::app::node_identity`).
pub const NODE_CERT_LIFE_MS: i64 = 24 * 3_600_000;

/// The default tunnel pool: RFC 2544's benchmarking range, never routed on
/// the Internet.
pub const TUNNEL_POOL: &str = "198.18.0.0/15";

/// The storage service's settings (docs/storage.md).
#[derive(Debug, Clone)]
pub struct StorageSettings {
    /// `http(s)://host:port`, as clients reach it.
    pub endpoint: String,
    pub master: prism_storage::keys::MasterKey,
    /// Where objects are kept: what the endpoint serves, and what the
    /// controller asks which of an image's blobs a bucket holds.
    pub backend: std::sync::Arc<dyn prism_storage::ObjectStore>,
    /// The lab CA's certificate (PEM) the endpoint's is signed by, given
    /// to nodes that fetch from it; `None`: a certificate the system's
    /// roots check, or plain HTTP.
    pub ca_pem: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            hold_s: 600,
            reaper_every_ms: 1000,
            converge_every_ms: 2000,
            node_timeout_ms: 10_000,
            node_call_timeout_ms: NODE_CALL_TIMEOUT_MS,
            node_connect_timeout_ms: NODE_CONNECT_TIMEOUT_MS,
            change_wait_ms: 250,
            rate_per_s: 200.0,
            rate_burst: 400.0,
            node_secret: None,
            tunnel_pool: prism_netdoc::Prefix(TUNNEL_POOL.parse().expect("a prefix")),
            s_tag_pool: 2..=4094,
            pool_hold_down_ms: POOL_HOLD_DOWN_MS,
            password_cost: Default::default(),
            lead_ttl_ms: 3000,
            lead_every_ms: 500,
            node_ca: None,
            node_cert_life_ms: NODE_CERT_LIFE_MS,
            db_connections: DB_CONNECTIONS,
            allow_readable_db: false,
            check_changes: false,
            auth_cache_ms: 1000,
            storage: None,
        }
    }
}

/// What the application's functions work over (`crate::app`): the
/// database, the clock, the settings, and what this replica keeps of the
/// nodes (their locks, work queues and clients' certificate) and of
/// credentials a moment.
#[derive(Debug, Clone)]
pub struct Context {
    pub(crate) pool: Pool,
    pub(crate) engine: Engine,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) settings: Settings,
    /// Resource types as read from the database, with their compiled
    /// schemas: types are never changed once registered, so a cache.
    pub(crate) types: Arc<Mutex<HashMap<String, Arc<crate::model::Compiled>>>>,
    /// One convergence pass at a time per node; the lock guards the desired
    /// state this replica last saw the node accept (`crate::app::desired`).
    pub(crate) node_locks: Arc<Mutex<HashMap<String, NodeLock>>>,
    /// An SQLite file's lock, held while any clone lives (`db::SqliteLock`).
    pub(crate) _sqlite_lock: Option<Arc<db::SqliteLock>>,
    /// What an unknown user's login verifies, at the configured cost.
    pub(crate) dummy_hash: Arc<String>,
    /// This replica's name for the background lease (`crate::app::leader`).
    pub(crate) replica: Arc<String>,
    /// Each node's passes, apart (`crate::infra::work_queue`, `crate::app::node_work`).
    pub(crate) work: Arc<crate::infra::work_queue::NodeWork>,
    /// Changes found to differ from the whole state (`check_changes`).
    pub(crate) change_mismatches: Arc<std::sync::atomic::AtomicUsize>,
    /// When the reaper last pruned the nodes' change records.
    pub(crate) changes_pruned_ms: Arc<std::sync::atomic::AtomicI64>,
    /// What credentials stood for, kept a moment (`crate::app::auth_cache`).
    pub(crate) auth_cache: Arc<crate::app::auth_cache::AuthCache>,
    /// This replica's client certificate to nodes (`crate::app::client_certs`).
    pub(crate) client_cert:
        Arc<tokio::sync::Mutex<crate::infra::client_cert_state::ClientCertState>>,
}

/// One convergence pass at a time per node (`crate::app::desired`); what it
/// guards is the desired state this replica last saw the node accept,
/// whole (`None`: none yet, or a call failed since).
pub(crate) type NodeLock = Arc<tokio::sync::Mutex<Option<prism_node_api::DesiredState>>>;

impl Context {
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    pub(crate) fn node_lock(&self, node_id: &str) -> NodeLock {
        let mut m = self.node_locks.lock().unwrap_or_else(|e| e.into_inner());
        m.entry(node_id.to_string()).or_default().clone()
    }
}
