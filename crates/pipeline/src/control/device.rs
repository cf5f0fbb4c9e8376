//! Device profiles and the hardware tier's slots.
//!
//! Prism's hardware tier models an FPGA: a fixed number of reconfigurable
//! regions ("slots"), each holding one forwarding module, and table
//! capacities. The numbers come from the devices in the papers; where a paper
//! gives none, the profile says that the figure is Prism's assumption. These
//! are models: Prism runs the modules in software and enforces the limits so
//! that placement behaves as it would on the device.

pub use crate::control::reconfig::ModuleKind;
use crate::control::reconfig::{Bitstreams, SlotConfig, Timing};
use serde::Serialize;

/// Capacities and timings of one device.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceProfile {
    pub name: &'static str,
    pub description: &'static str,
    /// Reconfigurable regions, one network each.
    pub slots: u16,
    /// Routes a routing module's forwarding table holds.
    pub routes_per_slot: u32,
    /// TCAM entries shared by rule-table modules, handed out in slices.
    pub tcam_entries: u32,
    pub tcam_slice: u32,
    /// Entries of the design-select (network mapping) table.
    pub mapping_entries: u32,
    /// Time to load one region's partial bitstream, and the whole device.
    pub partial_reconfig_ms: f64,
    pub full_reconfig_ms: f64,
    pub clock_mhz: f64,
    /// Which figures are Prism's assumptions rather than the paper's.
    pub assumptions: &'static str,
}

/// The built-in profiles.
pub const PROFILES: &[DeviceProfile] = &[
    DeviceProfile {
        name: "netfpga-v2p",
        description: "NetFPGA 1G, Xilinx Virtex-II Pro 50 (papers 000 and 003)",
        slots: 2,
        routes_per_slot: 32,
        tcam_entries: 0,
        tcam_slice: 1,
        mapping_entries: 32,
        partial_reconfig_ms: 600.0,
        full_reconfig_ms: 12_000.0,
        clock_mhz: 62.5,
        assumptions: "2 partially reconfigurable routers, 62.5 MHz, 0.6 s partial (680 KB over 12 MHz JTAG) and 12 s full reconfiguration: paper 000 §4-5; 32-entry forwarding tables: paper 003 §5.3; 32 design-select entries and no TCAM: assumed",
    },
    DeviceProfile {
        name: "virtex5-lx330t",
        description: "Xilinx Virtex-5 LX330T (paper 000 §4.4)",
        slots: 20,
        routes_per_slot: 1024,
        tcam_entries: 0,
        tcam_slice: 1,
        mapping_entries: 256,
        partial_reconfig_ms: 600.0,
        full_reconfig_ms: 12_000.0,
        clock_mhz: 62.5,
        assumptions: "20 partially reconfigurable routers: paper 000 §4.4; table sizes, clock and reconfiguration times (taken equal to the Virtex-II's): assumed",
    },
    DeviceProfile {
        name: "nac-tcam",
        description: "NAC card, Virtex-5 with an external TCAM (paper 001)",
        slots: 1024,
        routes_per_slot: 4096,
        tcam_entries: 65_536,
        tcam_slice: 64,
        mapping_entries: 8192,
        partial_reconfig_ms: 0.0,
        full_reconfig_ms: 0.0,
        clock_mhz: 200.0,
        assumptions: "1024 virtual data planes sharing one pipeline at 200 MHz, TCAM handed out in slices: paper 001 §4; TCAM size, slice size and table sizes: assumed (no reconfiguration: the pipeline is shared)",
    },
    DeviceProfile {
        name: "alveo-u280",
        description: "Xilinx Alveo U280 class card with HBM-backed tables (Prism's default)",
        slots: 64,
        routes_per_slot: 1_048_576,
        tcam_entries: 65_536,
        tcam_slice: 64,
        mapping_entries: 65_536,
        partial_reconfig_ms: 25.0,
        full_reconfig_ms: 5_000.0,
        clock_mhz: 300.0,
        assumptions: "all figures assumed for a current large FPGA: big enough for a full Internet table in one slot",
    },
];

pub fn profile(name: &str) -> Option<&'static DeviceProfile> {
    PROFILES.iter().find(|p| p.name == name)
}

/// Why a network could not be placed in hardware.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlacementError {
    #[error("all {slots} hardware slots of device `{device}` are in use")]
    NoFreeSlot { device: &'static str, slots: u16 },
    #[error("{needed} routes exceed the {capacity}-route forwarding table of a `{device}` slot")]
    TooManyRoutes {
        device: &'static str,
        needed: usize,
        capacity: u32,
    },
    #[error("{needed} rules need {slices} TCAM slices of {slice}; `{device}` has {free} free")]
    TcamFull {
        device: &'static str,
        needed: usize,
        slices: u32,
        slice: u32,
        free: u32,
    },
    #[error("{needed} mapping rules exceed the {capacity}-entry design-select table of `{device}`")]
    MappingFull {
        device: &'static str,
        needed: usize,
        capacity: u32,
    },
}

/// What occupies a slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SlotUse {
    pub network: u16,
    pub module: ModuleKind,
    pub tcam_slices: u32,
}

/// The hardware tier's slots and TCAM slices, and what each slot's
/// configuration memory holds (`reconfig`).
#[derive(Debug, Clone)]
pub struct HardwareTier {
    pub profile: DeviceProfile,
    slots: Vec<Option<SlotUse>>,
    config: Vec<SlotConfig>,
    timing: Timing,
    tcam_slices_used: u32,
}

impl HardwareTier {
    /// A tier whose modules load instantly; [`Self::set_timing`] models
    /// the device's reconfiguration times.
    pub fn new(profile: DeviceProfile) -> Self {
        Self {
            slots: vec![None; usize::from(profile.slots)],
            config: vec![SlotConfig::default(); usize::from(profile.slots)],
            timing: Timing::default(),
            profile,
            tcam_slices_used: 0,
        }
    }

    /// Models loading modules with `bitstreams` (`None`: instantly).
    pub fn set_timing(&mut self, bitstreams: Option<Bitstreams>) {
        self.timing.bitstreams = bitstreams;
    }

    pub fn timing(&self) -> &Timing {
        &self.timing
    }

    /// The caller's clock, for the loads that follow.
    pub fn set_now(&mut self, now_ns: u64) {
        self.timing.now_ns = now_ns;
    }

    pub fn config(&self) -> &[SlotConfig] {
        &self.config
    }

    /// Loads a blank module into `slot` (a network left it).
    pub fn blank(&mut self, slot: usize) {
        let c = &mut self.config[slot];
        if c.loaded.is_some() {
            c.ready_ns = self.timing.load_ends(c.ready_ns, None);
            c.loaded = None;
        }
    }

    /// Starts loading `module` into the free `slot` and keeps the slot for
    /// `network`; returns when the load ends.
    pub fn reserve(
        &mut self,
        slot: usize,
        network: u16,
        (module, program): (ModuleKind, u64),
    ) -> Option<u64> {
        if self.slots.get(slot)?.is_some() {
            return None;
        }
        let c = &mut self.config[slot];
        if c.loaded != Some(module) || c.program != program {
            c.ready_ns = self.timing.load_ends(c.ready_ns, Some(module));
            (c.loaded, c.program) = (Some(module), program);
        }
        c.reserved_for = Some(network);
        Some(c.ready_ns)
    }

    /// Reprograms the whole device from now, with `changes` (slot, module)
    /// in the new bitstream; returns when it ends. Every slot is dark.
    pub fn reprogram(&mut self, changes: &[(usize, ModuleKind)]) -> u64 {
        let end = self.timing.full_ends();
        for c in &mut self.config {
            c.ready_ns = c.ready_ns.max(end);
        }
        for &(slot, m) in changes {
            if let Some(c) = self.config.get_mut(slot) {
                c.loaded = Some(m);
            }
        }
        end
    }

    /// Which free slot `network` gets for `module`: the one kept for it,
    /// then one with the module loaded and ready (its own first), then any
    /// ready one, then the rest.
    fn choose(&self, network: u16, module: ModuleKind) -> Option<usize> {
        let now = self.timing.now_ns;
        (0..self.slots.len())
            .filter(|&i| self.slots[i].is_none())
            .filter(|&i| self.config[i].reserved_for.is_none_or(|n| n == network))
            .min_by_key(|&i| {
                let c = &self.config[i];
                (
                    c.reserved_for != Some(network),
                    c.loaded != Some(module),
                    c.loading(now),
                    c.last != Some(network),
                    i,
                )
            })
    }

    pub fn slots(&self) -> &[Option<SlotUse>] {
        &self.slots
    }

    pub fn free_slots(&self) -> usize {
        self.slots.iter().filter(|s| s.is_none()).count()
    }

    pub fn tcam_slices_total(&self) -> u32 {
        self.profile.tcam_entries / self.profile.tcam_slice.max(1)
    }

    /// Checks that `n` mapping rules fit the design-select table.
    pub fn check_mapping(&self, n: usize) -> Result<(), PlacementError> {
        if n > self.profile.mapping_entries as usize {
            return Err(PlacementError::MappingFull {
                device: self.profile.name,
                needed: n,
                capacity: self.profile.mapping_entries,
            });
        }
        Ok(())
    }

    /// Places `network` in a free slot with `module`, holding `entries` routes or rules.
    pub fn place(
        &mut self,
        network: u16,
        module: ModuleKind,
        entries: usize,
    ) -> Result<usize, PlacementError> {
        self.place_with(network, (module, 0), entries)
    }

    /// [`Self::place`] of a module with a researcher's program (`program`:
    /// a tag of its digest, 0 for none): another program is another load.
    pub fn place_with(
        &mut self,
        network: u16,
        (module, program): (ModuleKind, u64),
        entries: usize,
    ) -> Result<usize, PlacementError> {
        let p = &self.profile;
        let free = self
            .choose(network, module)
            .ok_or(PlacementError::NoFreeSlot {
                device: p.name,
                slots: p.slots,
            })?;
        let mut tcam_slices = 0;
        if module == ModuleKind::RuleTable {
            let slice = p.tcam_slice.max(1);
            tcam_slices = (entries as u32).div_ceil(slice);
            let free_slices = self.tcam_slices_total() - self.tcam_slices_used;
            if entries > u32::MAX as usize || tcam_slices > free_slices {
                return Err(PlacementError::TcamFull {
                    device: p.name,
                    needed: entries,
                    slices: tcam_slices,
                    slice,
                    free: free_slices,
                });
            }
        } else if entries > p.routes_per_slot as usize {
            return Err(PlacementError::TooManyRoutes {
                device: p.name,
                needed: entries,
                capacity: p.routes_per_slot,
            });
        }
        self.tcam_slices_used += tcam_slices;
        let c = &mut self.config[free];
        if c.loaded != Some(module) || c.program != program {
            c.ready_ns = self.timing.load_ends(c.ready_ns, Some(module));
            (c.loaded, c.program) = (Some(module), program);
        }
        c.reserved_for = None;
        self.slots[free] = Some(SlotUse {
            network,
            module,
            tcam_slices,
        });
        Ok(free)
    }

    /// Frees the slot of `network`, if it has one.
    pub fn release(&mut self, network: u16) -> Option<usize> {
        let i = self
            .slots
            .iter()
            .position(|s| s.is_some_and(|s| s.network == network))?;
        if let Some(u) = self.slots[i].take() {
            self.tcam_slices_used -= u.tcam_slices;
        }
        self.config[i].last = Some(network);
        Some(i)
    }

    pub fn slot_of(&self, network: u16) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| s.is_some_and(|s| s.network == network))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_and_tables_run_out() {
        let mut hw = HardwareTier::new(profile("netfpga-v2p").unwrap().clone());
        assert_eq!(hw.place(0, ModuleKind::DestinationRouting, 32), Ok(0));
        assert!(matches!(
            hw.place(1, ModuleKind::FlowRouting, 33),
            Err(PlacementError::TooManyRoutes { .. })
        ));
        assert_eq!(hw.place(1, ModuleKind::FlowRouting, 3), Ok(1));
        assert!(matches!(
            hw.place(2, ModuleKind::SourceRouting, 1),
            Err(PlacementError::NoFreeSlot { .. })
        ));
        assert_eq!(hw.release(0), Some(0));
        assert!(matches!(
            hw.place(2, ModuleKind::RuleTable, 1),
            Err(PlacementError::TcamFull { .. })
        ));
        assert!(hw.check_mapping(33).is_err());
    }

    #[test]
    fn tcam_in_slices() {
        let mut hw = HardwareTier::new(profile("nac-tcam").unwrap().clone());
        let total = hw.tcam_slices_total();
        assert_eq!(total, 1024);
        hw.place(0, ModuleKind::RuleTable, 65).unwrap(); // 2 slices
        hw.place(1, ModuleKind::RuleTable, 64 * (total as usize - 2))
            .unwrap();
        assert!(matches!(
            hw.place(2, ModuleKind::RuleTable, 1),
            Err(PlacementError::TcamFull { free: 0, .. })
        ));
        hw.release(0);
        hw.place(2, ModuleKind::RuleTable, 128).unwrap();
    }
}
