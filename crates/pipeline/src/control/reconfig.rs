//! Configuration ports and partial bitstreams: how long loading a module
//! into a slot takes on a profile's device (paper 000 §4; a model, not
//! a measurement of Prism).
//!
//! Time = bitstream bytes ÷ the port's bandwidth + a fixed overhead. The
//! sources of each figure are in [`ConfigPort::source`] and in the
//! profile's [`Bitstreams::source`].

use serde::{Deserialize, Serialize};

/// The module a slot is configured with (a partial bitstream on an FPGA).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModuleKind {
    DestinationRouting,
    SourceRouting,
    FlowRouting,
    RuleTable,
}

impl ModuleKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            ModuleKind::DestinationRouting => "destination-routing",
            ModuleKind::SourceRouting => "source-routing",
            ModuleKind::FlowRouting => "flow-routing",
            ModuleKind::RuleTable => "rule-table",
        }
    }
}

/// A way bitstreams reach the configuration memory.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ConfigPort {
    pub name: &'static str,
    /// Sustained bytes per second.
    pub bytes_per_s: f64,
    /// Fixed cost per load (setup, synchronisation, readback), ms.
    pub overhead_ms: f64,
    pub source: &'static str,
}

/// JTAG at 12 MHz, one bit per clock. Paper 000 loads a 680 KB partial
/// bitstream in 0.6 s; 680 × 1024 bytes at 1.5 MB/s is 464 ms, so 136 ms
/// of the paper's time is overhead.
pub const JTAG_12MHZ: ConfigPort = ConfigPort {
    name: "jtag-12mhz",
    bytes_per_s: 1.5e6,
    overhead_ms: 136.0,
    source: "12 MHz JTAG and 0.6 s for 680 KB: paper 000 §4-5 (the overhead is what the paper's time leaves after the transfer)",
};

/// ICAP, 32 bits at 100 MHz (7-series).
pub const ICAP_7SERIES: ConfigPort = ConfigPort {
    name: "icap-7series",
    bytes_per_s: 400e6,
    overhead_ms: 1.0,
    source: "32-bit ICAP at 100 MHz = 400 MB/s: AMD UG470 (7 Series configuration); 1 ms overhead: assumed",
};

/// ICAP, 32 bits at 200 MHz (UltraScale, UltraScale+ monolithic devices).
pub const ICAP_ULTRASCALE: ConfigPort = ConfigPort {
    name: "icap-ultrascale",
    bytes_per_s: 800e6,
    overhead_ms: 1.0,
    source: "32-bit ICAP at 200 MHz = 800 MB/s: AMD UG570 (UltraScale configuration); 1 ms overhead: assumed",
};

/// ICAP on stacked-silicon (SSI) devices such as the U250/U280: 125 MHz
/// across the dies.
pub const ICAP_SSI: ConfigPort = ConfigPort {
    name: "icap-ssi",
    bytes_per_s: 500e6,
    overhead_ms: 1.0,
    source: "32-bit ICAP at 125 MHz across SSI dies = 500 MB/s: AMD UG909 (Configuration Time); 1 ms overhead: assumed",
};

/// A profile's configuration: the port, the partial bitstream of each
/// module kind, and the time to reprogram the whole device.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Bitstreams {
    pub port: ConfigPort,
    /// Partial bitstream bytes by module kind: destination, source,
    /// flow (source+destination) routing, rule table; and a blank region.
    pub module_bytes: [u64; 4],
    pub blank_bytes: u64,
    /// Whole-device reprogramming (paper 003 §3.5's baseline), ms.
    pub full_ms: f64,
    pub source: &'static str,
}

impl Bitstreams {
    pub fn bytes(&self, kind: Option<ModuleKind>) -> u64 {
        match kind {
            Some(ModuleKind::DestinationRouting) => self.module_bytes[0],
            Some(ModuleKind::SourceRouting) => self.module_bytes[1],
            Some(ModuleKind::FlowRouting) => self.module_bytes[2],
            Some(ModuleKind::RuleTable) => self.module_bytes[3],
            None => self.blank_bytes,
        }
    }

    /// Loading `kind` (`None`: a blank module) into one slot, ms.
    pub fn partial_ms(&self, kind: Option<ModuleKind>) -> f64 {
        self.bytes(kind) as f64 / self.port.bytes_per_s * 1e3 + self.port.overhead_ms
    }
}

/// How a hardware network's module is changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// Paper 000: only the network's slot is reconfigured; that network
    /// forwards nothing meanwhile, every other slot forwards on.
    Partial,
    /// Make before break: the network is served by the software tier while
    /// its slot is reconfigured, then returns to it (Prism, beyond the
    /// papers; a node's default: nothing is lost).
    #[default]
    Fallback,
    /// Paper 003 §3.5: the other hardware networks move to software, the
    /// whole device is reprogrammed, then they return; the reconfigured
    /// network exists only in the new bitstream, so it is dark meanwhile.
    Full,
}

impl Strategy {
    pub const ALL: [Strategy; 3] = [Strategy::Partial, Strategy::Fallback, Strategy::Full];

    pub const fn as_str(self) -> &'static str {
        match self {
            Strategy::Partial => "partial",
            Strategy::Fallback => "fallback",
            Strategy::Full => "full",
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Strategy::ALL
            .into_iter()
            .find(|x| x.as_str() == s)
            .ok_or_else(|| format!("unknown strategy `{s}` (partial, fallback or full)"))
    }
}

/// What a slot's configuration memory holds, and until when it is loading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct SlotConfig {
    /// The module loaded (`None`: a blank region).
    pub loaded: Option<ModuleKind>,
    /// The researcher's program loaded with it: a tag of its digest (0:
    /// none).
    #[serde(skip)]
    pub program: u64,
    /// The slot forwards nothing before this time (ns, the caller's clock).
    pub ready_ns: u64,
    /// Kept free for this network, whose module is being loaded into it
    /// while the software tier serves it (`Strategy::Fallback`).
    pub reserved_for: Option<u16>,
    /// The network that used it last (it gets it back first).
    pub last: Option<u16>,
}

impl SlotConfig {
    pub fn loading(&self, now_ns: u64) -> bool {
        self.ready_ns > now_ns
    }
}

/// Reconfiguration timing of a hardware tier: the device's bitstreams and
/// the current time, both given by the caller. Without bitstreams (the
/// default, and devices that are not reconfigured) loads take no time.
#[derive(Debug, Clone, Copy, Default)]
pub struct Timing {
    pub bitstreams: Option<Bitstreams>,
    pub now_ns: u64,
}

impl Timing {
    /// When a load of `kind` into a slot that is ready at `ready_ns` ends.
    pub fn load_ends(&self, ready_ns: u64, kind: Option<ModuleKind>) -> u64 {
        match self.bitstreams {
            Some(b) => ready_ns.max(self.now_ns) + ms_to_ns(b.partial_ms(kind)),
            None => ready_ns,
        }
    }

    /// When reprogramming the whole device, starting now, ends.
    pub fn full_ends(&self) -> u64 {
        match self.bitstreams {
            Some(b) => self.now_ns + ms_to_ns(b.full_ms),
            None => self.now_ns,
        }
    }
}

pub fn ms_to_ns(ms: f64) -> u64 {
    (ms * 1e6).round() as u64
}

/// The configuration of profile `name` (`None`: a device whose slots are
/// not reconfigured, such as paper 001's shared pipeline).
pub fn bitstreams(name: &str) -> Option<Bitstreams> {
    const KB: u64 = 1024;
    match name {
        "netfpga-v2p" => Some(Bitstreams {
            port: JTAG_12MHZ,
            module_bytes: [680 * KB; 4],
            blank_bytes: 680 * KB,
            full_ms: 12_000.0,
            source: "680 KB per router region: paper 000 §4 (the same for every module kind and for a blank region: assumed, a region's bitstream covers the whole region); full reprogramming over PCI in 12 s: paper 003 §3.5",
        }),
        "virtex5-lx330t" => Some(Bitstreams {
            port: JTAG_12MHZ,
            module_bytes: [680 * KB; 4],
            blank_bytes: 680 * KB,
            full_ms: 12_000.0,
            source: "all assumed: taken equal to the NetFPGA's (680 KB regions over 12 MHz JTAG, 12 s full), as paper 000 §4.4 gives no figure; over the Virtex-5's ICAP (32 bits at 100 MHz) the same region would load in about 3 ms",
        }),
        "alveo-u280" => Some(Bitstreams {
            port: ICAP_SSI,
            module_bytes: [12 * KB * KB, 12 * KB * KB, 12 * KB * KB, 16 * KB * KB],
            blank_bytes: 12 * KB * KB,
            full_ms: 5_000.0,
            source: "all assumed: regions with 12 MiB partial bitstreams (16 MiB for rule tables: TCAM emulation), over the SSI ICAP rate of AMD UG909; full reprogramming 5 s",
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_000s_partial_reconfiguration_takes_its_0_6_s() {
        let b = bitstreams("netfpga-v2p").unwrap();
        let ms = b.partial_ms(Some(ModuleKind::FlowRouting));
        assert!((ms - 600.0).abs() < 1.0, "{ms}");
        assert_eq!(b.full_ms, 12_000.0);
    }

    #[test]
    fn faster_ports_load_faster_and_sizes_matter() {
        let u = bitstreams("alveo-u280").unwrap();
        // 12 MiB at 500 MB/s + 1 ms.
        let d = u.partial_ms(Some(ModuleKind::DestinationRouting));
        assert!(
            (d - (12.0 * 1048576.0 / 500e6 * 1e3 + 1.0)).abs() < 1e-9,
            "{d}"
        );
        assert!(u.partial_ms(Some(ModuleKind::RuleTable)) > d);
        assert!(bitstreams("nac-tcam").is_none());
        // Every built-in reconfigurable profile has its bitstreams.
        // ... and its summary figure agrees with them within 10%.
        for p in crate::PROFILES {
            let b = bitstreams(p.name);
            assert_eq!(b.is_some(), p.partial_reconfig_ms > 0.0, "{}", p.name);
            if let Some(b) = b {
                let m = b.partial_ms(Some(ModuleKind::DestinationRouting));
                assert!(
                    (m / p.partial_reconfig_ms - 1.0).abs() < 0.1,
                    "{}: {m}",
                    p.name
                );
                assert_eq!(b.full_ms, p.full_reconfig_ms, "{}", p.name);
            }
        }
    }
}
