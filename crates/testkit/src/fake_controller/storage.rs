//! The fake's storage and image calls: it serves no storage, as a controller
//! started without `--storage-listen` (404, said so).

use super::{FakeCaller, FakeController};
use prism_controller_api::areas::{Answer, StorageApi};
use prism_controller_api::{
    Error, Operation, PresignRequest, PresignedUrl, StorageKeyView, StorageView,
};

impl FakeController {
    fn no_storage(&self, p: &FakeCaller, project: &str, op: Operation) -> Error {
        match self.lock().project(p, project, op) {
            Err(e) => e,
            Ok(_) => Error::not_found("storage: the fake controller serves none"),
        }
    }
}

impl StorageApi for FakeController {
    async fn storage(&self, p: &FakeCaller, project: &str) -> Answer<StorageView> {
        Err(self.no_storage(p, project, Operation::BookingsRead))
    }
    async fn list_storage_keys(
        &self,
        p: &FakeCaller,
        project: &str,
    ) -> Answer<Vec<StorageKeyView>> {
        Err(self.no_storage(p, project, Operation::BookingsRead))
    }
    async fn create_storage_key(&self, p: &FakeCaller, project: &str) -> Answer<StorageKeyView> {
        Err(self.no_storage(p, project, Operation::BookingsCreate))
    }
    async fn revoke_storage_key(&self, p: &FakeCaller, project: &str, _id: &str) -> Answer<()> {
        Err(self.no_storage(p, project, Operation::BookingsRelease))
    }
    async fn presign(
        &self,
        p: &FakeCaller,
        project: &str,
        _r: PresignRequest,
    ) -> Answer<PresignedUrl> {
        Err(self.no_storage(p, project, Operation::BookingsRead))
    }
    async fn share_storage(&self, p: &FakeCaller, project: &str, _with: &str) -> Answer<()> {
        Err(self.no_storage(p, project, Operation::MembersManage))
    }
    async fn unshare_storage(&self, p: &FakeCaller, project: &str, _with: &str) -> Answer<()> {
        Err(self.no_storage(p, project, Operation::MembersManage))
    }
}

/// Images live in the storage service, which the fake serves none of.
impl prism_controller_api::areas::ImagesApi for FakeController {
    async fn save_image(
        &self,
        p: &FakeCaller,
        project: &str,
        _r: prism_controller_api::SaveImageRequest,
    ) -> Answer<prism_controller_api::ImageView> {
        Err(self.no_storage(p, project, Operation::BookingsCreate))
    }
    async fn list_images(
        &self,
        p: &FakeCaller,
        project: &str,
    ) -> Answer<Vec<prism_controller_api::ImageView>> {
        Err(self.no_storage(p, project, Operation::BookingsRead))
    }
    async fn delete_image(&self, p: &FakeCaller, project: &str, _name: &str) -> Answer<()> {
        Err(self.no_storage(p, project, Operation::BookingsCreate))
    }
    async fn share_image(
        &self,
        p: &FakeCaller,
        project: &str,
        _name: &str,
        _with: &str,
    ) -> Answer<()> {
        Err(self.no_storage(p, project, Operation::MembersManage))
    }
    async fn unshare_image(
        &self,
        p: &FakeCaller,
        project: &str,
        _name: &str,
        _with: &str,
    ) -> Answer<()> {
        Err(self.no_storage(p, project, Operation::MembersManage))
    }
}
