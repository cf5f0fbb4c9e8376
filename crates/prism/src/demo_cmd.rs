//! `prism demo`: live as root, over in-memory ports otherwise.

use anyhow::{Result, bail};
use prism_lab::{demo::live, demo::offline};

pub fn run(json: bool, offline: bool, seconds: u64) -> Result<()> {
    if !offline && prism_io::netns::have_privileges() {
        return live::main(seconds);
    }
    if !prism_io::netns::have_privileges() {
        eprintln!(
            "prism demo: not root, so no namespaces or raw sockets: running the same idea over in-memory ports (run as root for the live demo)"
        );
    }
    let d = offline::run()?;
    if json {
        println!("{}", serde_json::to_string_pretty(&d.result.counters)?);
    } else {
        print!("{}", d.report());
    }
    if d.violations.is_empty() {
        eprintln!("isolation check: every output port carried only its own network's frames");
        Ok(())
    } else {
        bail!("isolation check failed: {}", d.violations.join("; "))
    }
}
