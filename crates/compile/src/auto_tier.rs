//! `tier = "auto"`: scenario networks placed by a `prism_placement` policy,
//! the same code `prism sim alloc` runs.
//!
//! Capacities: the device's slots are the hardware regions; the hardware and
//! software aggregate bandwidths come from the scenario's `[placement]`
//! table (defaults: paper 000 §5.4, 1 Gbit/s and 100 Mbit/s). Networks with
//! an explicit tier are recorded at their bandwidth (`bandwidth`, else their
//! rate limit, else zero), so auto placement sees the whole substrate. A
//! policy's migrations of earlier networks are applied to the substrate.

use prism_pipeline::Tier;
use prism_placement::{
    Capacity, Decision, Migration, NetId, Policy, Request, State, policy_by_name,
};

pub struct AutoPlacer {
    state: State,
    policy: Box<dyn Policy>,
    pub policy_name: String,
}

impl std::fmt::Debug for AutoPlacer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AutoPlacer")
            .field("policy", &self.policy_name)
            .field("state", &self.state)
            .finish()
    }
}

impl AutoPlacer {
    /// `None` if `policy` is not a known policy name.
    pub fn new(
        policy: &str,
        hw_regions: usize,
        hw_mbps: f64,
        sw_mbps: f64,
        partial_reconfig_ms: f64,
    ) -> Option<Self> {
        let cap = Capacity {
            hw_regions,
            hw_mbps,
            sw_mbps,
            to_hw_downtime_s: partial_reconfig_ms / 1e3,
            ..Capacity::PAPER
        };
        Some(Self {
            state: State::new(cap),
            policy: policy_by_name(policy)?,
            policy_name: policy.to_string(),
        })
    }

    /// Records a network whose tier the scenario fixed.
    pub fn record(&mut self, id: NetId, tier: Tier, mbps: f64) {
        self.state.place(id, tier, mbps);
    }

    /// Asks the policy where a new network of `mbps` goes; `None` if refused.
    pub fn admit(&mut self, id: NetId, mbps: f64) -> Option<(Tier, Vec<Migration>)> {
        match self
            .policy
            .decide(&mut self.state, Request::Add { id, mbps })
        {
            Decision::Added { tier, migrations } => Some((tier, migrations)),
            _ => None,
        }
    }

    pub fn used(&self) -> (f64, f64) {
        (
            self.state.used(prism_placement::Tier::Hardware),
            self.state.used(prism_placement::Tier::Software),
        )
    }
}

/// The tier a migration moves a network to, in the pipeline's terms.
pub fn destination(m: &Migration) -> Tier {
    m.to
}
