//! `prism run`: a scenario over pcap/pcapng captures (the offline
//! substrate; `prism_node::captures` does the work).

use anyhow::{Context, Result};
use prism_netdoc::{self as scenario, Scenario};
use prism_node::report;
use std::path::PathBuf;

/// `PORT=FILE` specs as (port index, file), naming the flag when wrong.
fn port_files(sc: &Scenario, specs: &[String], flag: &str) -> Result<Vec<(u16, PathBuf)>> {
    specs
        .iter()
        .map(|spec| {
            let (port, file) = spec
                .split_once('=')
                .with_context(|| format!("{flag} `{spec}` is not PORT=FILE"))?;
            let p = sc.port_index(port).with_context(|| {
                format!(
                    "{flag} {spec}: no port `{port}` (ports: {})",
                    sc.port_names.join(", ")
                )
            })?;
            Ok((p, PathBuf::from(file)))
        })
        .collect()
}

pub fn run(
    config: &std::path::Path,
    pcap_in: &[String],
    pcap_out: &[String],
    json: bool,
) -> Result<()> {
    let text =
        std::fs::read_to_string(config).with_context(|| format!("reading {}", config.display()))?;
    let sc = scenario::load(&config.display().to_string(), &text)?;
    let inputs = port_files(&sc, pcap_in, "--pcap-in")?;
    let outputs = port_files(&sc, pcap_out, "--pcap-out")?;
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
