//! The WAN demo's traffic: frames between two nodes' hosts counted at the
//! receiving host by VLAN, and an outsider's frames on the WAN.

use anyhow::{Result, bail};
use prism_controller::Booking;
use prism_io::afpacket::{PacketPort, RingConfig};
use prism_io::netns;
use prism_node_api::{Endpoint, NodeClient};
use prism_pipeline::traffic::{FrameSpec, build};
use prism_wire::{EthernetAddress, Ipv4Address};
use std::time::{Duration, Instant};

pub(crate) const HOST_NS: &str = "pwn-h";
/// An outsider on the wide area: no node's address.
pub(crate) const OUTSIDER_NS: &str = "pwn-x";

/// Frames per flow, sent at about 2,000 per second.
pub const FRAMES: u64 = 1000;

pub(crate) const GATEWAY_MAC: [u8; 6] = [0x02, 0x45, 0, 0, 0xff, 0];

pub(crate) fn host_mac(i: usize) -> [u8; 6] {
    [0x02, 0x45, 0, 0, 0, i as u8]
}

pub(crate) fn wan_mac(i: usize) -> [u8; 6] {
    [0x02, 0x0a, 0, 0, 0, i as u8]
}

pub(crate) fn host_ns(i: usize) -> String {
    format!("{HOST_NS}{i}")
}

pub(crate) fn node_client(i: usize, secret: &str) -> NodeClient {
    NodeClient::new(Endpoint::Tcp {
        addr: format!("10.253.{i}.2:7700"),
        token: Some(secret.into()),
    })
}

/// The receiving hosts' rings: 512 blocks of 64 KiB closed every 8 ms,
/// seconds of frames at these rates.
const RING: RingConfig = RingConfig {
    block_size: 1 << 16,
    blocks: 512,
    retire_ms: 8,
};

/// What a flow carries.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Carried {
    /// IPv4/UDP from 10.`from`.0.2 to 10.`to`.0.2, to this UDP port.
    Udp(u16),
    /// A made-up layer-3 protocol (EtherType 0x88b5, IEEE's local
    /// experimental one) to host `to`'s MAC, its first two bytes this id.
    Experimental(u16),
}

const EXPERIMENTAL: [u8; 2] = [0x88, 0xb5];

fn frame_of(from: usize, to: usize, vlan: u16, what: Carried) -> Vec<u8> {
    match what {
        Carried::Udp(port) => build(
            &FrameSpec {
                src_mac: EthernetAddress(host_mac(from)),
                dst_mac: EthernetAddress(GATEWAY_MAC),
                vlan: Some(vlan),
                src: Ipv4Address([10, from as u8, 0, 2]),
                dst: Ipv4Address([10, to as u8, 0, 2]),
                src_port: 4000,
                dst_port: port,
                frame_len: 200,
                ..FrameSpec::default()
            },
            b"PRSM",
        ),
        Carried::Experimental(id) => {
            let mut f = host_mac(to).to_vec();
            f.extend_from_slice(&host_mac(from));
            f.extend_from_slice(&[0x81, 0x00]);
            f.extend_from_slice(&vlan.to_be_bytes());
            f.extend_from_slice(&EXPERIMENTAL);
            f.extend_from_slice(&id.to_be_bytes());
            f.resize(200, b'L');
            f
        }
    }
}

/// Whether untagged frame `d` is one of `what`'s.
fn is_of(d: &[u8], what: Carried) -> bool {
    match what {
        Carried::Udp(port) => {
            d.len() >= 38 && d[12..14] == [8, 0] && d[23] == 17 && d[36..38] == port.to_be_bytes()
        }
        Carried::Experimental(id) => {
            d.len() >= 16 && d[12..14] == EXPERIMENTAL && d[14..16] == id.to_be_bytes()
        }
    }
}

/// Sends `FRAMES` frames of `what` tagged `vlan` from host `from` to host
/// `to`; counts at host `to` those on `vlan` and those on another VLAN.
pub(crate) fn flow(from: usize, to: usize, vlan: u16, what: Carried) -> Result<(u64, u64)> {
    let mut rx = netns::in_namespace(&host_ns(to), || PacketPort::open("eth0", Some(RING)))?;
    let mut tx = netns::in_namespace(&host_ns(from), || PacketPort::open_tx("eth0"))?;
    let frame = frame_of(from, to, vlan, what);
    let (mut got, mut wrong) = (0u64, 0u64);
    // Returns how many have come on `vlan` so far.
    let mut count = |rx: &mut PacketPort| {
        rx.recv_block(|f| {
            let (tag, d) = tagged(f.vlan, f.data);
            if is_of(&d, what) {
                if tag == Some(vlan) {
                    got += 1;
                } else {
                    wrong += 1;
                }
            }
        });
        got
    };
    send_paced(&mut tx, &frame, FRAMES, || {
        count(&mut rx);
    })?;
    // Frames in flight are waited for while they keep coming (300 ms
    // without one ends the wait, 2 s at most: a loaded machine delays
    // them, which is not losing them); once all have come, 30 ms more for
    // any copy on another VLAN (it would travel beside them, not later).
    let latest = Instant::now() + Duration::from_secs(2);
    let (mut quiet_from, mut seen) = (Instant::now(), count(&mut rx));
    let mut tail: Option<Instant> = None;
    while Instant::now() < latest
        && quiet_from.elapsed() < Duration::from_millis(300)
        && tail.is_none_or(|t| Instant::now() < t)
    {
        let _ = PacketPort::wait_any(&[&rx], 5);
        let now = count(&mut rx);
        if now > seen {
            (quiet_from, seen) = (Instant::now(), now);
        }
        if now >= FRAMES && tail.is_none() {
            tail = Some(Instant::now() + Duration::from_millis(30));
        }
    }
    if rx.poll_drops() > 0 {
        bail!("host {to}'s own socket dropped frames (its ring was full): not a measurement");
    }
    Ok((got, wrong))
}

/// The frame's VLAN (in the data or stripped into metadata) and the frame
/// as if untagged (the tag's 4 bytes skipped by copying the MACs).
fn tagged(meta: Option<(u16, u16)>, d: &[u8]) -> (Option<u16>, Vec<u8>) {
    if let Some((_, tci)) = meta {
        return (Some(tci & 0x0fff), d.to_vec());
    }
    if d.len() >= 18 && d[12..14] == [0x81, 0x00] {
        let mut v = d[..12].to_vec();
        v.extend_from_slice(&d[16..]);
        return (Some(u16::from_be_bytes([d[14], d[15]]) & 0x0fff), v);
    }
    (None, d.to_vec())
}

/// Sends `n` copies of `frame` at about 2,000 per second, calling `between`
/// every millisecond. A socket that sends nothing for a second (its
/// interface gone, its namespace removed) is an error, not a wait: a flow
/// left behind by a failed step must end, not spin.
fn send_paced(tx: &mut PacketPort, frame: &[u8], n: u64, mut between: impl FnMut()) -> Result<()> {
    let start = Instant::now();
    let mut sent = 0u64;
    let mut progress = Instant::now();
    while sent < n {
        let due = (start.elapsed().as_micros() as u64 * 2000 / 1_000_000).min(n);
        while sent < due {
            match tx.send_batch(std::iter::once(frame)) as u64 {
                0 => break,
                k => (sent, progress) = (sent + k, Instant::now()),
            }
        }
        if progress.elapsed() > Duration::from_secs(1) {
            bail!("the sending host's socket sent nothing for a second ({sent} of {n} sent)");
        }
        between();
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(())
}

/// Node `i`'s drops of frames no network took, under `reason`.
pub(crate) async fn unmapped_drops(i: usize, secret: &str, reason: &str) -> Result<u64> {
    let c = node_client(i, secret).counters().await?;
    Ok(c.unmapped_drops.get(reason).copied().unwrap_or(0))
}

/// Node 2's unmapped drops by `wan/...` reason: (unknown-tunnel, not-leased).
async fn wan_drops(secret: &str) -> Result<(u64, u64)> {
    Ok((
        unmapped_drops(2, secret, "wan/unknown-tunnel").await?,
        unmapped_drops(2, secret, "wan/not-leased").await?,
    ))
}

/// The outsider sends node 2 IPIP from an address that is no node's (with
/// a real experiment's inner addresses) and plain IPv4 to a public address
/// nobody leased; host 2 listens.
/// Returns frames sent, delivered to host 2, and node 2's drops by reason.
pub(crate) async fn spoof(secret: &str) -> Result<(u64, u64, (u64, u64))> {
    const N: u64 = 200;
    let before = wan_drops(secret).await?;
    let delivered = tokio::task::spawn_blocking(|| -> Result<u64> {
        // A ring, or the socket receives nothing (protocol 0).
        let mut rx = netns::in_namespace(&host_ns(2), || PacketPort::open("eth0", Some(RING)))?;
        let mut tx = netns::in_namespace(OUTSIDER_NS, || PacketPort::open_tx("eth0"))?;
        let spec = |tunnel| FrameSpec {
            src_mac: EthernetAddress([0x02, 0x66, 0, 0, 0, 1]),
            dst_mac: EthernetAddress(wan_mac(2)),
            src: Ipv4Address([10, 1, 0, 2]),
            dst: Ipv4Address([10, 2, 0, 2]),
            tunnel,
            dst_port: 6666,
            frame_len: 200,
            ..FrameSpec::default()
        };
        let node2 = Ipv4Address([203, 0, 113, 2]);
        let ipip = build(&spec(Some((Ipv4Address([198, 18, 9, 9]), node2))), b"SPOF");
        // To an address of node 2's public pool that nobody leased.
        let mut plain = spec(None);
        plain.dst = Ipv4Address([203, 0, 113, 85]);
        let plain = build(&plain, b"SPOF");
        let mut got = 0;
        let mut count = |rx: &mut PacketPort| {
            rx.recv_block(|f| got += u64::from(f.data.windows(4).any(|w| w == b"SPOF")));
        };
        send_paced(&mut tx, &ipip, N, || count(&mut rx))?;
        send_paced(&mut tx, &plain, N, || count(&mut rx))?;
        std::thread::sleep(Duration::from_millis(300));
        count(&mut rx);
        Ok(got)
    })
    .await??;
    let after = wan_drops(secret).await?;
    Ok((2 * N, delivered, (after.0 - before.0, after.1 - before.1)))
}

/// One-way latency, p50 and p99 in µs, of `n` frames sent 1 ms apart from
/// host `from` tagged `vlan` to 10.`to`.0.2, received by host `to`: the
/// send time read just before each send, the receive time the kernel's
/// stamp on host `to`'s packet socket (one machine, one clock).
pub(crate) fn latency(from: usize, to: usize, vlan: u16, n: u32) -> Result<(f64, f64)> {
    let mut rx = netns::in_namespace(&host_ns(to), || PacketPort::open("eth0", Some(RING)))?;
    let mut tx = netns::in_namespace(&host_ns(from), || PacketPort::open_tx("eth0"))?;
    let now_ns = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    };
    let port = 9000 + to as u16;
    let mut sent_at = vec![0u64; n as usize];
    let mut took: Vec<f64> = Vec::new();
    let mut take = |rx: &mut PacketPort, sent_at: &[u64]| {
        rx.recv_block(|f| {
            let (_, d) = tagged(f.vlan, f.data);
            if d.len() >= 46 && d[..6] == host_mac(to) && is_of(&d, Carried::Udp(port)) {
                let seq = u32::from_be_bytes([d[42], d[43], d[44], d[45]]) as usize;
                if let Some(&t) = sent_at.get(seq).filter(|t| **t > 0) {
                    took.push(f.timestamp_ns.saturating_sub(t) as f64 / 1e3);
                }
            }
        });
    };
    for seq in 0..n {
        let frame = build(
            &FrameSpec {
                src_mac: EthernetAddress(host_mac(from)),
                dst_mac: EthernetAddress(GATEWAY_MAC),
                vlan: Some(vlan),
                src: Ipv4Address([10, from as u8, 0, 2]),
                dst: Ipv4Address([10, to as u8, 0, 2]),
                src_port: 4000,
                dst_port: port,
                frame_len: 128,
                ..FrameSpec::default()
            },
            &seq.to_be_bytes(),
        );
        sent_at[seq as usize] = now_ns();
        tx.send_batch(std::iter::once(frame.as_slice()));
        std::thread::sleep(Duration::from_millis(1));
        take(&mut rx, &sent_at);
    }
    std::thread::sleep(Duration::from_millis(50));
    take(&mut rx, &sent_at);
    if took.len() < n as usize * 99 / 100 {
        bail!("{} of {n} latency probes arrived", took.len());
    }
    took.sort_by(f64::total_cmp);
    let at = |q: f64| took[((took.len() - 1) as f64 * q) as usize];
    Ok((at(0.50), at(0.99)))
}

/// One flow: `FRAMES` frames of `experiment` from host `from` to host
/// `to`, and what host `to` received on the experiment's VLAN and on any
/// other.
#[derive(Debug, Clone)]
pub struct Flow {
    pub experiment: String,
    pub from: usize,
    pub to: usize,
    pub vlan: u16,
    pub sent: u64,
    pub got: u64,
    pub wrong_vlan: u64,
}

/// Frames between every pair of nodes of each experiment: IPv4/UDP
/// through the routed ones, a made-up EtherType through the bridged one.
pub(crate) async fn flows(booked: &[&Booking], say: &dyn Fn(&str)) -> Result<Vec<Flow>> {
    let mut out = Vec::new();
    let mut id = 5000u16;
    for b in booked {
        let nodes: Vec<usize> = (b.parts.iter())
            .filter_map(|p| p.node.strip_prefix("node")?.parse().ok())
            .collect();
        for &from in &nodes {
            for &to in nodes.iter().filter(|t| **t != from) {
                id += 1;
                let vlan = b.vlan.unwrap_or(0) as u16;
                let what = if b.s_tag.is_some() {
                    Carried::Experimental(id)
                } else {
                    Carried::Udp(id)
                };
                let (got, wrong_vlan) =
                    tokio::task::spawn_blocking(move || flow(from, to, vlan, what)).await??;
                say(&format!(
                    "  {:<5} node{from} → node{to} VLAN {vlan}: sent {FRAMES}, received {got} on its VLAN, {wrong_vlan} on another",
                    b.name
                ));
                out.push(Flow {
                    experiment: b.name.clone(),
                    from,
                    to,
                    vlan,
                    sent: FRAMES,
                    got,
                    wrong_vlan,
                });
            }
        }
    }
    Ok(out)
}

/// One-way latency through span3: host 1 to itself through node 1 (a
/// single node's path), and to hosts 2 and 3 across the WAN bridge.
pub(crate) async fn latencies(
    vlan: u16,
    probes: u32,
    say: &dyn Fn(&str),
) -> Result<Vec<(String, f64, f64)>> {
    let mut out = Vec::new();
    for (to, path) in [
        (1, "node1 only"),
        (2, "node1 → WAN → node2"),
        (3, "node1 → WAN → node3"),
    ] {
        let (p50, p99) =
            tokio::task::spawn_blocking(move || latency(1, to, vlan, probes)).await??;
        say(&format!(
            "  latency {path:<20} p50 {p50:.1} µs, p99 {p99:.1} µs ({probes} frames, 1 ms apart)"
        ));
        out.push((path.to_string(), p50, p99));
    }
    Ok(out)
}
