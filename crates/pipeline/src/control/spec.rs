//! What defines a network, as the substrate takes it: its mapping rules,
//! forwarding table, rate, channel, quantum and tunnels from the wide area;
//! and the substrate's refusals.

use crate::control::device::{ModuleKind, PlacementError};
use crate::fast::action::Action;
pub use crate::fast::bridge::BridgeSpec;
pub use crate::wan::tunnels::TunnelSpec;
use prism_tables::{Ipv4Prefix, LpmError, PortRange, Ternary};

/// Which tier forwards a network (one type across the crates).
pub use prism_placement::Tier;

/// A rule of the network-mapping (design-select) table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MappingRule {
    pub priority: u32,
    pub fields: Ternary,
    pub src_port: PortRange,
    pub dst_port: PortRange,
}

/// A match-action rule of a rule-table network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleSpec {
    pub priority: u32,
    pub fields: Ternary,
    pub src_port: PortRange,
    pub dst_port: PortRange,
    pub action: Action,
}

impl RuleSpec {
    /// Whether `self` matches what `other` matches, at its priority: the
    /// same rule but for its action.
    pub fn matches_as(&self, other: &RuleSpec) -> bool {
        self.priority == other.priority
            && self.fields == other.fields
            && self.src_port == other.src_port
            && self.dst_port == other.dst_port
    }
}

/// A network's forwarding mode and table.
#[derive(Debug, Clone, PartialEq)]
pub enum ForwardingSpec {
    Destination(Vec<(Ipv4Prefix, Action)>),
    Source(Vec<(Ipv4Prefix, Action)>),
    /// (source prefix, destination prefix, action).
    Flow(Vec<(Ipv4Prefix, Ipv4Prefix, Action)>),
    Rules {
        rules: Vec<RuleSpec>,
        default: Option<Action>,
    },
    /// Delivery by destination MAC among member ports ([`crate::fast::bridge`]).
    Bridge(BridgeSpec),
}

impl ForwardingSpec {
    pub fn module(&self) -> ModuleKind {
        match self {
            ForwardingSpec::Destination(_) => ModuleKind::DestinationRouting,
            ForwardingSpec::Source(_) => ModuleKind::SourceRouting,
            ForwardingSpec::Flow(_) => ModuleKind::FlowRouting,
            // A MAC table is an exact match in the rule-table module's
            // memory (modelled so; docs/wan.md).
            ForwardingSpec::Rules { .. } | ForwardingSpec::Bridge(_) => ModuleKind::RuleTable,
        }
    }
    pub fn entries(&self) -> usize {
        match self {
            ForwardingSpec::Destination(r) | ForwardingSpec::Source(r) => r.len(),
            ForwardingSpec::Flow(r) => r.len(),
            ForwardingSpec::Rules { rules, .. } => rules.len(),
            ForwardingSpec::Bridge(b) => b.members.len() + b.statics.len(),
        }
    }
    /// Every action result of the table.
    pub fn actions(&self) -> Vec<&Action> {
        match self {
            ForwardingSpec::Destination(r) | ForwardingSpec::Source(r) => {
                r.iter().map(|(_, a)| a).collect()
            }
            ForwardingSpec::Flow(r) => r.iter().map(|(_, _, a)| a).collect(),
            ForwardingSpec::Rules { rules, default } => {
                rules.iter().map(|r| &r.action).chain(default).collect()
            }
            ForwardingSpec::Bridge(b) => b.members.iter().collect(),
        }
    }
}

/// Everything that defines a network.
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkSpec {
    pub name: String,
    pub tier: Tier,
    pub mapping: Vec<MappingRule>,
    pub forwarding: ForwardingSpec,
    /// (rate in bit/s, burst in bytes).
    pub rate_limit: Option<(u64, u64)>,
    /// A dedicated channel 0..=2, or `None` for the shared channel 3.
    pub software_channel: Option<u8>,
    pub quantum: u32,
    /// Tunnels arriving on a WAN port that belong to this network
    /// ([`crate::wan::tunnels`]).
    pub tunnels: Vec<TunnelSpec>,
    /// The researcher's own program for the network's slot, run on each of
    /// its frames before its tables (hardware tier; docs/customizing.md).
    pub program: Option<ProgramSpec>,
}

/// A researcher's program as a network carries it: the checked image, what
/// names it (its object's SHA-256) and its budget per packet. Two specs
/// with the same digest and budget are the same program: a change to the
/// network's other fields keeps its maps.
#[derive(Debug, Clone)]
pub struct ProgramSpec {
    pub image: std::sync::Arc<prism_program::Image>,
    pub digest: String,
    pub budget: u32,
}

impl ProgramSpec {
    /// A 64-bit tag of the digest and budget, never 0 (a slot's record of
    /// the program it holds: [`crate::control::reconfig::SlotConfig`]).
    pub fn tag(&self) -> u64 {
        let fnv = |h: u64, b: u8| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        let d = self.digest.bytes().fold(0xcbf2_9ce4_8422_2325, fnv);
        self.budget.to_le_bytes().into_iter().fold(d, fnv).max(1)
    }
}

impl PartialEq for ProgramSpec {
    fn eq(&self, other: &Self) -> bool {
        self.digest == other.digest && self.budget == other.budget
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubstrateError {
    #[error("a network named `{0}` already exists")]
    DuplicateName(String),
    #[error("no network named `{0}`")]
    UnknownNetwork(String),
    #[error("network `{network}`: port {port} does not exist (the substrate has ports 0..{ports})")]
    BadPort {
        network: String,
        port: u16,
        ports: u16,
    },
    #[error("network `{network}`: software channel {channel} does not exist (0..=3)")]
    BadChannel { network: String, channel: u8 },
    #[error(
        "network `{network}`: dedicated software channel {channel} is already used by `{owner}`"
    )]
    ChannelTaken {
        network: String,
        channel: u8,
        owner: String,
    },
    #[error("network `{network}`: {source}")]
    Placement {
        network: String,
        source: PlacementError,
    },
    #[error("network `{network}`: {source}")]
    Table { network: String, source: LpmError },
    #[error("network `{network}`: the tunnel {tunnel:?} is already `{owner}`'s")]
    TunnelTaken {
        network: String,
        tunnel: TunnelSpec,
        owner: String,
    },
    #[error("port {port} does not exist (the substrate has ports 0..{ports})")]
    NoSuchPort { port: u16, ports: u16 },
    #[error("the substrate holds at most 65535 networks")]
    TooManyNetworks,
    #[error("network `{network}`: {reason}")]
    Bridge { network: String, reason: String },
}
