//! Request and response bodies of the node API.

use prism_netdoc::{ActionDoc, NetworkDoc, RouteDoc, RouterKind, RuleDoc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The tier a running node places a network in.
pub use prism_placement::Tier;

/// A software network's router as it runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RouterView {
    pub kind: RouterKind,
    /// The container (network namespace and cgroup) it runs in.
    pub container: String,
    /// Substrate ports the container has a link on.
    pub ports: Vec<u16>,
    /// Links on the multi-receiver path (joined to a bridge).
    pub bridged: Vec<u16>,
}

/// A network as the node runs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct NetworkView {
    pub id: u16,
    pub name: String,
    pub tier: Tier,
    /// The forwarding module: `destination`, `source`, `source+destination`, `rules`.
    pub forwarding: String,
    /// Routes or rules in its table.
    pub entries: usize,
    pub rate_bps: Option<u64>,
    pub burst_bytes: Option<u64>,
    /// The hardware slot (region) it occupies.
    pub slot: Option<usize>,
    pub router: Option<RouterView>,
    /// Moves between the tiers since the node started.
    #[serde(default)]
    pub tier_moves: u64,
}

/// One network: how it runs and the document it was defined by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NetworkDetail {
    pub network: NetworkView,
    pub definition: NetworkDoc,
}

/// What a change did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Changed {
    /// In words: `network `x` moved to software`.
    pub result: String,
    /// The network after the change (none after a removal).
    pub network: Option<NetworkView>,
}

/// A network's new routes (destination, source and flow networks).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RoutesBody {
    pub route: Vec<RouteDoc>,
}

/// A rules network's new rule table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RulesBody {
    #[serde(default)]
    pub rule: Vec<RuleDoc>,
    /// When no rule matches (absent: drop).
    #[serde(default)]
    pub default_action: Option<ActionDoc>,
}

/// A network's new bandwidth guarantee; no rate removes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RateLimitBody {
    pub rate_bps: Option<u64>,
    #[serde(default)]
    pub burst_bytes: Option<u64>,
}

impl RateLimitBody {
    /// `none` (no guarantee) or a rate as a network document gives it
    /// (`10Mbit`), with the default burst.
    pub fn parse(rate: &str) -> Result<Self, String> {
        let rate_bps = match rate {
            "none" => None,
            r => Some(
                prism_netdoc::parse_rate(r)
                    .ok_or_else(|| format!("`{r}` is not a rate (e.g. 10Mbit)"))?,
            ),
        };
        Ok(Self {
            rate_bps,
            burst_bytes: None,
        })
    }
}

/// The tier to move a network to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TierBody {
    pub tier: Tier,
}

/// Hardware slots of the node's device profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SlotsInfo {
    pub total: u16,
    pub free: usize,
}

/// The node: device profile, ports, I/O, workers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct NodeInfo {
    /// The device profile (a model of an FPGA; see `prism profiles`).
    pub device: String,
    pub ports: Vec<String>,
    /// Per port, whether it has a software interface (multi-receiver path).
    pub software_interfaces: Vec<bool>,
    /// `auto`, `xdp` or `packet`.
    pub io: String,
    pub workers: usize,
    pub hardware_slots: SlotsInfo,
    /// The generation of the last desired state accepted by
    /// `PUT /v1/desired` (0: none yet); older ones are refused.
    #[serde(default)]
    pub desired_generation: u64,
    /// The node's uplink to the wide area, if it has one (docs/wan.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wan: Option<WanInfo>,
    /// The port its processing nodes are behind, if it runs them
    /// (`prism node --processing-port`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub processing_port: Option<String>,
}

/// A node's WAN port: where other nodes send its networks' tunnels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct WanInfo {
    /// The port's name.
    pub port: String,
    /// Its IPv4 address on the wide area.
    pub address: String,
    /// Its MAC address (the next hop of tunnels to it on a wide-area Ethernet).
    pub mac: String,
    /// The MAC of the router beyond it: where the gateway sends what
    /// leaves for the Internet (NAT, public addresses).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_hop: Option<String>,
    /// The node's pool of public addresses (CIDR), leased through the
    /// controller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public: Option<String>,
    /// The node's pool of public MACs (`02:0b:00:00:00:00/40`), leased
    /// through the controller for hosts of bridge networks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_macs: Option<String>,
}

/// One socket of a worker, with its statistics.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PortView {
    pub worker: usize,
    /// The interface.
    pub name: String,
    /// `af_xdp native copy`, `af_packet`, ...
    pub io: String,
    /// Polled for received frames.
    pub rx: bool,
    pub rx_frames: u64,
    pub tx_frames: u64,
    /// Frames the interface refused on transmit.
    pub tx_errors: u64,
    /// Frames the kernel dropped because the receive ring was full.
    pub rx_ring_drops: u64,
}

/// A trace or capture request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TapBody {
    /// Packets to record (1 to 100,000); a capture counts ingress and
    /// egress frames each.
    pub count: usize,
    /// Copy the frames (a capture) as well as the stages' decisions.
    #[serde(default)]
    pub capture: bool,
    /// Bytes kept per frame in a capture (default and at most 2048).
    #[serde(default)]
    pub snaplen: Option<usize>,
    /// How long to wait for the packets, ms (default 10,000, at most 60,000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

impl TapBody {
    /// A trace of `count` packets (`snaplen`: a capture keeping that
    /// many bytes of each), waiting at most `timeout_s` seconds.
    pub fn new(count: usize, snaplen: Option<usize>, timeout_s: u64) -> Self {
        Self {
            count,
            capture: snaplen.is_some(),
            snaplen,
            timeout_ms: Some(timeout_s.saturating_mul(1000)),
        }
    }
}

impl TapAnswer {
    /// What to say when fewer than the `count` packets asked came.
    pub fn shortfall(&self, count: usize) -> Option<String> {
        self.timed_out.then(|| {
            format!(
                "{} of {count} packets came before the time ran out",
                self.packets.len()
            )
        })
    }
}

/// One packet seen by a trace or capture.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TapView {
    pub point: crate::counters::TapPoint,
    /// Unix time, ns.
    pub timestamp_ns: u64,
    /// The port's name: input at ingress, output at egress.
    pub port: String,
    pub network: Option<String>,
    /// Length on the wire.
    pub len: usize,
    /// The frame as hex (a capture), at most the snap length.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub data: String,
    /// Each stage's decision (ingress).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stages: Vec<crate::counters::StageDecision>,
}

/// What a trace or capture recorded, in time order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TapAnswer {
    pub packets: Vec<TapView>,
    /// Fewer than asked: the time ran out first.
    pub timed_out: bool,
}

impl TapAnswer {
    /// A capture's frames, for `prism_wire::pcapng::write`; an error names
    /// the frame that is not hex.
    pub fn frames(&self) -> Result<Vec<prism_wire::pcapng::Frame<'_>>, String> {
        self.packets.iter().enumerate().map(captured).collect()
    }
}

fn captured((i, p): (usize, &TapView)) -> Result<prism_wire::pcapng::Frame<'_>, String> {
    use prism_wire::pcapng::{Direction, Frame};
    let data = hex::decode(&p.data).map_err(|_| format!("frame {i} of the capture is not hex"))?;
    Ok(Frame {
        port: &p.port,
        timestamp_ns: p.timestamp_ns,
        original_len: p.len,
        data,
        direction: match p.point {
            crate::counters::TapPoint::Ingress => Direction::Inbound,
            crate::counters::TapPoint::Egress => Direction::Outbound,
        },
    })
}

/// How a hardware network's module is changed: `partial` (paper 000: only
/// its slot is dark for the load), `fallback` (served by software while its
/// slot loads: no loss), `full` (paper 003 §3.5: the whole device is
/// reprogrammed, the other hardware networks are carried by software).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum StrategyName {
    Partial,
    Fallback,
    Full,
}

/// A hardware network's new definition, loaded by reconfiguring its slot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReconfigureBody {
    /// The network's new document (tier `hardware`), usually with another
    /// `forwarding` mode.
    pub definition: NetworkDoc,
    /// Absent: the node's default (`prism node --reconfig-strategy`).
    #[serde(default)]
    pub strategy: Option<StrategyName>,
}

/// What an event is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum EventKind {
    ReconfigurationStarted,
    ReconfigurationDone,
    ReconfigurationFailed,
    /// `tier = "auto"`: the node moved a network on its measured rate.
    AutoMove,
    /// A network moved between the tiers because its definition asked
    /// (`PUT …/tier`, a new document, the desired state).
    TierMove,
    /// The node started (`network` is empty; the message says how many
    /// networks it holds and whether they came from its saved state).
    NodeStarted,
}

/// One entry of the node's event log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NodeEvent {
    /// Increasing from 1 since the node started.
    pub seq: u64,
    /// Unix time, ms.
    pub unix_ms: u64,
    pub kind: EventKind,
    pub network: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<StrategyName>,
    /// The device model's time for the reconfiguration (a model: Prism runs
    /// no FPGA): the slot's load, or the whole device's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modelled_ms: Option<f64>,
    /// Measured on this node: from the call to the network forwarding in
    /// hardware on its new module (router starts and moves included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_ms: Option<f64>,
    pub message: String,
}

/// A reconfiguration as started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Reconfiguring {
    pub event: NodeEvent,
    pub network: Option<NetworkView>,
}

/// One region of the device and what it draws (modelled).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RegionPowerView {
    pub slot: usize,
    /// `active` (a network's module), `gated` (a module no network uses,
    /// clock-gated) or `blank`.
    pub state: String,
    pub network: Option<String>,
    pub mw: f64,
}

/// The device's power as the profile's model gives it for what the node
/// holds now. Never measured: Prism runs no FPGA.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PowerView {
    /// Always `model`.
    pub kind: String,
    pub device: String,
    pub total_mw: f64,
    pub device_static_mw: f64,
    pub static_region_mw: f64,
    pub regions: Vec<RegionPowerView>,
    /// Each hardware network's region, mW (software networks draw none
    /// from the device).
    pub networks: std::collections::BTreeMap<String, f64>,
    /// Where the model's figures come from.
    pub source: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::TapPoint;

    #[test]
    fn a_captured_frame_that_is_not_hex_is_named() {
        let view = |data: &str| TapView {
            point: TapPoint::Egress,
            timestamp_ns: 7,
            port: "p0".into(),
            network: None,
            len: 64,
            data: data.into(),
            stages: Vec::new(),
        };
        let answer = TapAnswer {
            packets: vec![view("0102"), view("zz")],
            timed_out: false,
        };
        assert_eq!(
            answer.frames().unwrap_err(),
            "frame 1 of the capture is not hex"
        );
        let ok = TapAnswer {
            packets: vec![view("0102")],
            timed_out: false,
        };
        let f = &ok.frames().unwrap()[0];
        assert_eq!(
            (f.port, f.original_len, &f.data[..]),
            ("p0", 64, &[1u8, 2][..])
        );
        assert_eq!(f.direction, prism_wire::pcapng::Direction::Outbound);
    }
}
