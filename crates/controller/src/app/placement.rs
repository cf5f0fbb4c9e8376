//! Where a booking goes: the node (or nodes) with the capacity, as
//! prism-placement decides over the nodes' rows, and the nodes a booking is on.

use crate::app::context::Context;
use crate::datastore::nodes as store;
use crate::datastore::nodes::NodeRow;
use crate::datastore::parts;
use crate::error::{Error, ErrorCode, Result};
use crate::infra::db::Tx;
use crate::model::Booking;
use prism_netdoc::TierChoice;
use prism_placement::{Capacity, Decision, NoMigration, Policy, Request, State, Tier};

/// Where a booking goes.
#[derive(Debug, Clone)]
pub(crate) struct Placement {
    pub node: NodeRow,
    pub tier: Tier,
}

/// Gives each part of `parts` that names no node one: up, with a WAN
/// port and room for `mbps` in `tier`, named by no other part, the
/// least loaded first. A part left without one is refused (503, at
/// its `node`).
pub(crate) async fn choose_span_nodes(
    cx: &Context,
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
        let up = cx.now_ms() - n.last_seen_ms <= cx.settings.node_timeout_ms;
        let named = parts.iter().any(|p| p.node == n.name);
        if up
            && n.wan.is_some()
            && !named
            && let Some((load, _)) = node_fit(tx, &n, tier, mbps).await?
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
    cx: &Context,
    tx: &mut crate::infra::db::Tx,
    tier: TierChoice,
    mbps: i64,
    gateway: bool,
) -> Result<Placement> {
    let now = cx.now_ms();
    let mut best: Option<(f64, Placement)> = None;
    let mut any_up = false;
    for n in store::nodes(tx).await? {
        if now - n.last_seen_ms > cx.settings.node_timeout_ms {
            continue;
        }
        if gateway && n.wan.as_ref().is_none_or(|w| w.next_hop.is_none()) {
            continue; // NAT needs a node with a gateway
        }
        any_up = true;
        if let Some((load, t)) = node_fit(tx, &n, tier, mbps).await?
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

/// The ids of the nodes booking `b` (read with its parts) is on: its
/// parts' nodes if it spans nodes, else its node, if any.
pub(crate) async fn node_ids_of(tx: &mut Tx, b: &Booking) -> Result<Vec<String>> {
    if b.parts.is_empty() {
        return Ok(b.ids.node.iter().cloned().collect());
    }
    parts::part_nodes(&mut **tx, &b.id).await
}
