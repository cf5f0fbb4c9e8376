//! The allocation policies: no migration (the baseline), paper 000's
//! greedy heuristic, and Prism's repacking one.

use super::*;

/// The baseline: never migrates.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoMigration;

impl Policy for NoMigration {
    fn name(&self) -> &'static str {
        "no-migration"
    }
    fn decide(&mut self, s: &mut State, r: Request) -> Decision {
        if let Request::Add { id, mbps } = r {
            return admit_software_first(s, id, mbps);
        }
        common(s, r).unwrap_or(Decision::Denied)
    }
}

/// Paper 000 §3.2.3, as written.
#[derive(Debug, Default, Clone, Copy)]
pub struct PaperGreedy;

impl Policy for PaperGreedy {
    fn name(&self) -> &'static str {
        "paper"
    }
    fn decide(&mut self, s: &mut State, r: Request) -> Decision {
        if let Request::Add { id, mbps } = r {
            return admit_software_first(s, id, mbps);
        }
        if let Some(d) = common(s, r) {
            return d;
        }
        let Request::Resize { id, mbps } = r else {
            return Decision::Denied;
        };
        let Some(p) = s.get(id) else {
            return Decision::UnknownNetwork;
        };
        let mut trial = s.clone();
        let mut migrations = Vec::new();
        // Make room in the network's own tier by moving others out, one at a
        // time: from hardware the lowest-bandwidth network goes to software;
        // from software the highest-bandwidth network goes to hardware.
        loop {
            if trial.fits(p.tier, mbps - p.mbps, false) {
                trial.set_mbps(id, mbps);
                *s = trial;
                return Decision::Resized { migrations };
            }
            let others = trial
                .networks()
                .filter(|(n, q)| *n != id && q.tier == p.tier);
            let pick = match p.tier {
                Tier::Hardware => {
                    others.min_by(|a, b| a.1.mbps.total_cmp(&b.1.mbps).then(a.0.cmp(&b.0)))
                }
                Tier::Software => {
                    others.max_by(|a, b| a.1.mbps.total_cmp(&b.1.mbps).then(b.0.cmp(&a.0)))
                }
            };
            match pick {
                Some((n, q)) if trial.fits(p.tier.other(), q.mbps, true) => {
                    migrations.extend(trial.migrate(n))
                }
                _ => break,
            }
        }
        // Or move the network itself to the other tier, if it fits there.
        let mut trial = s.clone();
        if trial.fits(p.tier.other(), mbps, true) {
            let m = trial.migrate(id).expect("network exists");
            trial.set_mbps(id, mbps);
            *s = trial;
            return Decision::Resized {
                migrations: vec![m],
            };
        }
        Decision::Denied
    }
}

/// Prism's policy: a rebalance is the cheapest feasible set of migrations,
/// found by exhaustive search instead of a fixed greedy order.
///
/// When a request does not fit as it stands (an increase, or an addition
/// that fits neither tier), `Repack` considers every set of up to `budget`
/// migrations, in either direction, of any network including the one that
/// grows, and keeps the feasible set that moves the fewest networks, then
/// leaves the most room in the two scarce resources (free software bandwidth
/// plus free hardware regions, as fractions; in the simulator this halves
/// later migrations compared with choosing by downtime first), then costs the
/// least downtime (a move into hardware costs a partial reconfiguration, 3 s;
/// into software a container start and address remapping, 12 s: paper 003
/// §5). The paper's greedy order only ever moves the smallest hardware
/// network or the largest software one, and stops at the first that does
/// not fit; it also never migrates to admit a new network.
#[derive(Debug, Clone, Copy)]
pub struct Repack {
    pub budget: usize,
}

impl Default for Repack {
    fn default() -> Self {
        Self { budget: 3 }
    }
}

/// A demand to satisfy: a network changing bandwidth, or a new one in a tier.
#[derive(Debug, Clone, Copy)]
pub(super) enum Demand {
    Resize {
        id: NetId,
        from: f64,
        to: f64,
        tier: Tier,
    },
    Add {
        mbps: f64,
        tier: Tier,
    },
}

/// Largest migration budget the search supports.
pub const MAX_BUDGET: usize = 4;

impl Repack {
    /// The best plan (networks to move) of at most `budget` moves.
    ///
    /// Combinations are enumerated smallest first over index arrays, and
    /// each is checked with a few additions: no allocation per candidate.
    fn plan(&self, s: &State, demand: Demand) -> Option<Vec<(NetId, Placed)>> {
        let moves = Moves::new(s, demand);
        let n = moves.nets.len();
        for size in 1..=self.budget.min(n).min(MAX_BUDGET) {
            let mut best: Option<((f64, f64), [usize; MAX_BUDGET])> = None;
            let mut idx = [0usize; MAX_BUDGET];
            for (k, v) in idx.iter_mut().enumerate().take(size) {
                *v = k;
            }
            loop {
                if let Some(sc) = moves.score(&idx[..size])
                    && best
                        .as_ref()
                        .is_none_or(|b| sc.0 < b.0.0 || (sc.0 == b.0.0 && sc.1 < b.0.1))
                {
                    best = Some((sc, idx));
                }
                if !next_combination(&mut idx[..size], n) {
                    break;
                }
            }
            if let Some((_, b)) = best {
                return Some(b[..size].iter().map(|&i| moves.nets[i]).collect());
            }
        }
        None
    }

    fn apply(s: &mut State, moves: &[(NetId, Placed)]) -> Vec<Migration> {
        moves.iter().filter_map(|(id, _)| s.migrate(*id)).collect()
    }
}

impl Policy for Repack {
    fn name(&self) -> &'static str {
        "repack"
    }
    fn decide(&mut self, s: &mut State, r: Request) -> Decision {
        if let Request::Add { id, mbps } = r {
            if let d @ Decision::Added { .. } = admit_software_first(s, id, mbps) {
                return d;
            }
            let plans = [Tier::Software, Tier::Hardware]
                .map(|tier| (tier, self.plan(s, Demand::Add { mbps, tier })));
            let best = plans
                .into_iter()
                .filter_map(|(t, p)| p.map(|p| (t, p)))
                .min_by(|a, b| {
                    let cost = |p: &[(NetId, Placed)]| {
                        (
                            p.len(),
                            p.iter()
                                .map(|(_, q)| s.cap.downtime(q.tier.other()))
                                .sum::<f64>(),
                        )
                    };
                    let (ca, cb) = (cost(&a.1), cost(&b.1));
                    ca.0.cmp(&cb.0).then(ca.1.total_cmp(&cb.1))
                });
            let Some((tier, moves)) = best else {
                return Decision::Rejected;
            };
            let migrations = Self::apply(s, &moves);
            s.place(id, tier, mbps);
            return Decision::Added { tier, migrations };
        }
        if let Some(d) = common(s, r) {
            return d;
        }
        let Request::Resize { id, mbps } = r else {
            return Decision::Denied;
        };
        let Some(p) = s.get(id) else {
            return Decision::UnknownNetwork;
        };
        let Some(moves) = self.plan(
            s,
            Demand::Resize {
                id,
                from: p.mbps,
                to: mbps,
                tier: p.tier,
            },
        ) else {
            return Decision::Denied;
        };
        let migrations = Self::apply(s, &moves);
        s.set_mbps(id, mbps);
        Decision::Resized { migrations }
    }
}
