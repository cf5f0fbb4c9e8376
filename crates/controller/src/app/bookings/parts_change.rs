//! A network spanning nodes given other parts live (docs/customizing.md):
//! the parts replaced whole, checked as at booking (two to sixteen, each
//! node named once, prefixes their own; a new node known, up, with a WAN
//! port and room). A part on a node the network already has keeps its
//! tunnel address, so the parts that stay forward on and only their
//! tables change (routes into a new part's tunnel, a removed part's
//! gone); a new part takes an address from the pool, a removed part's is
//! released to the back of it; a node left out is told to remove its part.

use crate::app::context::Context;
use crate::app::span::{check_parts, is_bridge, part_port, span_node, take_tunnels};
use crate::datastore::{nodes, parts as store};
use crate::error::{Error, Result};
use crate::infra::db::Tx;
use crate::model::{Booking, PartRequest};
use prism_netdoc::TierChoice;
use serde_json::{Value, json};

/// Booking `id`'s stored parts as its history shows them.
pub(super) async fn parts_before(tx: &mut Tx, id: &str) -> Result<Value> {
    let old = store::parts(&mut **tx, id).await?;
    let v = old
        .iter()
        .map(|p| shown(&p.node, &p.route, p.port.as_deref()));
    Ok(Value::Array(v.collect()))
}

/// Parts `new` as they would be stored (each part's port resolved: the one
/// asked, or its node's first that is not the WAN port), for the history.
pub(super) async fn parts_after(tx: &mut Tx, new: &[PartRequest]) -> Result<Value> {
    let mut out = Vec::new();
    for (i, p) in new.iter().enumerate() {
        if p.node.is_empty() {
            return Err(
                Error::invalid("a part added to a live network names its node")
                    .with_field(format!("parts[{i}].node")),
            );
        }
        let port = part_port(tx, i, p).await?;
        out.push(shown(&p.node, &p.route, Some(&port)));
    }
    Ok(Value::Array(out))
}

fn shown(node: &str, route: &[prism_netdoc::RouteDoc], port: Option<&str>) -> Value {
    json!({"node": node, "route": route, "port": port})
}

/// Replaces booking `cur`'s parts with `new` (checked, see the module
/// text) in `tx`, the booking at `mbps`. Returns the nodes (ids) that lose
/// their part.
pub(super) async fn replace_parts(
    cx: &Context,
    tx: &mut Tx,
    cur: &Booking,
    (new, mbps): (&[PartRequest], i64),
) -> Result<Vec<String>> {
    check_parts(new, &cur.spec)?;
    let old = store::parts(&mut **tx, &cur.id).await?;
    let kept = |node: &str| old.iter().find(|o| o.node == node);
    let tier = TierChoice::from(cur.tier.unwrap_or(prism_placement::Tier::Hardware));
    let mut ports = Vec::new();
    for (i, p) in new.iter().enumerate() {
        if kept(&p.node).is_none() {
            span_node(cx, tx, (i, p), tier, mbps).await?;
        }
        ports.push(part_port(tx, i, p).await?);
    }
    let added = new.iter().filter(|p| kept(&p.node).is_none()).count();
    let bridged = is_bridge(&cur.spec);
    let mut fresh = match bridged || added == 0 {
        true => Vec::new(),
        false => take_tunnels(cx, tx, &cur.id, added).await?,
    }
    .into_iter();
    let mut lost = Vec::new();
    for o in old.iter().filter(|o| !new.iter().any(|p| p.node == o.node)) {
        lost.push(o.node_id.clone());
        if let Some(a) = o.tunnel {
            store::free_tunnel(tx, a, cx.now_ms()).await?;
        }
    }
    store::delete_parts(tx, &cur.id).await?;
    for (i, (p, port)) in new.iter().zip(ports).enumerate() {
        let tunnel = match kept(&p.node) {
            _ if bridged => None,
            Some(o) => o.tunnel,
            None => fresh.next(),
        };
        let tunnel = tunnel.map(|a| a.to_string()).unwrap_or_default();
        let route = serde_json::to_string(&p.route).map_err(|e| Error::internal(e.to_string()))?;
        store::insert_part(tx, &cur.id, i, &route, &tunnel, &p.node, &port).await?;
    }
    store::set_first_node(tx, &cur.id, &new[0].node).await?;
    for node in &lost {
        nodes::bump_generation(tx, node, &cur.id).await?;
    }
    Ok(lost)
}
