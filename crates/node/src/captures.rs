//! `prism run`'s work: a scenario over pcap/pcapng captures (the offline
//! substrate), streamed. In: the scenario and, per port, capture files to
//! read and to write. Out: the counters, each port's frames sent, and
//! notes (bad records, converted or skipped link types, oversized frames).
//! The inputs are read a record at a time and merged by time, and each
//! output frame is written as its port sends it, so memory stays bounded
//! whatever the captures' size, and FIFOs work as inputs.

use crate::offline::{self as runner, InputFrame, RunSummary};
use anyhow::{Context, Result};
use prism_compile::Scenario;
use prism_io::capture::CaptureReader;
use prism_io::pcap::{Frame, FrameWriter, PcapError};
use std::path::{Path, PathBuf};

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
    type Item = InputFrame;

    fn next(&mut self) -> Option<InputFrame> {
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
        Some(InputFrame {
            port,
            timestamp_ns: f.timestamp_ns,
            data: f.data,
        })
    }
}

/// What a run over captures did.
#[derive(Debug)]
pub struct CaptureRun {
    pub summary: RunSummary,
    /// Bad records met (each ended its capture's stream).
    pub bad_records: Vec<String>,
    /// The bad records, then conversions, skips and refusals.
    pub notes: Vec<String>,
}

/// `prism run`'s `PORT=FILE` specs as (port index, file), naming the flag when wrong.
pub fn port_files(sc: &Scenario, specs: &[String], flag: &str) -> Result<Vec<(u16, PathBuf)>> {
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

/// What reading capture `file` changed or skipped, a line each.
fn read_notes(file: &Path, r: &CaptureReader) -> Vec<String> {
    let mut notes = Vec::new();
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
    notes
}

/// Runs `sc` over the captures of `inputs` (port, file), writing what each
/// port of `outputs` sends.
pub fn run_captures(
    sc: &Scenario,
    inputs: &[(u16, PathBuf)],
    outputs: &[(u16, PathBuf)],
) -> Result<CaptureRun> {
    let mut merge = Merge {
        inputs: Vec::new(),
        notes: Vec::new(),
    };
    for (p, file) in inputs {
        merge.inputs.push((*p, CaptureReader::open(file)?, None));
    }
    for i in 0..merge.inputs.len() {
        merge.advance(i);
    }
    let mut writers: Vec<Option<FrameWriter>> = (0..sc.port_names.len()).map(|_| None).collect();
    for (p, file) in outputs {
        writers[usize::from(*p)] = Some(FrameWriter::create(file)?);
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
    let bad_records = std::mem::take(&mut merge.notes);
    let mut notes = bad_records.clone();
    for ((_, file), (_, r, _)) in inputs.iter().zip(&merge.inputs) {
        notes.extend(read_notes(file, r));
    }
    if summary.oversized > 0 {
        notes.push(format!(
            "{} frames longer than {} bytes were refused at input",
            summary.oversized,
            prism_pipeline::fast::packet::MAX_FRAME
        ));
    }
    Ok(CaptureRun {
        summary,
        bad_records,
        notes,
    })
}
