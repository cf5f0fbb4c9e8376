//! Shared VLANs (VANI's fabric, docs/processing.md): a `shared-vlan`
//! booking on a node that runs processing nodes, the projects its booker
//! invites, and leaving. The owner's and the invited projects'
//! processing nodes attach to it (`app::processing`); frames cross only
//! between them, as hosts on one VLAN behind the node's processing port.
//! Revoking an invitation, leaving or releasing the VLAN unplugs the
//! interfaces that were on it at the node's next pass, which the call
//! waits for.

use crate::app::audit::commit_audited;
use crate::app::authz::{Operation, Principal};
use crate::app::bookings::{booking_to_change, change_wait};
use crate::app::context::Context;
use crate::app::operations::{begin_operation, node_changed};
use crate::app::projects::project_for;
use crate::datastore::nodes::bump_generation;
use crate::datastore::shared_vlans as store;
use crate::error::{Error, ErrorCode, Result};
use crate::infra::db::{self, Tx};
use crate::model::{Booking, SHARED_VLAN, SharedVlanSpec};
use prism_controller_api::{SharedVlanView, VlanMember};

/// The node (id, name) a booking of type `rtype` goes on if it is a
/// shared VLAN (`None` for another type): the one its spec names, or
/// the first that runs processing nodes; one that runs none is refused.
pub(crate) async fn place_request(
    tx: &mut Tx,
    rtype: &str,
    spec: &serde_json::Value,
) -> Result<Option<(String, String)>> {
    if rtype != SHARED_VLAN {
        return Ok(None);
    }
    let spec: SharedVlanSpec = serde_json::from_value(spec.clone())
        .map_err(|e| Error::invalid(e.to_string()).with_field("spec"))?;
    let found = store::node_for(tx, spec.node.as_deref()).await?;
    match (found, spec.node) {
        (Some((id, name, Some(_))), _) => Ok(Some((id, name))),
        (Some((_, name, None)), _) => Err(Error::new(
            ErrorCode::NoCapacity,
            format!("node `{name}` runs no processing nodes (prism node --processing-port)"),
        )
        .with_field("spec.node")),
        (None, Some(n)) => Err(Error::not_found(format!("node `{n}`")).with_field("spec.node")),
        (None, None) => Err(Error::new(
            ErrorCode::NoCapacity,
            "no node runs processing nodes (prism node --processing-port)",
        )
        .with_field("spec.node")),
    }
}

/// Shared VLAN `id` of `project`, which the caller may change (its
/// booker or a project owner).
async fn owned(cx: &Context, p: &Principal, project: &str, id: &str) -> Result<Booking> {
    let (_, b) = booking_to_change(cx, p, project, id, Operation::BookingsCreate).await?;
    if b.resource_type != SHARED_VLAN || b.released_ms.is_some() {
        return Err(
            Error::invalid(format!("booking `{id}` is no live shared VLAN")).with_field("id"),
        );
    }
    Ok(b)
}

pub async fn list_members(
    cx: &Context,
    p: &Principal,
    project: &str,
    id: &str,
) -> Result<Vec<VlanMember>> {
    let m = project_for(cx, p, project, Operation::BookingsRead).await?;
    let b = crate::app::bookings::booking_in(cx, &m, id).await?;
    if b.resource_type != SHARED_VLAN {
        return Err(Error::invalid(format!("booking `{id}` is no shared VLAN")).with_field("id"));
    }
    store::members(&cx.pool, id).await
}

/// Invites project `member` to shared VLAN `id` (again: as it was).
pub async fn invite(
    cx: &Context,
    p: &Principal,
    project: &str,
    id: &str,
    member: &str,
) -> Result<VlanMember> {
    let b = owned(cx, p, project, id).await?;
    let member_id = store::project_id(&cx.pool, member)
        .await?
        .ok_or_else(|| Error::not_found(format!("project `{member}`")).with_field("project"))?;
    if member_id == b.ids.project {
        return Err(Error::invalid("the VLAN's own project is on it").with_field("project"));
    }
    let mut tx = db::begin(&cx.pool).await?;
    match store::invite(&mut tx, id, &member_id, (&p.user_id, cx.now_ms())).await? {
        // Its processing nodes already attached to it are plugged in.
        true => to_node(cx, tx, &b, 200).await?,
        false => commit_audited(cx, tx, 200).await?,
    }
    let members = store::members(&cx.pool, id).await?;
    members
        .into_iter()
        .find(|v| v.project == member)
        .ok_or_else(|| Error::internal("an invitation written and not read back"))
}

/// Revokes project `member`'s invitation to shared VLAN `id` (its
/// booker or the project's owner).
pub async fn revoke(
    cx: &Context,
    p: &Principal,
    project: &str,
    id: &str,
    member: &str,
) -> Result<()> {
    let b = owned(cx, p, project, id).await?;
    let member_id = store::project_id(&cx.pool, member).await?;
    let not_invited = || Error::not_found(format!("project `{member}` on `{}`", b.name));
    let member_id = member_id.ok_or_else(not_invited)?;
    cut_off(cx, &b, &member_id)
        .await?
        .then_some(())
        .ok_or_else(not_invited)
}

/// The live shared VLANs `project` is invited to.
pub async fn invited_to(cx: &Context, p: &Principal, project: &str) -> Result<Vec<SharedVlanView>> {
    let m = project_for(cx, p, project, Operation::BookingsRead).await?;
    store::invited_to(&cx.pool, &m.project_id).await
}

/// `project` leaves shared VLAN `id` (its owners: it cuts off every
/// member's processing nodes on it).
pub async fn leave(cx: &Context, p: &Principal, project: &str, id: &str) -> Result<()> {
    let m = project_for(cx, p, project, Operation::MembersManage).await?;
    let b = store::invited(&cx.pool, id, &m.project_id)
        .await?
        .ok_or_else(|| Error::not_found(format!("shared VLAN `{id}`")))?;
    // The project's decision, not the VLAN's booker's: named in an
    // administrator's override.
    p.may_touch(
        &m,
        Operation::MembersManage,
        "",
        &format!("shared VLAN {id}"),
    )?;
    cut_off(cx, &b, &m.project_id).await.map(drop)
}

/// Removes project `member_id` from shared VLAN `b`, and has its node
/// unplug that project's processing nodes from it before answering
/// (within the change wait); false if it was not invited.
async fn cut_off(cx: &Context, b: &Booking, member_id: &str) -> Result<bool> {
    let mut tx = db::begin(&cx.pool).await?;
    if !store::remove(&mut tx, &b.id, member_id).await? {
        return Ok(false);
    }
    to_node(cx, tx, b, 204).await?;
    Ok(true)
}

/// Commits `tx`, a change of who is on shared VLAN `b`, with a new
/// generation for its node, and waits (the change wait at most) for the
/// node to take it.
async fn to_node(cx: &Context, mut tx: Tx, b: &Booking, status: u16) -> Result<()> {
    let op = begin_operation(cx, &mut tx, b, "shared-vlan-members").await?;
    // The node's processing state is sent whole at each pass: a new
    // generation is all it takes.
    if let Some(node) = &b.ids.node {
        bump_generation(&mut tx, node, &b.id).await?;
    }
    commit_audited(cx, tx, status).await?;
    node_changed(cx, op, change_wait(cx)).await;
    Ok(())
}
