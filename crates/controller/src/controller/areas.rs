//! The API's areas (`prism_controller_api::areas`) as the controller
//! serves them: each call is the application's function of the same name
//! (`crate::app`) over this controller's context.

use super::Controller;
use crate::app::authz::Principal;
use crate::app::{
    accounting, audit, bookings, client_certs, heartbeat, identity, images, live, nodes, observe,
    projects, public, quota, registry, release, shared_vlans, storage,
};
use crate::error::{Error, Result};
use prism_controller_api::areas::{
    CallerId, Gate, IdentityApi, ImagesApi, LeasesApi, NodeCaller, NodeRefused, NodesApi,
    ProjectsApi, PublicApi, RegistryApi, SharedVlansApi, StorageApi,
};
use prism_controller_api::{
    Action, ApiKeyRequest, ApiKeyView, AuditEntry, AuditQuery, Booking, BookingChange,
    BookingChangeView, BookingCounters, BookingRequest, CaptureRequest, ControllerCertView,
    Heartbeat, HeartbeatAnswer, ListQuery, LoginRequest, MemberRequest, MemberView, NodeHardware,
    NodeKeyRequest, NodeKeyView, NodeRequest, NodeView, Page, ProjectRequest, ProjectView,
    PublicAddress, PublicAddressRequest, QuotaView, Renewed, ResourceType, ServiceLevel,
    SharedVlanView, TokenView, TraceRequest, UsageReport, UserRequest, UserView, VlanMember,
    WhoAmI,
};
use prism_controller_api::{PresignRequest, PresignedUrl, StorageKeyView, StorageView};
use prism_node_api::{NodeEvent, TapAnswer};
use std::net::IpAddr;

impl CallerId for Principal {
    fn credential_id(&self) -> &str {
        &self.credential_id
    }

    fn user(&self) -> &str {
        &self.user
    }

    fn is_admin(&self) -> bool {
        self.is_admin
    }
}

impl Gate for Controller {
    type Caller = Principal;

    fn rate(&self) -> (f64, f64) {
        (self.cx.settings.rate_per_s, self.cx.settings.rate_burst)
    }

    fn now_ms(&self) -> i64 {
        self.cx.now_ms()
    }

    async fn authenticate_in(
        &self,
        bearer: Option<&str>,
        project: Option<&str>,
    ) -> std::result::Result<Principal, Error> {
        identity::authenticate_in(&self.cx, bearer, project).await
    }

    async fn node_key(&self, bearer: &str) -> std::result::Result<NodeCaller, NodeRefused> {
        heartbeat::node_key(&self.cx, bearer).await
    }

    async fn audit_noted(
        &self,
        who: Option<&str>,
        method: &str,
        path: &str,
        status: u16,
        note: Option<String>,
    ) {
        audit::audit_noted(&self.cx, who, method, path, status, note).await
    }
}

impl IdentityApi for Controller {
    async fn login_from(&self, r: LoginRequest, source: Option<IpAddr>) -> Result<TokenView> {
        identity::login_from(&self.cx, r, source).await
    }
    async fn logout(&self, p: &Principal) -> Result<()> {
        identity::logout(&self.cx, p).await
    }
    async fn whoami(&self, p: &Principal) -> Result<WhoAmI> {
        identity::whoami(&self.cx, p).await
    }
    async fn list_users(&self, p: &Principal) -> Result<Vec<UserView>> {
        identity::list_users(&self.cx, p).await
    }
    async fn create_user(&self, p: &Principal, r: UserRequest) -> Result<UserView> {
        identity::create_user(&self.cx, p, r).await
    }
    async fn list_api_keys(&self, p: &Principal, project: &str) -> Result<Vec<ApiKeyView>> {
        identity::list_api_keys(&self.cx, p, project).await
    }
    async fn create_api_key(
        &self,
        p: &Principal,
        project: &str,
        r: ApiKeyRequest,
    ) -> Result<ApiKeyView> {
        identity::create_api_key(&self.cx, p, project, r).await
    }
    async fn revoke_api_key(&self, p: &Principal, project: &str, id: &str) -> Result<()> {
        identity::revoke_api_key(&self.cx, p, project, id).await
    }
    async fn list_ssh_keys(&self, p: &Principal) -> Result<Vec<prism_controller_api::SshKeyView>> {
        crate::app::ssh_keys::list_ssh_keys(&self.cx, p).await
    }
    async fn add_ssh_key(
        &self,
        p: &Principal,
        r: prism_controller_api::SshKeyRequest,
    ) -> Result<prism_controller_api::SshKeyView> {
        crate::app::ssh_keys::add_ssh_key(&self.cx, p, r).await
    }
    async fn remove_ssh_key(&self, p: &Principal, id: &str) -> Result<()> {
        crate::app::ssh_keys::remove_ssh_key(&self.cx, p, id).await
    }
}

impl ProjectsApi for Controller {
    async fn list_service_levels(&self, p: &Principal) -> Result<Vec<ServiceLevel>> {
        projects::list_service_levels(&self.cx, p).await
    }
    async fn put_service_level(&self, p: &Principal, l: ServiceLevel) -> Result<ServiceLevel> {
        projects::put_service_level(&self.cx, p, l).await
    }
    async fn list_projects(&self, p: &Principal) -> Result<Vec<ProjectView>> {
        projects::list_projects(&self.cx, p).await
    }
    async fn create_project(&self, p: &Principal, r: ProjectRequest) -> Result<ProjectView> {
        projects::create_project(&self.cx, p, r).await
    }
    async fn get_project(&self, p: &Principal, project: &str) -> Result<ProjectView> {
        projects::get_project(&self.cx, p, project).await
    }
    async fn list_members(&self, p: &Principal, project: &str) -> Result<Vec<MemberView>> {
        projects::list_members(&self.cx, p, project).await
    }
    async fn set_member(
        &self,
        p: &Principal,
        project: &str,
        user: &str,
        r: MemberRequest,
    ) -> Result<MemberView> {
        projects::set_member(&self.cx, p, project, user, r).await
    }
    async fn remove_member(&self, p: &Principal, project: &str, user: &str) -> Result<()> {
        projects::remove_member(&self.cx, p, project, user).await
    }
}

impl LeasesApi for Controller {
    async fn find_bookings(
        &self,
        p: &Principal,
        project: &str,
        q: &ListQuery,
    ) -> Result<Page<Booking>> {
        bookings::find_bookings(&self.cx, p, project, q).await
    }
    async fn allocate(&self, p: &Principal, project: &str, r: BookingRequest) -> Result<Booking> {
        bookings::allocate(&self.cx, p, project, r).await
    }
    async fn get_booking(&self, p: &Principal, project: &str, id: &str) -> Result<Booking> {
        bookings::get_booking(&self.cx, p, project, id).await
    }
    async fn provision(&self, p: &Principal, project: &str, id: &str) -> Result<Booking> {
        bookings::provision(&self.cx, p, project, id).await
    }
    async fn renew(&self, p: &Principal, project: &str, id: &str, lease_s: i64) -> Result<Renewed> {
        bookings::renew(&self.cx, p, project, id, lease_s).await
    }
    async fn act(&self, p: &Principal, project: &str, id: &str, action: Action) -> Result<Booking> {
        bookings::act(&self.cx, p, project, id, action).await
    }
    async fn release(&self, p: &Principal, project: &str, id: &str) -> Result<Booking> {
        release::release(&self.cx, p, project, id).await
    }
    async fn edit_booking(
        &self,
        p: &Principal,
        project: &str,
        id: &str,
        c: BookingChange,
    ) -> Result<crate::model::BookingChanged> {
        bookings::edit_booking(&self.cx, p, project, id, c).await
    }
    async fn booking_changes(
        &self,
        p: &Principal,
        project: &str,
        id: &str,
    ) -> Result<Vec<BookingChangeView>> {
        bookings::booking_changes(&self.cx, p, project, id).await
    }
    async fn booking_counters(
        &self,
        p: &Principal,
        project: &str,
        id: &str,
    ) -> Result<BookingCounters> {
        live::booking_counters(&self.cx, p, project, id).await
    }
    async fn read_map(
        &self,
        p: &Principal,
        project: &str,
        id: &str,
        map: &str,
    ) -> Result<prism_node_api::MapView> {
        crate::app::programs::read_map(&self.cx, p, project, id, map).await
    }
    async fn write_map(
        &self,
        p: &Principal,
        at: (&str, &str, &str),
        w: prism_node_api::MapWrite,
    ) -> Result<prism_node_api::MapView> {
        crate::app::programs::write_map(&self.cx, p, at, w).await
    }
    async fn trace_booking(
        &self,
        p: &Principal,
        project: &str,
        id: &str,
        r: TraceRequest,
    ) -> Result<TapAnswer> {
        observe::trace_booking(&self.cx, p, project, id, r).await
    }
    async fn capture_booking(
        &self,
        p: &Principal,
        project: &str,
        id: &str,
        r: CaptureRequest,
    ) -> Result<(String, Vec<u8>)> {
        observe::capture_booking(&self.cx, p, project, id, r).await
    }
    async fn quota(&self, p: &Principal, project: &str) -> Result<QuotaView> {
        quota::quota(&self.cx, p, project).await
    }
    async fn usage(
        &self,
        p: &Principal,
        project: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<UsageReport> {
        accounting::usage(&self.cx, p, project, from_ms, to_ms).await
    }
    async fn list_audit(&self, p: &Principal, q: &AuditQuery) -> Result<Page<AuditEntry>> {
        accounting::list_audit(&self.cx, p, q).await
    }
}

impl PublicApi for Controller {
    async fn renew_public(
        &self,
        p: &Principal,
        project: &str,
        address: &str,
        lease_s: i64,
    ) -> Result<Renewed> {
        public::renew_public(&self.cx, p, project, address, lease_s).await
    }
    async fn list_public(
        &self,
        p: &Principal,
        project: &str,
        all: bool,
    ) -> Result<Vec<PublicAddress>> {
        public::list_public(&self.cx, p, project, all).await
    }
    async fn lease_public(
        &self,
        p: &Principal,
        project: &str,
        r: PublicAddressRequest,
    ) -> Result<PublicAddress> {
        public::lease_public(&self.cx, p, project, r).await
    }
    async fn release_public(
        &self,
        p: &Principal,
        project: &str,
        address: &str,
    ) -> Result<PublicAddress> {
        public::release_public(&self.cx, p, project, address).await
    }
}

impl NodesApi for Controller {
    async fn list_nodes(&self, p: &Principal) -> Result<Vec<NodeView>> {
        nodes::list_nodes(&self.cx, p).await
    }
    async fn register_node(&self, p: &Principal, r: NodeRequest) -> Result<NodeView> {
        nodes::register_node(&self.cx, p, r).await
    }
    async fn node_hardware(&self, p: &Principal, name: &str) -> Result<NodeHardware> {
        observe::node_hardware(&self.cx, p, name).await
    }
    async fn node_events(&self, p: &Principal, name: &str, since: u64) -> Result<Vec<NodeEvent>> {
        observe::node_events(&self.cx, p, name, since).await
    }
    async fn heartbeat(&self, node: &NodeCaller, h: Heartbeat) -> Result<HeartbeatAnswer> {
        heartbeat::heartbeat(&self.cx, node, h).await
    }
    async fn list_node_keys(&self, p: &Principal) -> Result<Vec<NodeKeyView>> {
        heartbeat::list_node_keys(&self.cx, p).await
    }
    async fn create_node_key(&self, p: &Principal, r: NodeKeyRequest) -> Result<NodeKeyView> {
        heartbeat::create_node_key(&self.cx, p, r).await
    }
    async fn revoke_node_key(&self, p: &Principal, id: &str) -> Result<()> {
        heartbeat::revoke_node_key(&self.cx, p, id).await
    }
    async fn list_controller_certificates(&self, p: &Principal) -> Result<Vec<ControllerCertView>> {
        client_certs::list_controller_certificates(&self.cx, p).await
    }
    async fn revoke_controller_certificate(&self, p: &Principal, serial: &str) -> Result<()> {
        client_certs::revoke_controller_certificate(&self.cx, p, serial).await
    }
}

impl RegistryApi for Controller {
    async fn list_resource_types(&self, p: &Principal) -> Result<Vec<ResourceType>> {
        registry::list_resource_types(&self.cx, p).await
    }
    async fn register_resource_type(&self, p: &Principal, t: ResourceType) -> Result<ResourceType> {
        registry::register_resource_type(&self.cx, p, t).await
    }
}

impl SharedVlansApi for Controller {
    async fn list_vlan_members(
        &self,
        p: &Principal,
        project: &str,
        id: &str,
    ) -> Result<Vec<VlanMember>> {
        shared_vlans::list_members(&self.cx, p, project, id).await
    }
    async fn invite_to_vlan(
        &self,
        p: &Principal,
        project: &str,
        id: &str,
        member: &str,
    ) -> Result<VlanMember> {
        shared_vlans::invite(&self.cx, p, project, id, member).await
    }
    async fn revoke_from_vlan(
        &self,
        p: &Principal,
        project: &str,
        id: &str,
        member: &str,
    ) -> Result<()> {
        shared_vlans::revoke(&self.cx, p, project, id, member).await
    }
    async fn list_shared_vlans(&self, p: &Principal, project: &str) -> Result<Vec<SharedVlanView>> {
        shared_vlans::invited_to(&self.cx, p, project).await
    }
    async fn leave_shared_vlan(&self, p: &Principal, project: &str, id: &str) -> Result<()> {
        shared_vlans::leave(&self.cx, p, project, id).await
    }
}

impl StorageApi for Controller {
    async fn storage(&self, p: &Principal, project: &str) -> Result<StorageView> {
        storage::info(&self.cx, p, project).await
    }
    async fn list_storage_keys(&self, p: &Principal, project: &str) -> Result<Vec<StorageKeyView>> {
        storage::list_keys(&self.cx, p, project).await
    }
    async fn create_storage_key(&self, p: &Principal, project: &str) -> Result<StorageKeyView> {
        storage::create_key(&self.cx, p, project).await
    }
    async fn revoke_storage_key(&self, p: &Principal, project: &str, id: &str) -> Result<()> {
        storage::revoke_key(&self.cx, p, project, id).await
    }
    async fn presign(
        &self,
        p: &Principal,
        project: &str,
        r: PresignRequest,
    ) -> Result<PresignedUrl> {
        storage::presign(&self.cx, p, project, r).await
    }
    async fn share_storage(&self, p: &Principal, project: &str, with: &str) -> Result<()> {
        storage::share(&self.cx, p, project, with).await
    }
    async fn unshare_storage(&self, p: &Principal, project: &str, with: &str) -> Result<()> {
        storage::unshare(&self.cx, p, project, with).await
    }
}

impl ImagesApi for Controller {
    async fn save_image(
        &self,
        p: &Principal,
        project: &str,
        r: prism_controller_api::SaveImageRequest,
    ) -> Result<prism_controller_api::ImageView> {
        images::save(&self.cx, p, project, r).await
    }
    async fn list_images(
        &self,
        p: &Principal,
        project: &str,
    ) -> Result<Vec<prism_controller_api::ImageView>> {
        images::list(&self.cx, p, project).await
    }
    async fn delete_image(&self, p: &Principal, project: &str, name: &str) -> Result<()> {
        images::delete(&self.cx, p, project, name).await
    }
    async fn share_image(
        &self,
        p: &Principal,
        project: &str,
        name: &str,
        with: &str,
    ) -> Result<()> {
        images::share(&self.cx, p, project, name, with).await
    }
    async fn unshare_image(
        &self,
        p: &Principal,
        project: &str,
        name: &str,
        with: &str,
    ) -> Result<()> {
        images::unshare(&self.cx, p, project, name, with).await
    }
}
