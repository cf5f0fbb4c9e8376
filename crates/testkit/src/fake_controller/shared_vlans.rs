//! The fake's shared VLANs: invitations kept in memory, nothing on a node.

use super::{FakeCaller, FakeController};
use prism_controller_api::areas::{Answer, SharedVlansApi};
use prism_controller_api::{Error, Operation, SHARED_VLAN, SharedVlanView, VlanMember};

impl SharedVlansApi for FakeController {
    async fn list_vlan_members(
        &self,
        p: &FakeCaller,
        project: &str,
        id: &str,
    ) -> Answer<Vec<VlanMember>> {
        let mut s = self.lock();
        s.project(p, project, Operation::BookingsRead)?;
        s.booking_mut(project, id)?;
        Ok(s.vlan_members.get(id).cloned().unwrap_or_default())
    }

    async fn invite_to_vlan(
        &self,
        p: &FakeCaller,
        project: &str,
        id: &str,
        member: &str,
    ) -> Answer<VlanMember> {
        let mut s = self.lock();
        s.project(p, project, Operation::BookingsCreate)?;
        if s.booking_mut(project, id)?.resource_type != SHARED_VLAN {
            return Err(Error::invalid("no shared VLAN").with_field("id"));
        }
        if !s.projects.contains_key(member) {
            return Err(Error::not_found(format!("project {member}")));
        }
        let m = VlanMember {
            project: member.into(),
            invited_by: p.user.clone(),
            invited_ms: s.now_ms,
        };
        let list = s.vlan_members.entry(id.into()).or_default();
        if !list.iter().any(|v| v.project == member) {
            list.push(m.clone());
        }
        Ok(m)
    }

    async fn revoke_from_vlan(
        &self,
        p: &FakeCaller,
        project: &str,
        id: &str,
        member: &str,
    ) -> Answer<()> {
        let mut s = self.lock();
        s.project(p, project, Operation::BookingsCreate)?;
        s.booking_mut(project, id)?;
        let list = s.vlan_members.entry(id.into()).or_default();
        let before = list.len();
        list.retain(|v| v.project != member);
        match list.len() < before {
            true => Ok(()),
            false => Err(Error::not_found(format!("project {member} on {id}"))),
        }
    }

    async fn list_shared_vlans(
        &self,
        p: &FakeCaller,
        project: &str,
    ) -> Answer<Vec<SharedVlanView>> {
        let s = self.lock();
        s.project(p, project, Operation::BookingsRead)?;
        let invited = |id: &String| {
            (s.vlan_members.get(id)).is_some_and(|l| l.iter().any(|v| v.project == project))
        };
        Ok((s.bookings.iter())
            .filter(|b| b.resource_type == SHARED_VLAN && invited(&b.id))
            .map(|b| SharedVlanView {
                id: b.id.clone(),
                name: b.name.clone(),
                owner: b.project.clone(),
                attach_as: format!("{}/{}", b.project, b.name),
                node: b.node.clone(),
                vlan: b.vlan,
                invited_ms: b.created_ms,
            })
            .collect())
    }

    async fn leave_shared_vlan(&self, p: &FakeCaller, project: &str, id: &str) -> Answer<()> {
        let mut s = self.lock();
        s.project(p, project, Operation::MembersManage)?;
        let list = s.vlan_members.entry(id.into()).or_default();
        let before = list.len();
        list.retain(|v| v.project != project);
        match list.len() < before {
            true => Ok(()),
            false => Err(Error::not_found(format!("shared VLAN {id}"))),
        }
    }
}
