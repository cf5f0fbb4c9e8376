//! Images' SQL: each a manifest digest and its blobs under a name in its
//! project, and the projects it is shared with.

use super::Pool;
use crate::error::Result;
use sqlx::Row;

/// An image as stored.
#[derive(Debug, Clone)]
pub(crate) struct ImageRow {
    pub id: String,
    pub project_id: String,
    pub project: String,
    pub name: String,
    pub manifest_digest: String,
    pub manifest_size: i64,
    /// `[{"digest": …, "size": …}]`: config and layers.
    pub blobs: String,
    pub size_bytes: i64,
    pub created_by: String,
    pub created_by_id: String,
    pub from_booking: Option<String>,
    pub created_ms: i64,
}

const SELECT: &str = "SELECT i.id, i.project_id, p.name AS project, i.name, i.manifest_digest, \
     i.manifest_size, i.blobs, i.size_bytes, u.name AS created_by, i.created_by AS created_by_id, \
     i.from_booking, i.created_ms FROM images i JOIN projects p ON p.id = i.project_id \
     JOIN users u ON u.id = i.created_by";

fn row(r: &sqlx::any::AnyRow) -> Result<ImageRow> {
    Ok(ImageRow {
        id: r.try_get("id")?,
        project_id: r.try_get("project_id")?,
        project: r.try_get("project")?,
        name: r.try_get("name")?,
        manifest_digest: r.try_get("manifest_digest")?,
        manifest_size: r.try_get("manifest_size")?,
        blobs: r.try_get("blobs")?,
        size_bytes: r.try_get("size_bytes")?,
        created_by: r.try_get("created_by")?,
        created_by_id: r.try_get("created_by_id")?,
        from_booking: r.try_get("from_booking")?,
        created_ms: r.try_get("created_ms")?,
    })
}

/// Records image `i` (its name free in its project: `false` if taken).
pub(crate) async fn insert(pool: &Pool, i: &ImageRow) -> Result<bool> {
    let done = sqlx::query(
        "INSERT INTO images (id, project_id, name, manifest_digest, manifest_size, blobs, \
         size_bytes, created_by, from_booking, created_ms) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING",
    )
    .bind(&i.id)
    .bind(&i.project_id)
    .bind(&i.name)
    .bind(&i.manifest_digest)
    .bind(i.manifest_size)
    .bind(&i.blobs)
    .bind(i.size_bytes)
    .bind(&i.created_by_id)
    .bind(&i.from_booking)
    .bind(i.created_ms)
    .execute(pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Image `name` of project `project_id`.
pub(crate) async fn named<'e, E>(ex: E, project_id: &str, name: &str) -> Result<Option<ImageRow>>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let q = format!("{SELECT} WHERE i.project_id = $1 AND i.name = $2");
    let r = sqlx::query(&q)
        .bind(project_id)
        .bind(name)
        .fetch_optional(ex)
        .await?;
    r.as_ref().map(row).transpose()
}

/// Image `name` of project `owner` (by name) if it is shared with
/// project `project_id`.
pub(crate) async fn shared_named<'e, E>(
    ex: E,
    project_id: &str,
    owner: &str,
    name: &str,
) -> Result<Option<ImageRow>>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let q = format!(
        "{SELECT} JOIN image_shares s ON s.image_id = i.id \
         WHERE s.with_project_id = $1 AND p.name = $2 AND i.name = $3"
    );
    let r = sqlx::query(&q)
        .bind(project_id)
        .bind(owner)
        .bind(name)
        .fetch_optional(ex)
        .await?;
    r.as_ref().map(row).transpose()
}

/// Project `project_id`'s images, then those shared with it.
pub(crate) async fn readable(pool: &Pool, project_id: &str) -> Result<Vec<ImageRow>> {
    let q = format!(
        "{SELECT} WHERE i.project_id = $1 OR i.id IN \
         (SELECT image_id FROM image_shares WHERE with_project_id = $1) \
         ORDER BY (i.project_id = $1) DESC, p.name, i.name"
    );
    let rows = sqlx::query(&q).bind(project_id).fetch_all(pool).await?;
    rows.iter().map(row).collect()
}

/// The projects image `id` is shared with, by name.
pub(crate) async fn shares_of(pool: &Pool, id: &str) -> Result<Vec<String>> {
    let rows = sqlx::query(
        "SELECT p.name FROM image_shares s JOIN projects p ON p.id = s.with_project_id \
         WHERE s.image_id = $1 ORDER BY p.name",
    )
    .bind(id)
    .fetch_all(pool)
    .await?;
    rows.iter().map(|r| Ok(r.try_get(0)?)).collect()
}

pub(crate) async fn share(pool: &Pool, id: &str, with: &str, now: i64) -> Result<()> {
    sqlx::query(
        "INSERT INTO image_shares (image_id, with_project_id, created_ms) VALUES ($1, $2, $3) \
         ON CONFLICT DO NOTHING",
    )
    .bind(id)
    .bind(with)
    .bind(now)
    .execute(pool)
    .await?;
    Ok(())
}

/// Whether a share was there to end.
pub(crate) async fn unshare(pool: &Pool, id: &str, with: &str) -> Result<bool> {
    let done = sqlx::query("DELETE FROM image_shares WHERE image_id = $1 AND with_project_id = $2")
        .bind(id)
        .bind(with)
        .execute(pool)
        .await?;
    Ok(done.rows_affected() > 0)
}

/// Deletes image `id` and its shares, in one transaction.
pub(crate) async fn delete(pool: &Pool, id: &str) -> Result<()> {
    let mut tx = pool.begin().await?;
    sqlx::query("DELETE FROM image_shares WHERE image_id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    sqlx::query("DELETE FROM images WHERE id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}
