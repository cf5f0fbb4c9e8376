//! Service levels, projects and their members: the SQL and the row
//! mapping. No authorization here: the callers (`crate::app::projects`) have
//! checked who may do what.

use super::{Pool, unique_violation};
use super::{ops_from_json, ops_to_json};
use crate::error::{Error, Result};
use crate::model::Role;
use prism_controller_api::Operation;
use prism_controller_api::projects::{MemberView, ProjectView, ServiceLevel};
use sqlx::Row;
use sqlx::any::AnyArguments;
use sqlx::query::Query;

/// What a project looks like to a caller: their membership (if any) and
/// its service level; `None`: no such project.
pub(crate) type ProjectSeen = Option<(Membership, prism_controller_api::projects::ServiceLevel)>;

/// What the caller is in a project, as its rows say.
#[derive(Debug, Clone)]
pub struct Membership {
    pub project_id: String,
    pub project: String,
    /// `None` for an admin who is not a member.
    pub role: Option<Role>,
    pub service_level_ops: Vec<Operation>,
}

fn level_of(r: &sqlx::any::AnyRow) -> Result<ServiceLevel> {
    Ok(ServiceLevel {
        name: r.try_get("name")?,
        operations: ops_from_json(&r.try_get::<String, _>("operations")?),
        max_hw_networks: r.try_get("max_hw_networks")?,
        max_sw_networks: r.try_get("max_sw_networks")?,
        max_bandwidth_mbps: r.try_get("max_bandwidth_mbps")?,
        max_lease_hours: r.try_get("max_lease_hours")?,
        max_lease_s: r.try_get("max_lease_s")?,
        default_lease_s: r.try_get("default_lease_s")?,
        max_public_addresses: r.try_get("max_public_addresses")?,
        max_storage_bytes: r.try_get("max_storage_bytes")?,
    })
}

pub(crate) async fn count_service_levels(pool: &Pool) -> Result<i64> {
    Ok(sqlx::query("SELECT COUNT(*) FROM service_levels")
        .fetch_one(pool)
        .await?
        .try_get(0)?)
}

/// Adds or replaces level `l` (`now`: its creation time if new). A level
/// no project uses is replaced whole; one in use is updated in place.
pub(crate) async fn upsert_service_level<'q>(
    pool: &Pool,
    l: &'q ServiceLevel,
    now: i64,
) -> Result<()> {
    let mut tx = crate::infra::db::begin(pool).await?;
    sqlx::query("DELETE FROM service_levels WHERE name = $1 AND NOT EXISTS (SELECT 1 FROM projects WHERE service_level = $1)")
        .bind(&l.name)
        .execute(&mut *tx)
        .await?;
    // Both statements bind the level's fields as $1..$10 in this order.
    let bind_level = |q: Query<'q, sqlx::Any, AnyArguments<'q>>| {
        q.bind(&l.name)
            .bind(ops_to_json(&l.operations))
            .bind(l.max_hw_networks)
            .bind(l.max_sw_networks)
            .bind(l.max_bandwidth_mbps)
            .bind(l.max_lease_hours)
            .bind(l.max_lease_s)
            .bind(l.default_lease_s)
            .bind(l.max_public_addresses)
            .bind(l.max_storage_bytes)
    };
    let updated = bind_level(sqlx::query("UPDATE service_levels SET operations = $2, max_hw_networks = $3, max_sw_networks = $4, max_bandwidth_mbps = $5, max_lease_hours = $6, max_lease_s = $7, default_lease_s = $8, max_public_addresses = $9, max_storage_bytes = $10 WHERE name = $1"))
        .execute(&mut *tx)
        .await?
        .rows_affected();
    if updated == 0 {
        bind_level(sqlx::query("INSERT INTO service_levels (name, operations, max_hw_networks, max_sw_networks, max_bandwidth_mbps, max_lease_hours, max_lease_s, default_lease_s, max_public_addresses, max_storage_bytes, created_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"))
            .bind(now)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(())
}

pub(crate) async fn service_levels(pool: &Pool) -> Result<Vec<ServiceLevel>> {
    let rows = sqlx::query("SELECT * FROM service_levels ORDER BY name")
        .fetch_all(pool)
        .await?;
    rows.iter().map(level_of).collect()
}

/// Inserts project `v` and its owner, in one transaction: refused at
/// `service_level` if there is no such level, at `name` if the name is
/// taken.
pub(crate) async fn insert_project(pool: &Pool, v: &ProjectView, owner_id: &str) -> Result<()> {
    let mut tx = crate::infra::db::begin(pool).await?;
    let level = sqlx::query("SELECT name FROM service_levels WHERE name = $1")
        .bind(&v.service_level)
        .fetch_optional(&mut *tx)
        .await?;
    if level.is_none() {
        return Err(
            Error::not_found(format!("service level `{}`", v.service_level))
                .with_field("service_level"),
        );
    }
    sqlx::query(
        "INSERT INTO projects (id, name, service_level, created_ms) VALUES ($1, $2, $3, $4)",
    )
    .bind(&v.id)
    .bind(&v.name)
    .bind(&v.service_level)
    .bind(v.created_ms)
    .execute(&mut *tx)
    .await
    .map_err(|e| {
        if unique_violation(&e) {
            Error::conflict(format!("a project `{}` exists", v.name)).with_field("name")
        } else {
            e.into()
        }
    })?;
    sqlx::query("INSERT INTO members (project_id, user_id, role) VALUES ($1, $2, 'owner')")
        .bind(&v.id)
        .bind(owner_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

/// Every project, with `user_id`'s role in it where they have one.
pub(crate) async fn projects_with_role(pool: &Pool, user_id: &str) -> Result<Vec<ProjectView>> {
    let rows = sqlx::query(
        "SELECT p.id, p.name, p.service_level, p.created_ms, m.role FROM projects p \
         LEFT JOIN members m ON m.project_id = p.id AND m.user_id = $1 ORDER BY p.name",
    )
    .bind(user_id)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(ProjectView {
                id: r.try_get(0)?,
                name: r.try_get(1)?,
                service_level: r.try_get(2)?,
                created_ms: r.try_get(3)?,
                role: r
                    .try_get::<Option<String>, _>(4)?
                    .as_deref()
                    .and_then(Role::parse),
            })
        })
        .collect()
}

/// The id of project `name` if `user_id` is a member of it.
pub(crate) async fn member_project_id(
    pool: &Pool,
    user_id: &str,
    name: &str,
) -> Result<Option<String>> {
    Ok(sqlx::query("SELECT p.id FROM projects p JOIN members m ON m.project_id = p.id WHERE p.name = $1 AND m.user_id = $2")
        .bind(name)
        .bind(user_id)
        .fetch_optional(pool)
        .await?
        .map(|r| r.try_get(0))
        .transpose()?)
}

/// Project `name` with `user_id`'s membership (the role none if they are
/// not a member) and its service level, in one query.
pub(crate) async fn project_and_level(
    pool: &Pool,
    name: &str,
    user_id: &str,
) -> Result<Option<(Membership, ServiceLevel)>> {
    let row = sqlx::query(
        "SELECT p.id AS project_id, m.role AS role, s.* FROM projects p JOIN service_levels s ON s.name = p.service_level \
         LEFT JOIN members m ON m.project_id = p.id AND m.user_id = $2 WHERE p.name = $1",
    )
    .bind(name)
    .bind(user_id)
    .fetch_optional(pool)
    .await?;
    let Some(r) = row else { return Ok(None) };
    project_of_row(&r, name)
}

/// Project `name` as a row with its `project_id`, the caller's `role` and
/// its service level's columns reads (`project_and_level`, and the
/// credential read with the project a path names): `None` where
/// `project_id` is NULL (no such project).
pub(crate) fn project_of_row(
    r: &sqlx::any::AnyRow,
    name: &str,
) -> Result<Option<(Membership, ServiceLevel)>> {
    let Some(project_id) = r.try_get::<Option<String>, _>("project_id")? else {
        return Ok(None);
    };
    let level = level_of(r)?;
    let m = Membership {
        project_id,
        project: name.to_string(),
        service_level_ops: level.operations.clone(),
        role: r
            .try_get::<Option<String>, _>("role")?
            .as_deref()
            .and_then(Role::parse),
    };
    Ok(Some((m, level)))
}

/// Project `id`'s (service level, creation time).
pub(crate) async fn project_level_and_created(pool: &Pool, id: &str) -> Result<(String, i64)> {
    let r = sqlx::query("SELECT service_level, created_ms FROM projects WHERE id = $1")
        .bind(id)
        .fetch_one(pool)
        .await?;
    Ok((r.try_get(0)?, r.try_get(1)?))
}

pub(crate) async fn members(pool: &Pool, project_id: &str) -> Result<Vec<MemberView>> {
    let rows = sqlx::query("SELECT u.name, m.role FROM members m JOIN users u ON u.id = m.user_id WHERE m.project_id = $1 ORDER BY u.name")
        .bind(project_id)
        .fetch_all(pool)
        .await?;
    rows.iter()
        .map(|r| {
            Ok(MemberView {
                user: r.try_get(0)?,
                role: Role::parse(&r.try_get::<String, _>(1)?).unwrap_or(Role::Viewer),
            })
        })
        .collect()
}

/// Makes `user_id` a member of `project_id` with `role` (replacing any
/// role they had).
pub(crate) async fn set_member(
    pool: &Pool,
    project_id: &str,
    user_id: &str,
    role: Role,
) -> Result<()> {
    let mut tx = crate::infra::db::begin(pool).await?;
    sqlx::query("DELETE FROM members WHERE project_id = $1 AND user_id = $2")
        .bind(project_id)
        .bind(user_id)
        .execute(&mut *tx)
        .await?;
    sqlx::query("INSERT INTO members (project_id, user_id, role) VALUES ($1, $2, $3)")
        .bind(project_id)
        .bind(user_id)
        .bind(role.as_str())
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

/// Removes a membership; false if there was none.
pub(crate) async fn remove_member(pool: &Pool, project_id: &str, user_id: &str) -> Result<bool> {
    let n = sqlx::query("DELETE FROM members WHERE project_id = $1 AND user_id = $2")
        .bind(project_id)
        .bind(user_id)
        .execute(pool)
        .await?
        .rows_affected();
    Ok(n > 0)
}
