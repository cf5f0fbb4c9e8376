//! `prism profiles`: the device profiles (models of FPGAs) and their sources.

pub fn run() -> anyhow::Result<()> {
    for p in prism_pipeline::PROFILES {
        println!("{:<16} {}", p.name, p.description);
        println!(
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
        );
        println!("{:<16} sources: {}", "", p.assumptions);
        match prism_pipeline::reconfig::bitstreams(p.name) {
            Some(b) => {
                use prism_pipeline::ModuleKind as K;
                let t = |k| b.partial_ms(k);
                println!(
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
                );
                println!("{:<16} port: {}", "", b.port.source);
                println!("{:<16} bitstreams: {}", "", b.source);
            }
            None => println!("{:<16} slots are not reconfigured (a shared pipeline)", ""),
        }
        if let Some(m) = prism_pipeline::power::model(p.name) {
            use prism_pipeline::power::RegionState as S;
            let n = usize::from(p.slots);
            println!(
                "{:<16} modelled power: {:.1} mW static + {:.1} mW static region; all {n} regions active {:.1} mW, all blank {:.1} mW; clock gating removes {:.0}% of a region's dynamic power",
                "",
                m.device_static_mw,
                m.static_region_mw,
                m.total_mw(n, n, S::Blank),
                m.total_mw(n, 0, S::Blank),
                m.gated_saving * 100.0
            );
            println!("{:<16} power: {}", "", m.source);
        }
    }
    Ok(())
}
