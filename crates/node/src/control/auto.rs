//! `tier = "auto"` on a live node: the node measures
//! each network's rate over a sliding window and moves automatic networks
//! between the tiers with a `prism_placement` policy, with hysteresis.
//!
//! Every evaluation (`EVAL_MS`):
//! - rates: bytes the pipelines received per network over the last
//!   `WINDOW_NS`, from the workers' reports;
//! - growth: an automatic network measured above the rate it was placed
//!   at (by more than `BAND`) is a resize request to the policy (paper
//!   000's greedy heuristic, `paper`, or Prism's `repack`); the migrations
//!   it answers are the moves wanted. Fixed-tier networks count at their
//!   measured rate and are never moved;
//! - shrinking: an automatic network in hardware whose rate would fit in
//!   `DEMOTE` of the software tier's free share goes back to software
//!   (hardware slots are the scarce resource; the policies never move a
//!   network that shrinks).
//!
//! Hysteresis: a move happens only once the same evaluation has wanted it
//! `HOLD` times in a row, and not within `DWELL_NS` of the network's last
//! move. Every move is logged with its reason.

use super::{ApplyError, Control};
use crate::runtime::NodeRuntime;
use prism_netdoc::{NetworkDoc, PlacementDoc, TierChoice};
use prism_node_api::{ErrorCode, EventKind};
use prism_pipeline::Tier;
use prism_placement::{Capacity, Decision, Request, State, policy_by_name};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// How often the node evaluates automatic placement.
pub const EVAL_MS: u64 = 500;
const WINDOW_NS: u64 = 2_000_000_000;
const BAND: f64 = 0.10;
const DEMOTE: f64 = 0.5;
const HOLD: u32 = 3;
const DWELL_NS: u64 = 5_000_000_000;

/// The placement policy and the tiers' capacities.
#[derive(Debug, Clone, PartialEq)]
pub struct AutoSettings {
    pub policy: String,
    pub hw_mbps: f64,
    pub sw_mbps: f64,
}

impl AutoSettings {
    /// A scenario's `[placement]` table, with its defaults (paper 000
    /// §5.4: 1 Gbit/s in hardware, 100 Mbit/s in software).
    pub fn from_doc(p: Option<&PlacementDoc>) -> Self {
        Self {
            policy: p.map_or("paper".into(), |p| p.policy.clone()),
            hw_mbps: p
                .and_then(|p| p.hardware_bandwidth)
                .map_or(1000.0, |r| r.0 as f64 / 1e6),
            sw_mbps: p
                .and_then(|p| p.software_bandwidth)
                .map_or(100.0, |r| r.0 as f64 / 1e6),
        }
    }
}

#[derive(Debug)]
pub(super) struct AutoState {
    pub settings: AutoSettings,
    /// The automatic networks, and the rate each was last placed at.
    pub accepted: BTreeMap<String, f64>,
    samples: VecDeque<(u64, BTreeMap<String, u64>)>,
    pending: BTreeMap<String, (Tier, u32)>,
    last_move: BTreeMap<String, u64>,
}

impl AutoState {
    pub fn new(settings: AutoSettings) -> Self {
        Self {
            settings,
            accepted: BTreeMap::new(),
            samples: VecDeque::new(),
            pending: BTreeMap::new(),
            last_move: BTreeMap::new(),
        }
    }

    /// Mbit/s per network over the window, once it spans at least half.
    fn rates(&self) -> Option<BTreeMap<String, f64>> {
        let (t1, last) = self.samples.back()?;
        let (t0, first) = self.samples.front()?;
        let dt = t1.saturating_sub(*t0);
        if dt < WINDOW_NS / 2 {
            return None;
        }
        Some(
            last.iter()
                .map(|(n, b)| {
                    let d = b.saturating_sub(first.get(n).copied().unwrap_or(*b));
                    (n.clone(), d as f64 * 8.0 / dt as f64 * 1e3)
                })
                .collect(),
        )
    }
}

impl<R: NodeRuntime> Control<R> {
    /// Where a new automatic network goes: the policy's answer for its
    /// declared `bandwidth`.
    pub(super) fn admit_auto(&self, doc: &NetworkDoc) -> Result<Tier, ApplyError> {
        let bad = |m: String| ApplyError {
            field: Some("bandwidth".into()),
            ..ApplyError::new(ErrorCode::InvalidInput, m)
        };
        let mbps = doc.bandwidth.map(|b| b.0 as f64 / 1e6).ok_or_else(|| {
            bad("`tier = \"auto\"` needs `bandwidth` to place the network".into())
        })?;
        let mut st = self.placement_state(&BTreeMap::new());
        let mut policy = policy_by_name(&self.auto.settings.policy)
            .ok_or_else(|| bad(format!("unknown policy `{}`", self.auto.settings.policy)))?;
        match policy.decide(&mut st, Request::Add { id: u64::MAX, mbps }) {
            Decision::Added { tier, .. } => Ok(tier),
            _ => Err(ApplyError::new(
                ErrorCode::Capacity,
                format!(
                    "the `{}` policy finds no room for {mbps} Mbit/s",
                    self.auto.settings.policy
                ),
            )),
        }
    }

    /// The networks as the placement library sees them: automatic ones at
    /// the rate they were placed at, the others at `rates` (or nothing).
    fn placement_state(&self, rates: &BTreeMap<String, f64>) -> State {
        let s = &self.auto.settings;
        let mut st = State::new(Capacity {
            hw_regions: usize::from(self.substrate.hardware().profile.slots),
            hw_mbps: s.hw_mbps,
            sw_mbps: s.sw_mbps,
            ..Capacity::PAPER
        });
        for (id, spec) in self.substrate.networks() {
            let mbps = self
                .auto
                .accepted
                .get(&spec.name)
                .or(rates.get(&spec.name))
                .copied()
                .unwrap_or(0.0);
            st.place(u64::from(id), spec.tier, mbps);
        }
        st
    }

    /// Takes a sample of the bytes each network received (the pipelines'
    /// counters) at `now_ns`, and moves automatic networks as placement
    /// and hysteresis say.
    pub fn observe(&mut self, now_ns: u64, bytes: BTreeMap<String, u64>) {
        self.auto.samples.push_back((now_ns, bytes));
        while self
            .auto
            .samples
            .front()
            .is_some_and(|(t, _)| now_ns.saturating_sub(*t) > WINDOW_NS)
        {
            self.auto.samples.pop_front();
        }
        if self.auto.accepted.is_empty() || self.reconfiguring() {
            return;
        }
        let Some(rates) = self.auto.rates() else {
            return;
        };
        let wanted = self.auto_targets(&rates);
        let pending = std::mem::take(&mut self.auto.pending);
        for (name, (tier, why)) in wanted {
            let n = match pending.get(&name) {
                Some((t, n)) if *t == tier => n + 1,
                _ => 1,
            };
            let rested = self
                .auto
                .last_move
                .get(&name)
                .is_none_or(|t| now_ns.saturating_sub(*t) >= DWELL_NS);
            if n >= HOLD && rested {
                self.move_auto(&name, tier, rates.get(&name).copied(), &why, now_ns);
            } else {
                self.auto.pending.insert(name, (tier, n));
            }
        }
    }

    /// The moves this evaluation wants, with their reasons.
    fn auto_targets(&mut self, rates: &BTreeMap<String, f64>) -> BTreeMap<String, (Tier, String)> {
        let mut wanted = BTreeMap::new();
        let Some(mut policy) = policy_by_name(&self.auto.settings.policy) else {
            return wanted;
        };
        let mut st = self.placement_state(rates);
        let ids: BTreeMap<u64, String> = self
            .substrate
            .networks()
            .map(|(id, s)| (u64::from(id), s.name.clone()))
            .collect();
        let mut order: Vec<(String, f64)> = self
            .auto
            .accepted
            .keys()
            .map(|n| (n.clone(), rates.get(n).copied().unwrap_or(0.0)))
            .collect();
        order.sort_by(|a, b| b.1.total_cmp(&a.1));
        for (name, m) in order {
            let Some(id) = self.substrate.id(&name).map(u64::from) else {
                continue;
            };
            let acc = self.auto.accepted.get(&name).copied().unwrap_or(0.0);
            let tier = self.substrate.spec(&name).map(|s| s.tier);
            if m > acc * (1.0 + BAND) || m < acc * (1.0 - BAND) {
                let mut trial = st.clone();
                if let Decision::Resized { migrations } =
                    policy.decide(&mut trial, Request::Resize { id, mbps: m })
                {
                    let movable = migrations.iter().all(|x| {
                        ids.get(&x.id)
                            .is_some_and(|n| self.auto.accepted.contains_key(n))
                    });
                    if movable {
                        st = trial;
                        for x in &migrations {
                            let n = ids[&x.id].clone();
                            let to = x.to;
                            let why = format!(
                                "`{name}` measured {m:.2} Mbit/s (placed at {acc:.2}); the `{}` policy moves `{n}` to {}",
                                self.auto.settings.policy,
                                to.as_str()
                            );
                            wanted.insert(n, (to, why));
                        }
                        if migrations.is_empty() {
                            self.auto.accepted.insert(name.clone(), m);
                        }
                    }
                }
            }
            if tier == Some(Tier::Hardware)
                && !wanted.contains_key(&name)
                && let Some(why) = self.demotion(&name, m, &st)
            {
                wanted.insert(name.clone(), (Tier::Software, why));
            }
        }
        wanted
    }

    /// Why hardware network `name`, measured at `m` Mbit/s, goes to the
    /// software tier (`None`: it stays): it needs under `DEMOTE` of what
    /// the software tier has free.
    fn demotion(&self, name: &str, m: f64, st: &State) -> Option<String> {
        let free = self.auto.settings.sw_mbps - st.used(Tier::Software);
        (m < DEMOTE * free).then(|| {
            format!(
                "`{name}` measured {m:.2} Mbit/s, under {:.0}% of the software tier's free {free:.2} Mbit/s: its hardware slot is freed",
                DEMOTE * 100.0
            )
        })
    }

    fn move_auto(&mut self, name: &str, tier: Tier, mbps: Option<f64>, why: &str, now_ns: u64) {
        let Some(mut doc) = self.docs.get(name).cloned() else {
            return;
        };
        doc.tier = TierChoice::from(tier);
        let r = self.apply_concrete(name, doc);
        self.auto.last_move.insert(name.to_string(), now_ns);
        let msg = match &r {
            Ok(_) => {
                if let Some(m) = mbps {
                    self.auto.accepted.insert(name.to_string(), m);
                }
                format!(
                    "network `{name}` moved to {} automatically: {why}",
                    tier.as_str()
                )
            }
            Err(e) => format!(
                "network `{name}`: an automatic move to {} failed ({e}); wanted because {why}",
                tier.as_str()
            ),
        };
        self.log(EventKind::AutoMove, name, None, (None, None), msg);
    }

    /// The documents as their users wrote them: automatic networks say
    /// `tier = "auto"`.
    pub fn definitions(&self) -> BTreeMap<String, NetworkDoc> {
        self.docs
            .iter()
            .map(|(n, d)| (n.clone(), self.definition_of(n, d)))
            .collect()
    }

    /// [`Self::definitions`] without copying a document: only an
    /// automatic network's is copied (its tier reads `auto`).
    pub fn definitions_borrowed(&self) -> BTreeMap<&str, Cow<'_, NetworkDoc>> {
        self.docs
            .iter()
            .map(|(n, d)| {
                let d = if self.auto.accepted.contains_key(n) {
                    Cow::Owned(self.definition_of(n, d))
                } else {
                    Cow::Borrowed(d)
                };
                (n.as_str(), d)
            })
            .collect()
    }

    pub fn definition(&self, name: &str) -> Option<NetworkDoc> {
        self.docs.get(name).map(|d| self.definition_of(name, d))
    }

    fn definition_of(&self, name: &str, d: &NetworkDoc) -> NetworkDoc {
        let mut d = d.clone();
        if self.auto.accepted.contains_key(name) {
            d.tier = TierChoice::Auto;
        }
        d
    }

    /// Makes the networks of `names` (placed by a scenario) automatic.
    pub fn set_auto(&mut self, settings: AutoSettings, names: &BTreeSet<String>) {
        self.auto = AutoState::new(settings);
        for n in names {
            let mbps = self
                .docs
                .get(n)
                .and_then(|d| d.bandwidth)
                .map_or(0.0, |b| b.0 as f64 / 1e6);
            self.auto.accepted.insert(n.clone(), mbps);
        }
    }
}
