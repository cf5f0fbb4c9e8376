//! The client's calls: shared VLANs' invitations.

use super::*;
use crate::{SharedVlanView, VlanMember};

impl ControllerClient {
    fn members_path(project: &str, id: &str) -> String {
        format!("/v1/projects/{}/bookings/{}/members", seg(project), seg(id))
    }
    /// The projects invited to shared VLAN `id`.
    pub async fn vlan_members(
        &self,
        project: &str,
        id: &str,
    ) -> Result<Vec<VlanMember>, ClientError> {
        self.call("GET", Self::members_path(project, id), None::<&()>)
            .await
    }
    /// Invites project `member` to shared VLAN `id`.
    pub async fn invite_to_vlan(
        &self,
        project: &str,
        id: &str,
        member: &str,
    ) -> Result<VlanMember, ClientError> {
        let path = format!("{}/{}", Self::members_path(project, id), seg(member));
        self.call("PUT", path, None::<&()>).await
    }
    /// Revokes project `member`'s invitation to shared VLAN `id`.
    pub async fn revoke_from_vlan(
        &self,
        project: &str,
        id: &str,
        member: &str,
    ) -> Result<(), ClientError> {
        let path = format!("{}/{}", Self::members_path(project, id), seg(member));
        self.call("DELETE", path, None::<&()>).await
    }
    /// The shared VLANs `project` is invited to.
    pub async fn shared_vlans(&self, project: &str) -> Result<Vec<SharedVlanView>, ClientError> {
        let path = format!("/v1/projects/{}/shared-vlans", seg(project));
        self.call("GET", path, None::<&()>).await
    }
    /// `project` leaves shared VLAN `id`.
    pub async fn leave_shared_vlan(&self, project: &str, id: &str) -> Result<(), ClientError> {
        let path = format!("/v1/projects/{}/shared-vlans/{}", seg(project), seg(id));
        self.call("DELETE", path, None::<&()>).await
    }
}
