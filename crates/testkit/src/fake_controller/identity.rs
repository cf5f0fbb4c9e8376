//! The fake's users, logins and projects.

use super::{FakeCaller, FakeController, Project, admin_only};
use prism_controller_api::areas::{Answer, IdentityApi, ProjectsApi};
use prism_controller_api::{
    ApiKeyRequest, ApiKeyView, Error, ErrorCode, LoginRequest, MemberRequest, MemberView,
    Operation, ProjectRequest, ProjectView, Role, ServiceLevel, TokenView, UserRequest, UserView,
    WhoAmI,
};
use std::net::IpAddr;

impl IdentityApi for FakeController {
    async fn login_from(&self, r: LoginRequest, _source: Option<IpAddr>) -> Answer<TokenView> {
        let mut s = self.lock();
        match s.users.get(&r.user) {
            Some((_, pw)) if *pw == r.password => {}
            _ => return Err(Error::unauthorized("wrong user name or password")),
        }
        let token = s.id("token");
        s.tokens.insert(token.clone(), r.user);
        Ok(TokenView {
            id: token.clone(),
            token,
            expires_ms: s.now_ms + r.ttl_s.unwrap_or(3600) * 1000,
            project: r.project,
        })
    }

    async fn logout(&self, p: &FakeCaller) -> Answer<()> {
        self.lock().tokens.remove(&p.token);
        Ok(())
    }

    async fn whoami(&self, p: &FakeCaller) -> Answer<WhoAmI> {
        Ok(WhoAmI {
            user: p.user.clone(),
            admin: p.admin,
            project: None,
            operations: None,
            credential: p.token.clone(),
        })
    }

    async fn list_users(&self, p: &FakeCaller) -> Answer<Vec<UserView>> {
        admin_only(p)?;
        Ok(self.lock().users.values().map(|(u, _)| u.clone()).collect())
    }

    async fn create_user(&self, p: &FakeCaller, r: UserRequest) -> Answer<UserView> {
        admin_only(p)?;
        if self.lock().users.contains_key(&r.name) {
            return Err(Error::conflict(format!("user {} exists", r.name)));
        }
        Ok(self.add_user(&r.name, &r.password, r.admin))
    }

    async fn list_api_keys(&self, p: &FakeCaller, project: &str) -> Answer<Vec<ApiKeyView>> {
        self.lock().project(p, project, Operation::KeysManage)?;
        Ok(Vec::new())
    }

    async fn create_api_key(
        &self,
        p: &FakeCaller,
        project: &str,
        _r: ApiKeyRequest,
    ) -> Answer<ApiKeyView> {
        self.lock().project(p, project, Operation::KeysManage)?;
        Err(Error::new(
            ErrorCode::NoCapacity,
            "the fake controller makes no API keys",
        ))
    }

    async fn revoke_api_key(&self, p: &FakeCaller, project: &str, id: &str) -> Answer<()> {
        self.lock().project(p, project, Operation::KeysManage)?;
        Err(Error::not_found(format!("API key {id}")))
    }

    /// The fake keeps no ssh keys: none listed, none taken.
    async fn list_ssh_keys(
        &self,
        _p: &FakeCaller,
    ) -> Answer<Vec<prism_controller_api::SshKeyView>> {
        Ok(Vec::new())
    }

    async fn add_ssh_key(
        &self,
        _p: &FakeCaller,
        _r: prism_controller_api::SshKeyRequest,
    ) -> Answer<prism_controller_api::SshKeyView> {
        Err(Error::new(
            ErrorCode::NoCapacity,
            "the fake controller keeps no ssh keys",
        ))
    }

    async fn remove_ssh_key(&self, _p: &FakeCaller, id: &str) -> Answer<()> {
        Err(Error::not_found(format!("ssh key {id}")))
    }
}

impl ProjectsApi for FakeController {
    async fn list_service_levels(&self, _p: &FakeCaller) -> Answer<Vec<ServiceLevel>> {
        Ok(self.lock().levels.values().cloned().collect())
    }

    async fn put_service_level(&self, p: &FakeCaller, l: ServiceLevel) -> Answer<ServiceLevel> {
        admin_only(p)?;
        self.lock().levels.insert(l.name.clone(), l.clone());
        Ok(l)
    }

    async fn list_projects(&self, p: &FakeCaller) -> Answer<Vec<ProjectView>> {
        let s = self.lock();
        let seen = s.projects.iter().filter_map(|(name, pr)| {
            let role = pr.members.get(&p.user).copied();
            (p.admin || role.is_some()).then(|| view(name, pr, role))
        });
        Ok(seen.collect())
    }

    async fn create_project(&self, p: &FakeCaller, r: ProjectRequest) -> Answer<ProjectView> {
        admin_only(p)?;
        let mut s = self.lock();
        if s.projects.contains_key(&r.name) {
            return Err(Error::conflict(format!("project {} exists", r.name)));
        }
        if !s.levels.contains_key(&r.service_level) {
            let e = Error::invalid(format!("no service level {}", r.service_level));
            return Err(e.with_field("service_level"));
        }
        let pr = Project {
            id: s.id("project"),
            level: r.service_level,
            members: [(r.owner, Role::Owner)].into(),
            created_ms: s.now_ms,
        };
        let v = view(&r.name, &pr, None);
        s.projects.insert(r.name, pr);
        Ok(v)
    }

    async fn get_project(&self, p: &FakeCaller, project: &str) -> Answer<ProjectView> {
        let s = self.lock();
        let pr = s.project(p, project, Operation::BookingsRead)?;
        Ok(view(project, pr, pr.members.get(&p.user).copied()))
    }

    async fn list_members(&self, p: &FakeCaller, project: &str) -> Answer<Vec<MemberView>> {
        let s = self.lock();
        let pr = s.project(p, project, Operation::BookingsRead)?;
        let members = pr.members.iter().map(|(user, role)| MemberView {
            user: user.clone(),
            role: *role,
        });
        Ok(members.collect())
    }

    async fn set_member(
        &self,
        p: &FakeCaller,
        project: &str,
        user: &str,
        r: MemberRequest,
    ) -> Answer<MemberView> {
        let mut s = self.lock();
        s.project(p, project, Operation::MembersManage)?;
        if !s.users.contains_key(user) {
            return Err(Error::not_found(format!("user {user}")));
        }
        let pr = s.projects.get_mut(project).expect("checked above");
        pr.members.insert(user.into(), r.role);
        Ok(MemberView {
            user: user.into(),
            role: r.role,
        })
    }

    async fn remove_member(&self, p: &FakeCaller, project: &str, user: &str) -> Answer<()> {
        let mut s = self.lock();
        s.project(p, project, Operation::MembersManage)?;
        let pr = s.projects.get_mut(project).expect("checked above");
        pr.members
            .remove(user)
            .map(|_| ())
            .ok_or_else(|| Error::not_found(format!("member {user}")))
    }
}

fn view(name: &str, pr: &Project, role: Option<Role>) -> ProjectView {
    ProjectView {
        id: pr.id.clone(),
        name: name.into(),
        service_level: pr.level.clone(),
        role,
        created_ms: pr.created_ms,
    }
}
