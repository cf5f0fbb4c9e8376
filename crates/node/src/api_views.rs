//! The pipeline's counters, tap records and strategies as the node API
//! reports them (`prism_node_api::counters`): the API links no pipeline,
//! so the node, which links both, converts.

use prism_node_api as api;
use prism_pipeline as pl;
use prism_pipeline::control::reconfig::Strategy;

/// A snapshot of the pipelines' counters as the API reports it.
pub fn counters(c: pl::CounterSnapshot) -> api::CounterSnapshot {
    api::CounterSnapshot {
        rx_packets: c.rx_packets,
        rx_bytes: c.rx_bytes,
        networks: c.networks.into_iter().map(network).collect(),
        unmapped_drops: c.unmapped_drops,
        stages: c
            .stages
            .into_iter()
            .map(|s| api::StageReport {
                stage: s.stage,
                packets: s.packets,
                bytes: s.bytes,
                dropped: s.dropped,
            })
            .collect(),
    }
}

fn network(n: pl::NamedCounters) -> api::NamedCounters {
    let c = &n.counters;
    api::NamedCounters {
        id: n.id,
        name: n.name,
        tier: n.tier,
        counters: api::NetworkCounters {
            rx_packets: c.rx_packets,
            rx_bytes: c.rx_bytes,
            tx_packets: c.tx_packets,
            tx_bytes: c.tx_bytes,
            to_software: c.to_software,
            from_software: c.from_software,
        },
        dropped: n.dropped,
        drops: n.drops,
    }
}

pub fn tap_point(p: pl::TapPoint) -> api::TapPoint {
    match p {
        pl::TapPoint::Ingress => api::TapPoint::Ingress,
        pl::TapPoint::Egress => api::TapPoint::Egress,
    }
}

pub fn stage_decision(d: pl::StageDecision) -> api::StageDecision {
    api::StageDecision {
        stage: d.stage,
        decision: d.decision,
    }
}

/// The strategy a body names.
pub fn strategy(s: api::StrategyName) -> Strategy {
    match s {
        api::StrategyName::Partial => Strategy::Partial,
        api::StrategyName::Fallback => Strategy::Fallback,
        api::StrategyName::Full => Strategy::Full,
    }
}

/// A strategy's name in a body.
pub fn strategy_name(s: Strategy) -> api::StrategyName {
    match s {
        Strategy::Partial => api::StrategyName::Partial,
        Strategy::Fallback => api::StrategyName::Fallback,
        Strategy::Full => api::StrategyName::Full,
    }
}
