//! `prism profiles`: the device profiles (models of FPGAs) and their sources.

pub fn run() {
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
    }
}
