//! The API's areas as traits: what each group of the controller's REST
//! calls does, apart from HTTP. The server's handlers (`prism_controller::api`)
//! call them; the controller implements them over its database, and the
//! test kit's fake controller (`prism_testkit::fake_controller`) in memory,
//! so the handlers can be served and tested over either.
//!
//! Every call is made as an authenticated caller (`Gate::Caller`), whose
//! type is the implementation's own: the controller's carries what it read
//! with the credential.

use crate::accounting::{AuditEntry, AuditQuery, UsageReport};
use crate::bookings::{
    Action, Booking, BookingCounters, BookingRequest, ListQuery, Page, Renewed, ResourceType,
};
use crate::error::Error;
use crate::gateway::{PublicAddress, PublicAddressRequest};
use crate::heartbeat::{Heartbeat, HeartbeatAnswer};
use crate::identity::{
    ApiKeyRequest, ApiKeyView, LoginRequest, SshKeyRequest, SshKeyView, TokenView, UserRequest,
    UserView, WhoAmI,
};
use crate::node_keys::{ControllerCertView, NodeKeyRequest, NodeKeyView};
use crate::nodes::{NodeRequest, NodeView};
use crate::observe::{CaptureRequest, NodeHardware, TraceRequest};
use crate::projects::{MemberRequest, MemberView, ProjectRequest, ProjectView, ServiceLevel};
use crate::quota::QuotaView;
use prism_node_api::{NodeEvent, TapAnswer};
use std::future::Future;

mod resources;
pub use resources::{ImagesApi, SharedVlansApi, StorageApi};
use std::net::IpAddr;

/// What an area's call answers: its body, or the API's error.
pub type Answer<T> = std::result::Result<T, Error>;

/// What the API's middleware reads of an authenticated caller.
pub trait CallerId {
    /// The credential's id: requests are rate-limited per credential.
    fn credential_id(&self) -> &str;
    /// The user's name, as the audit log writes it.
    fn user(&self) -> &str;
    /// Whether the caller is an administrator (the portal shows its pages).
    fn is_admin(&self) -> bool;
}

/// A node authenticated by its key (heartbeats only).
#[derive(Debug, Clone)]
pub struct NodeCaller {
    pub key_id: String,
    pub node: String,
}

/// A node key refused: why, and the node it was for if it is known.
#[derive(Debug)]
pub struct NodeRefused {
    pub error: Error,
    pub node: Option<String>,
}

/// Who is calling, and what every request is: authentication, rate and
/// the audit log.
pub trait Gate: Clone + Send + Sync + 'static {
    type Caller: CallerId + Clone + Send + Sync + 'static;

    /// Requests per second per credential before 429, and the burst.
    fn rate(&self) -> (f64, f64);

    /// Now, in Unix ms, on the implementation's clock.
    fn now_ms(&self) -> i64;

    /// The caller a bearer credential (or the portal's session) stands
    /// for; `project`, the one the request's path names, may be read with
    /// it.
    fn authenticate_in(
        &self,
        bearer: Option<&str>,
        project: Option<&str>,
    ) -> impl Future<Output = Answer<Self::Caller>> + Send;

    /// The node a node key stands for.
    fn node_key(
        &self,
        bearer: &str,
    ) -> impl Future<Output = std::result::Result<NodeCaller, NodeRefused>> + Send;

    /// Writes an entry of the audit log (a refusal, or a change whose
    /// handler did not write its own).
    fn audit_noted(
        &self,
        who: Option<&str>,
        method: &str,
        path: &str,
        status: u16,
        note: Option<String>,
    ) -> impl Future<Output = ()> + Send;
}

/// Users, logins and API keys.
pub trait IdentityApi: Gate {
    fn login_from(
        &self,
        r: LoginRequest,
        source: Option<IpAddr>,
    ) -> impl Future<Output = Answer<TokenView>> + Send;
    fn logout(&self, p: &Self::Caller) -> impl Future<Output = Answer<()>> + Send;
    fn whoami(&self, p: &Self::Caller) -> impl Future<Output = Answer<WhoAmI>> + Send;
    fn list_users(&self, p: &Self::Caller) -> impl Future<Output = Answer<Vec<UserView>>> + Send;
    fn create_user(
        &self,
        p: &Self::Caller,
        r: UserRequest,
    ) -> impl Future<Output = Answer<UserView>> + Send;
    fn list_api_keys(
        &self,
        p: &Self::Caller,
        project: &str,
    ) -> impl Future<Output = Answer<Vec<ApiKeyView>>> + Send;
    fn create_api_key(
        &self,
        p: &Self::Caller,
        project: &str,
        r: ApiKeyRequest,
    ) -> impl Future<Output = Answer<ApiKeyView>> + Send;
    fn revoke_api_key(
        &self,
        p: &Self::Caller,
        project: &str,
        id: &str,
    ) -> impl Future<Output = Answer<()>> + Send;
    /// The caller's ssh keys (their processing nodes accept them).
    fn list_ssh_keys(
        &self,
        p: &Self::Caller,
    ) -> impl Future<Output = Answer<Vec<SshKeyView>>> + Send;
    fn add_ssh_key(
        &self,
        p: &Self::Caller,
        r: SshKeyRequest,
    ) -> impl Future<Output = Answer<SshKeyView>> + Send;
    fn remove_ssh_key(&self, p: &Self::Caller, id: &str)
    -> impl Future<Output = Answer<()>> + Send;
}

/// Service levels, projects and their members.
pub trait ProjectsApi: Gate {
    fn list_service_levels(
        &self,
        p: &Self::Caller,
    ) -> impl Future<Output = Answer<Vec<ServiceLevel>>> + Send;
    fn put_service_level(
        &self,
        p: &Self::Caller,
        l: ServiceLevel,
    ) -> impl Future<Output = Answer<ServiceLevel>> + Send;
    fn list_projects(
        &self,
        p: &Self::Caller,
    ) -> impl Future<Output = Answer<Vec<ProjectView>>> + Send;
    fn create_project(
        &self,
        p: &Self::Caller,
        r: ProjectRequest,
    ) -> impl Future<Output = Answer<ProjectView>> + Send;
    fn get_project(
        &self,
        p: &Self::Caller,
        project: &str,
    ) -> impl Future<Output = Answer<ProjectView>> + Send;
    fn list_members(
        &self,
        p: &Self::Caller,
        project: &str,
    ) -> impl Future<Output = Answer<Vec<MemberView>>> + Send;
    fn set_member(
        &self,
        p: &Self::Caller,
        project: &str,
        user: &str,
        r: MemberRequest,
    ) -> impl Future<Output = Answer<MemberView>> + Send;
    fn remove_member(
        &self,
        p: &Self::Caller,
        project: &str,
        user: &str,
    ) -> impl Future<Output = Answer<()>> + Send;
}

/// Bookings (leases), their observation, quotas, usage and the audit log.
pub trait LeasesApi: Gate {
    fn find_bookings(
        &self,
        p: &Self::Caller,
        project: &str,
        q: &ListQuery,
    ) -> impl Future<Output = Answer<Page<Booking>>> + Send;
    fn allocate(
        &self,
        p: &Self::Caller,
        project: &str,
        r: BookingRequest,
    ) -> impl Future<Output = Answer<Booking>> + Send;
    fn get_booking(
        &self,
        p: &Self::Caller,
        project: &str,
        id: &str,
    ) -> impl Future<Output = Answer<Booking>> + Send;
    fn provision(
        &self,
        p: &Self::Caller,
        project: &str,
        id: &str,
    ) -> impl Future<Output = Answer<Booking>> + Send;
    fn renew(
        &self,
        p: &Self::Caller,
        project: &str,
        id: &str,
        lease_s: i64,
    ) -> impl Future<Output = Answer<Renewed>> + Send;
    fn act(
        &self,
        p: &Self::Caller,
        project: &str,
        id: &str,
        action: Action,
    ) -> impl Future<Output = Answer<Booking>> + Send;
    fn release(
        &self,
        p: &Self::Caller,
        project: &str,
        id: &str,
    ) -> impl Future<Output = Answer<Booking>> + Send;
    /// A change to a live booking (`PATCH`): checked whole, one
    /// generation, audited, in its history.
    fn edit_booking(
        &self,
        p: &Self::Caller,
        project: &str,
        id: &str,
        change: crate::BookingChange,
    ) -> impl Future<Output = Answer<crate::BookingChanged>> + Send;
    /// A booking's accepted changes, oldest first.
    fn booking_changes(
        &self,
        p: &Self::Caller,
        project: &str,
        id: &str,
    ) -> impl Future<Output = Answer<Vec<crate::BookingChangeView>>> + Send;
    fn booking_counters(
        &self,
        p: &Self::Caller,
        project: &str,
        id: &str,
    ) -> impl Future<Output = Answer<BookingCounters>> + Send;
    /// A map of the booking's program, read from its node.
    fn read_map(
        &self,
        p: &Self::Caller,
        project: &str,
        id: &str,
        map: &str,
    ) -> impl Future<Output = Answer<prism_node_api::MapView>> + Send;
    /// Sets or deletes one entry of a map of the booking's program.
    fn write_map(
        &self,
        p: &Self::Caller,
        at: (&str, &str, &str),
        w: prism_node_api::MapWrite,
    ) -> impl Future<Output = Answer<prism_node_api::MapView>> + Send;
    fn trace_booking(
        &self,
        p: &Self::Caller,
        project: &str,
        id: &str,
        r: TraceRequest,
    ) -> impl Future<Output = Answer<TapAnswer>> + Send;
    /// The capture's file name and its pcapng bytes.
    fn capture_booking(
        &self,
        p: &Self::Caller,
        project: &str,
        id: &str,
        r: CaptureRequest,
    ) -> impl Future<Output = Answer<(String, Vec<u8>)>> + Send;
    fn quota(
        &self,
        p: &Self::Caller,
        project: &str,
    ) -> impl Future<Output = Answer<QuotaView>> + Send;
    fn usage(
        &self,
        p: &Self::Caller,
        project: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> impl Future<Output = Answer<UsageReport>> + Send;
    fn list_audit(
        &self,
        p: &Self::Caller,
        q: &AuditQuery,
    ) -> impl Future<Output = Answer<Page<AuditEntry>>> + Send;
}

/// The gateway's public addresses.
pub trait PublicApi: Gate {
    fn list_public(
        &self,
        p: &Self::Caller,
        project: &str,
        all: bool,
    ) -> impl Future<Output = Answer<Vec<PublicAddress>>> + Send;
    fn lease_public(
        &self,
        p: &Self::Caller,
        project: &str,
        r: PublicAddressRequest,
    ) -> impl Future<Output = Answer<PublicAddress>> + Send;
    fn renew_public(
        &self,
        p: &Self::Caller,
        project: &str,
        address: &str,
        lease_s: i64,
    ) -> impl Future<Output = Answer<Renewed>> + Send;
    fn release_public(
        &self,
        p: &Self::Caller,
        project: &str,
        address: &str,
    ) -> impl Future<Output = Answer<PublicAddress>> + Send;
}

/// Nodes: registered by an operator or by their own heartbeats, their
/// keys, and the controller's certificates they trust.
pub trait NodesApi: Gate {
    fn list_nodes(&self, p: &Self::Caller) -> impl Future<Output = Answer<Vec<NodeView>>> + Send;
    fn register_node(
        &self,
        p: &Self::Caller,
        r: NodeRequest,
    ) -> impl Future<Output = Answer<NodeView>> + Send;
    fn node_hardware(
        &self,
        p: &Self::Caller,
        name: &str,
    ) -> impl Future<Output = Answer<NodeHardware>> + Send;
    fn node_events(
        &self,
        p: &Self::Caller,
        name: &str,
        since: u64,
    ) -> impl Future<Output = Answer<Vec<NodeEvent>>> + Send;
    fn heartbeat(
        &self,
        node: &NodeCaller,
        h: Heartbeat,
    ) -> impl Future<Output = Answer<HeartbeatAnswer>> + Send;
    fn list_node_keys(
        &self,
        p: &Self::Caller,
    ) -> impl Future<Output = Answer<Vec<NodeKeyView>>> + Send;
    fn create_node_key(
        &self,
        p: &Self::Caller,
        r: NodeKeyRequest,
    ) -> impl Future<Output = Answer<NodeKeyView>> + Send;
    fn revoke_node_key(
        &self,
        p: &Self::Caller,
        id: &str,
    ) -> impl Future<Output = Answer<()>> + Send;
    fn list_controller_certificates(
        &self,
        p: &Self::Caller,
    ) -> impl Future<Output = Answer<Vec<ControllerCertView>>> + Send;
    fn revoke_controller_certificate(
        &self,
        p: &Self::Caller,
        serial: &str,
    ) -> impl Future<Output = Answer<()>> + Send;
}

/// The registry of resource types.
pub trait RegistryApi: Gate {
    fn list_resource_types(
        &self,
        p: &Self::Caller,
    ) -> impl Future<Output = Answer<Vec<ResourceType>>> + Send;
    fn register_resource_type(
        &self,
        p: &Self::Caller,
        t: ResourceType,
    ) -> impl Future<Output = Answer<ResourceType>> + Send;
}

/// The whole API: what the server's router serves.
pub trait ControllerApi:
    IdentityApi
    + ProjectsApi
    + LeasesApi
    + PublicApi
    + NodesApi
    + RegistryApi
    + SharedVlansApi
    + StorageApi
    + ImagesApi
{
}

impl<T> ControllerApi for T where
    T: IdentityApi
        + ProjectsApi
        + LeasesApi
        + PublicApi
        + NodesApi
        + RegistryApi
        + SharedVlansApi
        + StorageApi
        + ImagesApi
{
}
