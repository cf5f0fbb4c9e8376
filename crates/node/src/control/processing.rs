//! Processing nodes' desired state, decided without I/O: the generation's
//! fence and what each node needs (the runtime starts, restarts, keeps or
//! removes containers, or rewires their interfaces, accordingly).

use prism_node_api::{ApiError, ProcessingDoc, ProcessingState};
use std::collections::BTreeMap;

/// What to do with one processing node.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Held and as asked: kept if its container still runs, else restarted.
    Keep(ProcessingDoc),
    Start(ProcessingDoc),
    /// Held with another document: removed, then started as asked.
    Replace(ProcessingDoc),
    /// Held with the same document but for its interfaces' VLANs or
    /// plugs: rewired, its container left running.
    Rewire(ProcessingDoc),
    Remove(String),
}

/// The generation and scope last accepted, and the documents held.
#[derive(Debug, Clone, Default)]
pub struct Held {
    pub generation: u64,
    pub scope: String,
    pub docs: BTreeMap<String, ProcessingDoc>,
}

impl Held {
    /// The steps from what is held to `state` (checked, and refused if
    /// older than the generation held): removals first.
    pub fn plan(&self, state: &ProcessingState) -> Result<Vec<Step>, ApiError> {
        state.check()?;
        if state.generation < self.generation {
            return Err(prism_node_api::processing_stale(
                self.generation,
                state.generation,
            ));
        }
        let wanted: BTreeMap<&str, &ProcessingDoc> =
            state.nodes.iter().map(|d| (d.name.as_str(), d)).collect();
        let mut steps: Vec<Step> = (self.docs.keys())
            .filter(|n| n.starts_with(&state.scope) && !wanted.contains_key(n.as_str()))
            .map(|n| Step::Remove(n.clone()))
            .collect();
        for d in &state.nodes {
            steps.push(match self.docs.get(&d.name) {
                None => Step::Start(d.clone()),
                Some(h) if h == d => Step::Keep(d.clone()),
                Some(h) if h.same_but_wiring(d) => Step::Rewire(d.clone()),
                Some(_) => Step::Replace(d.clone()),
            });
        }
        Ok(steps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prism_node_api::{ErrorCode, ImageRef};

    fn doc(name: &str, cpus: f64) -> ProcessingDoc {
        ProcessingDoc {
            name: name.into(),
            image: ImageRef {
                layout: "/images/base".into(),
                tag: "v1".into(),
                stored: None,
            },
            cpus,
            memory_mib: 64,
            pids: 64,
            interfaces: vec![prism_node_api::InterfaceDoc {
                port: "p0".into(),
                vlan: 7,
                addresses: vec!["10.0.0.2/24".into()],
                gateway: None,
                gateway_mac: None,
                unplugged: false,
                dhcp: false,
                rate_mbps: None,
            }],
            command: None,
            authorized_keys: Vec::new(),
        }
    }

    fn unplugged(name: &str) -> ProcessingDoc {
        let mut d = doc(name, 1.0);
        (d.interfaces[0].vlan, d.interfaces[0].unplugged) = (0, true);
        d
    }

    #[test]
    fn each_node_is_kept_started_replaced_rewired_or_removed() {
        let held = Held {
            generation: 4,
            scope: "pp-".into(),
            docs: [
                doc("pp-same", 1.0),
                doc("pp-gone", 1.0),
                doc("pp-changed", 1.0),
                doc("pp-plug", 1.0),
                doc("op-x", 1.0),
            ]
            .into_iter()
            .map(|d| (d.name.clone(), d))
            .collect(),
        };
        let state = ProcessingState {
            generation: 5,
            scope: "pp-".into(),
            nodes: vec![
                doc("pp-same", 1.0),
                doc("pp-changed", 2.0),
                unplugged("pp-plug"),
                doc("pp-new", 1.0),
            ],
        };
        let steps = held.plan(&state).unwrap();
        assert_eq!(
            steps,
            [
                Step::Remove("pp-gone".into()),
                Step::Keep(doc("pp-same", 1.0)),
                Step::Replace(doc("pp-changed", 2.0)),
                Step::Rewire(unplugged("pp-plug")),
                Step::Start(doc("pp-new", 1.0)),
            ],
            "another scope's node is left alone"
        );
        let older = ProcessingState {
            generation: 3,
            ..state
        };
        assert_eq!(
            held.plan(&older).unwrap_err().code,
            ErrorCode::StaleGeneration
        );
    }
}
