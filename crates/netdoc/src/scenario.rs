//! Scenario files as data: TOML declaring the device, the ports and the
//! networks (docs/scenario.md); `prism-compile` loads them into a
//! substrate.
//!
//! Every error names the file, the line and column, and the field: syntax
//! and type errors come from the TOML parser with their place; errors found
//! when the documents are compiled and placed carry the path of their
//! field, resolved to its place in the text (`crate::location`).

use crate::doc::NetworkDoc;
use crate::fields::Rate;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Range;

/// A scenario error, located in its file.
#[derive(Debug, Clone)]
pub struct ScenarioError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub msg: String,
    pub source_line: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.msg
        )?;
        if !self.source_line.is_empty() {
            write!(f, "\n    | {}", self.source_line)?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

impl ScenarioError {
    /// An error about the field at `path` (`network[2].route[0]`) of the
    /// scenario `file` holding `text`, located in the text.
    pub fn at_field(file: &str, text: &str, path: &str, msg: String) -> Self {
        locate(file, text, crate::location::locate(text, path), msg)
    }

    /// An error about the whole scenario, located at its start.
    pub fn at_start(file: &str, text: &str, msg: String) -> Self {
        locate(file, text, None, msg)
    }
}

fn locate(file: &str, text: &str, range: Option<Range<usize>>, msg: String) -> ScenarioError {
    let at = range.map_or(0, |s| s.start.min(text.len()));
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = at - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    let source_line = text
        .lines()
        .nth(line - 1)
        .unwrap_or("")
        .trim_end()
        .to_string();
    ScenarioError {
        file: file.to_string(),
        line,
        column,
        msg,
        source_line,
    }
}

/// How `tier = "auto"` networks are placed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlacementDoc {
    /// `paper` (paper 000's heuristic), `no-migration` or `repack`.
    #[serde(default = "default_policy")]
    pub policy: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hardware_bandwidth: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub software_bandwidth: Option<Rate>,
}

/// The placement policy a scenario without one names (paper 000's).
pub fn default_policy() -> String {
    "paper".into()
}

/// A port of the substrate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortDoc {
    pub name: String,
    /// Line rate; unset means the port sends whatever is queued at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// The Linux interface a live node attaches this port to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interface: Option<String>,
    /// A second interface on which software networks' traffic enters
    /// straight into their routers (the multi-receiver path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub software_interface: Option<String>,
    /// This port is the node's uplink to the wide area (docs/wan.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wan: Option<WanDoc>,
}

/// A WAN port's identity on the wide area: the address other nodes send
/// tunnels to and the MAC they send them to (reported to the controller);
/// for the gateway service, the MAC of the router beyond it (`next_hop`:
/// where what leaves for the Internet is sent) and the node's pool of
/// public addresses (`public`, leased through the controller); for the
/// bridge service, its pool of public MACs (`public_macs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WanDoc {
    pub address: crate::fields::Addr,
    pub mac: crate::fields::Mac,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_hop: Option<crate::fields::Mac>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public: Option<crate::fields::Prefix>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_macs: Option<crate::fields::MacPool>,
}

impl PortDoc {
    pub fn named(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            rate: None,
            interface: None,
            software_interface: None,
            wan: None,
        }
    }
}

/// A scenario file as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioDoc {
    #[serde(default = "default_device")]
    pub device: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_network: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<PlacementDoc>,
    #[serde(default)]
    pub port: Vec<PortDoc>,
    #[serde(default)]
    pub network: Vec<NetworkDoc>,
}

fn default_device() -> String {
    "alveo-u280".into()
}

impl ScenarioDoc {
    /// A scenario of one network on `device` with `ports` (what a `prism`
    /// router reads its network from).
    pub fn single(device: &str, ports: &[String], doc: NetworkDoc) -> Self {
        Self {
            device: device.to_string(),
            default_network: None,
            placement: None,
            port: ports.iter().map(PortDoc::named).collect(),
            network: vec![doc],
        }
    }

    pub fn to_toml(&self) -> Result<String, toml::ser::Error> {
        toml::to_string(self)
    }

    /// Parses scenario `file`'s `text`; a syntax or type error is located.
    pub fn parse(file: &str, text: &str) -> Result<Self, ScenarioError> {
        toml::from_str(text).map_err(|e| locate(file, text, e.span(), e.message().to_string()))
    }
}
