//! The repacking search's candidates: which placed networks a plan may
//! move, what each move changes, and the combinations tried in order.

use super::{Capacity, Demand, EPS, NetId, Placed, State, Tier};

/// The placed networks a plan may move, and what moving each would change.
pub(super) struct Moves {
    pub(super) nets: Vec<(NetId, Placed)>,
    /// Per network: its change to (hw Mbit/s, sw Mbit/s, regions) if
    /// moved, and whether it carries the demand with it.
    deltas: Vec<(f64, f64, isize, bool)>,
    /// Today's (hw Mbit/s, sw Mbit/s, regions) in use.
    base: (f64, f64, isize),
    cap: Capacity,
    demand_tier: Tier,
    demand_mbps: f64,
    demand_regions: isize,
}

impl Moves {
    pub(super) fn new(s: &State, demand: Demand) -> Self {
        let mut nets: Vec<(NetId, Placed)> = s.networks().collect();
        nets.sort_by_key(|(id, _)| *id);
        let (demand_id, demand_tier, demand_mbps, demand_regions) = match demand {
            Demand::Resize { id, from, to, tier } => (Some(id), tier, to - from, 0isize),
            Demand::Add { mbps, tier } => (None, tier, mbps, 1),
        };
        let deltas = nets
            .iter()
            .map(|(id, p)| {
                let carries = Some(*id) == demand_id;
                match p.tier {
                    Tier::Hardware => (-p.mbps, p.mbps, -1, carries),
                    Tier::Software => (p.mbps, -p.mbps, 1, carries),
                }
            })
            .collect();
        let base = (
            s.used(Tier::Hardware),
            s.used(Tier::Software),
            s.hw_count() as isize,
        );
        Moves {
            nets,
            deltas,
            base,
            cap: s.cap,
            demand_tier,
            demand_mbps,
            demand_regions,
        }
    }

    /// Moving the networks at `idx`, then placing the demand: none if
    /// something overflows, else (less headroom in the scarce resources,
    /// downtime) — lower is better.
    pub(super) fn score(&self, idx: &[usize]) -> Option<(f64, f64)> {
        let c = &self.cap;
        let (mut hw, mut sw, mut n) = self.base;
        let mut tier = self.demand_tier;
        let mut downtime = 0.0;
        for &i in idx {
            let (dh, ds, dn, carries) = self.deltas[i];
            hw += dh;
            sw += ds;
            n += dn;
            if carries {
                tier = tier.other();
            }
            downtime += c.downtime(self.nets[i].1.tier.other());
        }
        match tier {
            Tier::Hardware => {
                hw += self.demand_mbps;
                n += self.demand_regions;
            }
            Tier::Software => sw += self.demand_mbps,
        }
        if hw > c.hw_mbps + EPS || sw > c.sw_mbps + EPS || n < 0 || n as usize > c.hw_regions {
            return None;
        }
        // The scarce resources: software bandwidth and hardware regions.
        let headroom = (c.sw_mbps - sw) / c.sw_mbps.max(EPS)
            + (c.hw_regions as isize - n) as f64 / c.hw_regions.max(1) as f64;
        Some((-headroom, downtime))
    }
}

/// `idx` (increasing indices below `n`) to the next combination of its
/// size in lexicographic order; false after the last.
pub(super) fn next_combination(idx: &mut [usize], n: usize) -> bool {
    let size = idx.len();
    let mut k = size;
    while k > 0 && idx[k - 1] == n - size + k - 1 {
        k -= 1;
    }
    if k == 0 {
        return false;
    }
    idx[k - 1] += 1;
    for j in k..size {
        idx[j] = idx[j - 1] + 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::next_combination;

    #[test]
    fn combinations_come_in_lexicographic_order_and_end() {
        let mut idx = [0, 1];
        let mut seen = vec![idx];
        while next_combination(&mut idx, 4) {
            seen.push(idx);
        }
        assert_eq!(seen, [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]);
        let mut all = [0, 1, 2];
        assert!(!next_combination(&mut all, 3), "one combination of 3 in 3");
    }
}
