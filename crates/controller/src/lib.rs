//! Prism's control and management plane (paper 002, VANI): a controller
//! that alone holds the database (SQLite by default, PostgreSQL in
//! production), authenticates and authorizes every call, books virtual
//! networks on nodes as leases within quotas, accounts for them, and
//! drives the nodes through the typed node API until each converges to its
//! generation-numbered desired state.
//!
//! Layout: `db` (pool, migrations), `secrets` and `identity` (passwords,
//! tokens, keys), `authz` (who may do what), `projects`, `registry`,
//! `nodes` (registration, placement), `heartbeat` (nodes that register
//! themselves; the node's side is `prism_node::agent`), `bookings` and
//! `quota` (leases), `gateway` (NAT and public addresses), `accounting`
//! (usage, audit), `operations` (the journal a restarted controller
//! finishes), `reconcile` (nodes converge), `api` (REST over axum,
//! OpenAPI), `transport` (TLS or plain HTTP, the lab CA).

mod accounting;
pub mod api;
pub mod audit_scope;
mod auth_cache;
mod authz;
mod bookings;
mod client_cert_state;
mod client_certs;
mod clock;
mod controller;
mod datastore;
mod db;
mod error;
mod gateway;
mod heartbeat;
mod identity;
pub mod leader;
mod live;
mod login_guard;
mod model;
mod node_identity;
mod node_work;
mod nodes;
mod observe;
mod operations;
mod pools;
mod projects;
mod public_mac;
mod quota;
mod reconcile;
mod reconcile_change;
mod registry;
mod release;
mod secrets;
mod span;
pub mod transport;
mod wan_guard;
mod work_queue;

pub use accounting::{AuditEntry, AuditQuery, UsageLine, UsageReport};
pub use authz::{Operation, Principal};
pub use bookings::VLAN_POOL;
pub use clock::{Clock, ManualClock, SystemClock};
pub use controller::{Controller, DB_CONNECTIONS, POOL_HOLD_DOWN_MS, Settings, TUNNEL_POOL};
pub use db::{Engine, redact, url_for};
pub use error::{Error, ErrorCode, QuotaDetail};
pub use gateway::{PublicAddress, PublicAddressRequest};
pub use heartbeat::{
    HEARTBEAT_EVERY_MS, Heartbeat, HeartbeatAnswer, NodeCaller, NodeKeyRequest, NodeKeyView,
};
pub use identity::{
    ApiKeyRequest, ApiKeyView, LoginRequest, TokenView, UserRequest, UserView, WhoAmI,
};
pub use login_guard::{FREE_FAILURES as LOGIN_FREE_FAILURES, MAX_BLOCK_MS as LOGIN_MAX_BLOCK_MS};
pub use model::{
    Action, ActionRequest, AllocationState, Booking, BookingRequest, GenericOp, ListQuery,
    NODE_PREFIX, OperationalState, Page, PartRequest, PartView, RenewRequest, Renewed,
    ResourceType, Role, node_network_name,
};
pub use nodes::{NodeRequest, NodeView};
pub use prism_controller_api::{
    CaptureRequest, ClientError, ControllerClient, NodeHardware, SlotView, TraceRequest, session,
};
pub use projects::{
    MemberRequest, MemberView, ProjectRequest, ProjectView, STANDARD, ServiceLevel,
};
pub use quota::{QuotaUse, QuotaView};
pub use reconcile::Converged;
pub use secrets::PasswordCost;
pub use span::MAX_PARTS;
