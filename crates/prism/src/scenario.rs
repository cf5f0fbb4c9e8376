//! Scenario files: TOML declaring ports, the device, and the networks.
//!
//! See docs/scenario.md for the format. Every error names the file, the
//! line and column, and the field: syntax and type errors come from the TOML
//! parser with their span; semantic ones (duplicate names, unknown ports,
//! capacities) carry the span of the network or field they concern.

use prism_pipeline::Service;
use prism_pipeline::{
    Action, ForwardingSpec, IpipOp, MappingRule, NetworkSpec, RuleSpec, Substrate, Tier, VlanOp,
    device,
};
use prism_tables::{Ipv4Prefix, PortRange, Ternary};
use prism_wire::{EthernetAddress, Ipv4Address};
use serde::Deserialize;
use std::fmt;
use std::ops::Range;
use toml::Spanned;

/// A scenario error, located in its file.
#[derive(Debug)]
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

fn locate(file: &str, text: &str, span: Option<Range<usize>>, msg: String) -> ScenarioError {
    let at = span.map_or(0, |s| s.start.min(text.len()));
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

/// A port reference: a name from `ports` or an index.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum PortRef {
    Index(u16),
    Name(String),
}

/// A field written either as a number or as text.
#[derive(Deserialize)]
#[serde(untagged)]
enum NumOrText<N> {
    Num(N),
    Text(String),
}

/// An inclusive port range: `80` or `"1024-65535"`.
#[derive(Debug, Clone, Copy)]
pub struct PortsField(pub PortRange);

impl<'de> Deserialize<'de> for PortsField {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match NumOrText::<u16>::deserialize(d)? {
            NumOrText::Num(n) => Ok(Self(PortRange::exact(n))),
            NumOrText::Text(s) => {
                let err = || {
                    serde::de::Error::custom(format!(
                        "`{s}` is not a port or a range `lo-hi` of ports 0-65535"
                    ))
                };
                let (lo, hi) = s.split_once('-').ok_or_else(err)?;
                let (lo, hi): (u16, u16) = (
                    lo.trim().parse().map_err(|_| err())?,
                    hi.trim().parse().map_err(|_| err())?,
                );
                if lo > hi {
                    return Err(err());
                }
                Ok(Self(PortRange { lo, hi }))
            }
        }
    }
}

macro_rules! from_str_field {
    ($name:ident, $inner:ty, $what:literal) => {
        #[derive(Debug, Clone, Copy)]
        pub struct $name(pub $inner);
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                s.parse::<$inner>().map(Self).map_err(|e| {
                    serde::de::Error::custom(format!(concat!("bad ", $what, " `{}`: {}"), s, e))
                })
            }
        }
    };
}

from_str_field!(PrefixField, Ipv4Prefix, "prefix");
from_str_field!(MacField, EthernetAddress, "MAC address");
from_str_field!(AddrField, std::net::Ipv4Addr, "IPv4 address");

/// A bit rate: a number of bit/s, or text such as `"100Mbit"` or `"1.5Gbit"`.
#[derive(Debug, Clone, Copy)]
pub struct RateField(pub u64);

impl<'de> Deserialize<'de> for RateField {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match NumOrText::<u64>::deserialize(d)? {
            NumOrText::Num(n) => Ok(Self(n)),
            NumOrText::Text(s) => parse_rate(&s).map(Self).ok_or_else(|| {
                serde::de::Error::custom(format!(
                    "bad rate `{s}`: use bit/s or a number with kbit, Mbit or Gbit"
                ))
            }),
        }
    }
}

pub fn parse_rate(s: &str) -> Option<u64> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mul) = [("gbit", 1e9), ("mbit", 1e6), ("kbit", 1e3), ("bit", 1.0)]
        .iter()
        .find_map(|(suf, m)| t.strip_suffix(suf).map(|n| (n.trim().to_string(), *m)))
        .unwrap_or((t.clone(), 1.0));
    let v: f64 = num.parse().ok()?;
    (v.is_finite() && v > 0.0).then_some((v * mul) as u64)
}

/// VLAN match: an ID, or `"none"` for untagged frames.
#[derive(Debug, Clone, Copy)]
pub struct VlanField(pub Option<u16>);

impl<'de> Deserialize<'de> for VlanField {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match NumOrText::<u16>::deserialize(d)? {
            NumOrText::Num(n) if n < 4096 => Ok(Self(Some(n))),
            NumOrText::Text(s) if s == "none" => Ok(Self(None)),
            _ => Err(serde::de::Error::custom(
                "a VLAN is an ID from 0 to 4095, or \"none\" for untagged",
            )),
        }
    }
}

/// Fields a mapping rule or a rule-table rule can match.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchToml {
    pub priority: Option<u32>,
    pub in_port: Option<Spanned<PortRef>>,
    pub vlan: Option<VlanField>,
    pub src_mac: Option<MacField>,
    pub dst_mac: Option<MacField>,
    pub ethertype: Option<u16>,
    pub src: Option<PrefixField>,
    pub dst: Option<PrefixField>,
    pub inner_src: Option<PrefixField>,
    pub inner_dst: Option<PrefixField>,
    pub proto: Option<u8>,
    pub src_port: Option<PortsField>,
    pub dst_port: Option<PortsField>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Endpoints {
    pub src: AddrField,
    pub dst: AddrField,
}

/// An action result.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionToml {
    pub port: Option<Spanned<PortRef>>,
    #[serde(default)]
    pub decrement_ttl: bool,
    pub set_src_mac: Option<MacField>,
    pub set_dst_mac: Option<MacField>,
    pub software: Option<u8>,
    #[serde(default)]
    pub drop: bool,
    pub ipip_encap: Option<Endpoints>,
    #[serde(default)]
    pub ipip_decap: bool,
    pub ipip_rewrite: Option<Endpoints>,
    pub vlan_push: Option<u16>,
    #[serde(default)]
    pub vlan_pop: bool,
    pub vlan_set: Option<u16>,
    pub encrypt: Option<CipherToml>,
    pub decrypt: Option<CipherToml>,
    #[serde(default)]
    pub compress: bool,
    #[serde(default)]
    pub decompress: bool,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CipherName {
    Chacha20poly1305,
    Des,
}

/// A payload cipher and its key (hex: 32 bytes for ChaCha20-Poly1305, 8 for DES).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CipherToml {
    pub cipher: CipherName,
    pub key: String,
}

fn hex_key<const N: usize>(s: &str) -> Option<[u8; N]> {
    let s = s.trim();
    if s.len() != 2 * N {
        return None;
    }
    let mut out = [0u8; N];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteToml {
    /// Destination or source prefix (destination/source modes).
    pub prefix: Option<PrefixField>,
    /// Source and destination prefixes (flow mode).
    pub src: Option<PrefixField>,
    pub dst: Option<PrefixField>,
    pub action: Spanned<ActionToml>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleToml {
    pub priority: u32,
    #[serde(rename = "match", default)]
    pub matches: MatchToml,
    pub action: Spanned<ActionToml>,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ForwardingMode {
    Destination,
    Source,
    Flow,
    Rules,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TierToml {
    Hardware,
    Software,
    /// Placed by the scenario's placement policy (see `auto_tier`).
    Auto,
}

/// How `tier = "auto"` networks are placed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlacementToml {
    /// `paper` (paper 000's heuristic), `no-migration` or `repack`.
    #[serde(default = "default_policy")]
    pub policy: Spanned<String>,
    pub hardware_bandwidth: Option<RateField>,
    pub software_bandwidth: Option<RateField>,
}

fn default_policy() -> Spanned<String> {
    Spanned::new(0..0, "paper".to_string())
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateLimitToml {
    pub rate: RateField,
    pub burst: Option<u64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkToml {
    pub name: Spanned<String>,
    pub tier: TierToml,
    pub forwarding: ForwardingMode,
    #[serde(default)]
    pub map: Vec<Spanned<MatchToml>>,
    #[serde(default)]
    pub route: Vec<Spanned<RouteToml>>,
    #[serde(default)]
    pub rule: Vec<Spanned<RuleToml>>,
    pub default_action: Option<Spanned<ActionToml>>,
    pub rate_limit: Option<RateLimitToml>,
    pub software_channel: Option<u8>,
    pub quantum: Option<u32>,
    /// Expected bandwidth, for placement (`tier = "auto"`).
    pub bandwidth: Option<RateField>,
    /// The software router of a live node (see `router_config`).
    pub router: Option<Spanned<crate::router_config::RouterToml>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortToml {
    pub name: Spanned<String>,
    /// Line rate; unset means the port sends whatever is queued at once.
    pub rate: Option<RateField>,
    /// The Linux interface a live node attaches this port to.
    pub interface: Option<String>,
    /// A second interface on which software networks' traffic enters
    /// straight into their routers (the multi-receiver path).
    pub software_interface: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioToml {
    #[serde(default = "default_device")]
    pub device: Spanned<String>,
    pub default_network: Option<Spanned<String>>,
    pub placement: Option<PlacementToml>,
    #[serde(default)]
    pub port: Vec<PortToml>,
    #[serde(default)]
    pub network: Vec<NetworkToml>,
}

fn default_device() -> Spanned<String> {
    Spanned::new(0..0, "alveo-u280".to_string())
}

/// A loaded scenario: the substrate with its networks, and the ports.
#[derive(Debug)]
pub struct Scenario {
    pub substrate: Substrate,
    pub port_names: Vec<String>,
    pub port_rates: Vec<Option<u64>>,
    /// Per port, the interface a live node attaches it to.
    pub interfaces: Vec<Option<String>>,
    /// Per port, its software interface (multi-receiver path), if any.
    pub software_interfaces: Vec<Option<String>>,
    /// Per network name, its software router (default: Prism's).
    pub routers: std::collections::BTreeMap<String, crate::router_config::RouterConfig>,
    /// Per network name, its `[[network]]` table as a document
    /// (`crate::netdoc`), with `tier = "auto"` replaced by the tier chosen.
    pub docs: std::collections::BTreeMap<String, serde_json::Value>,
    /// The device profile's name.
    pub device: String,
}

impl Scenario {
    pub fn port_index(&self, r: &str) -> Option<u16> {
        self.port_names
            .iter()
            .position(|n| n == r)
            .map(|i| i as u16)
            .or_else(|| {
                r.parse()
                    .ok()
                    .filter(|i| usize::from(*i) < self.port_names.len())
            })
    }
}

struct Ctx<'a> {
    file: &'a str,
    text: &'a str,
    ports: &'a [String],
}

impl Ctx<'_> {
    fn err(&self, span: Range<usize>, msg: String) -> ScenarioError {
        locate(self.file, self.text, Some(span), msg)
    }

    fn port(&self, r: &Spanned<PortRef>, net: &str, field: &str) -> Result<u16, ScenarioError> {
        let i = match r.get_ref() {
            PortRef::Index(i) if usize::from(*i) < self.ports.len() => Some(*i),
            PortRef::Index(_) => None,
            PortRef::Name(n) => self.ports.iter().position(|p| p == n).map(|i| i as u16),
        };
        i.ok_or_else(|| {
            let what = match r.get_ref() {
                PortRef::Index(i) => i.to_string(),
                PortRef::Name(n) => format!("`{n}`"),
            };
            self.err(
                r.span(),
                format!(
                    "network `{net}`: field `{field}`: no port {what} (ports: {})",
                    self.ports.join(", ")
                ),
            )
        })
    }

    fn action(
        &self,
        a: &Spanned<ActionToml>,
        net: &str,
        field: &str,
    ) -> Result<Action, ScenarioError> {
        let t = a.get_ref();
        let ipip_ops = usize::from(t.ipip_encap.is_some())
            + usize::from(t.ipip_decap)
            + usize::from(t.ipip_rewrite.is_some());
        let vlan_ops = usize::from(t.vlan_push.is_some())
            + usize::from(t.vlan_pop)
            + usize::from(t.vlan_set.is_some());
        if ipip_ops > 1 || vlan_ops > 1 {
            return Err(self.err(a.span(), format!("network `{net}`: field `{field}`: at most one IPIP and one VLAN operation per action")));
        }
        if !t.drop && t.port.is_none() && t.software.is_none() {
            return Err(self.err(a.span(), format!("network `{net}`: field `{field}`: an action needs `port`, `software` or `drop = true`")));
        }
        let ep = |e: &Endpoints| (Ipv4Address::from(e.src.0), Ipv4Address::from(e.dst.0));
        let ipip = if let Some(e) = &t.ipip_encap {
            let (src, dst) = ep(e);
            IpipOp::Encap { src, dst }
        } else if let Some(e) = &t.ipip_rewrite {
            let (src, dst) = ep(e);
            IpipOp::Rewrite { src, dst }
        } else if t.ipip_decap {
            IpipOp::Decap
        } else {
            IpipOp::None
        };
        let vid_ok = |v: u16| {
            if v < 4096 {
                Ok(v)
            } else {
                Err(self.err(
                    a.span(),
                    format!("network `{net}`: field `{field}`: VLAN ID {v} is over 4095"),
                ))
            }
        };
        let vlan = match (t.vlan_push, t.vlan_pop, t.vlan_set) {
            (Some(v), _, _) => VlanOp::Push { vid: vid_ok(v)? },
            (_, true, _) => VlanOp::Pop,
            (_, _, Some(v)) => VlanOp::Replace { vid: vid_ok(v)? },
            _ => VlanOp::None,
        };
        let services = usize::from(t.encrypt.is_some())
            + usize::from(t.decrypt.is_some())
            + usize::from(t.compress)
            + usize::from(t.decompress);
        if services > 1 {
            return Err(self.err(a.span(), format!("network `{net}`: field `{field}`: at most one of encrypt, decrypt, compress, decompress")));
        }
        let key_err = |what: &str, n: usize| {
            self.err(a.span(), format!("network `{net}`: field `{field}.{what}.key`: expected {n} bytes as {} hex digits", 2 * n))
        };
        let cipher = |c: &CipherToml, what: &str, seal: bool| -> Result<Service, ScenarioError> {
            Ok(match (c.cipher, seal) {
                (CipherName::Chacha20poly1305, true) => Service::Seal {
                    key: hex_key::<32>(&c.key).ok_or_else(|| key_err(what, 32))?,
                },
                (CipherName::Chacha20poly1305, false) => Service::Open {
                    key: hex_key::<32>(&c.key).ok_or_else(|| key_err(what, 32))?,
                },
                (CipherName::Des, true) => Service::DesEncrypt {
                    key: hex_key::<8>(&c.key).ok_or_else(|| key_err(what, 8))?,
                },
                (CipherName::Des, false) => Service::DesDecrypt {
                    key: hex_key::<8>(&c.key).ok_or_else(|| key_err(what, 8))?,
                },
            })
        };
        let service = match (&t.encrypt, &t.decrypt) {
            (Some(c), _) => Some(cipher(c, "encrypt", true)?),
            (_, Some(c)) => Some(cipher(c, "decrypt", false)?),
            _ if t.compress => Some(Service::Compress),
            _ if t.decompress => Some(Service::Decompress),
            _ => None,
        };
        Ok(Action {
            service,
            out_port: t
                .port
                .as_ref()
                .map(|p| self.port(p, net, &format!("{field}.port")))
                .transpose()?,
            set_src_mac: t.set_src_mac.map(|m| m.0),
            set_dst_mac: t.set_dst_mac.map(|m| m.0),
            decrement_ttl: t.decrement_ttl,
            to_software: t.software,
            drop: t.drop,
            ipip,
            vlan,
        })
    }

    fn fields(
        &self,
        m: &MatchToml,
        net: &str,
        field: &str,
    ) -> Result<(Ternary, PortRange, PortRange), ScenarioError> {
        let mut t = Ternary::ANY;
        if let Some(p) = &m.in_port {
            t = t.in_port(self.port(p, net, &format!("{field}.in_port"))?);
        }
        if let Some(v) = m.vlan {
            t = t.vlan(v.0);
        }
        if let Some(mac) = m.src_mac {
            t = t.src_mac(mac.0.to_u64(), u64::MAX);
        }
        if let Some(mac) = m.dst_mac {
            t = t.dst_mac(mac.0.to_u64(), u64::MAX);
        }
        if let Some(e) = m.ethertype {
            t = t.ethertype(e);
        }
        if let Some(p) = m.src {
            t = t.src_ip(p.0);
        }
        if let Some(p) = m.dst {
            t = t.dst_ip(p.0);
        }
        if let Some(p) = m.inner_src {
            t = t.inner_src_ip(p.0);
        }
        if let Some(p) = m.inner_dst {
            t = t.inner_dst_ip(p.0);
        }
        if let Some(p) = m.proto {
            t = t.proto(p, 0xff);
        }
        Ok((
            t,
            m.src_port.map_or(PortRange::ANY, |p| p.0),
            m.dst_port.map_or(PortRange::ANY, |p| p.0),
        ))
    }

    fn network(&self, n: &NetworkToml) -> Result<NetworkSpec, ScenarioError> {
        let name = n.name.get_ref().clone();
        let mut mapping = Vec::new();
        for (i, m) in n.map.iter().enumerate() {
            let (fields, src_port, dst_port) =
                self.fields(m.get_ref(), &name, &format!("map[{i}]"))?;
            mapping.push(MappingRule {
                priority: m.get_ref().priority.unwrap_or(1),
                fields,
                src_port,
                dst_port,
            });
        }
        let mode = n.forwarding;
        if mode != ForwardingMode::Rules && (!n.rule.is_empty() || n.default_action.is_some()) {
            return Err(self.err(n.name.span(), format!("network `{name}`: fields `rule` and `default_action` need `forwarding = \"rules\"`")));
        }
        if mode == ForwardingMode::Rules && !n.route.is_empty() {
            return Err(self.err(
                n.route[0].span(),
                format!(
                    "network `{name}`: field `route`: a rules network takes `rule`, not `route`"
                ),
            ));
        }
        let mut routes = Vec::new();
        let mut flows = Vec::new();
        for (i, r) in n.route.iter().enumerate() {
            let f = format!("route[{i}]");
            let rt = r.get_ref();
            let action = self.action(&rt.action, &name, &format!("{f}.action"))?;
            match (mode, rt.prefix, rt.src, rt.dst) {
                (ForwardingMode::Destination | ForwardingMode::Source, Some(p), None, None) => routes.push((p.0, action)),
                (ForwardingMode::Flow, None, Some(s), Some(d)) => flows.push((s.0, d.0, action)),
                (ForwardingMode::Flow, ..) => return Err(self.err(r.span(), format!("network `{name}`: field `{f}`: a flow route has `src` and `dst` prefixes, and no `prefix`"))),
                _ => return Err(self.err(r.span(), format!("network `{name}`: field `{f}`: a {mode:?} route has one `prefix`, and no `src`/`dst`"))),
            }
        }
        let forwarding = match mode {
            ForwardingMode::Destination => ForwardingSpec::Destination(routes),
            ForwardingMode::Source => ForwardingSpec::Source(routes),
            ForwardingMode::Flow => ForwardingSpec::Flow(flows),
            ForwardingMode::Rules => {
                let mut rules = Vec::new();
                for (i, r) in n.rule.iter().enumerate() {
                    let f = format!("rule[{i}]");
                    let rt = r.get_ref();
                    let (fields, src_port, dst_port) =
                        self.fields(&rt.matches, &name, &format!("{f}.match"))?;
                    let action = self.action(&rt.action, &name, &format!("{f}.action"))?;
                    rules.push(RuleSpec {
                        priority: rt.priority,
                        fields,
                        src_port,
                        dst_port,
                        action,
                    });
                }
                let default = n
                    .default_action
                    .as_ref()
                    .map(|a| self.action(a, &name, "default_action"))
                    .transpose()?;
                ForwardingSpec::Rules { rules, default }
            }
        };
        Ok(NetworkSpec {
            name,
            // `auto` is decided by the placement policy in `load`.
            tier: match n.tier {
                TierToml::Hardware => Tier::Hardware,
                TierToml::Software | TierToml::Auto => Tier::Software,
            },
            mapping,
            forwarding,
            rate_limit: n.rate_limit.as_ref().map(|r| {
                (
                    r.rate.0,
                    r.burst.unwrap_or_else(|| (r.rate.0 / 8 / 100).max(3028)),
                )
            }),
            software_channel: n.software_channel,
            quantum: n.quantum.unwrap_or(1514),
        })
    }
}

/// Parses and loads a scenario; `file` names it in errors.
pub fn load(file: &str, text: &str) -> Result<Scenario, ScenarioError> {
    let raw: ScenarioToml =
        toml::from_str(text).map_err(|e| locate(file, text, e.span(), e.message().to_string()))?;
    let profile = device::profile(raw.device.get_ref()).ok_or_else(|| {
        let names: Vec<_> = device::PROFILES.iter().map(|p| p.name).collect();
        locate(
            file,
            text,
            Some(raw.device.span()),
            format!(
                "field `device`: unknown device `{}` (known: {})",
                raw.device.get_ref(),
                names.join(", ")
            ),
        )
    })?;
    if raw.port.is_empty() {
        return Err(locate(
            file,
            text,
            None,
            "field `port`: a scenario needs at least one [[port]]".into(),
        ));
    }
    let mut port_names: Vec<String> = Vec::new();
    for p in &raw.port {
        if port_names.contains(p.name.get_ref()) {
            return Err(locate(
                file,
                text,
                Some(p.name.span()),
                format!(
                    "field `port.name`: duplicate port name `{}`",
                    p.name.get_ref()
                ),
            ));
        }
        port_names.push(p.name.get_ref().clone());
    }
    let ctx = Ctx {
        file,
        text,
        ports: &port_names,
    };
    let mut substrate = Substrate::new(profile.clone(), port_names.len() as u16);
    let pl = raw.placement.as_ref();
    let policy = pl.map_or(default_policy(), |p| p.policy.clone());
    let mut placer = crate::auto_tier::AutoPlacer::new(
        policy.get_ref(),
        usize::from(profile.slots),
        pl.and_then(|p| p.hardware_bandwidth)
            .map_or(1000.0, |r| r.0 as f64 / 1e6),
        pl.and_then(|p| p.software_bandwidth)
            .map_or(100.0, |r| r.0 as f64 / 1e6),
        profile.partial_reconfig_ms,
    )
    .ok_or_else(|| {
        ctx.err(
            policy.span(),
            format!(
                "field `placement.policy`: unknown policy `{}` (paper, no-migration, repack)",
                policy.get_ref()
            ),
        )
    })?;
    let mut routers = std::collections::BTreeMap::new();
    for n in &raw.network {
        let mut spec = ctx.network(n)?;
        if let Some(r) = &n.router {
            let cfg =
                crate::router_config::check(r, &spec.name, &port_names, |sp, m| ctx.err(sp, m))?;
            routers.insert(spec.name.clone(), cfg);
        }
        let mbps = n
            .bandwidth
            .map(|b| b.0 as f64 / 1e6)
            .or(spec.rate_limit.map(|(r, _)| r as f64 / 1e6));
        let mut migrations = Vec::new();
        if matches!(n.tier, TierToml::Auto) {
            let mbps = mbps.ok_or_else(|| ctx.err(n.name.span(), format!("network `{}`: field `bandwidth`: `tier = \"auto\"` needs `bandwidth` (or a `rate_limit`) to place the network", spec.name)))?;
            let next = substrate.networks().count() as u64;
            let (tier, m) = placer.admit(next, mbps).ok_or_else(|| {
                let (hw, sw) = placer.used();
                ctx.err(n.name.span(), format!("network `{}`: field `tier`: the `{}` policy found no room for {mbps} Mbit/s (hardware carries {hw:.1} Mbit/s, software {sw:.1})", spec.name, placer.policy_name))
            })?;
            spec.tier = tier;
            migrations = m;
        }
        let tier = spec.tier;
        let id = substrate
            .add_network(spec)
            .map_err(|e| ctx.err(n.name.span(), e.to_string()))?;
        if !matches!(n.tier, TierToml::Auto) {
            placer.record(u64::from(id), tier, mbps.unwrap_or(0.0));
        }
        for m in &migrations {
            let name = substrate
                .networks()
                .find(|(i, _)| u64::from(*i) == m.id)
                .map(|(_, s)| s.name.clone())
                .unwrap_or_default();
            substrate
                .set_tier(&name, crate::auto_tier::destination(m))
                .map_err(|e| {
                    ctx.err(
                        n.name.span(),
                        format!("placing `{}` moves `{name}`: {e}", n.name.get_ref()),
                    )
                })?;
        }
    }
    if let Some(d) = &raw.default_network {
        substrate
            .set_default_network(Some(d.get_ref()))
            .map_err(|e| ctx.err(d.span(), format!("field `default_network`: {e}")))?;
    }
    let mut docs = crate::netdoc::from_scenario(text);
    for (name, doc) in docs.iter_mut() {
        if let Some(s) = substrate.spec(name) {
            doc["tier"] = serde_json::Value::String(s.tier.as_str().into());
        }
    }
    Ok(Scenario {
        docs,
        device: profile.name.to_string(),
        substrate,
        port_rates: raw.port.iter().map(|p| p.rate.map(|r| r.0)).collect(),
        interfaces: raw.port.iter().map(|p| p.interface.clone()).collect(),
        software_interfaces: raw
            .port
            .iter()
            .map(|p| p.software_interface.clone())
            .collect(),
        routers,
        port_names,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
device = "netfpga-v2p"
[[port]]
name = "wan"
[[port]]
name = "lan"
rate = "1Gbit"

[[network]]
name = "red"
tier = "hardware"
forwarding = "destination"
map = [{ in_port = "wan", vlan = 10 }]
route = [{ prefix = "10.0.0.0/8", action = { port = "lan", decrement_ttl = true } }]
"#;

    fn err(text: &str) -> String {
        load("s.toml", text).unwrap_err().to_string()
    }

    /// `s.toml:N:` for the (last) line of `text` containing `needle`.
    fn at(text: &str, needle: &str) -> String {
        let n = text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.contains(needle))
            .last()
            .expect("needle present")
            .0
            + 1;
        format!("s.toml:{n}:")
    }

    #[test]
    fn loads() {
        let s = load("s.toml", GOOD).unwrap();
        assert_eq!(s.port_names, vec!["wan", "lan"]);
        assert_eq!(s.port_rates, vec![None, Some(1_000_000_000)]);
        assert_eq!(s.substrate.hardware().free_slots(), 1);
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let t = GOOD.replace("decrement_ttl = true", "decrement_ttl = true, colour = 1");
        let e = err(&t);
        assert!(
            e.starts_with(&at(&t, "colour")) && e.contains("unknown field `colour`"),
            "{e}"
        );
        let t = GOOD.replace("10.0.0.0/8", "10.0.0.0/33");
        let e = err(&t);
        assert!(
            e.starts_with(&at(&t, "/33")) && e.contains("bad prefix `10.0.0.0/33`"),
            "{e}"
        );
        let e = err(&GOOD.replace("10.0.0.0/8", "10.0.0.1/8"));
        assert!(e.contains("bits set past"), "{e}");
        let t = GOOD.replace("port = \"lan\"", "port = \"dmz\"");
        let e = err(&t);
        assert!(
            e.starts_with(&at(&t, "dmz"))
                && e.contains("field `route[0].action.port`: no port `dmz`"),
            "{e}"
        );
        let dup = format!(
            "{GOOD}\n[[network]]\nname = \"red\"\ntier = \"software\"\nforwarding = \"source\"\n"
        );
        let e = err(&dup);
        assert!(
            e.starts_with(&at(&dup, "name = \"red\"")) && e.contains("`red` already exists"),
            "{e}"
        );
        let three = format!(
            "{GOOD}\n[[network]]\nname = \"b\"\ntier = \"hardware\"\nforwarding = \"source\"\n\n[[network]]\nname = \"c\"\ntier = \"hardware\"\nforwarding = \"flow\"\n"
        );
        let e = err(&three);
        assert!(
            e.starts_with(&at(&three, "name = \"c\"")) && e.contains("all 2 hardware slots"),
            "{e}"
        );
        let t = GOOD.replace("netfpga-v2p", "stratix");
        let e = err(&t);
        assert!(
            e.starts_with(&at(&t, "stratix")) && e.contains("unknown device `stratix`"),
            "{e}"
        );
        let t = GOOD.replace("vlan = 10", "vlan = 5000");
        let e = err(&t);
        assert!(e.starts_with(&at(&t, "5000")), "{e}");
        let e = err("port = 3");
        assert!(e.starts_with("s.toml:1:"), "{e}");
        let t = GOOD.replace("\"1Gbit\"", "\"fast\"");
        let e = err(&t);
        assert!(
            e.starts_with(&at(&t, "fast")) && e.contains("bad rate"),
            "{e}"
        );
    }

    #[test]
    fn auto_tier_follows_the_paper_heuristic() {
        let base = "device = \"netfpga-v2p\"\n[placement]\npolicy = \"paper\"\nsoftware_bandwidth = \"100Mbit\"\n[[port]]\nname = \"p\"\n";
        let net = |name: &str, bw: &str| {
            format!(
                "[[network]]\nname = \"{name}\"\ntier = \"auto\"\nforwarding = \"destination\"\nbandwidth = \"{bw}\"\n"
            )
        };
        // Software first while its 100 Mbit/s last, then the 2 hardware slots, then refusal.
        let text = format!(
            "{base}{}{}{}{}",
            net("a", "60Mbit"),
            net("b", "50Mbit"),
            net("c", "30Mbit"),
            net("d", "200Mbit")
        );
        let s = load("s.toml", &text).unwrap();
        let tiers: Vec<_> = s.substrate.networks().map(|(_, n)| n.tier).collect();
        assert_eq!(
            tiers,
            vec![
                Tier::Software,
                Tier::Hardware,
                Tier::Software,
                Tier::Hardware
            ]
        );
        let text = format!("{text}{}", net("e", "20Mbit"));
        let e = load("s.toml", &text).unwrap_err().to_string();
        assert!(
            e.contains("network `e`: field `tier`: the `paper` policy found no room"),
            "{e}"
        );
        let e = load(
            "s.toml",
            &format!("{base}[[network]]\nname = \"x\"\ntier = \"auto\"\nforwarding = \"source\"\n"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("needs `bandwidth`"), "{e}");
        let e = load("s.toml", &base.replace("\"paper\"", "\"magic\""))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("s.toml:3:") && e.contains("unknown policy `magic`"),
            "{e}"
        );
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("100Mbit"), Some(100_000_000));
        assert_eq!(parse_rate("1.5 Gbit"), Some(1_500_000_000));
        assert_eq!(parse_rate("64000"), Some(64_000));
        assert_eq!(parse_rate("-1Mbit"), None);
    }
}
