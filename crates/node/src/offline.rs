//! The offline substrate: frames from captures (or a generator) through the
//! pipeline, software channels served by Prism's software router in-process,
//! and ports drained in DRR order at their line rate.
//!
//! Time is the capture's: each batch runs at the timestamp of its last frame,
//! so token buckets and port rates see the traffic's own timing.

use prism_pipeline::fast::dataplane::SOFTWARE_CHANNELS;
use prism_pipeline::{CounterSnapshot, Packet, Pipeline, PipelineConfig, software::router};

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
    pipeline: Pipeline,
    input: impl Iterator<Item = InputFrame>,
    port_rates: &[Option<u64>],
    sink: impl FnMut(u16, u64, &[u8]) -> Result<(), E>,
) -> Result<RunSummary, E> {
    let mut input = input.peekable();
    let first_ns = input.peek().map_or(0, |f| f.timestamp_ns);
    let mut s = Stream {
        pipeline,
        port_rates,
        sink,
        sent: vec![0; port_rates.len()],
        credit: vec![0.0; port_rates.len()],
        last_ns: first_ns,
        sw: Vec::with_capacity(BATCH),
        // The in-process software router has its own service state (id 1;
        // the pipeline is 0).
        services: prism_pipeline::PayloadScratch::new(1),
        tx: Vec::with_capacity(256),
    };
    let mut batch: Vec<Packet> = Vec::with_capacity(BATCH);
    let mut oversized = 0;
    let mut now = first_ns;
    for f in input {
        now = now.max(f.timestamp_ns);
        match s.pipeline.pool.packet(&f.data, f.port, f.timestamp_ns) {
            Some(p) => batch.push(p),
            None if f.data.len() > prism_pipeline::fast::packet::MAX_FRAME => oversized += 1,
            None => {
                // Pool exhausted: run what we have, then retry once.
                s.step(&mut batch, now, false)?;
                match s.pipeline.pool.packet(&f.data, f.port, f.timestamp_ns) {
                    Some(p) => batch.push(p),
                    None => oversized += 1,
                }
            }
        }
        if batch.len() == BATCH {
            s.step(&mut batch, now, false)?;
        }
    }
    s.step(&mut batch, now, false)?;
    // Let rate-limited ports finish sending what is queued, in DRR order.
    for (port, rate) in port_rates.iter().enumerate() {
        let Some(rate) = *rate else { continue };
        while s.pipeline.queued(port as u16) > 0 {
            now += (1514.0 * 8e9 / rate as f64).ceil() as u64;
            s.step(&mut batch, now, false)?;
        }
    }
    s.step(&mut batch, now, true)?;
    Ok(RunSummary {
        counters: s.pipeline.snapshot(),
        oversized,
        sent: s.sent,
    })
}

/// A run in progress: the pipeline, the software router's state and each
/// port's transmit credit and count.
struct Stream<'a, S> {
    pipeline: Pipeline,
    port_rates: &'a [Option<u64>],
    sink: S,
    sent: Vec<u64>,
    credit: Vec<f64>,
    last_ns: u64,
    sw: Vec<Packet>,
    services: prism_pipeline::PayloadScratch,
    tx: Vec<Packet>,
}

impl<S, E> Stream<'_, S>
where
    S: FnMut(u16, u64, &[u8]) -> Result<(), E>,
{
    /// Runs `batch` at time `now`, serves the software channels and lets
    /// each port send what its rate allows (`drain`: everything).
    fn step(&mut self, batch: &mut Vec<Packet>, now: u64, drain: bool) -> Result<(), E> {
        self.pipeline.process(batch, now);
        self.serve_software(now);
        let elapsed = now.saturating_sub(self.last_ns) as f64;
        self.last_ns = now;
        for port in 0..self.port_rates.len() {
            self.transmit(port, now, elapsed, drain)?;
        }
        Ok(())
    }

    /// Every software channel served by the software router.
    fn serve_software(&mut self, now: u64) {
        let dp = self.pipeline.dataplane().clone();
        for ch in 0..SOFTWARE_CHANNELS as u8 {
            self.pipeline.software_pop(ch, usize::MAX, &mut self.sw);
            for mut p in self.sw.drain(..) {
                let v = router::route(&dp, &mut p, &mut self.services);
                self.pipeline.from_software(p, v, now);
            }
        }
    }

    /// What `port` sends in `elapsed` ns at its rate, handed to the sink.
    fn transmit(&mut self, port: usize, now: u64, elapsed: f64, drain: bool) -> Result<(), E> {
        let budget = match self.port_rates[port] {
            Some(rate) if !drain => {
                let c = self.credit[port] + elapsed * rate as f64 / 8e9;
                self.credit[port] = c.min(PORT_CREDIT_CAP);
                self.credit[port] as usize
            }
            _ => usize::MAX,
        };
        let n = self.pipeline.transmit(port as u16, budget, &mut self.tx);
        if budget != usize::MAX {
            self.credit[port] -= n as f64;
        }
        let mut result = Ok(());
        for p in self.tx.drain(..) {
            if result.is_ok() {
                result = (self.sink)(port as u16, now, p.data());
                self.sent[port] += 1;
            }
            self.pipeline.pool.recycle(p);
        }
        result
    }
}

/// A pipeline for an offline run, sized for captures.
pub fn pipeline_for(
    handle: std::sync::Arc<arc_swap::ArcSwap<prism_pipeline::Dataplane>>,
) -> Pipeline {
    Pipeline::new(handle, PipelineConfig::default())
}
