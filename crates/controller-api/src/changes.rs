//! Changes to a live booking (docs/customizing.md): `PATCH
//! /v1/projects/{p}/bookings/{id}` with what to change, each accepted
//! change one generation of the booking, and its history (`GET
//! …/bookings/{id}/changes`).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The spec fields a change may replace: the network's tables, changed
/// on its node as a table update (no reconfiguration, nothing lost); its
/// `forwarding` mode (another module in its hardware slot: a partial
/// reconfiguration, the way `reconfigure` says); `reconfigure` itself
/// (`partial`, also written `dark`, or `fallback`); and its tier
/// (`hardware` or `software`: a move between tiers, which the node makes
/// without losing frames).
pub const CHANGEABLE_SPEC: [&str; 7] = [
    "route",
    "rule",
    "default_action",
    "forwarding",
    "reconfigure",
    "tier",
    "program",
];

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
    /// A network spanning nodes: its parts, replaced whole (two to
    /// sixteen; a part on a node it already has keeps its tunnel address,
    /// a node left out loses its part, a new node gets one; the parts kept
    /// forward on, their tunnels to the others updated as tables).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<Vec<crate::PartRequest>>,
    /// Checked whole and answered as if made (the modelled time
    /// included), but nothing is changed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
}

/// `{"object": BASE64}` of the eBPF object in `file`.
fn program_file(file: &str) -> Result<serde_json::Value, String> {
    use base64::Engine as _;
    let bytes = std::fs::read(file).map_err(|e| format!("reading {file}: {e}"))?;
    let object = base64::engine::general_purpose::STANDARD.encode(bytes);
    Ok(serde_json::json!({ "object": object }))
}

impl BookingChange {
    /// Whether it changes nothing.
    pub fn is_empty(&self) -> bool {
        self.spec.as_ref().is_none_or(|s| s.is_empty())
            && self.bandwidth_mbps.is_none()
            && self.parts.is_none()
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
    /// How the slot takes its new module (`partial` or `fallback`; absent:
    /// the node's default), when the change loads one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// The device model's time to load the booking's slot with its new
    /// module (a model: Prism runs no FPGA; the slowest of its nodes),
    /// when the change loads one: another `forwarding` mode in hardware,
    /// or a move into hardware. With `partial` the network forwards
    /// nothing for that long; with `fallback` the software tier serves it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modelled_ms: Option<f64>,
}

impl BookingChanged {
    /// In words: the generation made (or that would be) and what the
    /// slot's reconfiguration costs, said to be a model.
    pub fn summary(&self) -> String {
        let c = &self.change;
        let verb = if self.dry_run { "would make" } else { "made" };
        let mut s = format!(
            "{verb} generation {} ({})",
            c.generation,
            c.fields.join(", ")
        );
        if let Some(ms) = c.modelled_ms {
            let how = c.strategy.as_deref().unwrap_or("the node's default");
            s += &format!(
                "; slot reconfiguration {ms:.1} ms modelled ({how}; a model of the device, not a measurement)"
            );
        }
        s
    }
}

/// `PATCH …/bookings/{id}`'s answer: the booking as changed and the
/// change as its history keeps it (with `dry_run`, both as they would be).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct BookingChanged {
    pub booking: crate::Booking,
    pub change: BookingChangeView,
    /// Nothing was changed: the change was only checked.
    #[serde(default)]
    pub dry_run: bool,
}

/// `prism ctl edit`'s flags, as given.
#[derive(Debug, Default)]
pub struct EditFlags<'a> {
    /// A JSON or TOML file with spec fields to replace.
    pub file: Option<&'a std::path::Path>,
    /// Spec fields as `FIELD=VALUE` (a value that is not JSON is a string:
    /// `forwarding=source`, `reconfigure=dark`, `tier=software`;
    /// `program=@FILE` is the eBPF object in FILE, `program=null` none).
    pub set: &'a [String],
    pub bandwidth_mbps: Option<i64>,
    pub generation: Option<i64>,
    pub dry_run: bool,
}

impl BookingChange {
    /// `prism ctl edit`'s change: the spec fields in the file (JSON or
    /// TOML, e.g. `{"route": [...]}`; a bad file named with its line; its
    /// `part` list, as at booking, the parts of a network spanning nodes),
    /// those given as flags over them, the bandwidth and the generation it
    /// is made from.
    pub fn from_flags(f: EditFlags<'_>) -> Result<Self, String> {
        let mut spec = match f.file {
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
        for kv in f.set {
            let Some((key, v)) = kv.split_once('=') else {
                return Err(format!("--set {kv}: FIELD=VALUE, e.g. forwarding=source"));
            };
            let v = match v.strip_prefix('@') {
                // `program=@FILE`: the object file, as the document holds it.
                Some(file) if key.trim() == "program" => program_file(file)?,
                _ => serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::from(v)),
            };
            let s = spec.get_or_insert_with(Default::default);
            s.insert(key.trim().into(), v);
        }
        let parts = match spec.as_mut().and_then(|s| s.remove("part")) {
            None => None,
            Some(v) => Some(serde_json::from_value(v).map_err(|e| format!("`part`: {e}"))?),
        };
        let spec = spec.filter(|s| !s.is_empty());
        let c = BookingChange {
            generation: f.generation,
            spec,
            bandwidth_mbps: f.bandwidth_mbps,
            parts,
            dry_run: f.dry_run,
        };
        if c.is_empty() {
            return Err(
                "nothing to change: give --spec FILE, --set FIELD=VALUE or --bandwidth".into(),
            );
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_flag_reads_the_object_file_and_a_map_write_parses() {
        let dir = std::env::temp_dir().join(format!("prism-flags-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("p.o");
        std::fs::write(&file, b"\x7fELF").unwrap();
        let set = [
            format!("program=@{}", file.display()),
            "reconfigure=dark".to_string(),
        ];
        let f = EditFlags {
            file: None,
            set: &set,
            bandwidth_mbps: None,
            generation: None,
            dry_run: false,
        };
        let c = BookingChange::from_flags(f).unwrap();
        let spec = c.spec.unwrap();
        assert_eq!(spec["program"], serde_json::json!({"object": "f0VMRg=="}));
        let missing = [format!("program=@{}", dir.join("none.o").display())];
        let f = EditFlags {
            file: None,
            set: &missing,
            bandwidth_mbps: None,
            generation: None,
            dry_run: false,
        };
        assert!(BookingChange::from_flags(f).unwrap_err().contains("none.o"));
        std::fs::remove_dir_all(&dir).unwrap();
        let w = prism_node_api::MapWrite::parse("2a000000=03000000").unwrap();
        assert_eq!(
            (w.key.as_str(), w.value.as_deref()),
            ("2a000000", Some("03000000"))
        );
        assert_eq!(
            prism_node_api::MapWrite::parse("2a000000=").unwrap().value,
            None
        );
        assert!(prism_node_api::MapWrite::parse("2a").is_err());
    }
}
