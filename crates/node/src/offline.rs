//! The offline substrate: frames from captures (or a generator) through the
//! pipeline, software channels served by Prism's software router in-process,
//! and ports drained in DRR order at their line rate.
//!
//! Time is the capture's: each batch runs at the timestamp of its last frame,
//! so token buckets and port rates see the traffic's own timing.

use prism_pipeline::dataplane::SOFTWARE_CHANNELS;
use prism_pipeline::{CounterSnapshot, Packet, Pipeline, PipelineConfig, software_router};

/// Frames leaving one port, with their transmit times.
#[derive(Debug, Default, Clone)]
pub struct PortOutput {
    pub frames: Vec<(u64, Vec<u8>)>,
}

/// One input frame.
#[derive(Debug, Clone)]
pub struct InputFrame {
    pub port: u16,
    pub timestamp_ns: u64,
    pub data: Vec<u8>,
}

#[derive(Debug)]
pub struct RunResult {
    pub outputs: Vec<PortOutput>,
    pub counters: CounterSnapshot,
    /// Frames longer than a packet buffer, refused at input.
    pub oversized: usize,
}

const BATCH: usize = 32;
/// How much unused line-rate credit a port may bank (about 64 KB).
const PORT_CREDIT_CAP: f64 = 65_536.0;

/// What a streamed run counted.
#[derive(Debug)]
pub struct RunSummary {
    pub counters: CounterSnapshot,
    /// Frames longer than a packet buffer, refused at input.
    pub oversized: usize,
    /// Frames sent per port.
    pub sent: Vec<u64>,
}

/// Runs `input` (sorted by time) through `pipeline`, collecting every
/// output frame in memory (the demo, tests; `run_streaming` for captures).
pub fn run(pipeline: Pipeline, input: &[InputFrame], port_rates: &[Option<u64>]) -> RunResult {
    let mut outputs = vec![PortOutput::default(); port_rates.len()];
    let summary = run_streaming(
        pipeline,
        input.iter().cloned(),
        port_rates,
        |port: u16, t: u64, data: &[u8]| {
            outputs[usize::from(port)].frames.push((t, data.to_vec()));
            Ok::<(), std::convert::Infallible>(())
        },
    );
    let summary = match summary {
        Ok(s) => s,
        Err(never) => match never {},
    };
    RunResult {
        outputs,
        counters: summary.counters,
        oversized: summary.oversized,
    }
}

/// Runs `input` (sorted by time) through `pipeline`, handing each frame a
/// port sends to `sink` as it leaves (port, time, frame): memory stays
/// bounded by the pipeline's buffers whatever the input's length. The
/// first error of `sink` ends the run.
pub fn run_streaming<E>(
    mut pipeline: Pipeline,
    input: impl Iterator<Item = InputFrame>,
    port_rates: &[Option<u64>],
    mut sink: impl FnMut(u16, u64, &[u8]) -> Result<(), E>,
) -> Result<RunSummary, E> {
    let ports = port_rates.len();
    let mut sent = vec![0u64; ports];
    let mut credit = vec![0f64; ports];
    let mut input = input.peekable();
    let mut last_ns = input.peek().map_or(0, |f| f.timestamp_ns);
    let mut batch: Vec<Packet> = Vec::with_capacity(BATCH);
    let mut sw: Vec<Packet> = Vec::with_capacity(BATCH);
    // The in-process software router has its own service state (id 1; the pipeline is 0).
    let mut services = prism_pipeline::ServiceScratch::new(1);
    let mut tx: Vec<Packet> = Vec::with_capacity(256);
    let mut oversized = 0;
    let mut now = last_ns;
    let mut step = |pipeline: &mut Pipeline,
                    batch: &mut Vec<Packet>,
                    now: u64,
                    last_ns: &mut u64,
                    drain: bool|
     -> Result<(), E> {
        pipeline.process(batch, now);
        // Serve every software channel with the software router.
        let dp = pipeline.dataplane().clone();
        for ch in 0..SOFTWARE_CHANNELS as u8 {
            pipeline.software_pop(ch, usize::MAX, &mut sw);
            for mut p in sw.drain(..) {
                let v = software_router::route(&dp, &mut p, &mut services);
                pipeline.from_software(p, v, now);
            }
        }
        let elapsed = now.saturating_sub(*last_ns) as f64;
        *last_ns = now;
        for port in 0..ports {
            let budget = match port_rates[port] {
                Some(rate) if !drain => {
                    credit[port] =
                        (credit[port] + elapsed * rate as f64 / 8e9).min(PORT_CREDIT_CAP);
                    credit[port] as usize
                }
                _ => usize::MAX,
            };
            let n = pipeline.transmit(port as u16, budget, &mut tx);
            if budget != usize::MAX {
                credit[port] -= n as f64;
            }
            let mut result = Ok(());
            for p in tx.drain(..) {
                if result.is_ok() {
                    result = sink(port as u16, now, p.data());
                    sent[port] += 1;
                }
                pipeline.pool.recycle(p);
            }
            result?;
        }
        Ok(())
    };
    for f in input {
        now = now.max(f.timestamp_ns);
        match pipeline.pool.packet(&f.data, f.port, f.timestamp_ns) {
            Some(p) => batch.push(p),
            None if f.data.len() > prism_pipeline::packet::MAX_FRAME => oversized += 1,
            None => {
                // Pool exhausted: run what we have, then retry once.
                step(&mut pipeline, &mut batch, now, &mut last_ns, false)?;
                match pipeline.pool.packet(&f.data, f.port, f.timestamp_ns) {
                    Some(p) => batch.push(p),
                    None => oversized += 1,
                }
            }
        }
        if batch.len() == BATCH {
            step(&mut pipeline, &mut batch, now, &mut last_ns, false)?;
        }
    }
    step(&mut pipeline, &mut batch, now, &mut last_ns, false)?;
    // Let rate-limited ports finish sending what is queued, in DRR order.
    for (port, rate) in port_rates.iter().enumerate() {
        let Some(rate) = *rate else { continue };
        while pipeline.queued(port as u16) > 0 {
            now += (1514.0 * 8e9 / rate as f64).ceil() as u64;
            step(&mut pipeline, &mut batch, now, &mut last_ns, false)?;
        }
    }
    step(&mut pipeline, &mut batch, now, &mut last_ns, true)?;
    Ok(RunSummary {
        counters: pipeline.snapshot(),
        oversized,
        sent,
    })
}

/// A pipeline for an offline run, sized for captures.
pub fn pipeline_for(
    handle: std::sync::Arc<arc_swap::ArcSwap<prism_pipeline::Dataplane>>,
) -> Pipeline {
    Pipeline::new(handle, PipelineConfig::default())
}
