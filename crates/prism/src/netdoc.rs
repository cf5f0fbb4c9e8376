//! Network documents: a network's definition as data, with the fields of a
//! scenario file's `[[network]]` table (docs/scenario.md).
//!
//! The node API takes and returns networks in this form as JSON, the node
//! keeps one per network (the desired state its reconciler converges to),
//! and a `prism`-kind router reads its network from a small scenario file
//! rendered from it. One schema, one validator: a document is checked by
//! rendering it as a scenario with the node's ports and device and loading
//! that, so an API change is refused for exactly the reasons a scenario file
//! would be, with the same field names in the message.

use crate::router_config::RouterConfig;
use crate::scenario;
use prism_pipeline::NetworkSpec;
use serde_json::Value;
use std::fmt;

/// A refused document: what is wrong (naming the field) and the offending
/// line of the rendered TOML, for context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocError {
    pub msg: String,
    pub near: String,
}

impl fmt::Display for DocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.near.is_empty() {
            write!(f, "{}", self.msg)
        } else {
            write!(f, "{} (at `{}`)", self.msg, self.near)
        }
    }
}

impl std::error::Error for DocError {}

fn plain(msg: impl Into<String>) -> DocError {
    DocError {
        msg: msg.into(),
        near: String::new(),
    }
}

/// Where the document's nulls are: TOML has no null, and a field is left
/// out instead.
fn find_null(v: &Value, path: &str) -> Option<String> {
    match v {
        Value::Null => Some(path.to_string()),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, x)| find_null(x, &format!("{path}[{i}]"))),
        Value::Object(o) => o.iter().find_map(|(k, x)| {
            let p = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            find_null(x, &p)
        }),
        _ => None,
    }
}

/// The network's name, checked to be a string.
pub fn name(doc: &Value) -> Result<&str, DocError> {
    if !doc.is_object() {
        return Err(plain("a network is a JSON object"));
    }
    doc.get("name")
        .ok_or_else(|| plain("field `name`: a network needs a name"))?
        .as_str()
        .ok_or_else(|| plain("field `name`: a string"))
}

/// A scenario file holding `ports`, on `device`, and the one network `doc`.
pub fn render(device: &str, ports: &[String], doc: &Value) -> Result<String, DocError> {
    if !doc.is_object() {
        return Err(plain("a network is a JSON object"));
    }
    if let Some(p) = find_null(doc, "") {
        return Err(plain(format!(
            "field `{p}`: null is not a value here; leave the field out"
        )));
    }
    let net = toml::Value::try_from(doc).map_err(|e| plain(e.to_string()))?;
    let mut root = toml::Table::new();
    root.insert("device".into(), toml::Value::String(device.into()));
    let ports: Vec<toml::Value> = ports
        .iter()
        .map(|p| {
            let mut t = toml::Table::new();
            t.insert("name".into(), toml::Value::String(p.clone()));
            toml::Value::Table(t)
        })
        .collect();
    root.insert("port".into(), toml::Value::Array(ports));
    root.insert("network".into(), toml::Value::Array(vec![net]));
    toml::to_string(&root).map_err(|e| plain(e.to_string()))
}

/// Checks `doc` and compiles it into a specification and its router.
pub fn compile(
    device: &str,
    ports: &[String],
    doc: &Value,
) -> Result<(NetworkSpec, RouterConfig), DocError> {
    let name = name(doc)?.to_string();
    let text = render(device, ports, doc)?;
    let sc = scenario::load("network", &text).map_err(|e| DocError {
        msg: e.msg,
        near: e.source_line,
    })?;
    let spec = sc
        .substrate
        .spec(&name)
        .cloned()
        .ok_or_else(|| plain(format!("network `{name}` did not load")))?;
    Ok((spec, sc.routers.get(&name).cloned().unwrap_or_default()))
}

/// The `[[network]]` tables of a scenario file as documents, by name.
pub fn from_scenario(text: &str) -> std::collections::BTreeMap<String, Value> {
    let mut out = std::collections::BTreeMap::new();
    let Ok(t) = text.parse::<toml::Table>() else {
        return out;
    };
    for n in t
        .get("network")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
    {
        if let (Some(name), Ok(v)) = (
            n.get("name").and_then(toml::Value::as_str),
            serde_json::to_value(n),
        ) {
            out.insert(name.to_string(), v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use prism_pipeline::{ForwardingSpec, Tier};
    use serde_json::json;

    fn ports() -> Vec<String> {
        vec!["a".into(), "b".into()]
    }

    #[test]
    fn a_json_network_compiles_like_its_scenario_table() {
        let doc = json!({
            "name": "n", "tier": "software", "forwarding": "destination",
            "map": [{"in_port": "a"}],
            "route": [{"prefix": "10.0.2.0/24", "action": {"port": "b", "decrement_ttl": true}}],
            "rate_limit": {"rate": "5Mbit"},
            "router": {"kind": "kernel", "addresses": {"a": "10.0.1.1/24"}}
        });
        let (spec, router) = compile("alveo-u280", &ports(), &doc).unwrap();
        assert_eq!(spec.tier, Tier::Software);
        let ForwardingSpec::Destination(r) = &spec.forwarding else {
            panic!("{:?}", spec.forwarding)
        };
        assert_eq!(r[0].0.to_string(), "10.0.2.0/24");
        assert_eq!(r[0].1.out_port, Some(1));
        assert_eq!(spec.rate_limit.map(|r| r.0), Some(5_000_000));
        assert_eq!(router.addresses, vec![(0, "10.0.1.1/24".to_string())]);
    }

    #[test]
    fn refusals_name_the_field() {
        for (doc, want) in [
            (
                json!({"name": "n", "tier": "hardware", "forwarding": "destination",
                       "route": [{"prefix": "10.0.0.0/8", "action": {"port": "c"}}]}),
                "field `route[0].action.port`: no port `c`",
            ),
            (
                json!({"name": "n", "tier": "hardware", "forwarding": "destination",
                       "route": [{"prefix": "10.0.0.0/33", "action": {"port": "a"}}]}),
                "bad prefix `10.0.0.0/33`",
            ),
            (
                json!({"name": "n", "tier": "hardware", "forwarding": "destination",
                       "rate_limit": null}),
                "field `rate_limit`: null",
            ),
            (
                json!({"name": "n", "tier": "hardware", "forwarding": "sideways"}),
                "unknown variant `sideways`",
            ),
            (json!({"tier": "hardware"}), "field `name`"),
            (json!([1, 2]), "JSON object"),
        ] {
            let e = compile("alveo-u280", &ports(), &doc)
                .unwrap_err()
                .to_string();
            assert!(e.contains(want), "{doc}: {e}");
        }
    }

    #[test]
    fn scenario_networks_become_documents() {
        let text = "[[port]]\nname = \"a\"\n[[network]]\nname = \"x\"\ntier = \"hardware\"\nforwarding = \"destination\"\nroute = [{ prefix = \"10.0.0.0/8\", action = { port = \"a\" } }]\n";
        let docs = from_scenario(text);
        assert_eq!(docs["x"]["route"][0]["action"]["port"], "a");
        let (spec, _) = compile("alveo-u280", &["a".into()], &docs["x"]).unwrap();
        assert_eq!(spec.forwarding.entries(), 1);
    }
}
