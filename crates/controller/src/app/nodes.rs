//! Nodes: registration, liveness, and placement across nodes and tiers
//! through the placement library.

use crate::app::authz::Principal;
use crate::app::identity::check_name;
use crate::controller::Controller;
use crate::datastore::nodes as store;
pub(crate) use crate::datastore::nodes::{NodeRow, NodeWan};
use crate::error::{Error, ErrorCode, Result};
use crate::infra::secrets;
use prism_netdoc::TierChoice;
use prism_node_api::{Endpoint, NodeClient};
use prism_placement::{Capacity, Decision, NoMigration, Policy, Request, State, Tier};

pub use prism_controller_api::nodes::{NodeRequest, NodeView};

/// Where a booking goes.
#[derive(Debug, Clone)]
pub(crate) struct Placement {
    pub node: NodeRow,
    pub tier: Tier,
}

impl Controller {
    pub(crate) fn client(&self, address: &str) -> NodeClient {
        NodeClient::new(Endpoint::Tcp {
            addr: address.to_string(),
            token: self.settings.node_secret.clone(),
        })
        .with_timeout(self.node_call_timeout())
        .with_connect_timeout(self.node_connect_timeout())
    }

    pub(crate) fn node_call_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.settings.node_call_timeout_ms)
    }

    /// How long a call that needs its node's answer (a provision, a
    /// start, a public address) waits for the pass over it: as long as
    /// one pass can take, so a failing node's own error is recorded
    /// first; no longer, whatever passes are queued before it.
    pub(crate) fn pass_wait(&self) -> std::time::Duration {
        self.node_connect_timeout()
            + self.node_call_timeout()
            + std::time::Duration::from_millis(500)
    }

    pub(crate) fn node_connect_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.settings.node_connect_timeout_ms)
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
        let node = store::NewNode {
            id: &id,
            name: &r.name,
            address: &r.address,
            device: &info.device,
            slots: info.hardware_slots.total as i64,
            hw_mbps: r.hw_mbps,
            sw_mbps: r.sw_mbps,
            ports: &info.ports,
            now: self.now_ms(),
        };
        store::insert_node(&self.pool, &node).await?;
        let mut tx = crate::infra::db::begin(&self.pool).await?;
        self.record_wan(&mut tx, &id, info.wan.as_ref()).await?;
        tx.commit().await?;
        self.kick(&id).wait_at_most(self.pass_wait()).await;
        self.node_view(&id).await
    }

    pub async fn list_nodes(&self, p: &Principal) -> Result<Vec<NodeView>> {
        p.require_admin()?;
        let mut out = Vec::new();
        for id in store::node_ids(&self.pool).await? {
            out.push(self.node_view(&id).await?);
        }
        Ok(out)
    }

    async fn node_view(&self, id: &str) -> Result<NodeView> {
        let d = store::node_detail(&self.pool, id)
            .await?
            .ok_or_else(|| Error::not_found("such node"))?;
        let (used_slots, used_hw_mbps, used_sw_mbps) = store::usage(&self.pool, id).await?;
        let n = d.row;
        Ok(NodeView {
            up: self.now_ms() - n.last_seen_ms <= self.settings.node_timeout_ms,
            id: n.id,
            name: n.name,
            address: n.address,
            device: d.device,
            slots: n.slots,
            hw_mbps: n.hw_mbps,
            sw_mbps: n.sw_mbps,
            ports: n.ports,
            generation: d.generation,
            applied_generation: d.applied_generation,
            last_seen_ms: n.last_seen_ms,
            last_error: d.last_error,
            wan: d.wan,
            used_slots,
            used_hw_mbps,
            used_sw_mbps,
        })
    }

    /// Gives each part of `parts` that names no node one: up, with a WAN
    /// port and room for `mbps` in `tier`, named by no other part, the
    /// least loaded first. A part left without one is refused (503, at
    /// its `node`).
    pub(crate) async fn choose_span_nodes(
        &self,
        tx: &mut crate::infra::db::Tx,
        parts: &mut [crate::model::PartRequest],
        tier: TierChoice,
        mbps: i64,
    ) -> Result<()> {
        if parts.iter().all(|p| !p.node.is_empty()) {
            return Ok(());
        }
        let mut free = Vec::new();
        for n in store::nodes(tx).await? {
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

    /// Whether `mbps` in `tier` (`auto`: the placement library's
    /// admission, software first) fits on node `n`: the tier it would take
    /// and that tier's load before it, or `None`.
    pub(crate) async fn node_fit(
        &self,
        tx: &mut crate::infra::db::Tx,
        n: &NodeRow,
        tier: TierChoice,
        mbps: i64,
    ) -> Result<Option<(f64, Tier)>> {
        let cap = Capacity {
            hw_regions: n.slots.max(0) as usize,
            hw_mbps: n.hw_mbps as f64,
            sw_mbps: n.sw_mbps as f64,
            ..Capacity::PAPER
        };
        // Its load's sums, not its every booking.
        let (hw, hw_mbps, sw_mbps) = store::usage(&mut **tx, &n.id).await?;
        let s = State::with_usage(cap, hw.max(0) as usize, hw_mbps as f64, sw_mbps as f64);
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
        tx: &mut crate::infra::db::Tx,
        tier: TierChoice,
        mbps: i64,
        gateway: bool,
    ) -> Result<Placement> {
        let now = self.now_ms();
        let mut best: Option<(f64, Placement)> = None;
        let mut any_up = false;
        for n in store::nodes(tx).await? {
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
