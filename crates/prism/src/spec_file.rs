//! Spec files as `prism ctl` and `prism ctl book` read them (one way for
//! both).

use anyhow::{Context, Result, bail};
use serde::de::DeserializeOwned;
use std::path::Path;

/// A body of type `T` from a file: JSON, or TOML (`.toml`) with the same
/// fields; a TOML file holding one `[[network]]` table is that network.
pub fn read_body<T: DeserializeOwned>(file: &Path) -> Result<T> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let name = file.display();
    if file.extension().is_some_and(|e| e == "toml") {
        let mut t: toml::Table = text.parse().with_context(|| format!("{name}: not TOML"))?;
        if let Some(toml::Value::Array(mut a)) = t.remove("network") {
            if a.len() != 1 || !t.is_empty() {
                bail!("{name}: one [[network]] table per file, and nothing else");
            }
            return a
                .remove(0)
                .try_into()
                .with_context(|| format!("{name}: the [[network]] table"));
        }
        return toml::from_str(&text).with_context(|| format!("{name}"));
    }
    prism_netdoc::from_json(text.as_bytes()).with_context(|| format!("{name}"))
}

/// A booking's spec from a file, and its parts: a network spanning nodes
/// lists them as `[[part]]` tables (`part` in JSON), each a node and its
/// routes (docs/wan.md); the rest is the network document.
pub fn read_spec_and_parts(
    file: &Path,
) -> Result<(serde_json::Value, Vec<prism_controller::PartRequest>)> {
    let mut spec: serde_json::Value = read_body(file)?;
    let parts = match spec.as_object_mut().and_then(|o| o.remove("part")) {
        Some(p) => serde_json::from_value(p)
            .with_context(|| format!("{}: field `part`", file.display()))?,
        None => Vec::new(),
    };
    Ok((spec, parts))
}
