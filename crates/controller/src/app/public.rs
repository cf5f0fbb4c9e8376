//! Public addresses leased from a node's gateway pool (AWS's Elastic IPs,
//! OpenStack's floating IPs, FABRIC's FABNetv4Ext): lease (allocate and
//! associate with a host of a booking in one call), list, renew, release.
//! Each is quota'd by the service level's `max_public_addresses`, counted
//! in the usage report (`public-address` hours), never outlives its
//! booking, and is released with it or at its own end by the reaper. Each
//! lease is a row; a partial unique index keeps an address to one lease
//! at a time. What a node gets is `crate::app::gateway`'s.

use crate::app::authz::{Operation, Principal};
use crate::app::bookings::booking_in;
use crate::app::context::Context;
use crate::app::node_work::{kick, kick_all, pass_wait};
use crate::app::projects::{project_for, project_level_for};
use crate::datastore::public_addresses as store;
use crate::error::{Error, ErrorCode, QuotaDetail, Result};
use crate::infra::db::{self, Tx};
use crate::infra::secrets;
use crate::model::{AllocationState, Booking};
pub use prism_controller_api::gateway::{PublicAddress, PublicAddressRequest};
use std::net::Ipv4Addr;

/// The project's quota of public addresses, checked for one more.
async fn one_more_public(tx: &mut Tx, project_id: &str, limit: i64) -> Result<()> {
    let used = store::count_active(&mut **tx, project_id).await?;
    if used + 1 > limit {
        return Err(Error::quota(QuotaDetail {
            resource: "public_addresses".into(),
            limit,
            used,
            requested: 1,
        }));
    }
    Ok(())
}

/// The first address of `pool` that is not in `held` nor `wan`: its
/// network and broadcast addresses skipped when it has them.
fn free_address(pool: (Ipv4Addr, u8), wan: Ipv4Addr, held: &[String]) -> Option<Ipv4Addr> {
    let (base, len) = (u32::from(pool.0), pool.1);
    let size = 1u64 << (32 - u32::from(len));
    let (first, last) = if size > 2 {
        (1, size - 2)
    } else {
        (0, size - 1)
    };
    let mask = if len == 0 {
        0
    } else {
        u32::MAX << (32 - u32::from(len))
    };
    (first..=last)
        .map(|i| Ipv4Addr::from((base & mask).wrapping_add(i as u32)))
        .find(|a| *a != wan && !held.iter().any(|h| h == &a.to_string()))
}

fn no_pool(node: &str, what: &str) -> Error {
    Error::conflict(format!("node `{node}` has no {what} pool")).with_field("node")
}

/// The node whose pool a public address of booking `b` comes from:
/// `asked`, one of its parts' nodes (required when it spans nodes), or
/// its node.
fn pool_node(b: &Booking, asked: Option<&str>) -> Result<String> {
    match (asked, b.parts.is_empty()) {
        (None, true) => Ok(b.node.clone().unwrap_or_default()),
        (Some(n), false) if b.parts.iter().any(|pt| pt.node == n) => Ok(n.to_string()),
        (Some(n), true) if b.node.as_deref() == Some(n) => Ok(n.to_string()),
        _ => {
            let names: Vec<_> = b.parts.iter().map(|pt| pt.node.as_str()).collect();
            Err(Error::invalid(match names.is_empty() {
                true => format!(
                    "the booking's node `{}` (or none)",
                    b.node.clone().unwrap_or_default()
                ),
                false => format!("one of the booking's nodes: {}", names.join(", ")),
            })
            .with_field("node"))
        }
    }
}

/// Leases a public address for a host of a provisioned network (see
/// the module text); its node converges before the answer.
pub async fn lease_public(
    cx: &Context,
    p: &Principal,
    project: &str,
    r: PublicAddressRequest,
) -> Result<PublicAddress> {
    let (m, level) = project_level_for(cx, p, project, Operation::BookingsCreate).await?;
    let b = booking_in(cx, &m, &r.booking)
        .await
        .map_err(|e| e.with_field("booking"))?;
    p.may_touch(
        &m,
        Operation::BookingsCreate,
        &b.ids.user,
        &format!("booking {}", b.id),
    )?;
    if b.allocation_state != AllocationState::Provisioned || b.node.is_none() {
        return Err(
            Error::conflict("only a provisioned network has public addresses")
                .with_field("booking"),
        );
    }
    let internal = crate::app::public_mac::Host::of(&r.internal, &b)?;
    let node = pool_node(&b, r.node.as_deref())?;
    let now = cx.now_ms();
    let lease_s = r.lease_s.unwrap_or((b.expires_ms - now) / 1000);
    if lease_s < 60 {
        return Err(Error::invalid("at least 60 seconds").with_field("lease_s"));
    }
    let expires = (now + lease_s * 1000).min(b.expires_ms);
    let mut tx = db::project_tx(&cx.pool, &m.project_id, true).await?;
    one_more_public(&mut tx, &m.project_id, level.max_public_addresses).await?;
    let address = take_public(&mut tx, &node, &b.id, internal).await?;
    let row = store::NewPublic {
        id: &secrets::new_id(),
        address: &address,
        node: &node,
        project_id: &m.project_id,
        user_id: &p.user_id,
        booking_id: &b.id,
        internal: &internal.text(),
        kind: internal.kind(),
        created_ms: now,
        expires_ms: expires,
    };
    store::insert(&mut tx, &row).await?;
    let node_id = bump_public_node(&mut tx, &address).await?;
    tx.commit().await?;
    kick(cx, &node_id).wait_at_most(pass_wait(cx)).await;
    public_in(cx, &m.project_id, &address).await
}

/// The free address of node `node`'s pool (of IPv4 addresses or of
/// MACs, by the host's kind) for host `internal` of booking `id`, or
/// the refusal.
async fn take_public(
    tx: &mut Tx,
    node: &str,
    id: &str,
    internal: crate::app::public_mac::Host,
) -> Result<String> {
    let n = crate::datastore::nodes::by_name(tx, node)
        .await?
        .ok_or_else(|| Error::not_found(format!("node `{node}`")).with_field("node"))?;
    let wan = n.wan;
    let mut addresses = Vec::new();
    for (address, booking, host) in store::held_on(tx, &n.id).await? {
        if booking == id && host == internal.text() {
            return Err(Error::conflict(format!(
                "host {} of this booking has public address {address} already",
                internal.text(),
            ))
            .with_field("internal"));
        }
        addresses.push(address);
    }
    let (free, pool) = match internal {
        crate::app::public_mac::Host::Ipv4(_) => {
            let Some((wan, pool)) = wan.as_ref().and_then(|w| Some((w.address, w.public?))) else {
                return Err(no_pool(node, "public-address"));
            };
            let free = free_address(pool, wan, &addresses).map(|a| a.to_string());
            (free, format!("{}/{}", pool.0, pool.1))
        }
        crate::app::public_mac::Host::Mac(_) => {
            let Some(pool) = wan.as_ref().and_then(|w| w.public_macs) else {
                return Err(no_pool(node, "public-MAC"));
            };
            (
                crate::app::public_mac::free_mac(pool, &addresses),
                pool.to_string(),
            )
        }
    };
    free.ok_or_else(|| {
        Error::new(
            ErrorCode::NoCapacity,
            format!("the pool {pool} of node `{node}` is exhausted"),
        )
    })
}

/// A new generation for the node of the active lease of `address`
/// (its change: the lease's booking).
async fn bump_public_node(tx: &mut Tx, address: &str) -> Result<String> {
    let (node_id, booking) = store::active_node_of(tx, address).await?;
    crate::datastore::nodes::bump_generation(tx, &node_id, &booking).await?;
    Ok(node_id)
}

async fn public_in(cx: &Context, project_id: &str, address: &str) -> Result<PublicAddress> {
    store::latest(&cx.pool, project_id, address)
        .await?
        .ok_or_else(|| Error::not_found(format!("public address `{address}`")))
}

/// The project's public addresses held now (with `all`, released too).
pub async fn list_public(
    cx: &Context,
    p: &Principal,
    project: &str,
    all: bool,
) -> Result<Vec<PublicAddress>> {
    let m = project_for(cx, p, project, Operation::BookingsRead).await?;
    store::list(&cx.pool, &m.project_id, all).await
}

/// The active lease of `address` in the caller's project, checked for
/// `op` (a member touches only their own, as with bookings).
async fn held_public(
    cx: &Context,
    p: &Principal,
    project: &str,
    address: &str,
    op: Operation,
) -> Result<(String, PublicAddress, i64)> {
    let m = project_for(cx, p, project, op).await?;
    let (a, user_id) = store::active(&cx.pool, &m.project_id, address)
        .await?
        .ok_or_else(|| Error::not_found(format!("public address `{address}`")))?;
    p.may_touch(&m, op, &user_id, &format!("public address {address}"))?;
    let b = booking_in(cx, &m, &a.booking).await?;
    Ok((m.project_id, a, b.expires_ms))
}

/// Renews a public address's lease to `lease_s` from now, never past
/// its booking's end (`clamped` says so).
pub async fn renew_public(
    cx: &Context,
    p: &Principal,
    project: &str,
    address: &str,
    lease_s: i64,
) -> Result<crate::model::Renewed> {
    if lease_s < 60 {
        return Err(Error::invalid("at least 60 seconds").with_field("lease_s"));
    }
    let (_, _, booking_end) =
        held_public(cx, p, project, address, Operation::BookingsRenew).await?;
    let wanted = cx.now_ms() + lease_s * 1000;
    let expires = wanted.min(booking_end);
    store::set_expires(&cx.pool, address, expires).await?;
    Ok(crate::model::Renewed {
        expires_ms: expires,
        clamped: expires < wanted,
    })
}

/// Releases a public address: no longer the host's, from its node too.
pub async fn release_public(
    cx: &Context,
    p: &Principal,
    project: &str,
    address: &str,
) -> Result<PublicAddress> {
    let (project_id, _, _) =
        held_public(cx, p, project, address, Operation::BookingsRelease).await?;
    let mut tx = db::project_tx(&cx.pool, &project_id, true).await?;
    let node_id = bump_public_node(&mut tx, address).await?;
    store::release(&mut tx, address, cx.now_ms()).await?;
    tx.commit().await?;
    kick(cx, &node_id).wait_at_most(pass_wait(cx)).await;
    public_in(cx, &project_id, address).await
}

/// The reaper's share: public addresses past their end, or whose
/// booking is released or past its end, released; their nodes asked
/// for a pass. Returns how many.
pub(crate) async fn reap_public(cx: &Context) -> Result<usize> {
    let now = cx.now_ms();
    let mut tx = db::booking_tx(&cx.pool).await?;
    let (nodes, n) = store::expire_due(&mut tx, now).await?;
    tx.commit().await?;
    kick_all(cx, &nodes);
    Ok(n)
}

/// Hours of public addresses held by each user of project `project_id`
/// within `[from_ms, to_ms)`: (user, kind, hours).
pub(crate) async fn public_usage(
    cx: &Context,
    project_id: &str,
    from_ms: i64,
    to_ms: i64,
) -> Result<Vec<(String, String, f64)>> {
    let now = cx.now_ms();
    let rows = store::held_between(&cx.pool, project_id, from_ms, to_ms).await?;
    let mut out = Vec::new();
    for l in rows {
        let end = l.released_ms.unwrap_or_else(|| now.min(l.expires_ms));
        let (s, e) = (l.created_ms.max(from_ms), end.min(to_ms));
        out.push((
            l.user,
            l.kind,
            e.saturating_sub(s).max(0) as f64 / 3_600_000.0,
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_gives_its_hosts_not_its_ends_nor_the_wan_address() {
        let pool = ("203.0.113.16".parse().unwrap(), 30);
        let wan: Ipv4Addr = "203.0.113.17".parse().unwrap();
        assert_eq!(
            free_address(pool, wan, &[]),
            Some("203.0.113.18".parse().unwrap())
        );
        assert_eq!(free_address(pool, wan, &["203.0.113.18".into()]), None);
        let one = ("198.51.100.7".parse().unwrap(), 32);
        assert_eq!(
            free_address(one, wan, &[]),
            Some("198.51.100.7".parse().unwrap())
        );
    }
}
