//! `prism demo`: live as root, over in-memory ports otherwise.

use anyhow::{Result, bail};
use prism_testbed::{live_demo, offline_demo};

pub fn run(json: bool, offline: bool, seconds: u64) -> Result<()> {
    if !offline && prism_io::netns::have_privileges() {
        return live_demo::main(seconds);
    }
    if !prism_io::netns::have_privileges() {
        eprintln!(
            "prism demo: not root, so no namespaces or raw sockets: running the same idea over in-memory ports (run as root for the live demo)"
        );
    }
    let d = offline_demo::run()?;
    if json {
        println!("{}", serde_json::to_string_pretty(&d.result.counters)?);
    } else {
        println!(
            "Prism demo: 5 virtual networks, 80 000 frames over 1 s of traffic time plus 500 that must be dropped, offline (in-memory ports)\n"
        );
        print!("{}", d.summary);
        println!();
        print!("{}", prism_node::report::table(&d.result.counters));
        for (i, o) in d.result.outputs.iter().enumerate() {
            println!(
                "  port {:<7} sent {} frames",
                d.port_names[i],
                o.frames.len()
            );
        }
    }
    if d.violations.is_empty() {
        eprintln!("isolation check: every output port carried only its own network's frames");
        Ok(())
    } else {
        bail!("isolation check failed: {}", d.violations.join("; "))
    }
}
