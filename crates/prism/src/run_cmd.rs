//! `prism run`: a scenario over pcap/pcapng captures (the offline substrate),
//! streamed: the inputs are read a record at a time and merged by time, and
//! each output frame is written as its port sends it, so memory stays
//! bounded whatever the captures' size, and FIFOs work as inputs.

use anyhow::{Context, Result};
use prism_io::capture::CaptureReader;
use prism_io::pcap::{Frame, FrameWriter, PcapError};
use prism_netdoc as scenario;
use prism_node::{offline as runner, report};
use std::path::PathBuf;

fn split_port_file(s: &str) -> Result<(String, PathBuf)> {
    let (p, f) = s
        .split_once('=')
        .with_context(|| format!("`{s}` is not PORT=FILE"))?;
    Ok((p.to_string(), PathBuf::from(f)))
}

/// The input captures merged into one stream in time order (each capture
/// is taken to be in time order itself, as capture tools write them).
struct Merge {
    inputs: Vec<(u16, CaptureReader, Option<Frame>)>,
    /// Bad records met: each ends its capture's stream.
    notes: Vec<String>,
}

impl Merge {
    fn advance(&mut self, i: usize) {
        let (_, r, head) = &mut self.inputs[i];
        *head = match r.next_frame() {
            Some(Ok(f)) => Some(f),
            Some(Err(e)) => {
                self.notes.push(format!(
                    "{e}; the frames before it were processed, none after"
                ));
                None
            }
            None => None,
        };
    }
}

impl Iterator for Merge {
    type Item = runner::InputFrame;

    fn next(&mut self) -> Option<runner::InputFrame> {
        let i = self
            .inputs
            .iter()
            .enumerate()
            .filter_map(|(i, (_, _, h))| h.as_ref().map(|f| (f.timestamp_ns, i)))
            .min()?
            .1;
        let port = self.inputs[i].0;
        let f = self.inputs[i].2.take()?;
        self.advance(i);
        Some(runner::InputFrame {
            port,
            timestamp_ns: f.timestamp_ns,
            data: f.data,
        })
    }
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
    let mut merge = Merge {
        inputs: Vec::new(),
        notes: Vec::new(),
    };
    let mut files = Vec::new();
    for spec in pcap_in {
        let (port, file) = split_port_file(spec)?;
        let p = sc.port_index(&port).with_context(|| {
            format!(
                "--pcap-in {spec}: no port `{port}` (ports: {})",
                sc.port_names.join(", ")
            )
        })?;
        merge.inputs.push((p, CaptureReader::open(&file)?, None));
        files.push(file);
    }
    for i in 0..merge.inputs.len() {
        merge.advance(i);
    }
    let mut writers: Vec<Option<FrameWriter>> = (0..sc.port_names.len()).map(|_| None).collect();
    for spec in pcap_out {
        let (port, file) = split_port_file(spec)?;
        let p = sc.port_index(&port).with_context(|| {
            format!(
                "--pcap-out {spec}: no port `{port}` (ports: {})",
                sc.port_names.join(", ")
            )
        })?;
        writers[usize::from(p)] = Some(FrameWriter::create(&file)?);
    }
    let summary = runner::run_streaming(
        runner::pipeline_for(sc.substrate.handle()),
        &mut merge,
        &sc.port_rates,
        |port, t, data| -> Result<(), PcapError> {
            match &mut writers[usize::from(port)] {
                Some(w) => w.write(t, data),
                None => Ok(()),
            }
        },
    )?;
    for w in writers.into_iter().flatten() {
        w.finish()?;
    }
    // Bad records are said on stderr too, whatever the output format.
    for n in &merge.notes {
        eprintln!("prism run: {n}");
    }
    let mut notes = std::mem::take(&mut merge.notes);
    for (file, (_, r, _)) in files.iter().zip(&merge.inputs) {
        if r.stats.converted > 0 {
            notes.push(format!(
                "{}: {} frames given a synthetic Ethernet header (raw IP / Linux cooked capture)",
                file.display(),
                r.stats.converted
            ));
        }
        for (lt, n) in &r.stats.unsupported_link {
            notes.push(format!(
                "{}: {n} frames skipped: unsupported link type {lt}",
                file.display()
            ));
        }
    }
    if summary.oversized > 0 {
        notes.push(format!(
            "{} frames longer than {} bytes were refused at input",
            summary.oversized,
            prism_pipeline::packet::MAX_FRAME
        ));
    }
    if json {
        let v = serde_json::json!({ "counters": summary.counters, "notes": notes });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", report::table(&summary.counters));
        for (i, n) in summary.sent.iter().enumerate() {
            println!("  port {:<8} sent {n} frames", sc.port_names[i]);
        }
        for n in &notes {
            println!("note: {n}");
        }
    }
    Ok(())
}
