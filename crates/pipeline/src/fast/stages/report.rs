//! The pipeline's counters with names: what reports and the node's API
//! show.

use super::Pipeline;
use crate::fast::counters::{CounterSnapshot, NamedCounters, NetworkCounters, Stage, StageReport};

impl Pipeline {
    /// Counters with names, for reports and the API.
    pub fn snapshot(&self) -> CounterSnapshot {
        let dp = &self.current;
        let networks = self
            .counters
            .networks
            .iter()
            .enumerate()
            .filter_map(|(i, c)| {
                let n = dp.network(i as u16)?;
                Some(named(i as u16, &n.name, n.tier.as_str(), c))
            })
            .collect();
        let drops = self.counters.drops_by_reason();
        let stages = Stage::ALL
            .iter()
            .map(|st| StageReport {
                stage: st.as_str().to_string(),
                packets: self.counters.stages[*st as usize].packets,
                bytes: self.counters.stages[*st as usize].bytes,
                dropped: drops
                    .iter()
                    .filter(|(r, _)| r.stage() == st.as_str())
                    .map(|(_, n)| n)
                    .sum(),
            })
            .collect();
        CounterSnapshot {
            rx_packets: self.counters.rx_packets,
            rx_bytes: self.counters.rx_bytes,
            networks,
            unmapped_drops: self.counters.unmapped.drop_list(),
            stages,
        }
    }
}

fn named(id: u16, name: &str, tier: &str, c: &NetworkCounters) -> NamedCounters {
    NamedCounters {
        id,
        name: name.to_string(),
        tier: tier.to_string(),
        counters: c.clone(),
        dropped: c.dropped(),
        drops: c.drop_list(),
    }
}
