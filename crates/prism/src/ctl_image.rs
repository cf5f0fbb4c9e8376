//! `prism ctl image`: processing nodes' file systems saved as images in
//! the storage service, listed, shared, deleted (docs/processing.md).

use anyhow::Result;
use prism_controller_api::ControllerClient;

#[derive(clap::Subcommand, Debug, Clone)]
pub enum ImageCmd {
    /// Save processing node BOOKING (its id or name) as image NAME: one
    /// layer over its image, without its host or authorized keys.
    Save { booking: String, name: String },
    /// The project's images and those shared with it (`use_as` is what
    /// `book --image` takes).
    List,
    /// Share image NAME with PROJECT, read-only (project owners).
    Share {
        name: String,
        #[arg(value_name = "PROJECT")]
        with: String,
    },
    /// Stop sharing image NAME with PROJECT.
    Unshare {
        name: String,
        #[arg(value_name = "PROJECT")]
        with: String,
    },
    /// Delete image NAME (and the blobs no other image of the project has).
    Delete { name: String },
}

pub async fn image(c: &ControllerClient, project: &str, cmd: &ImageCmd) -> Result<()> {
    match cmd {
        ImageCmd::Save { booking, name } => {
            let all = c.all_bookings(project, false).await?;
            let b = (all.iter())
                .find(|b| b.id == *booking || b.name == *booking)
                .ok_or_else(|| anyhow::anyhow!("no live booking `{booking}` in `{project}`"))?;
            crate::print(&c.save_image(project, &b.id, name).await?)
        }
        ImageCmd::List => crate::print(&c.images(project).await?),
        ImageCmd::Share { name, with } => Ok(c.share_image(project, name, with).await?),
        ImageCmd::Unshare { name, with } => Ok(c.unshare_image(project, name, with).await?),
        ImageCmd::Delete { name } => Ok(c.delete_image(project, name).await?),
    }
}
