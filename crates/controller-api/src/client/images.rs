//! The client's calls: images saved into the storage service.

use super::*;
use crate::{ImageView, SaveImageRequest};

impl ControllerClient {
    fn images_path(project: &str, rest: &str) -> String {
        format!("/v1/projects/{}/images{rest}", seg(project))
    }
    /// Saves booking `booking`'s file system as image `name`.
    pub async fn save_image(
        &self,
        project: &str,
        booking: &str,
        name: &str,
    ) -> Result<ImageView, ClientError> {
        let r = SaveImageRequest {
            booking: booking.to_string(),
            name: name.to_string(),
        };
        self.call("POST", Self::images_path(project, ""), Some(&r))
            .await
    }
    /// The project's images and those shared with it.
    pub async fn images(&self, project: &str) -> Result<Vec<ImageView>, ClientError> {
        self.call("GET", Self::images_path(project, ""), None::<&()>)
            .await
    }
    pub async fn delete_image(&self, project: &str, name: &str) -> Result<(), ClientError> {
        let path = Self::images_path(project, &format!("/{}", seg(name)));
        self.call("DELETE", path, None::<&()>).await
    }
    pub async fn share_image(
        &self,
        project: &str,
        name: &str,
        with: &str,
    ) -> Result<(), ClientError> {
        let path = Self::images_path(project, &format!("/{}/shares/{}", seg(name), seg(with)));
        self.call("PUT", path, None::<&()>).await
    }
    pub async fn unshare_image(
        &self,
        project: &str,
        name: &str,
        with: &str,
    ) -> Result<(), ClientError> {
        let path = Self::images_path(project, &format!("/{}/shares/{}", seg(name), seg(with)));
        self.call("DELETE", path, None::<&()>).await
    }
}
