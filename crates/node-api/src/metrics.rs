//! `GET /metrics`: the node in OpenMetrics text, for Prometheus.
//!
//! Built on each scrape from what the API already answers (networks,
//! counters, ports, the node), so the metrics and `/v1/*` never disagree.
//! Counters are the pipeline's own cumulative ones, exported as
//! `ConstCounter`s through a prometheus-client `Collector`; nothing is kept
//! between scrapes.
//!
//! Families (counters get `_total`):
//! - `prism_network_packets`, `prism_network_bytes` {network, direction=rx|tx};
//!   `prism_network_software_packets` {network, direction=to|from};
//!   `prism_network_drops` {network, reason} with `stage/reason` names;
//!   `prism_network_tier_moves` {network};
//! - `prism_network_info` {network, tier, forwarding, slot} = 1 and
//!   `prism_network_hardware` {network} = 1 in hardware, 0 in software;
//! - `prism_stage_packets`, `prism_stage_bytes`, `prism_stage_drops` {stage};
//!   `prism_unmapped_drops` {reason}: dropped before a network was known;
//! - `prism_port_frames` {port, worker, io, direction=rx|tx},
//!   `prism_port_tx_errors`, `prism_port_rx_ring_drops` {port, worker, io};
//! - `prism_hardware_slots` {state=total|free}, `prism_workers`,
//!   `prism_node_info` {device, io} = 1.

use crate::api::NodeApi;
use crate::counters::CounterSnapshot;
use crate::error::{ApiError, ErrorCode};
use crate::types::{NetworkView, NodeInfo, PortView, Tier};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Registry;

/// The content type of `GET /metrics`.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Everything one scrape reports.
#[derive(Debug, Clone)]
pub struct NodeMetrics {
    pub node: NodeInfo,
    pub networks: Vec<NetworkView>,
    /// `None` before the workers' first report.
    pub counters: Option<CounterSnapshot>,
    pub ports: Vec<PortView>,
}

impl NodeMetrics {
    pub fn gather<A: NodeApi + ?Sized>(a: &A) -> Result<Self, ApiError> {
        Ok(Self {
            node: a.node()?,
            networks: a.list_networks()?,
            counters: match a.counters() {
                Ok(c) => Some(c),
                Err(e) if e.code == ErrorCode::Unavailable => None,
                Err(e) => return Err(e),
            },
            ports: a.ports()?,
        })
    }

    /// The OpenMetrics text.
    pub fn encode(self) -> Result<String, ApiError> {
        let mut reg = Registry::default();
        reg.register_collector(Box::new(self));
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &reg)
            .map_err(|e| ApiError::internal(format!("encoding metrics: {e}")))?;
        Ok(out)
    }
}

type Labels = Vec<(&'static str, String)>;

/// Writes one family: `rows` of (labels, value).
fn family<M: EncodeMetric>(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    kind: MetricType,
    rows: impl IntoIterator<Item = (Labels, M)>,
) -> Result<(), std::fmt::Error> {
    let mut f = enc.encode_descriptor(name, help, None, kind)?;
    for (labels, m) in rows {
        m.encode(f.encode_family(&labels)?)?;
    }
    Ok(())
}

fn counter(v: u64) -> ConstCounter<u64> {
    ConstCounter::new(v)
}

fn gauge(v: i64) -> ConstGauge<i64> {
    ConstGauge::new(v)
}

fn net(n: &str) -> Labels {
    vec![("network", n.to_string())]
}

fn with(mut l: Labels, k: &'static str, v: impl Into<String>) -> Labels {
    l.push((k, v.into()));
    l
}

impl Collector for NodeMetrics {
    fn encode(&self, mut enc: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let e = &mut enc;
        self.encode_node(e)?;
        self.encode_networks(e)?;
        if let Some(c) = &self.counters {
            self.encode_counters(e, c)?;
        }
        self.encode_ports(e)
    }
}

impl NodeMetrics {
    /// The node's profile, workers and slots.
    fn encode_node(&self, e: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
        use MetricType::Gauge;
        family(
            e,
            "prism_node_info",
            "The node's device profile and I/O (value 1)",
            Gauge,
            [(
                vec![
                    ("device", self.node.device.clone()),
                    ("io", self.node.io.clone()),
                ],
                gauge(1),
            )],
        )?;
        family(
            e,
            "prism_workers",
            "Polling worker threads",
            Gauge,
            [(vec![], gauge(self.node.workers as i64))],
        )?;
        let slots = &self.node.hardware_slots;
        family(
            e,
            "prism_hardware_slots",
            "Hardware-tier slots (regions) of the device profile, modelled",
            Gauge,
            [
                (vec![("state", "total".into())], gauge(slots.total as i64)),
                (vec![("state", "free".into())], gauge(slots.free as i64)),
            ],
        )
    }

    /// Each network's tier, module, slot and moves.
    fn encode_networks(&self, e: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
        use MetricType::{Counter, Gauge};
        let tier = |n: &NetworkView| match n.tier {
            Tier::Hardware => "hardware",
            Tier::Software => "software",
        };
        family(
            e,
            "prism_network_info",
            "A network's tier, forwarding module and slot (value 1)",
            Gauge,
            self.networks.iter().map(|n| {
                let l = with(net(&n.name), "tier", tier(n));
                let l = with(l, "forwarding", n.forwarding.clone());
                let slot = n.slot.map_or(String::new(), |s| s.to_string());
                (with(l, "slot", slot), gauge(1))
            }),
        )?;
        family(
            e,
            "prism_network_hardware",
            "1 while the network is in the hardware tier, 0 in software",
            Gauge,
            self.networks
                .iter()
                .map(|n| (net(&n.name), gauge(i64::from(n.tier == Tier::Hardware)))),
        )?;
        family(
            e,
            "prism_network_tier_moves",
            "Moves between the tiers since the node started",
            Counter,
            self.networks
                .iter()
                .map(|n| (net(&n.name), counter(n.tier_moves))),
        )
    }

    /// Each worker socket's frames, errors and ring drops.
    fn encode_ports(&self, e: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
        use MetricType::Counter;
        let port = |p: &PortView| {
            vec![
                ("port", p.name.clone()),
                ("worker", p.worker.to_string()),
                ("io", p.io.clone()),
            ]
        };
        family(
            e,
            "prism_port_frames",
            "Frames received and sent by a worker's socket",
            Counter,
            self.ports.iter().flat_map(|p| {
                [
                    (with(port(p), "direction", "rx"), counter(p.rx_frames)),
                    (with(port(p), "direction", "tx"), counter(p.tx_frames)),
                ]
            }),
        )?;
        family(
            e,
            "prism_port_tx_errors",
            "Frames the interface refused on transmit",
            Counter,
            self.ports.iter().map(|p| (port(p), counter(p.tx_errors))),
        )?;
        family(
            e,
            "prism_port_rx_ring_drops",
            "Frames the kernel dropped for want of receive ring space",
            Counter,
            self.ports
                .iter()
                .map(|p| (port(p), counter(p.rx_ring_drops))),
        )
    }

    fn encode_counters(
        &self,
        e: &mut DescriptorEncoder,
        c: &CounterSnapshot,
    ) -> Result<(), std::fmt::Error> {
        use MetricType::Counter;
        let nets = &c.networks;
        let rx_tx = ["rx", "tx"];
        by_direction(
            e,
            "prism_network_packets",
            "Packets a network received and sent",
            nets,
            rx_tx,
            |n| [n.rx_packets, n.tx_packets],
        )?;
        by_direction(
            e,
            "prism_network_bytes",
            "Bytes a network received and sent",
            nets,
            rx_tx,
            |n| [n.rx_bytes, n.tx_bytes],
        )?;
        by_direction(
            e,
            "prism_network_software_packets",
            "Packets handed to a network's software router and taken back",
            nets,
            ["to", "from"],
            |n| [n.to_software, n.from_software],
        )?;
        family(
            e,
            "prism_network_drops",
            "A network's packets dropped, by stage/reason",
            Counter,
            nets.iter().flat_map(|n| {
                n.drops
                    .iter()
                    .map(|(why, k)| (with(net(&n.name), "reason", why.clone()), counter(*k)))
            }),
        )?;
        family(
            e,
            "prism_unmapped_drops",
            "Packets dropped before a network was known, by stage/reason",
            Counter,
            c.unmapped_drops
                .iter()
                .map(|(why, k)| (vec![("reason", why.clone())], counter(*k))),
        )?;
        encode_stages(e, c)
    }
}

/// A counter family of two values per network told apart by `direction`.
fn by_direction(
    e: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    nets: &[crate::counters::NamedCounters],
    dirs: [&str; 2],
    get: impl Fn(&crate::counters::NetworkCounters) -> [u64; 2],
) -> Result<(), std::fmt::Error> {
    family(
        e,
        name,
        help,
        MetricType::Counter,
        nets.iter().flat_map(|n| {
            let v = get(&n.counters);
            [0, 1].map(|i| (with(net(&n.name), "direction", dirs[i]), counter(v[i])))
        }),
    )
}

/// The pipeline stages' packets, bytes and drops.
fn encode_stages(e: &mut DescriptorEncoder, c: &CounterSnapshot) -> Result<(), std::fmt::Error> {
    use MetricType::Counter;
    let stage = |s: &str| vec![("stage", s.to_string())];
    family(
        e,
        "prism_stage_packets",
        "Packets that entered a pipeline stage",
        Counter,
        c.stages
            .iter()
            .map(|s| (stage(&s.stage), counter(s.packets))),
    )?;
    family(
        e,
        "prism_stage_bytes",
        "Bytes that entered a pipeline stage",
        Counter,
        c.stages.iter().map(|s| (stage(&s.stage), counter(s.bytes))),
    )?;
    family(
        e,
        "prism_stage_drops",
        "Packets a pipeline stage dropped",
        Counter,
        c.stages
            .iter()
            .map(|s| (stage(&s.stage), counter(s.dropped))),
    )
}
