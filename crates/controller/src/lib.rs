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
//! finishes), `app::desired` (nodes converge), `api` (REST over axum,
//! OpenAPI), `transport` (TLS or plain HTTP, the lab CA).

pub mod api;
pub mod app;
mod controller;
mod datastore;
mod error;
pub mod infra;
mod model;

pub use app::accounting::{AuditEntry, AuditQuery, UsageLine, UsageReport};
pub use app::authz::{Operation, Principal};
pub use app::bookings::VLAN_POOL;
pub use app::desired::Converged;
pub use app::gateway::{PublicAddress, PublicAddressRequest};
pub use app::heartbeat::{
    HEARTBEAT_EVERY_MS, Heartbeat, HeartbeatAnswer, NodeCaller, NodeKeyRequest, NodeKeyView,
};
pub use app::identity::{
    ApiKeyRequest, ApiKeyView, LoginRequest, TokenView, UserRequest, UserView, WhoAmI,
};
pub use app::login_guard::{
    FREE_FAILURES as LOGIN_FREE_FAILURES, MAX_BLOCK_MS as LOGIN_MAX_BLOCK_MS,
};
pub use app::nodes::{NodeRequest, NodeView};
pub use app::projects::{
    MemberRequest, MemberView, ProjectRequest, ProjectView, STANDARD, ServiceLevel,
};
pub use app::quota::{QuotaUse, QuotaView};
pub use app::span::MAX_PARTS;
pub use controller::{Controller, DB_CONNECTIONS, POOL_HOLD_DOWN_MS, Settings, TUNNEL_POOL};
pub use error::{Error, ErrorCode, QuotaDetail};
pub use infra::clock::{Clock, ManualClock, SystemClock};
pub use infra::db::{Engine, redact, url_for};
pub use infra::secrets::PasswordCost;
pub use model::{
    Action, ActionRequest, AllocationState, Booking, BookingRequest, GenericOp, ListQuery,
    NODE_PREFIX, OperationalState, Page, PartRequest, PartView, RenewRequest, Renewed,
    ResourceType, Role, node_network_name,
};
pub use prism_controller_api::{
    CaptureRequest, ClientError, ControllerClient, NodeHardware, SlotView, TraceRequest, session,
};
