//! The client's calls: the storage service's bucket, keys, URLs and shares.

use super::*;
use crate::{PresignRequest, PresignedUrl, StorageKeyView, StorageView};

impl ControllerClient {
    fn storage_path(project: &str, rest: &str) -> String {
        format!("/v1/projects/{}/storage{rest}", seg(project))
    }
    pub async fn storage(&self, project: &str) -> Result<StorageView, ClientError> {
        self.call("GET", Self::storage_path(project, ""), None::<&()>)
            .await
    }
    pub async fn storage_keys(&self, project: &str) -> Result<Vec<StorageKeyView>, ClientError> {
        self.call("GET", Self::storage_path(project, "/keys"), None::<&()>)
            .await
    }
    /// A new key: its secret is in this answer only.
    pub async fn create_storage_key(&self, project: &str) -> Result<StorageKeyView, ClientError> {
        self.call("POST", Self::storage_path(project, "/keys"), None::<&()>)
            .await
    }
    pub async fn revoke_storage_key(&self, project: &str, id: &str) -> Result<(), ClientError> {
        let path = Self::storage_path(project, &format!("/keys/{}", seg(id)));
        self.call("DELETE", path, None::<&()>).await
    }
    pub async fn presign(
        &self,
        project: &str,
        r: &PresignRequest,
    ) -> Result<PresignedUrl, ClientError> {
        self.call("POST", Self::storage_path(project, "/urls"), Some(r))
            .await
    }
    pub async fn share_storage(&self, project: &str, with: &str) -> Result<(), ClientError> {
        let path = Self::storage_path(project, &format!("/shares/{}", seg(with)));
        self.call("PUT", path, None::<&()>).await
    }
    pub async fn unshare_storage(&self, project: &str, with: &str) -> Result<(), ClientError> {
        let path = Self::storage_path(project, &format!("/shares/{}", seg(with)));
        self.call("DELETE", path, None::<&()>).await
    }
}
