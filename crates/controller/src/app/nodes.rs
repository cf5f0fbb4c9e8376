//! Nodes: registration and liveness (where bookings go among them is
//! `crate::app::placement`).

use crate::app::authz::Principal;
use crate::app::checks::check_name;
use crate::app::context::Context;
use crate::app::node_identity::client;
use crate::app::node_work::kick;
use crate::app::node_work::pass_wait;
use crate::app::span::record_wan;
use crate::datastore::nodes as store;
use crate::error::{Error, ErrorCode, Result};
use crate::infra::secrets;

pub use prism_controller_api::nodes::{NodeRequest, NodeView};

/// Registers a node: the controller asks it what it is, with its
/// credential, before recording it.
pub async fn register_node(cx: &Context, p: &Principal, r: NodeRequest) -> Result<NodeView> {
    p.require_admin()?;
    check_name("name", &r.name)?;
    if r.hw_mbps < 0 || r.sw_mbps < 0 {
        return Err(Error::invalid("at least 0").with_field("hw_mbps"));
    }
    let info = client(cx, &r.address).node().await.map_err(|e| {
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
        now: cx.now_ms(),
    };
    store::insert_node(&cx.pool, &node).await?;
    let mut tx = crate::infra::db::begin(&cx.pool).await?;
    record_wan(&mut tx, &id, info.wan.as_ref()).await?;
    crate::datastore::processing::set_processing_port(
        &mut tx,
        &id,
        info.processing_port.as_deref(),
    )
    .await?;
    tx.commit().await?;
    kick(cx, &id).wait_at_most(pass_wait(cx)).await;
    node_view(cx, &id).await
}

pub async fn list_nodes(cx: &Context, p: &Principal) -> Result<Vec<NodeView>> {
    p.require_admin()?;
    let mut out = Vec::new();
    for id in store::node_ids(&cx.pool).await? {
        out.push(node_view(cx, &id).await?);
    }
    Ok(out)
}

async fn node_view(cx: &Context, id: &str) -> Result<NodeView> {
    let d = store::node_detail(&cx.pool, id)
        .await?
        .ok_or_else(|| Error::not_found("such node"))?;
    let (used_slots, used_hw_mbps, used_sw_mbps) = store::usage(&cx.pool, id).await?;
    let n = d.row;
    Ok(NodeView {
        up: cx.now_ms() - n.last_seen_ms <= cx.settings.node_timeout_ms,
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
