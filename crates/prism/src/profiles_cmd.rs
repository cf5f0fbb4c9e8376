//! `prism profiles`: the device profiles (models of FPGAs) and their sources.

pub fn run() -> anyhow::Result<()> {
    for p in prism_pipeline::PROFILES {
        print!("{}", prism_pipeline::datasheet(p));
    }
    Ok(())
}
