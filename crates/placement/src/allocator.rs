//! Allocation policies over two tiers with aggregate bandwidth limits and a
//! fixed number of hardware regions.
//!
//! - [`PaperGreedy`]: paper 000 §3.2.3 exactly. Add to software if its
//!   aggregate bandwidth allows, else to hardware if a region and the
//!   hardware bandwidth allow, else reject. A decrease is applied in place.
//!   An increase that does not fit triggers a greedy rebalance: the lowest-
//!   bandwidth hardware network is migrated to software, or the highest-
//!   bandwidth software network to hardware, to make room in the target tier.
//! - [`NoMigration`]: the same admission; an increase that does not fit in
//!   place is denied.
//! - [`Repack`]: Prism's policy (see its docs): admission and increases may
//!   migrate, choosing the cheapest set of migrations by downtime, within a
//!   per-request migration budget.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

mod moves;
mod policies;
use moves::{Moves, next_combination};
use policies::Demand;
pub use policies::{MAX_BUDGET, NoMigration, PaperGreedy, Repack};

pub type NetId = u64;

/// Which tier forwards a network: one type for the pipeline, the
/// placement policies, the node API and the controller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// The compiled pipeline, in a device slot (modelled hardware).
    Hardware,
    /// A software router in its own container.
    Software,
}

impl Tier {
    pub const fn as_str(self) -> &'static str {
        match self {
            Tier::Hardware => "hardware",
            Tier::Software => "software",
        }
    }

    /// `hardware` or `software`.
    pub fn parse(s: &str) -> Option<Tier> {
        match s {
            "hardware" => Some(Tier::Hardware),
            "software" => Some(Tier::Software),
            _ => None,
        }
    }

    pub fn other(self) -> Tier {
        match self {
            Tier::Hardware => Tier::Software,
            Tier::Software => Tier::Hardware,
        }
    }
}

/// What the two tiers can hold, and what moving between them costs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Capacity {
    /// Reconfigurable regions (one network each).
    pub hw_regions: usize,
    /// Aggregate bandwidth of the hardware tier, Mbit/s.
    pub hw_mbps: f64,
    /// Aggregate bandwidth of the software tier, Mbit/s.
    pub sw_mbps: f64,
    /// Downtime of a migration into hardware, and into software, seconds.
    pub to_hw_downtime_s: f64,
    pub to_sw_downtime_s: f64,
}

impl Capacity {
    /// Paper 000 §5.4: OpenVZ 100 Mbit/s aggregate, FPGA 1 Gbit/s; the
    /// Virtex-5's 20 regions (§4.4); migration times of paper 003 §5
    /// (hardware to software about 12 s, software to hardware about 3 s).
    pub const PAPER: Capacity = Capacity {
        hw_regions: 20,
        hw_mbps: 1000.0,
        sw_mbps: 100.0,
        to_hw_downtime_s: 3.0,
        to_sw_downtime_s: 12.0,
    };

    pub fn downtime(&self, to: Tier) -> f64 {
        match to {
            Tier::Hardware => self.to_hw_downtime_s,
            Tier::Software => self.to_sw_downtime_s,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placed {
    pub tier: Tier,
    pub mbps: f64,
}

/// The placement of every network, with running totals.
#[derive(Debug, Clone)]
pub struct State {
    pub cap: Capacity,
    nets: HashMap<NetId, Placed>,
    hw_used: f64,
    sw_used: f64,
    hw_count: usize,
}

/// Floating-point slack when comparing bandwidth sums.
const EPS: f64 = 1e-9;

impl State {
    pub fn new(cap: Capacity) -> Self {
        Self {
            cap,
            nets: HashMap::new(),
            hw_used: 0.0,
            sw_used: 0.0,
            hw_count: 0,
        }
    }
    pub fn get(&self, id: NetId) -> Option<Placed> {
        self.nets.get(&id).copied()
    }
    pub fn len(&self) -> usize {
        self.nets.len()
    }
    pub fn is_empty(&self) -> bool {
        self.nets.is_empty()
    }
    /// A state known by its load alone, without its networks: `hw_count`
    /// hardware networks using `hw_mbps`, and `sw_mbps` in software. What
    /// admitting one more network needs ([`State::fits`], the policies'
    /// `Add`); a controller placing on a node of thousands of networks
    /// reads three sums, not every network.
    pub fn with_usage(cap: Capacity, hw_count: usize, hw_mbps: f64, sw_mbps: f64) -> Self {
        Self {
            hw_used: hw_mbps,
            sw_used: sw_mbps,
            hw_count,
            ..Self::new(cap)
        }
    }

    pub fn used(&self, t: Tier) -> f64 {
        match t {
            Tier::Hardware => self.hw_used,
            Tier::Software => self.sw_used,
        }
    }
    pub fn hw_count(&self) -> usize {
        self.hw_count
    }
    pub fn networks(&self) -> impl Iterator<Item = (NetId, Placed)> + '_ {
        self.nets.iter().map(|(k, v)| (*k, *v))
    }
    /// Whether `mbps` more fits in `t` (and, for hardware, a new region if `new_region`).
    pub fn fits(&self, t: Tier, mbps: f64, new_region: bool) -> bool {
        match t {
            Tier::Software => self.sw_used + mbps <= self.cap.sw_mbps + EPS,
            Tier::Hardware => {
                self.hw_used + mbps <= self.cap.hw_mbps + EPS
                    && (!new_region || self.hw_count < self.cap.hw_regions)
            }
        }
    }
    fn add_usage(&mut self, t: Tier, mbps: f64, count: isize) {
        match t {
            Tier::Software => self.sw_used += mbps,
            Tier::Hardware => {
                self.hw_used += mbps;
                self.hw_count = (self.hw_count as isize + count) as usize;
            }
        }
    }
    pub fn place(&mut self, id: NetId, t: Tier, mbps: f64) {
        self.remove(id);
        self.add_usage(t, mbps, 1);
        self.nets.insert(id, Placed { tier: t, mbps });
    }
    pub fn remove(&mut self, id: NetId) -> Option<Placed> {
        let p = self.nets.remove(&id)?;
        self.add_usage(p.tier, -p.mbps, -1);
        Some(p)
    }
    fn set_mbps(&mut self, id: NetId, mbps: f64) {
        if let Some(p) = self.nets.get_mut(&id) {
            let (t, old) = (p.tier, p.mbps);
            p.mbps = mbps;
            self.add_usage(t, mbps - old, 0);
        }
    }
    fn migrate(&mut self, id: NetId) -> Option<Migration> {
        let p = self.get(id)?;
        self.place(id, p.tier.other(), p.mbps);
        Some(Migration {
            id,
            from: p.tier,
            to: p.tier.other(),
            mbps: p.mbps,
        })
    }
    /// Checks the invariants (totals match, capacities respected).
    pub fn check(&self) -> Result<(), String> {
        let hw: f64 = self
            .nets
            .values()
            .filter(|p| p.tier == Tier::Hardware)
            .map(|p| p.mbps)
            .sum();
        let sw: f64 = self
            .nets
            .values()
            .filter(|p| p.tier == Tier::Software)
            .map(|p| p.mbps)
            .sum();
        let n = self
            .nets
            .values()
            .filter(|p| p.tier == Tier::Hardware)
            .count();
        if (hw - self.hw_used).abs() > 1e-6
            || (sw - self.sw_used).abs() > 1e-6
            || n != self.hw_count
        {
            return Err(format!(
                "totals drifted: hw {hw} vs {}, sw {sw} vs {}, regions {n} vs {}",
                self.hw_used, self.sw_used, self.hw_count
            ));
        }
        if hw > self.cap.hw_mbps + 1e-6 || sw > self.cap.sw_mbps + 1e-6 || n > self.cap.hw_regions {
            return Err(format!(
                "over capacity: hw {hw} Mbit/s in {n} regions, sw {sw} Mbit/s"
            ));
        }
        Ok(())
    }
}

/// A request to the allocator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Request {
    Add { id: NetId, mbps: f64 },
    Remove { id: NetId },
    Resize { id: NetId, mbps: f64 },
}

/// One network moved between tiers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Migration {
    pub id: NetId,
    pub from: Tier,
    pub to: Tier,
    pub mbps: f64,
}

/// The allocator's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    Added {
        tier: Tier,
        migrations: Vec<Migration>,
    },
    Rejected,
    Removed,
    Resized {
        migrations: Vec<Migration>,
    },
    /// An increase that could not be met: the old bandwidth is kept.
    Denied,
    UnknownNetwork,
}

/// An allocation policy.
pub trait Policy {
    fn name(&self) -> &'static str;
    fn decide(&mut self, s: &mut State, r: Request) -> Decision;
}

/// The policies by their command-line names.
pub fn policy_by_name(name: &str) -> Option<Box<dyn Policy>> {
    match name {
        "paper" => Some(Box::new(PaperGreedy)),
        "no-migration" => Some(Box::new(NoMigration)),
        "repack" => Some(Box::new(Repack::default())),
        _ => None,
    }
}

/// Admission shared by the paper's heuristic and the baseline.
fn admit_software_first(s: &mut State, id: NetId, mbps: f64) -> Decision {
    if s.fits(Tier::Software, mbps, true) {
        s.place(id, Tier::Software, mbps);
        Decision::Added {
            tier: Tier::Software,
            migrations: vec![],
        }
    } else if s.fits(Tier::Hardware, mbps, true) {
        s.place(id, Tier::Hardware, mbps);
        Decision::Added {
            tier: Tier::Hardware,
            migrations: vec![],
        }
    } else {
        Decision::Rejected
    }
}

/// Handles remove, decrease and in-place increase; `None` if the increase does not fit.
fn common(s: &mut State, r: Request) -> Option<Decision> {
    match r {
        Request::Remove { id } => Some(if s.remove(id).is_some() {
            Decision::Removed
        } else {
            Decision::UnknownNetwork
        }),
        Request::Resize { id, mbps } => {
            let Some(p) = s.get(id) else {
                return Some(Decision::UnknownNetwork);
            };
            if mbps <= p.mbps || s.fits(p.tier, mbps - p.mbps, false) {
                s.set_mbps(id, mbps);
                return Some(Decision::Resized { migrations: vec![] });
            }
            None
        }
        Request::Add { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAP: Capacity = Capacity {
        hw_regions: 2,
        hw_mbps: 1000.0,
        sw_mbps: 100.0,
        to_hw_downtime_s: 3.0,
        to_sw_downtime_s: 12.0,
    };

    fn add(p: &mut dyn Policy, s: &mut State, id: NetId, mbps: f64) -> Decision {
        let d = p.decide(s, Request::Add { id, mbps });
        s.check().unwrap();
        d
    }

    #[test]
    fn paper_admission_is_software_first_then_hardware_then_reject() {
        let mut s = State::new(CAP);
        let mut p = PaperGreedy;
        assert_eq!(
            add(&mut p, &mut s, 1, 60.0),
            Decision::Added {
                tier: Tier::Software,
                migrations: vec![]
            }
        );
        assert_eq!(
            add(&mut p, &mut s, 2, 50.0),
            Decision::Added {
                tier: Tier::Hardware,
                migrations: vec![]
            }
        );
        assert_eq!(
            add(&mut p, &mut s, 3, 40.0),
            Decision::Added {
                tier: Tier::Software,
                migrations: vec![]
            }
        );
        assert_eq!(
            add(&mut p, &mut s, 4, 500.0),
            Decision::Added {
                tier: Tier::Hardware,
                migrations: vec![]
            }
        );
        // Both regions used, software full: reject.
        assert_eq!(add(&mut p, &mut s, 5, 1.0), Decision::Rejected);
    }

    #[test]
    fn decrease_in_place_and_unknown() {
        let mut s = State::new(CAP);
        let mut p = PaperGreedy;
        add(&mut p, &mut s, 1, 60.0);
        assert_eq!(
            p.decide(&mut s, Request::Resize { id: 1, mbps: 10.0 }),
            Decision::Resized { migrations: vec![] }
        );
        assert_eq!(s.used(Tier::Software), 10.0);
        assert_eq!(
            p.decide(&mut s, Request::Resize { id: 9, mbps: 10.0 }),
            Decision::UnknownNetwork
        );
        assert_eq!(
            p.decide(&mut s, Request::Remove { id: 9 }),
            Decision::UnknownNetwork
        );
        assert_eq!(
            p.decide(&mut s, Request::Remove { id: 1 }),
            Decision::Removed
        );
        assert!(s.is_empty());
    }

    #[test]
    fn paper_rebalance_moves_highest_software_network_to_hardware() {
        let mut s = State::new(CAP);
        let mut p = PaperGreedy;
        add(&mut p, &mut s, 1, 30.0);
        add(&mut p, &mut s, 2, 50.0);
        add(&mut p, &mut s, 3, 15.0); // software: 95 of 100
        // Network 1 grows to 45: software needs 30 more; the highest (2, 50) moves out.
        let d = p.decide(&mut s, Request::Resize { id: 1, mbps: 45.0 });
        assert_eq!(
            d,
            Decision::Resized {
                migrations: vec![Migration {
                    id: 2,
                    from: Tier::Software,
                    to: Tier::Hardware,
                    mbps: 50.0
                }]
            }
        );
        assert_eq!(
            s.get(1).unwrap(),
            Placed {
                tier: Tier::Software,
                mbps: 45.0
            }
        );
        s.check().unwrap();
        // The baseline denies the same request.
        let mut s2 = State::new(CAP);
        let mut b = NoMigration;
        for (id, m) in [(1, 30.0), (2, 50.0), (3, 15.0)] {
            add(&mut b, &mut s2, id, m);
        }
        assert_eq!(
            b.decide(&mut s2, Request::Resize { id: 1, mbps: 45.0 }),
            Decision::Denied
        );
        assert_eq!(s2.get(1).unwrap().mbps, 30.0);
    }

    #[test]
    fn paper_rebalance_moves_lowest_hardware_network_to_software() {
        let cap = Capacity {
            hw_regions: 3,
            hw_mbps: 100.0,
            sw_mbps: 50.0,
            ..CAP
        };
        let mut s = State::new(cap);
        let mut p = PaperGreedy;
        s.place(1, Tier::Hardware, 60.0);
        s.place(2, Tier::Hardware, 10.0);
        s.place(3, Tier::Hardware, 25.0);
        // 1 grows to 70: hardware needs 5 more; the lowest (2, 10) goes to software.
        let d = p.decide(&mut s, Request::Resize { id: 1, mbps: 70.0 });
        assert_eq!(
            d,
            Decision::Resized {
                migrations: vec![Migration {
                    id: 2,
                    from: Tier::Hardware,
                    to: Tier::Software,
                    mbps: 10.0
                }]
            }
        );
        s.check().unwrap();
        // Nothing can make room for 200: denied, state unchanged.
        let before = s.clone();
        assert_eq!(
            p.decide(&mut s, Request::Resize { id: 1, mbps: 200.0 }),
            Decision::Denied
        );
        assert_eq!(s.get(1), before.get(1));
        assert_eq!(s.used(Tier::Hardware), before.used(Tier::Hardware));
    }

    #[test]
    fn repack_finds_a_plan_the_greedy_order_misses() {
        // Software 100: nets 40, 30, 25 (95). Net 3 (25) wants 35.
        // Hardware has 1 free region and 30 Mbit/s: the paper tries the
        // highest (40), which does not fit hardware, then net 3 itself (35),
        // which does not fit either, and denies. Repack moves net 2 (30).
        let cap = Capacity {
            hw_regions: 2,
            hw_mbps: 95.0,
            sw_mbps: 100.0,
            ..CAP
        };
        let setup = |s: &mut State| {
            s.place(1, Tier::Software, 40.0);
            s.place(2, Tier::Software, 30.0);
            s.place(3, Tier::Software, 25.0);
            s.place(4, Tier::Hardware, 65.0);
        };
        let mut s = State::new(cap);
        setup(&mut s);
        assert_eq!(
            PaperGreedy.decide(&mut s, Request::Resize { id: 3, mbps: 35.0 }),
            Decision::Denied
        );
        let mut s = State::new(cap);
        setup(&mut s);
        let d = Repack::default().decide(&mut s, Request::Resize { id: 3, mbps: 35.0 });
        assert_eq!(
            d,
            Decision::Resized {
                migrations: vec![Migration {
                    id: 2,
                    from: Tier::Software,
                    to: Tier::Hardware,
                    mbps: 30.0
                }]
            }
        );
        s.check().unwrap();
    }

    #[test]
    fn repack_admits_by_making_room() {
        let cap = Capacity {
            hw_regions: 1,
            hw_mbps: 1000.0,
            sw_mbps: 100.0,
            ..CAP
        };
        let mut s = State::new(cap);
        s.place(1, Tier::Hardware, 5.0);
        s.place(2, Tier::Software, 90.0);
        // 30 fits nowhere: software has 10 left, the only region is taken;
        // moving network 1 (5) to software frees the region.
        assert_eq!(
            PaperGreedy.decide(&mut s.clone(), Request::Add { id: 3, mbps: 30.0 }),
            Decision::Rejected
        );
        let d = Repack::default().decide(&mut s, Request::Add { id: 3, mbps: 30.0 });
        assert_eq!(
            d,
            Decision::Added {
                tier: Tier::Hardware,
                migrations: vec![Migration {
                    id: 1,
                    from: Tier::Hardware,
                    to: Tier::Software,
                    mbps: 5.0
                }]
            }
        );
        s.check().unwrap();
    }
}
