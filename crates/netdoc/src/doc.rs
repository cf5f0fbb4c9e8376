//! The network document: a virtual network's definition as data.
//!
//! One schema serves a scenario file's `[[network]]` table, the node API's
//! request bodies and the node's record of what it was told: the same
//! field names, the same checks (`prism_compile::compile`), the same messages. See
//! docs/scenario.md for the fields.

use crate::fields::{Addr, Mac, PortRef, Ports, Prefix, Rate, Vlan};
use prism_placement::Tier;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use utoipa::ToSchema;

fn is_false(b: &bool) -> bool {
    !*b
}

/// Where a network runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TierChoice {
    /// The compiled pipeline, in a hardware slot.
    Hardware,
    /// A router in its own container.
    Software,
    /// Placed by the placement policy (scenario files).
    Auto,
}

impl TierChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            TierChoice::Hardware => "hardware",
            TierChoice::Software => "software",
            TierChoice::Auto => "auto",
        }
    }

    /// The tier chosen, if one was (`auto` is for the placement to say).
    pub fn fixed(self) -> Option<Tier> {
        match self {
            TierChoice::Hardware => Some(Tier::Hardware),
            TierChoice::Software => Some(Tier::Software),
            TierChoice::Auto => None,
        }
    }

    /// `hardware`, `software` or `auto`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "hardware" => Some(TierChoice::Hardware),
            "software" => Some(TierChoice::Software),
            "auto" => Some(TierChoice::Auto),
            _ => None,
        }
    }
}

/// The tier a network was placed in, as a document says it.
impl From<Tier> for TierChoice {
    fn from(t: Tier) -> Self {
        match t {
            Tier::Hardware => TierChoice::Hardware,
            Tier::Software => TierChoice::Software,
        }
    }
}

/// How a hardware network's slot takes another module when its
/// `forwarding` changes (docs/customizing.md). Absent: the node's default
/// (`prism node --reconfig-strategy`, fallback unless an operator chose).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReconfigureChoice {
    /// Paper 000's partial reconfiguration: the network's slot is dark
    /// (forwards nothing) for the modelled load time; its neighbours
    /// forward on.
    #[serde(alias = "dark")]
    Partial,
    /// The software tier serves the network while its slot loads, then
    /// hands it back: nothing lost.
    Fallback,
}

/// How a network decides where a packet goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ForwardingMode {
    /// Longest-prefix match on the destination address (`route[].prefix`).
    Destination,
    /// Longest-prefix match on the source address (`route[].prefix`).
    Source,
    /// Source and destination prefixes together (`route[].src`, `route[].dst`).
    Flow,
    /// A prioritized match-action table (`rule`, `default_action`).
    Rules,
    /// Delivery by destination MAC among member ports, learning where
    /// each host is (`bridge`; hardware tier).
    Bridge,
}

/// Fields a mapping rule or a rule-table rule can match; absent means any.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MatchDoc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_port: Option<PortRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vlan: Option<Vlan>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src_mac: Option<Mac>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst_mac: Option<Mac>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ethertype: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<Prefix>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<Prefix>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inner_src: Option<Prefix>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inner_dst: Option<Prefix>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proto: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src_port: Option<Ports>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst_port: Option<Ports>,
}

/// The outer addresses of an IPIP tunnel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Endpoints {
    pub src: Addr,
    pub dst: Addr,
}

/// A way from the wide area into a network (docs/wan.md): IPIP from `src`
/// to `dst` arriving on a WAN port (decapsulated and, with `vlan_push`,
/// tagged), or 802.1ad frames with S-tag `s_tag` (the S-tag popped; with
/// `c_tag`, only those whose C-tag is `c_tag`); as if
/// they had arrived on the network's side. The gateway's: `nat` (the
/// network's hosts go out from the node's WAN address, their flows come
/// back tagged `vlan_push`), or a `public` address standing for the
/// `internal` host (1:1, both ways); the bridge's: a `public_mac` standing
/// for the `internal_mac` host (untagged on the WAN, tagged `vlan_push`
/// inside).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TunnelDoc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<Addr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<Addr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vlan_push: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub s_tag: Option<u16>,
    /// With `s_tag`: the one C-tag (the network's VLAN) frames under the
    /// S-tag may carry; others are dropped (`wan/wrong-c-tag`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c_tag: Option<u16>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub nat: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public: Option<Addr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internal: Option<Addr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_mac: Option<Mac>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internal_mac: Option<Mac>,
}

/// A payload cipher.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum CipherName {
    Chacha20poly1305,
    #[serde(rename = "aes-128-gcm")]
    Aes128Gcm,
    #[serde(rename = "aes-256-gcm")]
    Aes256Gcm,
    Des,
}

/// A payload cipher and its key (hex: 32 bytes for ChaCha20-Poly1305 and
/// AES-256-GCM, 16 for AES-128-GCM, 8 for DES).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CipherDoc {
    pub cipher: CipherName,
    pub key: String,
}

/// An action result: where the packet goes and what is done to it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionDoc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<PortRef>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub decrement_ttl: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_src_mac: Option<Mac>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_dst_mac: Option<Mac>,
    /// Hand the packet to the software tier on this channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub software: Option<u8>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub drop: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipip_encap: Option<Endpoints>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub ipip_decap: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipip_rewrite: Option<Endpoints>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vlan_push: Option<u16>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub vlan_pop: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vlan_set: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypt: Option<CipherDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decrypt: Option<CipherDoc>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub compress: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub decompress: bool,
}

/// A route: one `prefix` (destination and source modes) or `src` and `dst`
/// prefixes (flow mode), and its action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RouteDoc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<Prefix>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<Prefix>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<Prefix>,
    pub action: ActionDoc,
}

/// A rule of a `rules` network: the highest priority match wins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RuleDoc {
    pub priority: u32,
    #[serde(rename = "match", default)]
    pub matches: MatchDoc,
    pub action: ActionDoc,
}

/// A bandwidth guarantee, enforced by a token bucket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RateLimitDoc {
    pub rate: Rate,
    /// Bucket depth in bytes (default: 10 ms at the rate, at least two frames).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<u64>,
}

/// Which router runs a software network.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum RouterKind {
    /// Linux IP forwarding, configured from the network's table.
    Kernel,
    /// Prism's software router on raw frames (the default).
    #[default]
    Prism,
    /// Any program, attached to the container's interfaces.
    Command,
}

impl RouterKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RouterKind::Kernel => "kernel",
            RouterKind::Prism => "prism",
            RouterKind::Command => "command",
        }
    }
}

/// A software network's router on a live node: its kind, the addresses of
/// its interfaces, and its CPU and memory share.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RouterDoc {
    #[serde(default)]
    pub kind: RouterKind,
    /// The program of a `command` router; with `kernel`, a routing daemon
    /// started beside Linux forwarding, exporting its routes to table 200.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// Port name → address (CIDR) of the container's interface on that port.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub addresses: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_weight: Option<u32>,
    /// Memory limit in MiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mib: Option<u64>,
}

/// A virtual network: how packets are mapped to it, how it forwards, its
/// bandwidth guarantee, its tier and (in software) its router.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NetworkDoc {
    pub name: String,
    pub tier: TierChoice,
    pub forwarding: ForwardingMode,
    /// Mapping rules (the design-select table): packets matching any belong here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub map: Vec<MatchDoc>,
    /// Routes of `destination`, `source` and `flow` networks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub route: Vec<RouteDoc>,
    /// Rules of a `rules` network.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rule: Vec<RuleDoc>,
    /// What a `rules` network does when no rule matches (default: drop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_action: Option<ActionDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<RateLimitDoc>,
    /// A dedicated software channel 0-2 (default: the shared channel 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub software_channel: Option<u8>,
    /// Deficit Round Robin quantum in bytes (default 1514).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantum: Option<u32>,
    /// Expected bandwidth, for placement (`tier = "auto"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth: Option<Rate>,
    /// The software router of a live node (default: Prism's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub router: Option<RouterDoc>,
    /// Tunnels from the wide area into this network (a part of a network
    /// that spans nodes; docs/wan.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tunnel: Vec<TunnelDoc>,
    /// The member ports and static entries of a `bridge` network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bridge: Option<BridgeDoc>,
    /// How its slot changes module when `forwarding` changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reconfigure: Option<ReconfigureChoice>,
    /// The researcher's own packet program for the network's slot, run on
    /// each of its frames before its tables (hardware tier only;
    /// docs/customizing.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<ProgramDoc>,
}

/// A researcher's packet program: an XDP program as the kernel takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProgramDoc {
    /// The eBPF ELF object (what `clang -O2 -target bpf -c` writes), in
    /// base64.
    pub object: String,
    /// The XDP function to run, when the object has several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Instructions a frame may take (default 4096, at most 65536): a run
    /// past it drops the frame (`hardware/program-budget`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<u32>,
}

impl NetworkDoc {
    /// A network with no mapping rules or routes.
    pub fn new(name: impl Into<String>, tier: TierChoice, forwarding: ForwardingMode) -> Self {
        Self {
            name: name.into(),
            tier,
            forwarding,
            map: Vec::new(),
            route: Vec::new(),
            rule: Vec::new(),
            default_action: None,
            rate_limit: None,
            software_channel: None,
            quantum: None,
            bandwidth: None,
            router: None,
            tunnel: Vec::new(),
            bridge: None,
            reconfigure: None,
            program: None,
        }
    }
}

/// A bridge network's members, static entries and ageing time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BridgeDoc {
    /// The member ports. A frame goes to the member its destination MAC
    /// was learned on (or is statically behind); broadcast, multicast and
    /// unknown destinations go to every member but the one it came in by.
    pub port: Vec<BridgePortDoc>,
    /// Static entries: this MAC is behind this member (never learned
    /// elsewhere).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mac: Vec<StaticMacDoc>,
    /// Seconds a learned MAC is kept while unused (default 300, IEEE
    /// 802.1D's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ageing_s: Option<u32>,
}

/// A member port of a bridge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BridgePortDoc {
    #[schema(value_type = String)]
    pub port: PortRef,
    /// An 802.1ad S-tag (1–4094) pushed on every frame leaving by this
    /// member: the member across a wide-area Ethernet (docs/wan.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub s_tag: Option<u16>,
    /// Frames leave by this member with the network's VLAN tag popped: the
    /// WAN member of a network whose hosts hold public MACs (docs/wan.md).
    #[serde(default, skip_serializing_if = "is_false")]
    pub untagged: bool,
}

/// A static entry: `mac` is behind member `port`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StaticMacDoc {
    pub mac: Mac,
    #[schema(value_type = String)]
    pub port: PortRef,
}
