//! VANI Table 2 reproduced (paper 002 §5; `prism demo --wan --rates`):
//! five experiments spanning nodes 1 and 2 share node 1's WAN port, each
//! booked at a bandwidth in Table 2's proportions (12.5, 18.75, 25,
//! 31.25 and 31.25 MB/s, scaled by `SCALE` to what two cores carry through
//! veths and packet sockets) and each offering half as much again; the
//! rate each delivers is measured at the receiving host (node 2's) by its
//! VLAN, in the experiment's own frame bytes, over a window after the
//! buckets' first burst.
//!
//! The bandwidth of a booking is each part's rate limit: node 1 enforces it
//! on the frames it sends into the tunnel, which carry 20 bytes of outer
//! IPv4 header and 4 fewer of VLAN tag than the experiment's frames; the
//! report says what that costs an experiment.

use crate::wan::traffic::{GATEWAY_MAC, host_mac, host_ns};
use anyhow::{Result, bail};
use prism_controller::{Booking, ControllerClient};
use prism_io::afpacket::{PacketPort, RingConfig};
use prism_io::netns;
use prism_pipeline::traffic::{FrameSpec, build};
use prism_wire::{EthernetAddress, Ipv4Address};
use std::time::{Duration, Instant};

/// Table 2's targets, MB/s.
pub const TABLE2_MBYTES: [f64; 5] = [12.5, 18.75, 25.0, 31.25, 31.25];
/// This machine's scale: a tenth (95 Mbit/s in all).
pub const SCALE: f64 = 0.1;
const FRAME_LEN: usize = 1000;
/// Offered load over the target.
const OFFER: f64 = 1.5;
const WARMUP: Duration = Duration::from_secs(1);
const WINDOW: Duration = Duration::from_secs(3);

/// One experiment's row.
#[derive(Debug, Clone)]
pub struct RateRow {
    pub vlan: u16,
    /// Table 2's target and this run's (scaled), MB/s.
    pub table2_mbytes: f64,
    pub target_mbytes: f64,
    pub offered_mbytes: f64,
    /// Delivered to the receiving host, MB/s of the experiment's frames.
    pub delivered_mbytes: f64,
}

impl RateRow {
    /// Delivered over target, less one (−0.016: 1.6% under).
    pub fn error(&self) -> f64 {
        self.delivered_mbytes / self.target_mbytes - 1.0
    }
}

/// Books the five experiments, runs the traffic, releases them.
pub async fn table2(
    alice: &ControllerClient,
    book: impl Fn(&str, i64) -> prism_controller::BookingRequest,
) -> Result<Vec<RateRow>> {
    let mut booked: Vec<Booking> = Vec::new();
    for (k, mb) in TABLE2_MBYTES.iter().enumerate() {
        let mbps = (mb * 8.0 * SCALE).round() as i64;
        booked.push(alice.book("wan", &book(&format!("rate{k}"), mbps)).await?);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let flows: Vec<(u16, f64)> = booked
        .iter()
        .zip(TABLE2_MBYTES)
        .map(|(b, mb)| (b.vlan.unwrap_or(0) as u16, mb * SCALE))
        .collect();
    let rows = tokio::task::spawn_blocking(move || run(&flows)).await??;
    for b in &booked {
        alice.release("wan", &b.id).await?;
    }
    Ok(rows)
}

/// Sends every flow at `OFFER` times its target from host 1 to host 2
/// and measures what host 2 receives per VLAN.
fn run(flows: &[(u16, f64)]) -> Result<Vec<RateRow>> {
    let ring = RingConfig {
        block_size: 1 << 20,
        blocks: 64,
        retire_ms: 8,
    };
    let mut rx = netns::in_namespace(&host_ns(2), move || PacketPort::open("eth0", Some(ring)))?;
    let mut tx = netns::in_namespace(&host_ns(1), || PacketPort::open_tx("eth0"))?;
    let frames: Vec<Vec<u8>> = flows.iter().map(|(vlan, _)| rate_frame(*vlan)).collect();
    // Frames per second each flow offers.
    let pps: Vec<f64> = flows
        .iter()
        .map(|(_, mb)| mb * 1e6 * OFFER / FRAME_LEN as f64)
        .collect();
    let mut bytes = vec![0u64; flows.len()];
    let start = Instant::now();
    let mut sent = vec![0u64; flows.len()];
    while start.elapsed() < WARMUP + WINDOW {
        let t = start.elapsed().as_secs_f64();
        for (k, f) in frames.iter().enumerate() {
            let due = (t * pps[k]) as u64;
            while sent[k] < due {
                sent[k] += tx.send_batch(std::iter::once(f.as_slice())) as u64;
            }
        }
        let now_measuring = start.elapsed() >= WARMUP;
        rx.recv_block(|f| {
            if !now_measuring {
                return;
            }
            let vlan = f.vlan.map(|(_, tci)| tci & 0x0fff).or_else(|| {
                (f.data.len() >= 16 && f.data[12..14] == [0x81, 0])
                    .then(|| u16::from_be_bytes([f.data[14], f.data[15]]) & 0x0fff)
            });
            if let Some(k) = flows.iter().position(|(v, _)| Some(*v) == vlan) {
                let tag = if f.vlan.is_some() { 4 } else { 0 };
                bytes[k] += (f.data.len() + tag) as u64;
            }
        });
        std::thread::sleep(Duration::from_micros(200));
    }
    if rx.poll_drops() > 0 {
        bail!("host 2's own socket dropped frames (its ring was full): not a measurement");
    }
    let secs = WINDOW.as_secs_f64();
    Ok(flows
        .iter()
        .enumerate()
        .map(|(k, (vlan, mb))| RateRow {
            vlan: *vlan,
            table2_mbytes: TABLE2_MBYTES[k],
            target_mbytes: *mb,
            offered_mbytes: mb * OFFER,
            delivered_mbytes: bytes[k] as f64 / secs / 1e6,
        })
        .collect())
}

/// A frame of the flow on `vlan`, from host 1 to host 2.
fn rate_frame(vlan: u16) -> Vec<u8> {
    let spec = FrameSpec {
        src_mac: EthernetAddress(host_mac(1)),
        dst_mac: EthernetAddress(GATEWAY_MAC),
        vlan: Some(vlan),
        src: Ipv4Address([10, 1, 0, 2]),
        dst: Ipv4Address([10, 2, 0, 2]),
        dst_port: 7000 + vlan,
        frame_len: FRAME_LEN,
        ..FrameSpec::default()
    };
    build(&spec, b"RATE")
}

/// The table, as printed.
pub fn table(rows: &[RateRow]) -> String {
    let mut s = format!(
        "  VANI Table 2 at {SCALE} scale ({FRAME_LEN}-byte frames, {OFFER}× offered, {} s window):\n  \
         Table 2 MB/s  target MB/s  offered  delivered  error\n",
        WINDOW.as_secs()
    );
    for r in rows {
        s += &format!(
            "  {:>12.2}  {:>11.3}  {:>7.3}  {:>9.3}  {:>+5.2}%\n",
            r.table2_mbytes,
            r.target_mbytes,
            r.offered_mbytes,
            r.delivered_mbytes,
            100.0 * r.error()
        );
    }
    s
}
