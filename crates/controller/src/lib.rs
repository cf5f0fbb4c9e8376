//! Prism's control and management plane (paper 002, VANI): a controller
//! that alone holds the database (SQLite by default, PostgreSQL in
//! production), authenticates and authorizes every call, books virtual
//! networks on nodes as leases within quotas, accounts for them, and
//! drives the nodes through the typed node API until each converges to its
//! generation-numbered desired state.
//!
//! Layout (omicron's Nexus): `api` (REST over axum, OpenAPI, the portal:
//! handlers generic over the API's area traits), `app` (what each call
//! means: functions over a small `Context`, one module per resource),
//! `datastore` (the SQL), `infra` (the pool and migrations, the clock,
//! secrets, TLS, the work queues); `controller` (the `Controller`: the
//! database opened, the background work, and the area traits, each call
//! the application's function) and `model` at the root.

pub mod api;
pub mod app;
mod controller;
mod datastore;
mod error;
pub mod infra;
/// The API's area traits, for calling a `Controller` in process
/// (`use prism_controller::prelude::*`).
pub mod prelude {
    pub use prism_controller_api::areas::{
        Gate, IdentityApi, LeasesApi, NodesApi, ProjectsApi, PublicApi, RegistryApi,
    };
}
mod model;

pub use app::accounting::{AuditEntry, AuditQuery, UsageLine, UsageReport};
pub use app::authz::{Operation, Principal};
pub use app::bookings::VLAN_POOL;
pub use app::desired::Converged;
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
pub use app::public::{PublicAddress, PublicAddressRequest};
pub use app::quota::{QuotaUse, QuotaView};
pub use app::span::MAX_PARTS;
pub use controller::serve::{ServeOptions, StorageOptions, bootstrap, serve};
pub use controller::{
    Controller, DB_CONNECTIONS, POOL_HOLD_DOWN_MS, Settings, StorageSettings, TUNNEL_POOL,
};
pub use error::{Error, ErrorCode, QuotaDetail};
pub use infra::clock::{Clock, ManualClock, SystemClock};
pub use infra::db::{Engine, redact, url_for};
pub use infra::secrets::PasswordCost;
pub use model::{
    Action, ActionRequest, AllocationState, Booking, BookingRequest, GenericOp, ListQuery,
    NODE_PREFIX, OperationalState, Page, PartRequest, PartView, RenewRequest, Renewed,
    ResourceType, Role, node_network_name,
};
pub use prism_controller_api::areas::{
    CallerId, ControllerApi, Gate, IdentityApi, LeasesApi, NodesApi, ProjectsApi, PublicApi,
    RegistryApi,
};
pub use prism_controller_api::{Attachment, PROCESSING, ProcessingSpec, SshKeyRequest, SshKeyView};
pub use prism_controller_api::{BookingChange, BookingChangeView, BookingChanged};
pub use prism_controller_api::{
    CaptureRequest, ClientError, ControllerClient, NodeHardware, SlotView, TraceRequest, session,
};
pub use prism_controller_api::{
    PresignRequest, PresignedUrl, SHARED_VLAN, StorageKeyView, StorageView, UrlMethod,
};
