//! The bodies of Prism's controller API, its typed client and the CLI's
//! saved session: what a client of the controller links (`prism ctl`, the
//! tests, a program of its own) without the server, its database or its
//! password hashing. The server (`prism-controller`) turns on `server`
//! for the error body's HTTP side.
//!
//! The OpenAPI document generated from these types is
//! `docs/api/controller.json` (drift-tested by the controller); the
//! Python SDK is generated from it.

pub mod accounting;
pub mod areas;
pub mod bookings;
pub mod changes;
pub mod client;
pub mod error;
pub mod gateway;
pub mod heartbeat;
pub mod identity;
pub mod images;
pub mod node_keys;
pub mod nodes;
pub mod observe;
pub mod operation;
pub mod processing;
pub mod projects;
pub mod quota;
pub mod session;
pub mod shared_vlans;
pub mod ssh;
pub mod storage;

pub use accounting::{AuditEntry, AuditQuery, UsageLine, UsageReport};
pub use areas::{
    CallerId, ControllerApi, Gate, IdentityApi, ImagesApi, LeasesApi, NodeCaller, NodeRefused,
    NodesApi, ProjectsApi, PublicApi, RegistryApi,
};
pub use bookings::{
    Action, ActionRequest, AllocationState, Booking, BookingCounters, BookingRequest, GenericOp,
    ListQuery, OperationalState, Page, PartRequest, PartView, RenewRequest, Renewed, ResourceType,
    Role,
};
pub use changes::{BookingChange, BookingChangeView, BookingChanged, CHANGEABLE_SPEC, EditFlags};
pub use client::{AddressError, ClientError, ControllerClient};
pub use error::{Error, ErrorCode, QuotaDetail};
pub use gateway::{PublicAddress, PublicAddressRequest};
pub use heartbeat::{HEARTBEAT_EVERY_MS, Heartbeat, HeartbeatAnswer, NodeCertificate};
pub use identity::{
    ApiKeyRequest, ApiKeyView, LoginRequest, SshKeyRequest, SshKeyView, TokenView, UserRequest,
    UserView, WhoAmI,
};
pub use images::{BLOB_PREFIX, ImageView, SaveImageRequest};
pub use node_keys::{ControllerCertView, NodeKeyRequest, NodeKeyView};
pub use nodes::{NodeRequest, NodeView};
pub use observe::{CaptureRequest, NodeHardware, SlotView, TraceRequest};
pub use operation::Operation;
pub use processing::{Attachment, BookFlags, PROCESSING, ProcessingSpec};
pub use projects::{
    MemberRequest, MemberView, ProjectRequest, ProjectView, STANDARD, ServiceLevel,
};
pub use quota::{QuotaUse, QuotaView};
pub use shared_vlans::{SHARED_VLAN, SharedVlanSpec, SharedVlanView, VlanMember};
pub use storage::{PresignRequest, PresignedUrl, StorageKeyView, StorageView, UrlMethod};
