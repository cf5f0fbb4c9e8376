//! Images (VANI §2.2, docs/processing.md): a processing booking's file
//! system saved by its node as an OCI image, its blobs pushed into the
//! project's bucket (those the bucket lacks) through URLs signed here,
//! recorded under a name; listed, shared read-only, deleted; and, for a
//! booking that names one, the blobs its node pulls, each with a signed
//! URL, checked there against its digest.

use crate::app::authz::{Operation, Principal};
use crate::app::bookings::booking_to_change;
use crate::app::context::Context;
use crate::app::image_pull::{TRANSFER_S, key_of, sign};
use crate::app::observe::node_failed;
use crate::app::projects::project_for;
use crate::app::storage::bucket_name;
use crate::app::storage::settings;
use crate::datastore::images::{self as store, ImageRow};
use crate::datastore::nodes;
use crate::datastore::shared_vlans::project_id as project_id_of;
use crate::error::{Error, Result};
use crate::model::PROCESSING;
use prism_controller_api::images::is_image_name;
use prism_controller_api::{ImageView, SaveImageRequest};
use prism_node_api::{BlobRef, PushImage, SavedImage};

/// Saves processing booking `r.booking`'s file system as image `r.name`
/// (its booker or a project owner).
pub async fn save(
    cx: &Context,
    p: &Principal,
    project: &str,
    r: SaveImageRequest,
) -> Result<ImageView> {
    settings(cx)?;
    if !is_image_name(&r.name) {
        return Err(Error::invalid(
            "a-z, 0-9, `.`, `_` and `-`, a letter or digit first, at most 63",
        )
        .with_field("name"));
    }
    let (m, b) = booking_to_change(cx, p, project, &r.booking, Operation::BookingsCreate).await?;
    if b.resource_type != PROCESSING || b.released_ms.is_some() {
        let e = Error::invalid(format!(
            "booking `{}` is no live processing node",
            r.booking
        ));
        return Err(e.with_field("booking"));
    }
    if store::named(&cx.pool, &m.project_id, &r.name)
        .await?
        .is_some()
    {
        return Err(Error::conflict(format!("image `{}` exists", r.name)).with_field("name"));
    }
    let saved = save_on_node(cx, &b, p, &bucket_name(&m.project, &m.project_id)).await?;
    let all: Vec<&BlobRef> = std::iter::once(&saved.manifest)
        .chain(&saved.blobs)
        .collect();
    let row = ImageRow {
        id: crate::infra::secrets::new_id(),
        project_id: m.project_id.clone(),
        project: m.project.clone(),
        name: r.name.clone(),
        manifest_digest: saved.manifest.digest.clone(),
        manifest_size: saved.manifest.size as i64,
        blobs: serde_json::to_string(&saved.blobs).map_err(|e| Error::internal(e.to_string()))?,
        size_bytes: all.iter().map(|b| b.size as i64).sum(),
        created_by: p.user.clone(),
        created_by_id: p.user_id.clone(),
        from_booking: Some(b.id.clone()),
        created_ms: cx.now_ms(),
    };
    if !store::insert(&cx.pool, &row).await? {
        return Err(Error::conflict(format!("image `{}` exists", r.name)).with_field("name"));
    }
    Ok(view(&row, &m.project_id, Vec::new()))
}

/// Has booking `b`'s node save it and upload the blobs `bucket` lacks
/// (signed for a key of `p`'s): the image.
async fn save_on_node(
    cx: &Context,
    b: &crate::model::Booking,
    p: &Principal,
    bucket: &str,
) -> Result<SavedImage> {
    let s = settings(cx)?;
    let node_id = (b.ids.node.as_deref())
        .ok_or_else(|| Error::conflict(format!("booking `{}` is on no node yet", b.id)))?;
    let (node, address, _) = nodes::address_and_generation(&cx.pool, node_id).await?;
    let transfer = std::time::Duration::from_secs(TRANSFER_S);
    let client =
        (crate::app::node_identity::node_client(cx, &node, &address).await?).with_timeout(transfer);
    let name = crate::app::processing::container_name(&b.id);
    let saved = (client.save_image(&name).await).map_err(|e| node_failed(&node, e))?;
    let key = crate::app::storage::signing_key(cx, p, &b.ids.project).await?;
    let mut push = PushImage {
        blobs: Vec::new(),
        ca_pem: s.ca_pem.clone(),
    };
    for blob in std::iter::once(&saved.manifest).chain(&saved.blobs) {
        if !prism_node_api::is_digest(&blob.digest) {
            return Err(node_failed(
                &node,
                format!("`{}` is no digest", blob.digest),
            ));
        }
        let held = prism_storage::object_len(&*s.backend, bucket, &key_of(&blob.digest))
            .await
            .map_err(Error::internal)?;
        if held != Some(blob.size) {
            let url = sign(s, &key, prism_storage::presign::Method::PUT, bucket, blob).await?;
            push.blobs.push(url);
        }
    }
    (client.push_image(&push).await).map_err(|e| node_failed(&node, e))?;
    Ok(saved)
}

fn view(i: &ImageRow, asking: &str, shared_with: Vec<String>) -> ImageView {
    let own = i.project_id == asking;
    let layers: Vec<BlobRef> = serde_json::from_str(&i.blobs).unwrap_or_default();
    ImageView {
        name: i.name.clone(),
        project: i.project.clone(),
        use_as: match own {
            true => i.name.clone(),
            false => format!("{}/{}", i.project, i.name),
        },
        digest: i.manifest_digest.clone(),
        size_bytes: i.size_bytes,
        layers: layers.len().saturating_sub(1) as u32,
        created_by: i.created_by.clone(),
        created_ms: i.created_ms,
        from_booking: i.from_booking.clone().filter(|_| own),
        shared_with,
    }
}

/// The project's images, then those shared with it.
pub async fn list(cx: &Context, p: &Principal, project: &str) -> Result<Vec<ImageView>> {
    settings(cx)?;
    let m = project_for(cx, p, project, Operation::BookingsRead).await?;
    let mut out = Vec::new();
    for i in store::readable(&cx.pool, &m.project_id).await? {
        let shares = match i.project_id == m.project_id {
            true => store::shares_of(&cx.pool, &i.id).await?,
            false => Vec::new(),
        };
        out.push(view(&i, &m.project_id, shares));
    }
    Ok(out)
}

/// Image `name` of `project` for a change by the caller: its saver or
/// a project owner (`op` names what the change needs of the project).
async fn own_image(
    cx: &Context,
    p: &Principal,
    project: &str,
    name: &str,
    op: Operation,
) -> Result<ImageRow> {
    let m = project_for(cx, p, project, op).await?;
    let i = (store::named(&cx.pool, &m.project_id, name).await?)
        .ok_or_else(|| Error::not_found(format!("image `{name}`")))?;
    p.may_touch(&m, op, &i.created_by_id, &format!("image {name}"))?;
    Ok(i)
}

/// Deletes image `name`, and those of its blobs no other image of its
/// project has from the bucket (their bytes given back to its quota).
pub async fn delete(cx: &Context, p: &Principal, project: &str, name: &str) -> Result<()> {
    let s = settings(cx)?;
    let i = own_image(cx, p, project, name, Operation::BookingsCreate).await?;
    store::delete(&cx.pool, &i.id).await?;
    let kept: std::collections::HashSet<String> = (store::readable(&cx.pool, &i.project_id)
        .await?)
        .iter()
        .filter(|o| o.project_id == i.project_id)
        .flat_map(digests)
        .collect();
    let dir = std::sync::Arc::new(crate::app::storage::ProjectsDirectory { cx: cx.clone() });
    let storage = prism_storage::Storage::new(s.backend.clone(), dir);
    let bucket = bucket_name(&i.project, &i.project_id);
    for d in digests(&i).filter(|d| !kept.contains(d)) {
        let gone = storage.remove(&bucket, &key_of(&d)).await;
        gone.map_err(|e| Error::internal(format!("deleting blob {d}: {e:?}")))?;
    }
    Ok(())
}

/// Image `i`'s manifest's and blobs' digests.
fn digests(i: &ImageRow) -> impl Iterator<Item = String> {
    let blobs: Vec<BlobRef> = serde_json::from_str(&i.blobs).unwrap_or_default();
    std::iter::once(i.manifest_digest.clone()).chain(blobs.into_iter().map(|b| b.digest))
}

/// Shares image `name` with project `with`, read-only (project owners).
pub async fn share(
    cx: &Context,
    p: &Principal,
    project: &str,
    name: &str,
    with: &str,
) -> Result<()> {
    settings(cx)?;
    let i = own_image(cx, p, project, name, Operation::MembersManage).await?;
    let other = (project_id_of(&cx.pool, with).await?)
        .ok_or_else(|| Error::not_found(format!("project `{with}`")).with_field("project"))?;
    if other == i.project_id {
        return Err(Error::invalid("a project runs its own images").with_field("project"));
    }
    store::share(&cx.pool, &i.id, &other, cx.now_ms()).await
}

pub async fn unshare(
    cx: &Context,
    p: &Principal,
    project: &str,
    name: &str,
    with: &str,
) -> Result<()> {
    settings(cx)?;
    let i = own_image(cx, p, project, name, Operation::MembersManage).await?;
    let not_shared = || Error::not_found(format!("a share of `{name}` with `{with}`"));
    let other = (project_id_of(&cx.pool, with).await?).ok_or_else(not_shared)?;
    match store::unshare(&cx.pool, &i.id, &other).await? {
        true => Ok(()),
        false => Err(not_shared()),
    }
}
