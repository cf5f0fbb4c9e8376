//! Shared VLANs' SQL: the projects invited to one, the ones a project is
//! invited to, and a shared VLAN found by what a processing node attaches
//! to.

use super::bookings::{BOOKING_SELECT, booking_of};
use super::{Pool, Tx};
use crate::error::Result;
use crate::model::{Booking, NETWORK, SHARED_VLAN};
use prism_controller_api::{SharedVlanView, VlanMember};
use sqlx::Row;

/// Invites project `project_id` to shared VLAN `booking_id`; false if it
/// was already.
pub(crate) async fn invite(
    tx: &mut Tx,
    booking_id: &str,
    project_id: &str,
    (by, now): (&str, i64),
) -> Result<bool> {
    let r = sqlx::query(
        "INSERT INTO shared_vlan_members (booking_id, project_id, invited_by, invited_ms) \
         VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
    )
    .bind(booking_id)
    .bind(project_id)
    .bind(by)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// Removes project `project_id` from shared VLAN `booking_id`; false if
/// it was not invited.
pub(crate) async fn remove(tx: &mut Tx, booking_id: &str, project_id: &str) -> Result<bool> {
    let r =
        sqlx::query("DELETE FROM shared_vlan_members WHERE booking_id = $1 AND project_id = $2")
            .bind(booking_id)
            .bind(project_id)
            .execute(&mut **tx)
            .await?;
    Ok(r.rows_affected() == 1)
}

/// The projects invited to shared VLAN `booking_id`.
pub(crate) async fn members(pool: &Pool, booking_id: &str) -> Result<Vec<VlanMember>> {
    let rows = sqlx::query(
        "SELECT p.name AS project, u.name AS invited_by, m.invited_ms FROM shared_vlan_members m \
         JOIN projects p ON p.id = m.project_id JOIN users u ON u.id = m.invited_by \
         WHERE m.booking_id = $1 ORDER BY m.invited_ms, p.name",
    )
    .bind(booking_id)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(VlanMember {
                project: r.try_get("project")?,
                invited_by: r.try_get("invited_by")?,
                invited_ms: r.try_get("invited_ms")?,
            })
        })
        .collect()
}

/// The live shared VLANs project `project_id` is invited to.
pub(crate) async fn invited_to(pool: &Pool, project_id: &str) -> Result<Vec<SharedVlanView>> {
    let select = BOOKING_SELECT.replacen("SELECT ", "SELECT m.invited_ms AS invited_ms, ", 1);
    let sql = format!(
        "{select} JOIN shared_vlan_members m ON m.booking_id = b.id \
         WHERE m.project_id = $1 AND b.resource_type = $2 AND b.released_ms IS NULL \
         ORDER BY m.invited_ms, b.id"
    );
    let rows = sqlx::query(&sql)
        .bind(project_id)
        .bind(SHARED_VLAN)
        .fetch_all(pool)
        .await?;
    rows.iter()
        .map(|r| {
            let b = booking_of(r)?;
            Ok(SharedVlanView {
                attach_as: format!("{}/{}", b.project, b.name),
                id: b.id,
                name: b.name,
                owner: b.project,
                node: b.node,
                vlan: b.vlan,
                invited_ms: r.try_get("invited_ms")?,
            })
        })
        .collect()
}

/// What a processing node of project `project_id` attaches to by `name`:
/// the project's own live network or shared VLAN of that name, or, for
/// `OWNER/NAME`, the live shared VLAN `NAME` of project `OWNER` if it
/// invited this project.
pub(crate) async fn attachable(
    conn: &mut sqlx::AnyConnection,
    project_id: &str,
    name: &str,
) -> Result<Option<Booking>> {
    let r = match name.split_once('/') {
        None => {
            let q = format!(
                "{BOOKING_SELECT} WHERE b.project_id = $1 AND b.name = $2 \
                 AND b.resource_type IN ($3, $4) AND b.released_ms IS NULL"
            );
            sqlx::query(&q)
                .bind(project_id)
                .bind(name)
                .bind(NETWORK)
                .bind(SHARED_VLAN)
                .fetch_optional(&mut *conn)
                .await?
        }
        Some((owner, vlan)) => {
            // The owner's own project names it so too.
            let q = format!(
                "{BOOKING_SELECT} WHERE p.name = $1 AND b.name = $2 AND b.resource_type = $3 \
                 AND b.released_ms IS NULL AND (b.project_id = $4 OR EXISTS (SELECT 1 \
                 FROM shared_vlan_members m WHERE m.booking_id = b.id AND m.project_id = $4))"
            );
            sqlx::query(&q)
                .bind(owner)
                .bind(vlan)
                .bind(SHARED_VLAN)
                .bind(project_id)
                .fetch_optional(&mut *conn)
                .await?
        }
    };
    r.as_ref().map(booking_of).transpose()
}

/// The first node by name that runs processing nodes, or node `name`
/// whether or not it does: (id, name, its processing port).
pub(crate) async fn node_for(
    tx: &mut Tx,
    name: Option<&str>,
) -> Result<Option<(String, String, Option<String>)>> {
    let r = match name {
        Some(n) => {
            sqlx::query("SELECT id, name, processing_port FROM nodes WHERE name = $1")
                .bind(n)
                .fetch_optional(&mut **tx)
                .await?
        }
        None => {
            sqlx::query(
                "SELECT id, name, processing_port FROM nodes \
                 WHERE processing_port IS NOT NULL ORDER BY name LIMIT 1",
            )
            .fetch_optional(&mut **tx)
            .await?
        }
    };
    r.map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))
        .transpose()
}

/// The id of project `name`, if there is one.
pub(crate) async fn project_id(pool: &Pool, name: &str) -> Result<Option<String>> {
    let r = sqlx::query("SELECT id FROM projects WHERE name = $1")
        .bind(name)
        .fetch_optional(pool)
        .await?;
    r.map(|r| Ok(r.try_get(0)?)).transpose()
}

/// Live shared VLAN `id`, if project `project_id` is invited to it.
pub(crate) async fn invited(pool: &Pool, id: &str, project_id: &str) -> Result<Option<Booking>> {
    let sql = format!(
        "{BOOKING_SELECT} JOIN shared_vlan_members m ON m.booking_id = b.id \
         WHERE b.id = $1 AND m.project_id = $2 AND b.released_ms IS NULL"
    );
    let r = sqlx::query(&sql)
        .bind(id)
        .bind(project_id)
        .fetch_optional(pool)
        .await?;
    r.as_ref().map(booking_of).transpose()
}
