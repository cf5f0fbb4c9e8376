//! The gateway service through the controller (docs/wan.md; paper 002
//! §5.1): a network booking's outgoing NAT, and **public addresses**
//! leased from a node's pool (AWS's Elastic IPs, OpenStack's floating IPs,
//! FABRIC's FABNetv4Ext): lease (allocate and associate with a host of a
//! booking in one call), list, renew, release. Each is quota'd by the
//! service level's `max_public_addresses`, counted in the usage report
//! (`public-address` hours), never outlives its booking, and is released
//! with it or at its own end by the reaper. Each lease is a row; a partial
//! unique index keeps an address to one lease at a time.
//!
//! What a node gets: in the booking's document there, `nat` and `public`
//! entries (the pipeline's gateway, `crates/pipeline/src/gateway.rs`) and,
//! unless the booking routes 0.0.0.0/0 itself, a default route out of the
//! WAN port to the router beyond it (the node's `next_hop`).

use crate::authz::{Operation, Principal};
use crate::controller::Controller;
use crate::db::{self, Tx};
use crate::error::{Error, ErrorCode, QuotaDetail, Result};
use crate::model::{AllocationState, Booking};
use crate::nodes::NodeWan;
use crate::secrets;
use prism_netdoc::{ActionDoc, Addr, Mac, NetworkDoc, PortRef, RouteDoc, TunnelDoc};
use serde::{Deserialize, Serialize};
use sqlx::Row;
use std::net::Ipv4Addr;
use utoipa::ToSchema;

/// Lease a public address for a host of a booking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PublicAddressRequest {
    /// The booking's id (a provisioned network of the project).
    pub booking: String,
    /// The host inside the network the address stands for: its IPv4
    /// address (a routed network: a public address) or its MAC (a bridge
    /// network on one node: a public MAC, from the node's MAC pool).
    pub internal: String,
    /// The node whose pool the address comes from: for a network spanning
    /// nodes, the node of the part the host is on (required); else the
    /// booking's node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The lease's length (default and most: to the booking's end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_s: Option<i64>,
}

/// A public address's lease.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PublicAddress {
    /// An IPv4 address (`kind` "ipv4"), or a MAC (`kind` "mac": a public
    /// MAC standing for a bridge network's host).
    pub address: String,
    pub kind: String,
    pub booking: String,
    pub node: String,
    pub internal: String,
    pub user: String,
    pub created_ms: i64,
    pub expires_ms: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub released_ms: Option<i64>,
}

const PUBLIC_SELECT: &str = "SELECT a.address, a.kind, a.booking_id, n.name AS node_name, a.internal, \
     u.name AS user_name, a.created_ms, a.expires_ms, a.released_ms, a.node_id, a.user_id \
     FROM public_addresses a JOIN nodes n ON n.id = a.node_id JOIN users u ON u.id = a.user_id";

fn public_of(r: &sqlx::any::AnyRow) -> Result<PublicAddress> {
    Ok(PublicAddress {
        address: r.try_get("address")?,
        kind: r.try_get("kind")?,
        booking: r.try_get("booking_id")?,
        node: r.try_get("node_name")?,
        internal: r.try_get("internal")?,
        user: r.try_get("user_name")?,
        created_ms: r.try_get("created_ms")?,
        expires_ms: r.try_get("expires_ms")?,
        released_ms: r.try_get("released_ms")?,
    })
}

/// Adds the gateway's part of booking `b`'s document on a node with WAN
/// side `wan`: its NAT, its public addresses `(public, internal)`, and a
/// default route out of the WAN port. Nothing when it has neither.
pub(crate) fn gateway_doc(
    doc: &mut NetworkDoc,
    b: &Booking,
    wan: Option<&NodeWan>,
    publics: &[(String, String)],
) -> Result<()> {
    let (macs, publics): (Vec<_>, Vec<_>) =
        publics.iter().cloned().partition(|(p, _)| p.contains(':'));
    crate::public_mac::mac_doc(doc, b, wan, &macs)?;
    if !b.nat && publics.is_empty() {
        return Ok(());
    }
    let no_gateway = || {
        Error::conflict("its node has no gateway: a WAN port with a router beyond it (`next_hop`)")
            .with_field("nat")
    };
    let wan = wan.ok_or_else(no_gateway)?;
    let next_hop = wan.next_hop.as_deref().ok_or_else(no_gateway)?;
    let mac = |m: &str| {
        m.parse()
            .map(Mac)
            .map_err(|_| Error::internal(format!("a node's WAN MAC `{m}` is not one")))
    };
    if doc.forwarding != prism_netdoc::ForwardingMode::Destination {
        return Err(
            Error::invalid("the gateway routes by destination: `destination` forwarding")
                .with_field("spec.forwarding"),
        );
    }
    let vlan_push = b.vlan.map(|v| v as u16);
    if b.nat {
        doc.tunnel.push(TunnelDoc {
            nat: true,
            vlan_push,
            ..TunnelDoc::default()
        });
    }
    for (public, internal) in &publics {
        let addr = |a: &str| {
            a.parse()
                .map(Addr)
                .map_err(|_| Error::internal("an address"))
        };
        doc.tunnel.push(TunnelDoc {
            public: Some(addr(public)?),
            internal: Some(addr(internal)?),
            vlan_push,
            ..TunnelDoc::default()
        });
    }
    let default: prism_netdoc::Prefix = serde_json::from_value(serde_json::json!("0.0.0.0/0"))
        .map_err(|e| Error::internal(e.to_string()))?;
    if !doc.route.iter().any(|r| r.prefix == Some(default)) {
        doc.route.push(RouteDoc {
            prefix: Some(default),
            src: None,
            dst: None,
            action: ActionDoc {
                port: Some(PortRef::Name(wan.port.clone())),
                decrement_ttl: true,
                vlan_pop: true,
                set_src_mac: Some(mac(&wan.mac)?),
                set_dst_mac: Some(mac(next_hop)?),
                ..ActionDoc::default()
            },
        });
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

impl Controller {
    /// The public addresses `(public, internal)` booking `id` holds on
    /// node `node_id`.
    pub(crate) async fn publics_on<'e, E>(
        &self,
        ex: E,
        id: &str,
        node_id: &str,
    ) -> Result<Vec<(String, String)>>
    where
        E: sqlx::Executor<'e, Database = sqlx::Any>,
    {
        let rows = sqlx::query(
            "SELECT address, internal FROM public_addresses \
             WHERE booking_id = $1 AND node_id = $2 AND released_ms IS NULL ORDER BY address",
        )
        .bind(id)
        .bind(node_id)
        .fetch_all(ex)
        .await?;
        rows.iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
            .collect()
    }

    /// Active public addresses of a project.
    pub(crate) async fn public_count<'e, E>(&self, ex: E, project_id: &str) -> Result<i64>
    where
        E: sqlx::Executor<'e, Database = sqlx::Any>,
    {
        Ok(sqlx::query(
            "SELECT COUNT(*) FROM public_addresses WHERE project_id = $1 AND released_ms IS NULL",
        )
        .bind(project_id)
        .fetch_one(ex)
        .await?
        .try_get(0)?)
    }

    /// Leases a public address for a host of a provisioned network (see
    /// the module text); its node converges before the answer.
    pub async fn lease_public(
        &self,
        p: &Principal,
        project: &str,
        r: PublicAddressRequest,
    ) -> Result<PublicAddress> {
        let (m, level) = self
            .project_level_for(p, project, Operation::BookingsCreate)
            .await?;
        let b = self
            .booking_in(&m, &r.booking)
            .await
            .map_err(|e| e.with_field("booking"))?;
        p.may_touch(&m, Operation::BookingsCreate, &b.ids.user)?;
        if b.allocation_state != AllocationState::Provisioned || b.node.is_none() {
            return Err(
                Error::conflict("only a provisioned network has public addresses")
                    .with_field("booking"),
            );
        }
        let internal = crate::public_mac::Host::of(&r.internal, &b)?;
        let node = pool_node(&b, r.node.as_deref())?;
        let now = self.now_ms();
        let lease_s = r.lease_s.unwrap_or((b.expires_ms - now) / 1000);
        if lease_s < 60 {
            return Err(Error::invalid("at least 60 seconds").with_field("lease_s"));
        }
        let expires = (now + lease_s * 1000).min(b.expires_ms);
        let mut tx = db::booking_tx(&self.pool).await?;
        let used = self.public_count(&mut *tx, &m.project_id).await?;
        if used + 1 > level.max_public_addresses {
            return Err(Error::quota(QuotaDetail {
                resource: "public_addresses".into(),
                limit: level.max_public_addresses,
                used,
                requested: 1,
            }));
        }
        let address = self.take_public(&mut tx, &node, &b.id, internal).await?;
        sqlx::query("INSERT INTO public_addresses (id, address, node_id, project_id, user_id, booking_id, internal, created_ms, expires_ms, kind) \
             SELECT $1, $2, id, $3, $4, $5, $6, $7, $8, $10 FROM nodes WHERE name = $9")
            .bind(secrets::new_id())
            .bind(&address)
            .bind(&m.project_id)
            .bind(&p.user_id)
            .bind(&b.id)
            .bind(internal.text())
            .bind(now)
            .bind(expires)
            .bind(&node)
            .bind(internal.kind())
            .execute(&mut *tx)
            .await
            .map_err(|e| match crate::identity::unique_violation(&e) {
                true => Error::conflict("the address was taken meanwhile; lease again"),
                false => e.into(),
            })?;
        let node_id = self.bump_public_node(&mut tx, &address).await?;
        tx.commit().await?;
        self.reconcile_node(&node_id).await;
        self.public_in(&m.project_id, &address).await
    }

    /// The free address of node `node`'s pool (of IPv4 addresses or of
    /// MACs, by the host's kind) for host `internal` of booking `id`, or
    /// the refusal.
    async fn take_public(
        &self,
        tx: &mut Tx,
        node: &str,
        id: &str,
        internal: crate::public_mac::Host,
    ) -> Result<String> {
        let row = sqlx::query("SELECT id, wan FROM nodes WHERE name = $1")
            .bind(node)
            .fetch_one(&mut **tx)
            .await?;
        let node_id: String = row.try_get(0)?;
        let wan = crate::nodes::node_wan(&row)?;
        let held = sqlx::query(
            "SELECT address, booking_id, internal FROM public_addresses WHERE node_id = $1 AND released_ms IS NULL",
        )
        .bind(&node_id)
        .fetch_all(&mut **tx)
        .await?;
        let mut addresses = Vec::new();
        for r in &held {
            if r.try_get::<String, _>(1)? == id && r.try_get::<String, _>(2)? == internal.text() {
                return Err(Error::conflict(format!(
                    "host {} of this booking has public address {} already",
                    internal.text(),
                    r.try_get::<String, _>(0)?
                ))
                .with_field("internal"));
            }
            addresses.push(r.try_get::<String, _>(0)?);
        }
        let (free, pool) = match internal {
            crate::public_mac::Host::Ipv4(_) => {
                let Some((wan, pool)) = wan.as_ref().and_then(|w| Some((w.address, w.public?)))
                else {
                    return Err(no_pool(node, "public-address"));
                };
                let free = free_address(pool, wan, &addresses).map(|a| a.to_string());
                (free, format!("{}/{}", pool.0, pool.1))
            }
            crate::public_mac::Host::Mac(_) => {
                let Some(pool) = wan.as_ref().and_then(|w| w.public_macs) else {
                    return Err(no_pool(node, "public-MAC"));
                };
                (
                    crate::public_mac::free_mac(pool, &addresses),
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

    /// A new generation for the node of the active lease of `address`.
    async fn bump_public_node(&self, tx: &mut Tx, address: &str) -> Result<String> {
        let node_id: String = sqlx::query(
            "SELECT node_id FROM public_addresses WHERE address = $1 ORDER BY created_ms DESC LIMIT 1",
        )
        .bind(address)
        .fetch_one(&mut **tx)
        .await?
        .try_get(0)?;
        sqlx::query("UPDATE nodes SET generation = generation + 1 WHERE id = $1")
            .bind(&node_id)
            .execute(&mut **tx)
            .await?;
        Ok(node_id)
    }

    async fn public_in(&self, project_id: &str, address: &str) -> Result<PublicAddress> {
        let r = sqlx::query(&format!(
            "{PUBLIC_SELECT} WHERE a.project_id = $1 AND a.address = $2 ORDER BY a.created_ms DESC LIMIT 1"
        ))
        .bind(project_id)
        .bind(address)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| Error::not_found(format!("public address `{address}`")))?;
        public_of(&r)
    }

    /// The project's public addresses held now (with `all`, released too).
    pub async fn list_public(
        &self,
        p: &Principal,
        project: &str,
        all: bool,
    ) -> Result<Vec<PublicAddress>> {
        let m = self
            .project_for(p, project, Operation::BookingsRead)
            .await?;
        let rows = sqlx::query(&format!(
            "{PUBLIC_SELECT} WHERE a.project_id = $1 AND ($2 = 1 OR a.released_ms IS NULL) ORDER BY a.created_ms, a.address"
        ))
        .bind(&m.project_id)
        .bind(all as i64)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(public_of).collect()
    }

    /// The active lease of `address` in the caller's project, checked for
    /// `op` (a member touches only their own, as with bookings).
    async fn held_public(
        &self,
        p: &Principal,
        project: &str,
        address: &str,
        op: Operation,
    ) -> Result<(String, PublicAddress, i64)> {
        let m = self.project_for(p, project, op).await?;
        let r = sqlx::query(&format!(
            "{PUBLIC_SELECT} WHERE a.project_id = $1 AND a.address = $2 AND a.released_ms IS NULL"
        ))
        .bind(&m.project_id)
        .bind(address)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| Error::not_found(format!("public address `{address}`")))?;
        p.may_touch(&m, op, &r.try_get::<String, _>("user_id")?)?;
        let b = self
            .booking_in(&m, &r.try_get::<String, _>("booking_id")?)
            .await?;
        Ok((m.project_id, public_of(&r)?, b.expires_ms))
    }

    /// Renews a public address's lease to `lease_s` from now, never past
    /// its booking's end (`clamped` says so).
    pub async fn renew_public(
        &self,
        p: &Principal,
        project: &str,
        address: &str,
        lease_s: i64,
    ) -> Result<crate::model::Renewed> {
        if lease_s < 60 {
            return Err(Error::invalid("at least 60 seconds").with_field("lease_s"));
        }
        let (_, _, booking_end) = self
            .held_public(p, project, address, Operation::BookingsRenew)
            .await?;
        let wanted = self.now_ms() + lease_s * 1000;
        let expires = wanted.min(booking_end);
        sqlx::query("UPDATE public_addresses SET expires_ms = $2 WHERE address = $1 AND released_ms IS NULL")
            .bind(address)
            .bind(expires)
            .execute(&self.pool)
            .await?;
        Ok(crate::model::Renewed {
            expires_ms: expires,
            clamped: expires < wanted,
        })
    }

    /// Releases a public address: no longer the host's, from its node too.
    pub async fn release_public(
        &self,
        p: &Principal,
        project: &str,
        address: &str,
    ) -> Result<PublicAddress> {
        let (project_id, _, _) = self
            .held_public(p, project, address, Operation::BookingsRelease)
            .await?;
        let mut tx = db::booking_tx(&self.pool).await?;
        let node_id = self.bump_public_node(&mut tx, address).await?;
        sqlx::query("UPDATE public_addresses SET released_ms = $2 WHERE address = $1 AND released_ms IS NULL")
            .bind(address)
            .bind(self.now_ms())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.reconcile_node(&node_id).await;
        self.public_in(&project_id, address).await
    }

    /// Releases the public addresses of booking `id` (being released).
    pub(crate) async fn release_publics_of(&self, tx: &mut Tx, id: &str, now: i64) -> Result<()> {
        sqlx::query("UPDATE public_addresses SET released_ms = $2 WHERE booking_id = $1 AND released_ms IS NULL")
            .bind(id)
            .bind(now)
            .execute(&mut **tx)
            .await?;
        Ok(())
    }

    /// The reaper's share: public addresses past their end, or whose
    /// booking is released or past its end, released; their nodes
    /// reconciled. Returns how many.
    pub(crate) async fn reap_public(&self) -> Result<usize> {
        let now = self.now_ms();
        const DUE: &str = "released_ms IS NULL AND (expires_ms <= $1 OR booking_id IN \
             (SELECT id FROM bookings WHERE released_ms IS NOT NULL OR expires_ms <= $1))";
        let mut tx = db::booking_tx(&self.pool).await?;
        let nodes: Vec<String> = sqlx::query(&format!(
            "SELECT DISTINCT node_id FROM public_addresses WHERE {DUE}"
        ))
        .bind(now)
        .fetch_all(&mut *tx)
        .await?
        .iter()
        .map(|r| r.try_get(0))
        .collect::<std::result::Result<_, _>>()?;
        if nodes.is_empty() {
            return Ok(0);
        }
        sqlx::query(&format!("UPDATE nodes SET generation = generation + 1 WHERE id IN (SELECT node_id FROM public_addresses WHERE {DUE})"))
            .bind(now)
            .execute(&mut *tx)
            .await?;
        let n = sqlx::query(&format!(
            "UPDATE public_addresses SET released_ms = $1 WHERE {DUE}"
        ))
        .bind(now)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        tx.commit().await?;
        for node in nodes {
            self.reconcile_node(&node).await;
        }
        Ok(n as usize)
    }

    /// Hours of public addresses held by each user of project `project_id`
    /// within `[from_ms, to_ms)`: (user, kind, hours).
    pub(crate) async fn public_usage(
        &self,
        project_id: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<(String, String, f64)>> {
        let now = self.now_ms();
        let rows = sqlx::query(
            "SELECT u.name, a.created_ms, a.released_ms, a.expires_ms, a.kind FROM public_addresses a \
             JOIN users u ON u.id = a.user_id WHERE a.project_id = $1 AND a.created_ms < $3 \
             AND (a.released_ms IS NULL OR a.released_ms > $2) ORDER BY u.name",
        )
        .bind(project_id)
        .bind(from_ms)
        .bind(to_ms)
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::new();
        for r in rows {
            let end = r
                .try_get::<Option<i64>, _>(2)?
                .unwrap_or_else(|| now.min(r.try_get::<i64, _>(3).unwrap_or(now)));
            let (s, e) = (r.try_get::<i64, _>(1)?.max(from_ms), end.min(to_ms));
            out.push((
                r.try_get(0)?,
                r.try_get(4)?,
                e.saturating_sub(s).max(0) as f64 / 3_600_000.0,
            ));
        }
        Ok(out)
    }
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
