//! The areas of the resources a researcher books beside networks (VANI
//! §2.2): shared VLANs, the storage service and images.

use super::{Answer, Gate};
use crate::images::{ImageView, SaveImageRequest};
use crate::shared_vlans::{SharedVlanView, VlanMember};
use crate::storage::{PresignRequest, PresignedUrl, StorageKeyView, StorageView};
use std::future::Future;

/// Shared VLANs: the projects a shared VLAN's booker invites, and those
/// a project is invited to.
pub trait SharedVlansApi: Gate {
    fn list_vlan_members(
        &self,
        p: &Self::Caller,
        project: &str,
        id: &str,
    ) -> impl Future<Output = Answer<Vec<VlanMember>>> + Send;
    fn invite_to_vlan(
        &self,
        p: &Self::Caller,
        project: &str,
        id: &str,
        member: &str,
    ) -> impl Future<Output = Answer<VlanMember>> + Send;
    fn revoke_from_vlan(
        &self,
        p: &Self::Caller,
        project: &str,
        id: &str,
        member: &str,
    ) -> impl Future<Output = Answer<()>> + Send;
    fn list_shared_vlans(
        &self,
        p: &Self::Caller,
        project: &str,
    ) -> impl Future<Output = Answer<Vec<SharedVlanView>>> + Send;
    fn leave_shared_vlan(
        &self,
        p: &Self::Caller,
        project: &str,
        id: &str,
    ) -> impl Future<Output = Answer<()>> + Send;
}

/// The storage service: a project's bucket, its keys, signed URLs and
/// read-only sharing.
pub trait StorageApi: Gate {
    fn storage(
        &self,
        p: &Self::Caller,
        project: &str,
    ) -> impl Future<Output = Answer<StorageView>> + Send;
    fn list_storage_keys(
        &self,
        p: &Self::Caller,
        project: &str,
    ) -> impl Future<Output = Answer<Vec<StorageKeyView>>> + Send;
    fn create_storage_key(
        &self,
        p: &Self::Caller,
        project: &str,
    ) -> impl Future<Output = Answer<StorageKeyView>> + Send;
    fn revoke_storage_key(
        &self,
        p: &Self::Caller,
        project: &str,
        id: &str,
    ) -> impl Future<Output = Answer<()>> + Send;
    fn presign(
        &self,
        p: &Self::Caller,
        project: &str,
        r: PresignRequest,
    ) -> impl Future<Output = Answer<PresignedUrl>> + Send;
    fn share_storage(
        &self,
        p: &Self::Caller,
        project: &str,
        with: &str,
    ) -> impl Future<Output = Answer<()>> + Send;
    fn unshare_storage(
        &self,
        p: &Self::Caller,
        project: &str,
        with: &str,
    ) -> impl Future<Output = Answer<()>> + Send;
}

/// Images: processing nodes' file systems saved into the storage
/// service, listed, shared read-only with other projects, deleted.
pub trait ImagesApi: Gate {
    fn save_image(
        &self,
        p: &Self::Caller,
        project: &str,
        r: SaveImageRequest,
    ) -> impl Future<Output = Answer<ImageView>> + Send;
    fn list_images(
        &self,
        p: &Self::Caller,
        project: &str,
    ) -> impl Future<Output = Answer<Vec<ImageView>>> + Send;
    fn delete_image(
        &self,
        p: &Self::Caller,
        project: &str,
        name: &str,
    ) -> impl Future<Output = Answer<()>> + Send;
    fn share_image(
        &self,
        p: &Self::Caller,
        project: &str,
        name: &str,
        with: &str,
    ) -> impl Future<Output = Answer<()>> + Send;
    fn unshare_image(
        &self,
        p: &Self::Caller,
        project: &str,
        name: &str,
        with: &str,
    ) -> impl Future<Output = Answer<()>> + Send;
}
