//! Projects (VANI's application plans), their members and roles, and
//! service levels (which operations a project may call and how much it may
//! book).

use crate::app::authz::{Membership, Operation, Principal};
use crate::app::identity::check_name;
use crate::controller::Controller;
use crate::datastore::projects as store;
use crate::error::{Error, Result};
use crate::infra::secrets;

pub use prism_controller_api::projects::{
    MemberRequest, MemberView, ProjectRequest, ProjectView, STANDARD, ServiceLevel,
};

/// A service level's figures checked: names, no negative quota, leases
/// from a minute to ten years.
fn check_level(l: &ServiceLevel) -> Result<()> {
    check_name("name", &l.name)?;
    for (f, v) in [
        ("max_hw_networks", l.max_hw_networks),
        ("max_sw_networks", l.max_sw_networks),
        ("max_bandwidth_mbps", l.max_bandwidth_mbps),
        ("max_lease_hours", l.max_lease_hours),
        ("max_public_addresses", l.max_public_addresses),
    ] {
        if v < 0 {
            return Err(Error::invalid("at least 0").with_field(f));
        }
    }
    if !(60..=crate::app::identity::MAX_KEY_TTL_S).contains(&l.max_lease_s) {
        return Err(Error::invalid("60 seconds to ten years").with_field("max_lease_s"));
    }
    if !(60..=l.max_lease_s).contains(&l.default_lease_s) {
        return Err(Error::invalid("60 seconds to max_lease_s").with_field("default_lease_s"));
    }
    Ok(())
}

impl Controller {
    /// Adds or replaces a service level (administrators).
    pub async fn put_service_level(&self, p: &Principal, l: ServiceLevel) -> Result<ServiceLevel> {
        p.require_admin()?;
        self.upsert_service_level(&l).await?;
        // What a project's credentials may call changed.
        self.auth_cache.clear();
        Ok(l)
    }

    /// The standard level, on a new database.
    pub(crate) async fn seed_service_levels(&self) -> Result<()> {
        if store::count_service_levels(&self.pool).await? == 0 {
            self.upsert_service_level(&ServiceLevel::standard()).await?;
        }
        Ok(())
    }

    pub(crate) async fn upsert_service_level(&self, l: &ServiceLevel) -> Result<()> {
        check_level(l)?;
        store::upsert_service_level(&self.pool, l, self.now_ms()).await
    }

    pub async fn list_service_levels(&self, _p: &Principal) -> Result<Vec<ServiceLevel>> {
        store::service_levels(&self.pool).await
    }

    pub async fn create_project(&self, p: &Principal, r: ProjectRequest) -> Result<ProjectView> {
        p.require_admin()?;
        check_name("name", &r.name)?;
        let owner = self
            .user_id(&r.owner)
            .await
            .map_err(|e| e.with_field("owner"))?;
        let v = ProjectView {
            id: secrets::new_id(),
            name: r.name,
            service_level: r.service_level,
            role: None,
            created_ms: self.now_ms(),
        };
        store::insert_project(&self.pool, &v, &owner).await?;
        Ok(v)
    }

    /// The projects the caller sees: their own, or all for an admin (a
    /// project-scoped caller: that one only).
    pub async fn list_projects(&self, p: &Principal) -> Result<Vec<ProjectView>> {
        let all = store::projects_with_role(&self.pool, &p.user_id).await?;
        Ok(all
            .into_iter()
            .filter(|v| p.project_id.as_deref().is_none_or(|s| s == v.id))
            .filter(|v| p.is_admin || v.role.is_some())
            .collect())
    }

    /// What `user_id` is in project `name`, if it exists.
    pub(crate) async fn membership_of(&self, user_id: &str, name: &str) -> Result<Option<String>> {
        store::member_project_id(&self.pool, user_id, name).await
    }

    /// The project `name` as the caller sees it, checked for `op`: 404 if
    /// it does not exist or the caller may not see it, 403 if they may see
    /// it but not call `op`.
    pub async fn project_for(
        &self,
        p: &Principal,
        name: &str,
        op: Operation,
    ) -> Result<Membership> {
        Ok(self.project_level_for(p, name, op).await?.0)
    }

    /// As [`Self::project_for`], with the project's service level (one query).
    pub(crate) async fn project_level_for(
        &self,
        p: &Principal,
        name: &str,
        op: Operation,
    ) -> Result<(Membership, ServiceLevel)> {
        let found = match p.seen(name) {
            Some(found) => found.clone(),
            None => store::project_and_level(&self.pool, name, &p.user_id).await?,
        };
        if !p.sees(found.as_ref().map(|f| &f.0)) {
            return Err(Error::not_found(format!("project `{name}`")));
        }
        let (m, level) = found.ok_or_else(|| Error::not_found(format!("project `{name}`")))?;
        p.may(&m, op)?;
        Ok((m, level))
    }

    pub async fn get_project(&self, p: &Principal, name: &str) -> Result<ProjectView> {
        let m = self.project_for(p, name, Operation::BookingsRead).await?;
        let (service_level, created_ms) =
            store::project_level_and_created(&self.pool, &m.project_id).await?;
        Ok(ProjectView {
            id: m.project_id,
            name: m.project,
            service_level,
            created_ms,
            role: m.role,
        })
    }

    pub async fn list_members(&self, p: &Principal, project: &str) -> Result<Vec<MemberView>> {
        let m = self
            .project_for(p, project, Operation::BookingsRead)
            .await?;
        store::members(&self.pool, &m.project_id).await
    }

    pub async fn set_member(
        &self,
        p: &Principal,
        project: &str,
        user: &str,
        r: MemberRequest,
    ) -> Result<MemberView> {
        let m = self
            .project_for(p, project, Operation::MembersManage)
            .await?;
        let uid = self.user_id(user).await?;
        store::set_member(&self.pool, &m.project_id, &uid, r.role).await?;
        // What its credentials stand for in the project changed.
        self.auth_cache.clear();
        Ok(MemberView {
            user: user.into(),
            role: r.role,
        })
    }

    pub async fn remove_member(&self, p: &Principal, project: &str, user: &str) -> Result<()> {
        let m = self
            .project_for(p, project, Operation::MembersManage)
            .await?;
        let uid = self.user_id(user).await?;
        if !store::remove_member(&self.pool, &m.project_id, &uid).await? {
            return Err(Error::not_found(format!("member `{user}`")));
        }
        self.auth_cache.clear();
        Ok(())
    }
}
