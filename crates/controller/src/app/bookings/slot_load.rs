//! What a change to a live hardware network costs its slot: another
//! forwarding mode is another module (and another program of the
//! researcher's is loaded as one), loaded by a partial
//! reconfiguration, and a move into hardware loads the module first. The
//! time is the device model's (paper 000 §4's partial bitstreams over the
//! profile's configuration port; a model: Prism runs no FPGA), taken on
//! the slowest of the booking's nodes.

use crate::app::placement::node_ids_of;
use crate::datastore::nodes;
use crate::error::{Error, Result};
use crate::infra::db::Tx;
use crate::model::Booking;
use prism_netdoc::{ForwardingMode, ReconfigureChoice};
use prism_pipeline::control::reconfig::{ModuleKind, bitstreams};
use prism_placement::Tier;
use serde_json::Value;

/// A module load a change makes.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct SlotLoad {
    /// `partial` or `fallback` (`None`: the node's default).
    pub strategy: Option<&'static str>,
    pub modelled_us: i64,
}

/// The load that booking `cur`, changed to `spec` in `tier`, makes on its
/// nodes (`None`: no module loaded, or no node whose device reconfigures).
pub(super) async fn slot_load(
    tx: &mut Tx,
    cur: &Booking,
    spec: &Value,
    tier: Option<Tier>,
) -> Result<Option<SlotLoad>> {
    let (was, now) = (mode(&cur.spec)?, mode(spec)?);
    if (was == ForwardingMode::Bridge) != (now == ForwardingMode::Bridge) {
        return Err(Error::invalid(
            "a bridge network stays a bridge, and a routed one routed (its ports and addresses differ): book another",
        )
        .with_field("spec.forwarding"));
    }
    let strategy = choice(spec)?;
    let moved_in = cur.tier != Some(Tier::Hardware);
    // A program of the researcher's own is loaded into the slot as a
    // module is.
    let same_program = cur.spec.get("program") == spec.get("program");
    if tier != Some(Tier::Hardware) || (!moved_in && was == now && same_program) {
        return Ok(None);
    }
    let kind = module(now);
    let mut worst: Option<f64> = None;
    for id in node_ids_of(tx, cur).await? {
        let Some(device) = nodes::device_tx(tx, &id).await? else {
            continue;
        };
        if let Some(b) = bitstreams(&device) {
            worst = Some(worst.unwrap_or(0.0).max(b.partial_ms(Some(kind))));
        }
    }
    // A move into hardware is served by software until its slot is
    // loaded, whatever the network chose for a change of module.
    let strategy = if moved_in { Some("fallback") } else { strategy };
    Ok(worst.map(|ms| SlotLoad {
        strategy,
        modelled_us: (ms * 1e3).round() as i64,
    }))
}

fn mode(spec: &Value) -> Result<ForwardingMode> {
    let v = spec.get("forwarding").cloned().unwrap_or(Value::Null);
    serde_json::from_value(v.clone()).map_err(|_| {
        Error::invalid(format!(
            "`forwarding` is one of destination, source, flow, rules, bridge; not {v}"
        ))
        .with_field("spec.forwarding")
    })
}

/// The network's `reconfigure` choice, by the node's names.
fn choice(spec: &Value) -> Result<Option<&'static str>> {
    let Some(v) = spec.get("reconfigure") else {
        return Ok(None);
    };
    match serde_json::from_value(v.clone()) {
        Ok(ReconfigureChoice::Partial) => Ok(Some("partial")),
        Ok(ReconfigureChoice::Fallback) => Ok(Some("fallback")),
        Err(_) => Err(Error::invalid(format!(
            "`reconfigure` is `dark` (also `partial`) or `fallback`, not {v}"
        ))
        .with_field("spec.reconfigure")),
    }
}

/// The module a mode runs in a slot (as the pipeline's specs map it).
fn module(m: ForwardingMode) -> ModuleKind {
    match m {
        ForwardingMode::Destination => ModuleKind::DestinationRouting,
        ForwardingMode::Source => ModuleKind::SourceRouting,
        ForwardingMode::Flow => ModuleKind::FlowRouting,
        ForwardingMode::Rules | ForwardingMode::Bridge => ModuleKind::RuleTable,
    }
}
