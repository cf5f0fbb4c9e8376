//! `prism run`: a scenario over pcap/pcapng captures (the offline
//! substrate; `prism_node::captures` does the work).

use anyhow::{Context, Result};
use prism_compile as scenario;
use prism_node::report;

pub fn run(
    config: &std::path::Path,
    pcap_in: &[String],
    pcap_out: &[String],
    json: bool,
) -> Result<()> {
    let text =
        std::fs::read_to_string(config).with_context(|| format!("reading {}", config.display()))?;
    let sc = scenario::load(&config.display().to_string(), &text)?;
    let inputs = prism_node::captures::port_files(&sc, pcap_in, "--pcap-in")?;
    let outputs = prism_node::captures::port_files(&sc, pcap_out, "--pcap-out")?;
    let r = prism_node::captures::run_captures(&sc, &inputs, &outputs)?;
    // Bad records are said on stderr too, whatever the output format.
    for n in &r.bad_records {
        eprintln!("prism run: {n}");
    }
    if json {
        let v = serde_json::json!({ "counters": r.summary.counters, "notes": r.notes });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", report::table(&r.summary.counters));
        for (i, n) in r.summary.sent.iter().enumerate() {
            println!("  port {:<8} sent {n} frames", sc.port_names[i]);
        }
        for n in &r.notes {
            println!("note: {n}");
        }
    }
    Ok(())
}
