//! `prism ctl trace`, `capture` and `metrics`: seeing into a running node.

use anyhow::Result;
use prism_node_api::{NodeClient, TapAnswer, TapBody};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct TraceArgs {
    /// The network (none: any packet, unmapped ones included).
    pub network: Option<String>,
    /// Packets to trace.
    #[arg(short = 'c', long, default_value_t = 10)]
    pub count: usize,
    /// Seconds to wait for them.
    #[arg(long, default_value_t = 10)]
    pub timeout: u64,
    /// Print the answer as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct CaptureArgs {
    pub network: String,
    /// Frames to capture (ingress and egress each count one, at most half at ingress).
    #[arg(short = 'c', long, default_value_t = 100)]
    pub count: usize,
    /// The pcapng file to write.
    #[arg(short = 'w', long)]
    pub write: PathBuf,
    /// Bytes kept per frame.
    #[arg(long, default_value_t = 2048)]
    pub snaplen: usize,
    /// Seconds to wait for them.
    #[arg(long, default_value_t = 10)]
    pub timeout: u64,
}

/// VPP-style: one block per packet, one line per stage.
pub async fn trace(c: &NodeClient, a: &TraceArgs) -> Result<()> {
    let body = TapBody::new(a.count, None, a.timeout);
    let t = c.tap(a.network.as_deref(), &body).await?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&t)?);
        return Ok(());
    }
    for (i, p) in t.packets.iter().enumerate() {
        println!("packet {i}: {p}");
    }
    note_short(&t, a.count);
    Ok(())
}

fn note_short(t: &TapAnswer, count: usize) {
    if let Some(s) = t.shortfall(count) {
        eprintln!("prism ctl: {s}");
    }
}

/// Writes the network's frames at ingress and egress as pcapng.
pub async fn capture(c: &NodeClient, a: &CaptureArgs) -> Result<()> {
    let body = TapBody::new(a.count, Some(a.snaplen), a.timeout);
    let t = c.tap(Some(&a.network), &body).await?;
    let n = prism_node::taps::write_pcapng(&t, &a.write)?;
    let (net, file) = (&a.network, a.write.display());
    eprintln!("prism ctl: {n} frames of `{net}` written to {file}");
    note_short(&t, a.count);
    Ok(())
}

pub async fn metrics(c: &NodeClient) -> Result<()> {
    print!("{}", c.metrics().await?);
    Ok(())
}
