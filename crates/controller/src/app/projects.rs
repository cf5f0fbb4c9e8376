//! Projects (VANI's application plans), their members and roles, and
//! service levels (which operations a project may call and how much it may
//! book).

use crate::app::authz::{Membership, Operation, Principal};
use crate::app::checks::check_name;
use crate::app::context::Context;
use crate::datastore::identity;
use crate::datastore::projects as store;
use crate::error::{Error, Result};
use crate::infra::secrets;

pub use prism_controller_api::projects::{
    MemberRequest, MemberView, ProjectRequest, ProjectView, STANDARD, ServiceLevel,
};

/// A service level's figures checked: names, no negative quota, leases
/// from a minute to ten years.
fn check_level(l: &ServiceLevel) -> Result<()> {
    check_name("name", &l.name)?;
    for (f, v) in [
        ("max_hw_networks", l.max_hw_networks),
        ("max_sw_networks", l.max_sw_networks),
        ("max_bandwidth_mbps", l.max_bandwidth_mbps),
        ("max_lease_hours", l.max_lease_hours),
        ("max_public_addresses", l.max_public_addresses),
        ("max_storage_bytes", l.max_storage_bytes),
    ] {
        if v < 0 {
            return Err(Error::invalid("at least 0").with_field(f));
        }
    }
    if !(60..=crate::app::checks::MAX_KEY_TTL_S).contains(&l.max_lease_s) {
        return Err(Error::invalid("60 seconds to ten years").with_field("max_lease_s"));
    }
    if !(60..=l.max_lease_s).contains(&l.default_lease_s) {
        return Err(Error::invalid("60 seconds to max_lease_s").with_field("default_lease_s"));
    }
    Ok(())
}

/// Adds or replaces a service level (administrators).
pub async fn put_service_level(
    cx: &Context,
    p: &Principal,
    l: ServiceLevel,
) -> Result<ServiceLevel> {
    p.require_admin()?;
    upsert_service_level(cx, &l).await?;
    // What a project's credentials may call changed.
    cx.auth_cache.clear();
    Ok(l)
}

/// The standard level, on a new database.
pub(crate) async fn seed_service_levels(cx: &Context) -> Result<()> {
    if store::count_service_levels(&cx.pool).await? == 0 {
        upsert_service_level(cx, &ServiceLevel::standard()).await?;
    }
    Ok(())
}

pub(crate) async fn upsert_service_level(cx: &Context, l: &ServiceLevel) -> Result<()> {
    check_level(l)?;
    store::upsert_service_level(&cx.pool, l, cx.now_ms()).await
}

pub async fn list_service_levels(cx: &Context, _p: &Principal) -> Result<Vec<ServiceLevel>> {
    store::service_levels(&cx.pool).await
}

pub async fn create_project(cx: &Context, p: &Principal, r: ProjectRequest) -> Result<ProjectView> {
    p.require_admin()?;
    check_name("name", &r.name)?;
    let owner = user_id(cx, &r.owner)
        .await
        .map_err(|e| e.with_field("owner"))?;
    let v = ProjectView {
        id: secrets::new_id(),
        name: r.name,
        service_level: r.service_level,
        role: None,
        created_ms: cx.now_ms(),
    };
    store::insert_project(&cx.pool, &v, &owner).await?;
    Ok(v)
}

/// The projects the caller sees: their own, or all for an admin (a
/// project-scoped caller: that one only).
pub async fn list_projects(cx: &Context, p: &Principal) -> Result<Vec<ProjectView>> {
    let all = store::projects_with_role(&cx.pool, &p.user_id).await?;
    Ok(all
        .into_iter()
        .filter(|v| p.project_id.as_deref().is_none_or(|s| s == v.id))
        .filter(|v| p.is_admin || v.role.is_some())
        .collect())
}

/// What `user_id` is in project `name`, if it exists.
pub(crate) async fn membership_of(
    cx: &Context,
    user_id: &str,
    name: &str,
) -> Result<Option<String>> {
    store::member_project_id(&cx.pool, user_id, name).await
}

/// The project `name` as the caller sees it, checked for `op`: 404 if
/// it does not exist or the caller may not see it, 403 if they may see
/// it but not call `op`.
pub async fn project_for(
    cx: &Context,
    p: &Principal,
    name: &str,
    op: Operation,
) -> Result<Membership> {
    Ok(project_level_for(cx, p, name, op).await?.0)
}

/// As [`project_for`], with the project's service level (one query).
pub(crate) async fn project_level_for(
    cx: &Context,
    p: &Principal,
    name: &str,
    op: Operation,
) -> Result<(Membership, ServiceLevel)> {
    let found = match p.seen(name) {
        Some(found) => found.clone(),
        None => store::project_and_level(&cx.pool, name, &p.user_id).await?,
    };
    if !p.sees(found.as_ref().map(|f| &f.0)) {
        return Err(Error::not_found(format!("project `{name}`")));
    }
    let (m, level) = found.ok_or_else(|| Error::not_found(format!("project `{name}`")))?;
    p.may(&m, op)?;
    Ok((m, level))
}

pub async fn get_project(cx: &Context, p: &Principal, name: &str) -> Result<ProjectView> {
    let m = project_for(cx, p, name, Operation::BookingsRead).await?;
    let (service_level, created_ms) =
        store::project_level_and_created(&cx.pool, &m.project_id).await?;
    Ok(ProjectView {
        id: m.project_id,
        name: m.project,
        service_level,
        created_ms,
        role: m.role,
    })
}

pub async fn list_members(cx: &Context, p: &Principal, project: &str) -> Result<Vec<MemberView>> {
    let m = project_for(cx, p, project, Operation::BookingsRead).await?;
    store::members(&cx.pool, &m.project_id).await
}

pub async fn set_member(
    cx: &Context,
    p: &Principal,
    project: &str,
    user: &str,
    r: MemberRequest,
) -> Result<MemberView> {
    let m = project_for(cx, p, project, Operation::MembersManage).await?;
    let uid = user_id(cx, user).await?;
    store::set_member(&cx.pool, &m.project_id, &uid, r.role).await?;
    // What its credentials stand for in the project changed.
    cx.auth_cache.clear();
    Ok(MemberView {
        user: user.into(),
        role: r.role,
    })
}

pub async fn remove_member(cx: &Context, p: &Principal, project: &str, user: &str) -> Result<()> {
    let m = project_for(cx, p, project, Operation::MembersManage).await?;
    let uid = user_id(cx, user).await?;
    if !store::remove_member(&cx.pool, &m.project_id, &uid).await? {
        return Err(Error::not_found(format!("member `{user}`")));
    }
    cx.auth_cache.clear();
    Ok(())
}

pub(crate) async fn user_id(cx: &Context, name: &str) -> Result<String> {
    identity::user_id(&cx.pool, name)
        .await?
        .ok_or_else(|| Error::not_found(format!("user `{name}`")))
}
