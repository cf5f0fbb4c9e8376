//! Changes to a live booking (docs/customizing.md): `PATCH
//! /v1/projects/{p}/bookings/{id}` with what to change, each accepted
//! change one generation of the booking, and its history (`GET
//! …/bookings/{id}/changes`).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The spec fields a change may replace: the network's tables, changed
/// on its node as a table update (no reconfiguration, nothing lost), and
/// its tier (`hardware` or `software`: a move between tiers, which the
/// node makes without losing frames).
pub const CHANGEABLE_SPEC: [&str; 4] = ["route", "rule", "default_action", "tier"];

/// What to change in a network booking. Fields left out stay as they are;
/// the change is checked whole before anything moves, and a refusal
/// names its field and changes nothing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BookingChange {
    /// The booking's generation this change is made from: if the booking
    /// has changed since, the change is refused (409, `conflict`) with
    /// the generation it lost to. Left out: made from whatever is current.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
    /// Spec fields replaced whole: `route`, `rule`, `default_action`
    /// (`null` removes one), `tier` (`hardware` or `software`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub spec: Option<serde_json::Map<String, serde_json::Value>>,
    /// The guaranteed rate, Mbit/s (the project's quota and the node's
    /// capacity checked first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_mbps: Option<i64>,
}

impl BookingChange {
    /// Whether it changes nothing.
    pub fn is_empty(&self) -> bool {
        self.spec.as_ref().is_none_or(|s| s.is_empty()) && self.bandwidth_mbps.is_none()
    }
}

/// One accepted change, as the booking's history shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct BookingChangeView {
    /// The booking's generation this change made.
    pub generation: i64,
    pub at_ms: i64,
    /// Who made it.
    pub user: String,
    /// The fields it changed (`spec.route`, `bandwidth_mbps`).
    pub fields: Vec<String>,
    /// Each changed field's value before and after.
    #[schema(value_type = Object)]
    pub before: serde_json::Value,
    #[schema(value_type = Object)]
    pub after: serde_json::Value,
}

impl BookingChange {
    /// `prism ctl edit`'s change: the spec fields in `file` (JSON or
    /// TOML, e.g. `{"route": [...]}`; a bad file named with its line),
    /// the bandwidth and the generation it is made from.
    pub fn from_flags(
        file: Option<&std::path::Path>,
        bandwidth_mbps: Option<i64>,
        generation: Option<i64>,
    ) -> Result<Self, String> {
        let spec = match file {
            None => None,
            Some(f) => {
                let at = f.display().to_string();
                let text = std::fs::read_to_string(f).map_err(|e| format!("reading {at}: {e}"))?;
                let v =
                    prism_netdoc::from_file_text(&at, &text).map_err(|e| format!("{at}: {e}"))?;
                match v {
                    serde_json::Value::Object(m) => Some(m),
                    _ => return Err(format!("{at}: the fields to change, as one table")),
                }
            }
        };
        let c = BookingChange {
            generation,
            spec,
            bandwidth_mbps,
        };
        if c.is_empty() {
            return Err("nothing to change: give --spec FILE or --bandwidth MBIT".into());
        }
        Ok(c)
    }
}
