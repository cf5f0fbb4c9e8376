//! The controller API's bodies, and the built-in resource types.

use prism_netdoc::NetworkDoc;

pub use prism_controller_api::bookings::*;

/// The node document a booking becomes: what the controller sends.
pub fn node_network_name(booking_id: &str) -> String {
    let hex: String = booking_id.chars().filter(|c| *c != '-').take(16).collect();
    format!("{NODE_PREFIX}{hex}")
}

/// Networks on a node whose names start with this are the controller's;
/// it leaves any other alone.
pub const NODE_PREFIX: &str = "pc-";

/// An S-tag on a bridge member would put frames on the wide area under
/// another experiment's tag: only the controller gives them (parts).
fn refuse_user_s_tags(
    obj: &serde_json::Map<String, serde_json::Value>,
) -> Result<(), crate::error::Error> {
    let members = obj
        .get("bridge")
        .and_then(|b| b.get("port"))
        .and_then(|p| p.as_array());
    for (i, m) in members.into_iter().flatten().enumerate() {
        if m.get("s_tag").is_some() {
            return Err(crate::error::Error::invalid(
                "`s_tag` is set by the controller (from parts)",
            )
            .with_field(format!("spec.bridge.port[{i}].s_tag")));
        }
    }
    Ok(())
}

/// Completes a booked network's document: its node name, its VLAN (every
/// mapping rule matches only the project's VLAN) and its rate limit.
pub fn node_doc(
    spec: &serde_json::Value,
    node_name: &str,
    tier: prism_placement::Tier,
    vlan: i64,
    bandwidth_mbps: i64,
) -> Result<NetworkDoc, crate::error::Error> {
    use crate::error::Error;
    let mut v = spec.clone();
    let obj = v
        .as_object_mut()
        .ok_or_else(|| Error::invalid("a network's spec is a JSON object").with_field("spec"))?;
    for (owned, from) in [
        ("name", "the booking's name"),
        ("rate_limit", "bandwidth_mbps"),
        ("bandwidth", "bandwidth_mbps"),
        // A way in from the wide area claims other experiments' frames:
        // only the controller gives them (parts, `nat`, public addresses).
        ("tunnel", "parts, nat and public addresses"),
    ] {
        if obj.contains_key(owned) {
            return Err(Error::invalid(format!(
                "`{owned}` is set by the controller (from {from})"
            ))
            .with_field(format!("spec.{owned}")));
        }
    }
    refuse_user_s_tags(obj)?;
    obj.insert("name".into(), node_name.into());
    obj.insert("tier".into(), tier.as_str().into());
    let bytes = serde_json::to_vec(&v).map_err(|e| Error::internal(e.to_string()))?;
    let mut doc: NetworkDoc = prism_netdoc::from_json(&bytes)?;
    let vlan16 = vlan as u16;
    if doc.map.is_empty() {
        doc.map.push(Default::default());
    }
    for (i, m) in doc.map.iter_mut().enumerate() {
        match m.vlan {
            Some(v) if v.0 != Some(vlan16) => {
                let asked = v.0.map_or("untagged".to_string(), |n| format!("VLAN {n}"));
                return Err(Error::forbidden(format!(
                    "{asked} is not this booking's; the controller maps it to VLAN {vlan}"
                ))
                .with_field(format!("spec.map[{i}].vlan")));
            }
            _ => m.vlan = Some(prism_netdoc::Vlan(Some(vlan16))),
        }
    }
    let bits = (bandwidth_mbps as u64).saturating_mul(1_000_000);
    doc.rate_limit = Some(prism_netdoc::RateLimitDoc {
        rate: prism_netdoc::Rate(bits),
        burst: None,
    });
    doc.bandwidth = Some(prism_netdoc::Rate(bits));
    Ok(doc)
}

/// A resource type and its compiled schema.
#[derive(Debug)]
pub(crate) struct Compiled {
    pub t: ResourceType,
    pub validator: Option<jsonschema::Validator>,
}

/// The built-in resource types' names.
pub const NETWORK: &str = "network";

pub const VLAN: &str = "vlan";

pub use prism_controller_api::{BookingChange, BookingChangeView, BookingChanged, CHANGEABLE_SPEC};
pub use prism_controller_api::{PROCESSING, ProcessingSpec, SHARED_VLAN, SharedVlanSpec};

/// Whether bookings of built-in type `rtype` take capacity shared across
/// projects (a node's, the VLAN pool, a span's tunnels, NAT's addresses:
/// `db::project_tx`); a registered type with no node takes none.
pub(crate) fn shares_capacity(rtype: &str) -> bool {
    rtype == NETWORK || rtype == VLAN || rtype == SHARED_VLAN
}
