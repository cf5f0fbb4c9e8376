//! The client's calls: logging in, users, service levels, projects, members and API keys.

use super::*;

impl ControllerClient {
    pub async fn login(&self, r: &LoginRequest) -> Result<TokenView, ClientError> {
        self.call("POST", "/v1/login".into(), Some(r)).await
    }
    pub async fn logout(&self) -> Result<(), ClientError> {
        self.call("POST", "/v1/logout".into(), None::<&()>).await
    }
    pub async fn whoami(&self) -> Result<WhoAmI, ClientError> {
        self.call("GET", "/v1/whoami".into(), None::<&()>).await
    }
    pub async fn create_user(&self, r: &UserRequest) -> Result<UserView, ClientError> {
        self.call("POST", "/v1/users".into(), Some(r)).await
    }
    pub async fn put_service_level(&self, l: &ServiceLevel) -> Result<ServiceLevel, ClientError> {
        self.call(
            "PUT",
            format!("/v1/service-levels/{}", seg(&l.name)),
            Some(l),
        )
        .await
    }
    pub async fn create_project(&self, r: &ProjectRequest) -> Result<ProjectView, ClientError> {
        self.call("POST", "/v1/projects".into(), Some(r)).await
    }
    pub async fn list_projects(&self) -> Result<Vec<ProjectView>, ClientError> {
        self.call("GET", "/v1/projects".into(), None::<&()>).await
    }
    pub async fn set_member(
        &self,
        project: &str,
        user: &str,
        r: &MemberRequest,
    ) -> Result<MemberView, ClientError> {
        self.call(
            "PUT",
            format!("/v1/projects/{}/members/{}", seg(project), seg(user)),
            Some(r),
        )
        .await
    }
    pub async fn create_api_key(
        &self,
        project: &str,
        r: &ApiKeyRequest,
    ) -> Result<ApiKeyView, ClientError> {
        self.call(
            "POST",
            format!("/v1/projects/{}/api-keys", seg(project)),
            Some(r),
        )
        .await
    }
    pub async fn revoke_api_key(&self, project: &str, id: &str) -> Result<(), ClientError> {
        self.call(
            "DELETE",
            format!("/v1/projects/{}/api-keys/{}", seg(project), seg(id)),
            None::<&()>,
        )
        .await
    }
    /// The caller's ssh keys.
    pub async fn ssh_keys(&self) -> Result<Vec<crate::SshKeyView>, ClientError> {
        self.call("GET", "/v1/ssh-keys".into(), None::<&()>).await
    }
    pub async fn add_ssh_key(
        &self,
        r: &crate::SshKeyRequest,
    ) -> Result<crate::SshKeyView, ClientError> {
        self.call("POST", "/v1/ssh-keys".into(), Some(r)).await
    }
    pub async fn remove_ssh_key(&self, id: &str) -> Result<(), ClientError> {
        self.call("DELETE", format!("/v1/ssh-keys/{}", seg(id)), None::<&()>)
            .await
    }
}
