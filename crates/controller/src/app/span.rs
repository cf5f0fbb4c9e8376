//! Networks that span nodes across the wide area (docs/wan.md; paper 002
//! §5, Fig. 7): one booking, one part per node. Each part routes its own
//! prefixes (its `route`), and every other part's prefixes into an IPIP
//! tunnel to that part's node's WAN address; it takes in, on its node's
//! WAN port, the tunnels of the other parts (the node's WAN side decaps
//! and tags them with the booking's VLAN).
//!
//! A part's tunnel source address comes from the controller's tunnel pool
//! (`Settings::tunnel_pool`, 198.18.0.0/15 by default: RFC 2544's range,
//! never routed on the Internet), one row per address in use, so two
//! experiments between the same two nodes on the same inner addresses are
//! told apart by their tunnels. The VLAN is the booking's, the same on
//! every node.
//!
//! Checked before anything is taken, each refusal located at its field:
//! two to sixteen parts, no node named twice, every part's routes by prefix
//! and no prefix of one part overlapping another's, every node known, up
//! and with a WAN port, and room on each in the tier asked.

use crate::app::context::Context;
use crate::app::placement::Placement;
use crate::app::placement::{choose_span_nodes, node_fit};
use crate::datastore::nodes::{self, NodeRow, NodeWan};
use crate::datastore::parts;
use crate::error::{Error, ErrorCode, Result};
use crate::infra::db::Tx;
use crate::model::{PartRequest, PartView, node_doc, node_network_name};
use prism_netdoc::{ActionDoc, Addr, Endpoints, Mac, NetworkDoc, PortRef, Prefix, RouteDoc};
use prism_netdoc::{TierChoice, TunnelDoc};
use prism_placement::Tier;
use std::collections::HashMap;
use std::net::Ipv4Addr;

/// The most parts a network may have.
pub const MAX_PARTS: usize = 16;

pub(crate) use crate::datastore::parts::Part;

fn prefixes(route: &[RouteDoc]) -> Vec<String> {
    route
        .iter()
        .filter_map(|r| r.prefix.map(|p| p.0.to_string()))
        .collect()
}

impl Part {
    pub fn view(&self) -> PartView {
        PartView {
            node: self.node.clone(),
            prefixes: prefixes(&self.route),
            tunnel: self.tunnel.map(|t| t.to_string()),
        }
    }
}

/// Checks the parts among themselves (see the module text).
pub(crate) fn check_parts(parts: &[PartRequest], spec: &serde_json::Value) -> Result<()> {
    if !(2..=MAX_PARTS).contains(&parts.len()) {
        return Err(Error::invalid(format!(
            "a network spanning nodes has 2 to {MAX_PARTS} parts (one node's network has none)"
        ))
        .with_field("parts"));
    }
    let bridged = match spec.get("forwarding").and_then(|f| f.as_str()) {
        Some("destination") => false,
        Some("bridge") => true,
        _ => {
            return Err(Error::invalid(
                "a network spanning nodes routes by `destination` (over IP) or is a `bridge` (over Ethernet)",
            )
            .with_field("spec.forwarding"));
        }
    };
    if bridged {
        return match parts.iter().position(|p| !p.route.is_empty()) {
            Some(i) => Err(Error::invalid("a bridged network's parts have no routes")
                .with_field(format!("parts[{i}].route"))),
            None => distinct_nodes(parts),
        };
    }
    distinct_nodes(parts)?;
    for (i, p) in parts.iter().enumerate() {
        if p.route.is_empty() {
            return Err(Error::invalid("a part routes at least one prefix")
                .with_field(format!("parts[{i}].route")));
        }
        for (k, r) in p.route.iter().enumerate() {
            let at = format!("parts[{i}].route[{k}].prefix");
            let Some(Prefix(mine)) = r.prefix else {
                return Err(Error::invalid("a route by `prefix`").with_field(at));
            };
            let clash = parts[..i].iter().enumerate().find_map(|(j, q)| {
                q.route
                    .iter()
                    .filter_map(|r| r.prefix)
                    .find(|Prefix(o)| o.covers(mine) || mine.covers(*o))
                    .map(|o| (j, o))
            });
            if let Some((j, Prefix(o))) = clash {
                return Err(Error::invalid(format!(
                    "{mine} overlaps {o} of part {j} (node `{}`): each part's prefixes are its own",
                    parts[j].node
                ))
                .with_field(at));
            }
        }
    }
    Ok(())
}

fn distinct_nodes(parts: &[PartRequest]) -> Result<()> {
    for (i, p) in parts.iter().enumerate() {
        if !p.node.is_empty() && parts[..i].iter().any(|q| q.node == p.node) {
            return Err(Error::invalid(format!("node `{}` is named twice", p.node))
                .with_field(format!("parts[{i}].node")));
        }
    }
    Ok(())
}

/// Whether a booking's spec is a bridged network's.
pub(crate) fn is_bridge(spec: &serde_json::Value) -> bool {
    spec.get("forwarding").and_then(|f| f.as_str()) == Some("bridge")
}

/// The nodes of `parts`, each known, up, with a WAN port and room for
/// `mbps` in `tier`; in the booking transaction.
pub(crate) async fn span_nodes(
    cx: &Context,
    tx: &mut Tx,
    parts: &[PartRequest],
    tier: TierChoice,
    mbps: i64,
) -> Result<Vec<NodeRow>> {
    let mut out = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        out.push(span_node(cx, tx, (i, p), tier, mbps).await?);
    }
    Ok(out)
}

/// Part `i`'s node: known, up, with a WAN port and room for `mbps` in
/// `tier` (refused at `parts[i].node`).
pub(crate) async fn span_node(
    cx: &Context,
    tx: &mut Tx,
    (i, p): (usize, &PartRequest),
    tier: TierChoice,
    mbps: i64,
) -> Result<NodeRow> {
    let at = format!("parts[{i}].node");
    let n = nodes::by_name(tx, &p.node)
        .await?
        .ok_or_else(|| Error::invalid(format!("no node `{}`", p.node)).with_field(&at))?;
    if cx.now_ms() - n.last_seen_ms > cx.settings.node_timeout_ms {
        return Err(Error::conflict(format!("node `{}` is down", p.node)).with_field(&at));
    }
    if n.wan.is_none() {
        return Err(Error::conflict(format!(
            "node `{}` has no WAN port (`wan` on a port of its configuration)",
            p.node
        ))
        .with_field(&at));
    }
    if node_fit(tx, &n, tier, mbps).await?.is_none() {
        return Err(Error::new(
            ErrorCode::NoCapacity,
            format!(
                "node `{}` has no {mbps} Mbit/s left in the {} tier",
                p.node,
                tier.as_str()
            ),
        )
        .with_field(&at));
    }
    Ok(n)
}

/// Places a spanning network: every part's node checked
/// (`span_nodes`); the first part's node is the booking's `node`.
pub(crate) async fn span_place(
    cx: &Context,
    tx: &mut Tx,
    parts: &mut [PartRequest],
    tier: TierChoice,
    mbps: i64,
) -> Result<Placement> {
    let Some(t) = tier.fixed() else {
        return Err(Error::invalid(
            "a network spanning nodes is in `hardware` or `software` on every node",
        )
        .with_field("spec.tier"));
    };
    choose_span_nodes(cx, tx, parts, tier, mbps).await?;
    let mut nodes = span_nodes(cx, tx, parts, tier, mbps).await?;
    Ok(Placement {
        node: nodes.swap_remove(0),
        tier: t,
    })
}

/// Takes `n` tunnel addresses, the lowest the pool has free.
pub(crate) async fn take_tunnels(
    cx: &Context,
    tx: &mut Tx,
    booking: &str,
    n: usize,
) -> Result<Vec<Ipv4Addr>> {
    use crate::datastore::pool_releases::{TUNNELS, released};
    let pool = cx.settings.tunnel_pool.0;
    let used = parts::used_tunnels(tx).await?;
    let released: HashMap<Ipv4Addr, i64> = crate::app::pools::parsed(released(tx, TUNNELS).await?);
    let released = released
        .into_iter()
        .map(|(a, at)| (u32::from(a), at))
        .collect();
    let cutoff = cx.now_ms() - cx.settings.pool_hold_down_ms;
    let size = 1u64 << (32 - u32::from(pool.len()));
    // The pool's first and last addresses are its network and broadcast.
    let all = (1..size.saturating_sub(1)).map(|off| pool.addr() + off as u32);
    let out = crate::app::pools::pick(all, &used, &released, cutoff, n).ok_or_else(|| {
        Error::conflict(format!(
            "the tunnel address pool {} is exhausted ({} released in the last {} s are held down)",
            cx.settings.tunnel_pool.0,
            crate::app::pools::held(&released, cutoff),
            cx.settings.pool_hold_down_ms / 1000
        ))
        .with_field("parts")
    })?;
    let out: Vec<Ipv4Addr> = out.into_iter().map(Ipv4Addr::from).collect();
    for a in &out {
        parts::insert_tunnel(tx, *a, booking).await?;
    }
    Ok(out)
}

/// Records the parts of booking `id` (their nodes checked by
/// `span_place` in this transaction), with their tunnels.
pub(crate) async fn record_parts(
    cx: &Context,
    tx: &mut Tx,
    id: &str,
    r: &crate::model::BookingRequest,
) -> Result<()> {
    let parts = &r.parts;
    let mut ports = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        ports.push(part_port(tx, i, p).await?);
    }
    if is_bridge(&r.spec) {
        take_s_tag(cx, tx, id).await?;
    }
    let tunnels: Vec<String> = if is_bridge(&r.spec) {
        vec![String::new(); parts.len()]
    } else {
        let t = take_tunnels(cx, tx, id, parts.len()).await?;
        t.iter().map(|a| a.to_string()).collect()
    };
    for (i, ((p, t), port)) in parts.iter().zip(&tunnels).zip(ports).enumerate() {
        let route = serde_json::to_string(&p.route).map_err(|e| Error::internal(e.to_string()))?;
        parts::insert_part(tx, id, i, &route, t, &p.node, &port).await?;
    }
    Ok(())
}

/// Part `i`'s port for its side: the one asked (not the WAN port), or
/// the node's first port that is not its WAN port.
pub(crate) async fn part_port(tx: &mut Tx, i: usize, p: &PartRequest) -> Result<String> {
    let n = nodes::by_name(tx, &p.node).await?.ok_or_else(|| {
        Error::invalid(format!("no node `{}`", p.node)).with_field(format!("parts[{i}].node"))
    })?;
    let ports = n.ports;
    let wan = n.wan.map(|w| w.port).unwrap_or_default();
    let at = format!("parts[{i}].port");
    match &p.port {
        Some(want) if *want == wan => {
            Err(Error::invalid(format!("`{want}` is node `{}`'s WAN port", p.node)).with_field(at))
        }
        Some(want) if ports.contains(want) => Ok(want.clone()),
        Some(want) => Err(Error::invalid(format!(
            "node `{}` has no port `{want}` (ports: {})",
            p.node,
            ports.join(", ")
        ))
        .with_field(at)),
        None => ports.into_iter().find(|q| *q != wan).ok_or_else(|| {
            Error::invalid(format!(
                "node `{}` has no port besides its WAN port",
                p.node
            ))
            .with_field(at)
        }),
    }
}

/// Takes a free S-tag of the pool for bridged booking `id`
/// (`crate::app::pools`' order and hold-down).
pub(crate) async fn take_s_tag(cx: &Context, tx: &mut Tx, id: &str) -> Result<i64> {
    use crate::datastore::pool_releases::{S_TAGS, first_free, held_count};
    let cutoff = cx.now_ms() - cx.settings.pool_hold_down_ms;
    let pool = &cx.settings.s_tag_pool;
    let (first, last) = (i64::from(*pool.start()), i64::from(*pool.end()));
    let Some(tag) = first_free(tx, S_TAGS, first, last, cutoff).await? else {
        return Err(Error::conflict(format!(
            "the S-tag pool {}..={} is exhausted ({} released in the last {} s are held down)",
            pool.start(),
            pool.end(),
            held_count(tx, S_TAGS, cutoff).await?,
            cx.settings.pool_hold_down_ms / 1000
        ))
        .with_field("parts"));
    };
    parts::insert_s_tag(tx, tag, id).await?;
    Ok(tag)
}

/// Records the WAN side node `id` reports; when it changed, every
/// node holding a part of a network with a part on it gets a new
/// generation (their tunnels to it change). Returns whether it changed.
pub(crate) async fn record_wan(
    tx: &mut Tx,
    id: &str,
    wan: Option<&prism_node_api::WanInfo>,
) -> Result<bool> {
    crate::datastore::parts::set_wan(tx, id, wan).await
}

/// Part `i`'s document on its node: the booking's document (its VLAN, rate
/// limit, common routes) with the part's own routes, a route per prefix of
/// every other part into that part's tunnel, and the other parts' tunnels
/// taken in. `None` while a node of the network has not reported its WAN
/// side (the part waits; the node's next heartbeat brings it).
pub(crate) fn part_doc(
    b: &crate::model::Booking,
    parts: &[Part],
    i: usize,
) -> Result<Option<NetworkDoc>> {
    let me = &parts[i];
    let Some(my_wan) = &me.wan else {
        return Ok(None);
    };
    if is_bridge(&b.spec) {
        return bridge_doc(b, me, my_wan).map(Some);
    }
    let mut doc = booking_doc(b, &b.spec)?;
    doc.route.extend(me.route.iter().cloned());
    let mac = |m: &str| -> Result<Mac> {
        m.parse()
            .map(Mac)
            .map_err(|_| Error::internal(format!("a node's WAN MAC `{m}` is not one")))
    };
    for (j, far) in parts.iter().enumerate() {
        let Some(far_wan) = &far.wan else {
            return Ok(None);
        };
        if j == i {
            continue;
        }
        let across = ActionDoc {
            port: Some(PortRef::Name(my_wan.port.clone())),
            decrement_ttl: true,
            vlan_pop: true,
            ipip_encap: Some(Endpoints {
                src: Addr(me.tunnel.ok_or_else(no_tunnel)?),
                dst: Addr(far_wan.address),
            }),
            set_src_mac: Some(mac(&my_wan.mac)?),
            set_dst_mac: Some(mac(&far_wan.mac)?),
            ..ActionDoc::default()
        };
        for r in far.route.iter().filter(|r| r.prefix.is_some()) {
            doc.route.push(RouteDoc {
                prefix: r.prefix,
                src: None,
                dst: None,
                action: across.clone(),
            });
        }
        doc.tunnel.push(TunnelDoc {
            src: Some(Addr(far.tunnel.ok_or_else(no_tunnel)?)),
            dst: Some(Addr(my_wan.address)),
            vlan_push: b.vlan.map(|v| v as u16),
            ..TunnelDoc::default()
        });
    }
    Ok(Some(doc))
}

/// The document of booking `b` with `spec` on its node: its name there,
/// tier, VLAN and rate limit.
fn booking_doc(b: &crate::model::Booking, spec: &serde_json::Value) -> Result<NetworkDoc> {
    node_doc(
        spec,
        &node_network_name(&b.id),
        b.tier.unwrap_or(Tier::Hardware),
        b.vlan.unwrap_or(0),
        b.bandwidth_mbps,
    )
}

/// A bridged network's part (VANI's bridge service, Fig. 8): a learning
/// bridge of its side's port and the WAN port, whose frames leave under the
/// booking's S-tag (any EtherType; unknown and broadcast destinations
/// flood to the other member); what arrives under that S-tag (popped by
/// the WAN side) is learned on the WAN member. The wide-area Ethernet
/// delivers by MAC between nodes.
fn bridge_doc(b: &crate::model::Booking, me: &Part, wan: &NodeWan) -> Result<NetworkDoc> {
    let tag = b
        .s_tag
        .ok_or_else(|| Error::internal("a bridged network without its S-tag"))?;
    let mut doc = booking_doc(b, &b.spec)?;
    let side = me.port.clone().unwrap_or_default();
    let member = |port: &str, s_tag: Option<u16>| prism_netdoc::BridgePortDoc {
        port: prism_netdoc::PortRef::Name(port.to_string()),
        s_tag,
        untagged: false,
    };
    let mut bridge = doc.bridge.take().unwrap_or_default();
    bridge.port = vec![member(&side, None), member(&wan.port, Some(tag as u16))];
    doc.bridge = Some(bridge);
    // Under the S-tag, the booking's own VLAN only.
    doc.tunnel = vec![TunnelDoc {
        s_tag: Some(tag as u16),
        c_tag: b.vlan.map(|v| v as u16),
        ..TunnelDoc::default()
    }];
    Ok(doc)
}

fn no_tunnel() -> Error {
    Error::internal("a routed part without its tunnel address")
}
