//! `prism run`: a scenario over pcap/pcapng captures (the offline substrate).

use anyhow::{Context, Result};
use prism_netdoc as scenario;
use prism_node::{offline as runner, report};
use std::path::PathBuf;

fn split_port_file(s: &str) -> Result<(String, PathBuf)> {
    let (p, f) = s
        .split_once('=')
        .with_context(|| format!("`{s}` is not PORT=FILE"))?;
    Ok((p.to_string(), PathBuf::from(f)))
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
    let mut input = Vec::new();
    let mut notes = Vec::new();
    for spec in pcap_in {
        let (port, file) = split_port_file(spec)?;
        let p = sc.port_index(&port).with_context(|| {
            format!(
                "--pcap-in {spec}: no port `{port}` (ports: {})",
                sc.port_names.join(", ")
            )
        })?;
        let (frames, stats) = prism_io::pcap::read_frames(&file)?;
        if stats.converted > 0 {
            notes.push(format!(
                "{}: {} frames given a synthetic Ethernet header (raw IP / Linux cooked capture)",
                file.display(),
                stats.converted
            ));
        }
        for (lt, n) in &stats.unsupported_link {
            notes.push(format!(
                "{}: {n} frames skipped: unsupported link type {lt}",
                file.display()
            ));
        }
        input.extend(frames.into_iter().map(|f| runner::InputFrame {
            port: p,
            timestamp_ns: f.timestamp_ns,
            data: f.data,
        }));
    }
    input.sort_by_key(|f| f.timestamp_ns);
    let mut writers = Vec::new();
    for spec in pcap_out {
        let (port, file) = split_port_file(spec)?;
        let p = sc.port_index(&port).with_context(|| {
            format!(
                "--pcap-out {spec}: no port `{port}` (ports: {})",
                sc.port_names.join(", ")
            )
        })?;
        writers.push((p, prism_io::pcap::FrameWriter::create(&file)?));
    }
    let result = runner::run(
        runner::pipeline_for(sc.substrate.handle()),
        &input,
        &sc.port_rates,
    );
    if result.oversized > 0 {
        notes.push(format!(
            "{} frames longer than {} bytes were refused at input",
            result.oversized,
            prism_pipeline::packet::MAX_FRAME
        ));
    }
    for (p, mut w) in writers {
        for (t, f) in &result.outputs[usize::from(p)].frames {
            w.write(*t, f)?;
        }
        w.finish()?;
    }
    if json {
        let v = serde_json::json!({ "counters": result.counters, "notes": notes });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", report::table(&result.counters));
        for (i, o) in result.outputs.iter().enumerate() {
            println!(
                "  port {:<8} sent {} frames",
                sc.port_names[i],
                o.frames.len()
            );
        }
        for n in notes {
            println!("note: {n}");
        }
    }
    Ok(())
}
