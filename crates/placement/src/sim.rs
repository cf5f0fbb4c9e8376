//! The trace-driven allocation simulator of paper 000 §5.4.
//!
//! Networks arrive as a Poisson process (mean inter-arrival 2 h) with a
//! bandwidth drawn from a [`BandwidthDist`] and an exponentially distributed
//! lifetime (mean 64 h); each leaves at the end of its lifetime. Every hour
//! each active network asks for a new bandwidth, `initial × (1 + u)` with
//! `u` uniform in `[-v, v]` for the maximum variance `v`: the paper speaks of
//! "fluctuations from their initial bandwidth assignments", so demand varies
//! around the initial value rather than drifting as a random walk (which,
//! multiplicative and symmetric, would shrink every network over time). An
//! increase over the current bandwidth that cannot be met keeps the current
//! bandwidth.
//!
//! Deterministic given a seed. The trace (arrivals, lifetimes, initial
//! bandwidths) and every network's hourly draw are the same for every policy
//! (common random numbers), so policies are compared on identical demand.

use crate::allocator::{Capacity, Decision, NetId, Policy, Request, State};
use crate::dist::{BandwidthDist, exponential};
use rand::SeedableRng;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Debug, Clone)]
pub struct SimConfig {
    pub networks: usize,
    pub mean_interarrival_h: f64,
    pub mean_lifetime_h: f64,
    /// Maximum relative change per hour (0.3 = ±30%).
    pub max_variance: f64,
    pub seed: u64,
    pub capacity: Capacity,
    pub bandwidth: BandwidthDist,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            networks: 1000,
            mean_interarrival_h: 2.0,
            mean_lifetime_h: 64.0,
            max_variance: 0.5,
            seed: 1,
            capacity: Capacity::PAPER,
            bandwidth: BandwidthDist::default(),
        }
    }
}

/// What one run produced.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct SimResult {
    pub policy: String,
    pub max_variance: f64,
    pub networks: usize,
    pub admitted: usize,
    pub rejected: usize,
    /// Every hourly bandwidth revision (decreases are always granted).
    pub revisions: u64,
    pub granted: u64,
    /// Revisions that asked for more bandwidth.
    pub increases: u64,
    pub increases_granted: u64,
    pub migrations: u64,
    pub migrations_to_hw: u64,
    pub migrations_to_sw: u64,
    /// Sum of migration downtimes, seconds.
    pub downtime_s: f64,
    pub simulated_hours: f64,
    pub mean_active: f64,
}

impl SimResult {
    /// The migrations a decision made, and their modelled downtime.
    fn count_migrations(&mut self, d: &Decision, cfg: &SimConfig) {
        if let Decision::Added { migrations, .. } | Decision::Resized { migrations } = d {
            for m in migrations {
                self.migrations += 1;
                match m.to {
                    crate::Tier::Hardware => self.migrations_to_hw += 1,
                    crate::Tier::Software => self.migrations_to_sw += 1,
                }
                self.downtime_s += cfg.capacity.downtime(m.to);
            }
        }
    }

    pub fn granted_pct(&self) -> f64 {
        100.0 * self.granted as f64 / self.revisions.max(1) as f64
    }
    pub fn increases_granted_pct(&self) -> f64 {
        100.0 * self.increases_granted as f64 / self.increases.max(1) as f64
    }
}

/// One network of the trace.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceEntry {
    pub arrival_h: f64,
    pub lifetime_h: f64,
    pub mbps: f64,
}

/// The arrivals of a run; the same for every policy and variance.
pub fn trace(cfg: &SimConfig) -> Vec<TraceEntry> {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(cfg.seed);
    let mut t = 0.0;
    (0..cfg.networks)
        .map(|_| {
            t += exponential(&mut rng, cfg.mean_interarrival_h);
            TraceEntry {
                arrival_h: t,
                lifetime_h: exponential(&mut rng, cfg.mean_lifetime_h),
                mbps: cfg.bandwidth.sample(&mut rng),
            }
        })
        .collect()
}

/// A uniform number in [0, 1) for (seed, network, hour): SplitMix64.
fn hourly_uniform(seed: u64, id: NetId, hour: u64) -> f64 {
    let mut z =
        seed ^ id.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ hour.wrapping_mul(0xd1b5_4a32_d192_ed03);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// Runs `policy` over the trace of `cfg`.
pub fn run(cfg: &SimConfig, trace: &[TraceEntry], policy: &mut dyn Policy) -> SimResult {
    let mut st = State::new(cfg.capacity);
    let mut res = SimResult {
        policy: policy.name().to_string(),
        max_variance: cfg.max_variance,
        networks: trace.len(),
        ..SimResult::default()
    };
    // Departures by time (in integer nanohours, so the heap orders exactly).
    let mut departures: BinaryHeap<Reverse<(u64, NetId)>> = BinaryHeap::new();
    let mut active: Vec<NetId> = Vec::new();
    let mut next = 0usize;
    let mut hour = 1u64;
    let mut active_hours = 0.0;
    let key = |t: f64| (t * 1e9) as u64;
    loop {
        let t_arr = trace.get(next).map(|e| e.arrival_h);
        let t_dep = departures.peek().map(|Reverse((k, _))| *k as f64 / 1e9);
        if t_arr.is_none() && t_dep.is_none() {
            break;
        }
        let t_next = t_arr
            .unwrap_or(f64::INFINITY)
            .min(t_dep.unwrap_or(f64::INFINITY));
        // Hourly revisions due before the next arrival or departure.
        while (hour as f64) <= t_next {
            active_hours += active.len() as f64;
            let h = Hour { cfg, trace, hour };
            h.revise(&mut st, policy, &active, &mut res);
            hour += 1;
        }
        if t_dep.is_some_and(|d| t_arr.is_none_or(|a| d <= a)) {
            let Reverse((_, id)) = departures.pop().expect("peeked");
            policy.decide(&mut st, Request::Remove { id });
            if let Some(i) = active.iter().position(|x| *x == id) {
                active.swap_remove(i);
            }
        } else {
            let e = trace[next];
            let id = next as NetId;
            next += 1;
            let d = policy.decide(&mut st, Request::Add { id, mbps: e.mbps });
            res.count_migrations(&d, cfg);
            if matches!(d, Decision::Added { .. }) {
                res.admitted += 1;
                active.push(id);
                active.sort_unstable();
                departures.push(Reverse((key(e.arrival_h + e.lifetime_h), id)));
            } else {
                res.rejected += 1;
            }
        }
        res.simulated_hours = t_next;
    }
    res.mean_active = active_hours / (hour.saturating_sub(1)).max(1) as f64;
    debug_assert!(st.check().is_ok());
    res
}

/// One hour's bandwidth revisions.
struct Hour<'a> {
    cfg: &'a SimConfig,
    trace: &'a [TraceEntry],
    hour: u64,
}

impl Hour<'_> {
    /// Every active network asks for its initial bandwidth varied by up to
    /// ±`max_variance`; the policy grants or refuses each.
    fn revise(
        &self,
        st: &mut State,
        policy: &mut dyn Policy,
        active: &[NetId],
        res: &mut SimResult,
    ) {
        let cfg = self.cfg;
        for &id in active {
            let old = st.get(id).map_or(0.0, |p| p.mbps);
            let u = (2.0 * hourly_uniform(cfg.seed, id, self.hour) - 1.0) * cfg.max_variance;
            let want = (self.trace[id as usize].mbps * (1.0 + u)).max(1e-6);
            res.revisions += 1;
            if want > old {
                res.increases += 1;
            }
            let d = policy.decide(st, Request::Resize { id, mbps: want });
            if matches!(d, Decision::Resized { .. }) {
                res.granted += 1;
                res.increases_granted += u64::from(want > old);
            }
            res.count_migrations(&d, cfg);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::allocator::{NoMigration, PaperGreedy, Repack};

    #[test]
    fn trace_statistics_match_the_configuration() {
        let cfg = SimConfig {
            networks: 100_000,
            ..Default::default()
        };
        let t = trace(&cfg);
        let n = t.len() as f64;
        let mean_gap = t.last().unwrap().arrival_h / n;
        let mean_life = t.iter().map(|e| e.lifetime_h).sum::<f64>() / n;
        assert!((mean_gap - 2.0).abs() < 0.03, "inter-arrival {mean_gap}");
        assert!((mean_life - 64.0).abs() < 1.0, "lifetime {mean_life}");
        let mut bw: Vec<f64> = t.iter().map(|e| e.mbps).collect();
        bw.sort_by(f64::total_cmp);
        assert!(
            (bw[bw.len() / 2] - 10.0).abs() < 0.3,
            "median bandwidth {}",
            bw[bw.len() / 2]
        );
        // Poisson arrivals: the coefficient of variation of gaps is 1.
        let gaps: Vec<f64> = t
            .windows(2)
            .map(|w| w[1].arrival_h - w[0].arrival_h)
            .collect();
        let m = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let sd = (gaps.iter().map(|g| (g - m).powi(2)).sum::<f64>() / gaps.len() as f64).sqrt();
        assert!((sd / m - 1.0).abs() < 0.03, "cv {}", sd / m);
    }

    #[test]
    fn hourly_changes_are_uniform_within_the_variance() {
        let xs: Vec<f64> = (0..100_000u64)
            .map(|h| hourly_uniform(7, h % 97, h))
            .collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        assert!((mean - 0.5).abs() < 0.005);
        assert!(xs.iter().all(|x| (0.0..1.0).contains(x)));
        let below_tenth = xs.iter().filter(|x| **x < 0.1).count() as f64 / xs.len() as f64;
        assert!((below_tenth - 0.1).abs() < 0.005);
    }

    #[test]
    fn deterministic_and_littles_law() {
        let cfg = SimConfig::default();
        let t = trace(&cfg);
        let a = run(&cfg, &t, &mut PaperGreedy);
        let b = run(&cfg, &t, &mut PaperGreedy);
        assert_eq!(a, b);
        // Little's law: about arrival rate × lifetime = 32 networks active.
        assert!(
            (20.0..45.0).contains(&a.mean_active),
            "mean active {}",
            a.mean_active
        );
        assert_eq!(a.admitted + a.rejected, 1000);
    }

    #[test]
    fn migration_helps_at_high_variance_and_baseline_never_migrates() {
        let cfg = SimConfig {
            max_variance: 1.0,
            ..Default::default()
        };
        let t = trace(&cfg);
        let base = run(&cfg, &t, &mut NoMigration);
        let paper = run(&cfg, &t, &mut PaperGreedy);
        let repack = run(&cfg, &t, &mut Repack::default());
        assert_eq!(base.migrations, 0);
        assert!(paper.migrations > 0);
        assert!(
            paper.increases_granted_pct() > base.increases_granted_pct(),
            "{} vs {}",
            paper.increases_granted_pct(),
            base.increases_granted_pct()
        );
        assert!(
            repack.increases_granted_pct() >= paper.increases_granted_pct() - 0.5,
            "{} vs {}",
            repack.increases_granted_pct(),
            paper.increases_granted_pct()
        );
    }
}
