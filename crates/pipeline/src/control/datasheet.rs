//! A device profile's datasheet, as `prism profiles` prints it: its
//! figures, the modelled reconfiguration and power, and their sources.

use crate::control::device::DeviceProfile;
use std::fmt::Write;

/// Lines describing `p`, each indented under its name.
pub fn datasheet(p: &DeviceProfile) -> String {
    let mut o = String::new();
    // Writing to a String cannot fail.
    let _ = write_datasheet(&mut o, p);
    o
}

fn write_datasheet(o: &mut String, p: &DeviceProfile) -> std::fmt::Result {
    writeln!(o, "{:<16} {}", p.name, p.description)?;
    writeln!(
        o,
        "{:<16} slots {}, {} routes/slot, TCAM {} entries in slices of {}, {} mapping entries, reconfiguration {} ms partial / {} ms full, {} MHz",
        "",
        p.slots,
        p.routes_per_slot,
        p.tcam_entries,
        p.tcam_slice,
        p.mapping_entries,
        p.partial_reconfig_ms,
        p.full_reconfig_ms,
        p.clock_mhz
    )?;
    writeln!(o, "{:<16} sources: {}", "", p.assumptions)?;
    match crate::control::reconfig::bitstreams(p.name) {
        Some(b) => {
            use crate::ModuleKind as K;
            let t = |k| b.partial_ms(k);
            writeln!(
                o,
                "{:<16} modelled reconfiguration over {} ({:.1} MB/s + {} ms): destination {:.1} ms, source {:.1} ms, source+destination {:.1} ms, rules {:.1} ms, blank {:.1} ms; whole device {} ms",
                "",
                b.port.name,
                b.port.bytes_per_s / 1e6,
                b.port.overhead_ms,
                t(Some(K::DestinationRouting)),
                t(Some(K::SourceRouting)),
                t(Some(K::FlowRouting)),
                t(Some(K::RuleTable)),
                t(None),
                b.full_ms
            )?;
            writeln!(o, "{:<16} port: {}", "", b.port.source)?;
            writeln!(o, "{:<16} bitstreams: {}", "", b.source)?;
        }
        None => writeln!(
            o,
            "{:<16} slots are not reconfigured (a shared pipeline)",
            ""
        )?,
    }
    if let Some(m) = crate::control::power::model(p.name) {
        use crate::control::power::RegionState as S;
        let n = usize::from(p.slots);
        writeln!(
            o,
            "{:<16} modelled power: {:.1} mW static + {:.1} mW static region; all {n} regions active {:.1} mW, all blank {:.1} mW; clock gating removes {:.0}% of a region's dynamic power",
            "",
            m.device_static_mw,
            m.static_region_mw,
            m.total_mw(n, n, S::Blank),
            m.total_mw(n, 0, S::Blank),
            m.gated_saving * 100.0
        )?;
        writeln!(o, "{:<16} power: {}", "", m.source)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_says_its_figures_and_sources() {
        for p in crate::PROFILES {
            let d = datasheet(p);
            assert!(d.starts_with(p.name), "{d}");
            assert!(d.contains(&format!("slots {},", p.slots)), "{d}");
            assert!(d.contains(&format!("sources: {}", p.assumptions)), "{d}");
            let reconfigured = crate::control::reconfig::bitstreams(p.name).is_some();
            assert_eq!(d.contains("modelled reconfiguration"), reconfigured, "{d}");
            assert!(
                d.lines()
                    .all(|l| l.starts_with(p.name) || l.starts_with("    "))
            );
        }
    }
}
