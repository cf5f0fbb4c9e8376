//! `prism check`: load a scenario and print its placement, without running it.

use anyhow::{Context, Result};
use std::path::Path;

pub fn run(config: &Path) -> Result<()> {
    let text =
        std::fs::read_to_string(config).with_context(|| format!("reading {}", config.display()))?;
    let sc = prism_compile::load(&config.display().to_string(), &text)?;
    let hw = sc.substrate.hardware();
    println!(
        "{}: ok; device {}, {} ports, {}/{} hardware slots used",
        config.display(),
        hw.profile.name,
        sc.port_names.len(),
        usize::from(hw.profile.slots) - hw.free_slots(),
        hw.profile.slots
    );
    for (id, s) in sc.substrate.networks() {
        println!(
            "  {:<12} {:<9} {:<20} slot {:?}",
            s.name,
            s.tier.as_str(),
            s.forwarding.module().as_str(),
            hw.slot_of(id)
        );
    }
    Ok(())
}
