//! Nodes: registration, liveness, and placement across nodes and tiers
//! through the placement library.

use crate::authz::Principal;
use crate::controller::Controller;
use crate::error::{Error, ErrorCode, Result};
use crate::identity::{check_name, unique_violation};
use crate::secrets;
use prism_netdoc::TierChoice;
use prism_node_api::{Endpoint, NodeClient};
use prism_placement::{Capacity, Decision, NoMigration, Policy, Request, State, Tier};
use serde::{Deserialize, Serialize};
use sqlx::Row;
use std::net::Ipv4Addr;
use utoipa::ToSchema;

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeRequest {
    pub name: String,
    /// The node API's TCP address (`prism node --api-listen`).
    pub address: String,
    /// Aggregate bandwidth of its hardware and software tiers, Mbit/s
    /// (paper 000: 1000 and 100).
    #[serde(default = "default_hw")]
    pub hw_mbps: i64,
    #[serde(default = "default_sw")]
    pub sw_mbps: i64,
}

fn default_hw() -> i64 {
    1000
}
fn default_sw() -> i64 {
    100
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NodeView {
    pub id: String,
    pub name: String,
    pub address: String,
    /// The node's device profile (a model of an FPGA).
    pub device: String,
    pub slots: i64,
    pub hw_mbps: i64,
    pub sw_mbps: i64,
    pub ports: Vec<String>,
    /// Desired state's generation, and the last the node converged to.
    pub generation: i64,
    pub applied_generation: i64,
    pub last_seen_ms: i64,
    /// Heard from within the node timeout.
    pub up: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// Its uplink to the wide area, as it reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wan: Option<prism_node_api::WanInfo>,
    /// Booked on it: hardware slots, and Mbit/s per tier.
    pub used_slots: i64,
    pub used_hw_mbps: i64,
    pub used_sw_mbps: i64,
}

/// A node as placement sees it.
#[derive(Debug, Clone)]
pub(crate) struct NodeRow {
    pub id: String,
    pub name: String,
    pub address: String,
    pub ports: Vec<String>,
    pub slots: i64,
    pub hw_mbps: i64,
    pub sw_mbps: i64,
    pub last_seen_ms: i64,
    pub wan: Option<NodeWan>,
}

pub(crate) const NODE_COLUMNS: &str =
    "id, name, address, ports, slots, hw_mbps, sw_mbps, last_seen_ms, wan";

pub(crate) fn node_row(r: &sqlx::any::AnyRow) -> Result<NodeRow> {
    Ok(NodeRow {
        id: r.try_get("id")?,
        name: r.try_get("name")?,
        address: r.try_get("address")?,
        ports: serde_json::from_str(&r.try_get::<String, _>("ports")?).unwrap_or_default(),
        slots: r.try_get("slots")?,
        hw_mbps: r.try_get("hw_mbps")?,
        sw_mbps: r.try_get("sw_mbps")?,
        last_seen_ms: r.try_get("last_seen_ms")?,
        wan: node_wan(r)?,
    })
}

/// A node's WAN port as it reported it.
#[derive(Debug, Clone)]
pub(crate) struct NodeWan {
    pub port: String,
    pub address: Ipv4Addr,
    pub mac: String,
    /// The router beyond the port (the gateway's next hop), if reported.
    pub next_hop: Option<String>,
    /// The node's pool of public addresses (network address, length).
    pub public: Option<(Ipv4Addr, u8)>,
    /// The node's pool of public MACs.
    pub public_macs: Option<prism_netdoc::MacBlock>,
}

pub(crate) fn node_wan(r: &sqlx::any::AnyRow) -> Result<Option<NodeWan>> {
    let Some(text) = r.try_get::<Option<String>, _>("wan")? else {
        return Ok(None);
    };
    let w: prism_node_api::WanInfo =
        serde_json::from_str(&text).map_err(|e| Error::internal(e.to_string()))?;
    Ok(w.address.parse().ok().map(|address| NodeWan {
        port: w.port,
        address,
        mac: w.mac,
        next_hop: w.next_hop,
        public: w.public.as_deref().and_then(|p| {
            let (a, l) = p.split_once('/')?;
            Some((a.parse().ok()?, l.parse().ok().filter(|l| *l <= 32)?))
        }),
        public_macs: w.public_macs.as_deref().and_then(|p| p.parse().ok()),
    }))
}

/// Where a booking goes.
#[derive(Debug, Clone)]
pub(crate) struct Placement {
    pub node: NodeRow,
    pub tier: Tier,
}

/// What is booked on node `$1`: (tier, Mbit/s) of its own networks and
/// of the parts of spanning networks placed on it.
pub(crate) const NODE_LOAD: &str = "SELECT b.tier, b.bandwidth_mbps FROM bookings b \
     WHERE b.node_id = $1 AND b.released_ms IS NULL \
     AND NOT EXISTS (SELECT 1 FROM booking_parts p WHERE p.booking_id = b.id) \
     UNION ALL SELECT b.tier, b.bandwidth_mbps FROM booking_parts p \
     JOIN bookings b ON b.id = p.booking_id WHERE p.node_id = $1 AND b.released_ms IS NULL";

impl Controller {
    pub(crate) fn client(&self, address: &str) -> NodeClient {
        NodeClient::new(Endpoint::Tcp {
            addr: address.to_string(),
            token: self.settings.node_secret.clone(),
        })
    }

    /// Registers a node: the controller asks it what it is, with its
    /// credential, before recording it.
    pub async fn register_node(&self, p: &Principal, r: NodeRequest) -> Result<NodeView> {
        p.require_admin()?;
        check_name("name", &r.name)?;
        if r.hw_mbps < 0 || r.sw_mbps < 0 {
            return Err(Error::invalid("at least 0").with_field("hw_mbps"));
        }
        let info = self.client(&r.address).node().await.map_err(|e| {
            Error::new(
                ErrorCode::NodeFailed,
                format!("the node at {} did not answer: {e}", r.address),
            )
            .with_field("address")
        })?;
        let id = secrets::new_id();
        let now = self.now_ms();
        sqlx::query("INSERT INTO nodes (id, name, address, device, slots, hw_mbps, sw_mbps, ports, generation, applied_generation, last_seen_ms, created_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, 0, $9, $9)")
            .bind(&id)
            .bind(&r.name)
            .bind(&r.address)
            .bind(&info.device)
            .bind(info.hardware_slots.total as i64)
            .bind(r.hw_mbps)
            .bind(r.sw_mbps)
            .bind(serde_json::to_string(&info.ports).unwrap_or_default())
            .bind(now)
            .execute(&self.pool)
            .await
            .map_err(|e| {
                if unique_violation(&e) {
                    Error::conflict(format!("a node `{}` exists", r.name)).with_field("name")
                } else {
                    e.into()
                }
            })?;
        let mut tx = self.pool.begin().await?;
        self.record_wan(&mut tx, &id, info.wan.as_ref()).await?;
        tx.commit().await?;
        self.reconcile_node(&id).await;
        self.node_view(&id).await
    }

    pub async fn list_nodes(&self, p: &Principal) -> Result<Vec<NodeView>> {
        p.require_admin()?;
        let ids = sqlx::query("SELECT id FROM nodes ORDER BY name")
            .fetch_all(&self.pool)
            .await?;
        let mut out = Vec::new();
        for r in ids {
            out.push(self.node_view(&r.try_get::<String, _>(0)?).await?);
        }
        Ok(out)
    }

    async fn node_view(&self, id: &str) -> Result<NodeView> {
        let r = sqlx::query("SELECT * FROM nodes WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| Error::not_found("such node"))?;
        let n = node_row(&r)?;
        let u = sqlx::query(&format!(
            "SELECT CAST(COALESCE(SUM(CASE WHEN tier = 'hardware' THEN 1 ELSE 0 END), 0) AS BIGINT), \
             CAST(COALESCE(SUM(CASE WHEN tier = 'hardware' THEN bandwidth_mbps ELSE 0 END), 0) AS BIGINT), \
             CAST(COALESCE(SUM(CASE WHEN tier = 'software' THEN bandwidth_mbps ELSE 0 END), 0) AS BIGINT) \
             FROM ({NODE_LOAD}) AS load"
        ))
        .bind(id)
        .fetch_one(&self.pool)
        .await?;
        Ok(NodeView {
            up: self.now_ms() - n.last_seen_ms <= self.settings.node_timeout_ms,
            id: n.id,
            name: n.name,
            address: n.address,
            device: r.try_get("device")?,
            slots: n.slots,
            hw_mbps: n.hw_mbps,
            sw_mbps: n.sw_mbps,
            ports: n.ports,
            generation: r.try_get("generation")?,
            applied_generation: r.try_get("applied_generation")?,
            last_seen_ms: n.last_seen_ms,
            last_error: r.try_get("last_error")?,
            wan: r
                .try_get::<Option<String>, _>("wan")?
                .and_then(|w| serde_json::from_str(&w).ok()),
            used_slots: u.try_get(0)?,
            used_hw_mbps: u.try_get(1)?,
            used_sw_mbps: u.try_get(2)?,
        })
    }

    /// Whether `mbps` in `tier` (`auto`: the placement library's
    /// admission, software first) fits on node `n`: the tier it would take
    /// and that tier's load before it, or `None`.
    /// Gives each part of `parts` that names no node one: up, with a WAN
    /// port and room for `mbps` in `tier`, named by no other part, the
    /// least loaded first. A part left without one is refused (503, at
    /// its `node`).
    pub(crate) async fn choose_span_nodes(
        &self,
        tx: &mut crate::db::Tx,
        parts: &mut [crate::model::PartRequest],
        tier: TierChoice,
        mbps: i64,
    ) -> Result<()> {
        if parts.iter().all(|p| !p.node.is_empty()) {
            return Ok(());
        }
        let rows = sqlx::query(&format!("SELECT {NODE_COLUMNS} FROM nodes ORDER BY name"))
            .fetch_all(&mut **tx)
            .await?;
        let mut free = Vec::new();
        for r in &rows {
            let n = node_row(r)?;
            let up = self.now_ms() - n.last_seen_ms <= self.settings.node_timeout_ms;
            let named = parts.iter().any(|p| p.node == n.name);
            if up
                && n.wan.is_some()
                && !named
                && let Some((load, _)) = self.node_fit(tx, &n, tier, mbps).await?
            {
                free.push((load, n.name));
            }
        }
        free.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut free = free.into_iter();
        for (i, p) in parts
            .iter_mut()
            .enumerate()
            .filter(|(_, p)| p.node.is_empty())
        {
            let Some((_, name)) = free.next() else {
                return Err(Error::new(
                    ErrorCode::NoCapacity,
                    format!(
                        "no other node is up with a WAN port and {mbps} Mbit/s left in the {} tier",
                        tier.as_str()
                    ),
                )
                .with_field(format!("parts[{i}].node")));
            };
            p.node = name;
        }
        Ok(())
    }

    pub(crate) async fn node_fit(
        &self,
        tx: &mut crate::db::Tx,
        n: &NodeRow,
        tier: TierChoice,
        mbps: i64,
    ) -> Result<Option<(f64, Tier)>> {
        let mut s = State::new(Capacity {
            hw_regions: n.slots.max(0) as usize,
            hw_mbps: n.hw_mbps as f64,
            sw_mbps: n.sw_mbps as f64,
            ..Capacity::PAPER
        });
        let booked = sqlx::query(NODE_LOAD)
            .bind(&n.id)
            .fetch_all(&mut **tx)
            .await?;
        for (i, b) in booked.iter().enumerate() {
            let t = match b.try_get::<Option<String>, _>(0)?.as_deref() {
                Some(t) => Tier::parse(t).unwrap_or(Tier::Software),
                None => Tier::Software,
            };
            s.place(i as u64, t, b.try_get::<i64, _>(1)? as f64);
        }
        let want = mbps as f64;
        let chosen = match tier {
            TierChoice::Hardware => s.fits(Tier::Hardware, want, true).then_some(Tier::Hardware),
            TierChoice::Software => s
                .fits(Tier::Software, want, false)
                .then_some(Tier::Software),
            TierChoice::Auto => match NoMigration.decide(
                &mut s.clone(),
                Request::Add {
                    id: u64::MAX,
                    mbps: want,
                },
            ) {
                Decision::Added { tier, .. } => Some(tier),
                _ => None,
            },
        };
        Ok(chosen.map(|t| {
            let cap = match t {
                Tier::Hardware => n.hw_mbps as f64,
                Tier::Software => n.sw_mbps as f64,
            };
            (if cap > 0.0 { s.used(t) / cap } else { 1.0 }, t)
        }))
    }

    /// Chooses a node and tier for `mbps` in `tier` (`auto`: the
    /// placement library's admission, software first), inside the booking
    /// transaction so nothing is placed twice. Of the nodes where it fits,
    /// the one whose tier is least used takes it.
    pub(crate) async fn place(
        &self,
        tx: &mut crate::db::Tx,
        tier: TierChoice,
        mbps: i64,
        gateway: bool,
    ) -> Result<Placement> {
        let now = self.now_ms();
        let rows = sqlx::query(&format!("SELECT {NODE_COLUMNS} FROM nodes ORDER BY name"))
            .fetch_all(&mut **tx)
            .await?;
        let mut best: Option<(f64, Placement)> = None;
        let mut any_up = false;
        for r in &rows {
            let n = node_row(r)?;
            if now - n.last_seen_ms > self.settings.node_timeout_ms {
                continue;
            }
            if gateway && n.wan.as_ref().is_none_or(|w| w.next_hop.is_none()) {
                continue; // NAT needs a node with a gateway
            }
            any_up = true;
            if let Some((load, t)) = self.node_fit(tx, &n, tier, mbps).await?
                && best.as_ref().is_none_or(|(l, _)| load < *l)
            {
                best = Some((load, Placement { node: n, tier: t }));
            }
        }
        best.map(|(_, p)| p).ok_or_else(|| {
            let why = if any_up {
                format!(
                    "no node has {mbps} Mbit/s left in the {} tier{}",
                    tier.as_str(),
                    if tier == TierChoice::Hardware {
                        " with a free slot"
                    } else {
                        ""
                    }
                )
            } else if gateway {
                "no node with a gateway (a WAN port with a router beyond) is up".to_string()
            } else {
                "no node is up".to_string()
            };
            Error::new(ErrorCode::NoCapacity, why)
        })
    }
}
