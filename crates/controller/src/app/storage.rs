//! The storage service's policy (VANI §2.2, docs/storage.md): each
//! project's bucket, its keys (made here, their secrets derived from the
//! master key and shown once), URLs signed for the caller, read-only
//! sharing, and the directory the S3 endpoint asks (who a key is, which
//! buckets exist, the quota).

use crate::app::authz::{Operation, Principal};
use crate::app::context::{Context, StorageSettings};
use crate::app::projects::project_for;
use crate::datastore::shared_vlans::project_id as project_id_of;
use crate::datastore::storage as store;
use crate::error::{Error, Result};
use async_trait::async_trait;
use prism_controller_api::{PresignRequest, PresignedUrl, StorageKeyView, StorageView, UrlMethod};
use prism_storage::{KeyOwner, Refusal};

/// Project `name`'s bucket: its name when that is a valid S3 bucket name
/// (3 to 63 of a-z, 0-9, `-`, `.`, a letter or digit at each end), else
/// its id (a UUID, always valid).
pub fn bucket_name(name: &str, id: &str) -> String {
    let ok_char = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.';
    let ends = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    let valid = (3..=63).contains(&name.len())
        && name.bytes().all(ok_char)
        && ends(name.as_bytes().first())
        && ends(name.as_bytes().last())
        && !name.contains("..");
    if valid {
        name.to_string()
    } else {
        id.to_string()
    }
}

/// The storage settings, or 404 saying this controller serves no storage
/// (images live there too).
pub(crate) fn settings(cx: &Context) -> Result<&StorageSettings> {
    cx.settings.storage.as_ref().ok_or_else(|| {
        Error::not_found(
            "storage: this controller serves none (prism controller serve --storage-listen)",
        )
    })
}

pub async fn info(cx: &Context, p: &Principal, project: &str) -> Result<StorageView> {
    let s = settings(cx)?;
    let m = project_for(cx, p, project, Operation::BookingsRead).await?;
    let (used_bytes, quota_bytes) = store::used_and_quota(&cx.pool, &m.project_id).await?;
    let readable = (store::shared_with(&cx.pool, &m.project_id).await?)
        .iter()
        .map(|(id, name)| bucket_name(name, id))
        .collect();
    Ok(StorageView {
        endpoint: s.endpoint.clone(),
        bucket: bucket_name(&m.project, &m.project_id),
        used_bytes,
        quota_bytes,
        shared_with: store::shares_of(&cx.pool, &m.project_id).await?,
        readable,
    })
}

/// A new key of the caller's in `project`, its secret shown this once.
pub async fn create_key(cx: &Context, p: &Principal, project: &str) -> Result<StorageKeyView> {
    let s = settings(cx)?;
    let m = project_for(cx, p, project, Operation::BookingsCreate).await?;
    let id = crate::infra::secrets::storage_access_key();
    let now = cx.now_ms();
    store::insert_key(&cx.pool, &id, (&m.project_id, &p.user_id), now).await?;
    Ok(StorageKeyView {
        secret_key: Some(s.master.secret(&id)),
        access_key: id,
        user: p.user.clone(),
        created_ms: now,
    })
}

pub async fn list_keys(cx: &Context, p: &Principal, project: &str) -> Result<Vec<StorageKeyView>> {
    settings(cx)?;
    let m = project_for(cx, p, project, Operation::BookingsRead).await?;
    store::keys_of(&cx.pool, &m.project_id).await
}

/// Revokes key `id` (its user's, or a project owner's): refused from the
/// next request on.
pub async fn revoke_key(cx: &Context, p: &Principal, project: &str, id: &str) -> Result<()> {
    settings(cx)?;
    let op = Operation::BookingsRelease;
    let m = project_for(cx, p, project, op).await?;
    let user = store::key_user(&cx.pool, &m.project_id, id)
        .await?
        .ok_or_else(|| Error::not_found(format!("storage key `{id}`")))?;
    p.may_touch(&m, op, &user, &format!("storage key {id}"))?;
    store::revoke_key(&cx.pool, id, cx.now_ms()).await
}

/// A URL for one request to one object, signed with a key of the
/// caller's in the project (made, and never shown, if they have none).
pub async fn presign(
    cx: &Context,
    p: &Principal,
    project: &str,
    r: PresignRequest,
) -> Result<PresignedUrl> {
    let s = settings(cx)?;
    let op = match r.method {
        UrlMethod::Get => Operation::BookingsRead,
        UrlMethod::Put => Operation::BookingsCreate,
    };
    let m = project_for(cx, p, project, op).await?;
    let own = bucket_name(&m.project, &m.project_id);
    let bucket = r.bucket.clone().unwrap_or_else(|| own.clone());
    if bucket != own {
        let readable = store::shared_with(&cx.pool, &m.project_id).await?;
        let shared = readable
            .iter()
            .any(|(id, name)| bucket_name(name, id) == bucket);
        if !(shared && r.method == UrlMethod::Get) {
            return Err(Error::not_found(format!("bucket `{bucket}`")).with_field("bucket"));
        }
    }
    let key = signing_key(cx, p, &m.project_id).await?;
    let expires_s = r.expires_s.unwrap_or(3600);
    let method = match r.method {
        UrlMethod::Get => prism_storage::presign::Method::GET,
        UrlMethod::Put => prism_storage::presign::Method::PUT,
    };
    let secret = s.master.secret(&key);
    let expires = std::time::Duration::from_secs(expires_s);
    let url = prism_storage::presign::presign(
        &s.endpoint,
        (&key, &secret),
        method,
        (&bucket, &r.key),
        expires,
    )
    .await
    .map_err(|e| Error::invalid(e).with_field("expires_s"))?;
    Ok(PresignedUrl {
        url: url.to_string(),
        method: r.method,
        expires_ms: cx.now_ms() + i64::try_from(expires_s).unwrap_or(0) * 1000,
    })
}

/// A live key of user `p` in project `project_id`: their oldest, or a
/// new one.
pub(crate) async fn signing_key(cx: &Context, p: &Principal, project_id: &str) -> Result<String> {
    key_of_user(cx, project_id, &p.user_id).await
}

/// A live key of user `user_id` in project `project_id`: their oldest,
/// or a new one (never shown: the controller signs with it).
pub(crate) async fn key_of_user(cx: &Context, project_id: &str, user_id: &str) -> Result<String> {
    if let Some(k) = store::oldest_key_of(&cx.pool, project_id, user_id).await? {
        return Ok(k);
    }
    let id = crate::infra::secrets::storage_access_key();
    store::insert_key(&cx.pool, &id, (project_id, user_id), cx.now_ms()).await?;
    Ok(id)
}

/// Shares `project`'s bucket with project `with`, read-only (its owners).
pub async fn share(cx: &Context, p: &Principal, project: &str, with: &str) -> Result<()> {
    settings(cx)?;
    let m = project_for(cx, p, project, Operation::MembersManage).await?;
    let other = project_id_of(&cx.pool, with)
        .await?
        .ok_or_else(|| Error::not_found(format!("project `{with}`")).with_field("project"))?;
    if other == m.project_id {
        return Err(Error::invalid("a project reads its own bucket").with_field("project"));
    }
    store::share(&cx.pool, &m.project_id, &other, cx.now_ms()).await
}

pub async fn unshare(cx: &Context, p: &Principal, project: &str, with: &str) -> Result<()> {
    settings(cx)?;
    let m = project_for(cx, p, project, Operation::MembersManage).await?;
    let not_shared = || Error::not_found(format!("a share with `{with}`"));
    let other = project_id_of(&cx.pool, with)
        .await?
        .ok_or_else(not_shared)?;
    match store::unshare(&cx.pool, &m.project_id, &other).await? {
        true => Ok(()),
        false => Err(not_shared()),
    }
}

/// The directory the S3 endpoint asks, over the controller's database.
#[derive(Debug, Clone)]
pub struct ProjectsDirectory {
    pub(crate) cx: Context,
}

fn failed(e: Error) -> Refusal {
    Refusal::Failed(e.to_string())
}

impl ProjectsDirectory {
    async fn project_of(&self, bucket: &str) -> std::result::Result<Option<String>, Refusal> {
        let found = store::bucket_candidates(&self.cx.pool, bucket)
            .await
            .map_err(failed)?;
        Ok(found
            .into_iter()
            .find(|(id, name)| bucket_name(name, id) == bucket)
            .map(|(id, _)| id))
    }
}

#[async_trait]
impl prism_storage::Directory for ProjectsDirectory {
    async fn key(&self, access_key: &str) -> std::result::Result<Option<KeyOwner>, Refusal> {
        let pool = &self.cx.pool;
        let Some((id, name)) = store::key_project(pool, access_key).await.map_err(failed)? else {
            return Ok(None);
        };
        let readable = (store::shared_with(pool, &id).await.map_err(failed)?)
            .iter()
            .map(|(id, name)| bucket_name(name, id))
            .collect();
        Ok(Some(KeyOwner {
            bucket: bucket_name(&name, &id),
            readable,
        }))
    }

    async fn bucket_exists(&self, bucket: &str) -> std::result::Result<bool, Refusal> {
        Ok(self.project_of(bucket).await?.is_some())
    }

    async fn reserve(&self, bucket: &str, bytes: i64) -> std::result::Result<(), Refusal> {
        let id = (self.project_of(bucket).await?)
            .ok_or_else(|| Refusal::Failed(format!("no bucket `{bucket}`")))?;
        let now = self.cx.now_ms();
        if store::add_bytes(&self.cx.pool, &id, bytes, now)
            .await
            .map_err(failed)?
            .is_some()
        {
            return Ok(());
        }
        let (used, quota) = store::used_and_quota(&self.cx.pool, &id)
            .await
            .map_err(failed)?;
        Err(Refusal::Quota {
            used,
            quota,
            asked: bytes,
        })
    }

    async fn release(&self, bucket: &str, bytes: i64) -> std::result::Result<(), Refusal> {
        let Some(id) = self.project_of(bucket).await? else {
            return Ok(());
        };
        let now = self.cx.now_ms();
        store::add_bytes(&self.cx.pool, &id, -bytes, now)
            .await
            .map_err(failed)?;
        Ok(())
    }
}
