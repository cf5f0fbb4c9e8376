//! The controller demo's traffic: its topology's names, frames sent from
//! host a to host b behind a node and counted at host b, and where frames
//! went missing when any did (the nodes' drop counters and sockets, the
//! kernel's link counters).

use anyhow::{Result, bail};
use prism_io::afpacket::{PacketPort, RingConfig};
use prism_io::netns;
use prism_node_api::{Endpoint, NodeClient};
use prism_pipeline::traffic::{FrameSpec, build};
use prism_wire::{EthernetAddress, Ipv4Address};
use std::time::{Duration, Instant};

pub(crate) const NODE_NS: &str = "pcd-n";
pub(crate) const HOST_NS: &str = "pcd-h";
pub(crate) const MGMT: &str = "pcdm";
pub(crate) const NODES: usize = 2;
pub(crate) const INSTANCES: [&str; NODES] = ["da", "db"];
/// Frames per network, sent at about 2,000 per second.
pub const FRAMES: u64 = 2000;
const FRAME_LEN: usize = 200;
/// The most frames sent in one tick of about a millisecond: 4 frames of
/// 200 bytes a millisecond are 6.4 Mbit/s, under every booking's rate.
const CATCH_UP: u64 = 4;
/// The MAC of host a (`s` = 0) or b behind each node: the same on both
/// nodes (they are apart), so a booking's document does not depend on
/// where it is placed.
pub(crate) fn host_mac(s: usize) -> [u8; 6] {
    [0x02, 0x44, 0, 0, 0, s as u8]
}

pub(crate) fn node_ns(i: usize) -> String {
    format!("{NODE_NS}{i}")
}

pub(crate) fn host_ns(i: usize, s: usize) -> String {
    format!("{HOST_NS}{i}{}", ["a", "b"][s])
}

/// A UDP frame from host a to host b (10.0.1.2 → 10.0.2.2), tagged
/// `vlan`, to port `port`, `len` bytes long.
pub(crate) fn host_a_frame(vlan: u16, port: u16, len: usize) -> Vec<u8> {
    build(
        &FrameSpec {
            src_mac: EthernetAddress(host_mac(0)),
            dst_mac: EthernetAddress([0x02, 0x44, 0, 0xff, 0, 0]),
            vlan: Some(vlan),
            src: Ipv4Address([10, 0, 1, 2]),
            dst: Ipv4Address([10, 0, 2, 2]),
            src_port: 4000,
            dst_port: port,
            frame_len: len,
            ..FrameSpec::default()
        },
        b"PRSM",
    )
}

pub(crate) fn send_and_count(i: usize, vlan: u16, port: u16, count: u64) -> Result<u64> {
    // TPACKET_V3 closes a block after `retire_ms` however few frames it
    // holds: at 2,000 frames/s the default ring (16 blocks, 1 ms) is 16 ms
    // of buffering, and a receiver that does not run for longer (two busy
    // cores) lost frames here, not in Prism. 512 blocks of 8 ms: seconds.
    let ring = RingConfig {
        block_size: 1 << 16,
        blocks: 512,
        retire_ms: 8,
    };
    let mut rx = netns::in_namespace(&host_ns(i, 1), move || PacketPort::open("eth0", Some(ring)))?;
    let mut tx = netns::in_namespace(&host_ns(i, 0), || PacketPort::open_tx("eth0"))?;
    let frame = host_a_frame(vlan, port, FRAME_LEN);
    let mut got = 0u64;
    let mut count_rx = |rx: &mut PacketPort| {
        rx.recv_block(|f| {
            let d = f.data;
            if d.len() >= 38
                && d[12..14] == [8, 0]
                && d[23] == 17
                && u16::from_be_bytes([d[36], d[37]]) == port
            {
                got += 1;
            }
        });
    };
    let start = Instant::now();
    let mut sent = 0u64;
    while sent < count {
        // Behind the schedule (this thread was not run for a while), it
        // catches up at no more than CATCH_UP frames a tick: sent all at
        // once, the frames due over a 40 ms stall are a burst beyond the
        // booking's token bucket (10 ms of its rate), and the node
        // rightly drops them as `output/rate-limited`.
        let due = (start.elapsed().as_micros() as u64 * 2000 / 1_000_000).min(count);
        let mut burst = 0;
        while sent < due && burst < CATCH_UP {
            let n = tx.send_batch(std::iter::once(frame.as_slice())) as u64;
            sent += n;
            burst += n;
        }
        count_rx(&mut rx);
        std::thread::sleep(Duration::from_millis(1));
    }
    let end = Instant::now() + Duration::from_millis(300);
    while Instant::now() < end {
        let _ = PacketPort::wait_any(&[&rx], 20);
        count_rx(&mut rx);
    }
    let lost_here = rx.poll_drops();
    if lost_here > 0 {
        bail!(
            "host b's own socket dropped {lost_here} frames (its ring was full): not a measurement"
        );
    }
    Ok(got)
}

/// Where frames were lost, if any were: the nodes' networks and sockets,
/// and the kernel's counters on every link of the path, a line each.
/// The nodes are asked on their Unix sockets, `node{i}.sock` in `dir`.
pub(crate) async fn drop_report(dir: &std::path::Path) -> Result<Vec<String>> {
    let mut lines = Vec::new();
    let mut say = |s: &str| lines.push(s.to_string());
    for i in 1..=NODES {
        let c = NodeClient::new(Endpoint::Unix(dir.join(format!("node{i}.sock"))));
        for n in c
            .counters()
            .await?
            .networks
            .iter()
            .filter(|n| n.dropped > 0)
        {
            say(&format!("  node{i} {}: dropped {:?}", n.name, n.drops));
        }
        for p in c.ports().await? {
            if p.rx_ring_drops > 0 || p.tx_errors > 0 {
                say(&format!(
                    "  node{i} {} ({}): {} frames dropped by a full receive ring, {} refused on transmit",
                    p.name, p.io, p.rx_ring_drops, p.tx_errors
                ));
            }
        }
    }
    // And the kernel's own drop counters on every link of the path.
    for i in 1..=NODES {
        let mut spots = vec![
            (node_ns(i), "pa".to_string()),
            (node_ns(i), "pb".to_string()),
        ];
        spots.extend((0..2).map(|s| (host_ns(i, s), "eth0".to_string())));
        for (ns, dev) in spots {
            if let Some(d) = link_drops(&ns, &dev).filter(|d| *d != (0, 0)) {
                say(&format!(
                    "  {ns} {dev}: the kernel dropped {} received and {} sent frames",
                    d.0, d.1
                ));
            }
        }
    }
    Ok(lines)
}

/// A link's receive and transmit drops, as the kernel counts them.
fn link_drops(ns: &str, dev: &str) -> Option<(u64, u64)> {
    let text = netns::ip_in(Some(ns), &["-s", "-j", "link", "show", "dev", dev]).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    let s = &v[0]["stats64"];
    Some((s["rx"]["dropped"].as_u64()?, s["tx"]["dropped"].as_u64()?))
}
