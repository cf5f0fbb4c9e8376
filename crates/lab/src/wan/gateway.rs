//! The gateway service live (docs/wan.md), in the WAN demo: beyond the
//! WAN bridge an "Internet" host (192.0.2.100, a real Linux stack: its own
//! ARP, ICMP and UDP sockets) is every node's next hop; two networks are
//! booked with NAT, each placed on a node with a gateway; a public address
//! is leased for one's host, then released.
//!
//! Checked at the receiving ends: the Internet host's UDP echo server sees
//! each network's datagrams from its node's WAN address (NAT), and its
//! echoes reach the host inside on its VLAN; the Internet host's kernel
//! answers pings through NAT; a connected socket at the Internet host
//! reaches the inside host through the public address and gets its answers
//! from that address only; after the release, nothing reaches the host and
//! the node counts `wan/not-leased`.
//!
//! The hosts inside are packet sockets (this kernel has no 802.1Q devices
//! to give a Linux host a tagged interface): they send and read frames on
//! their network's VLAN.

use crate::wan::traffic::{GATEWAY_MAC, OUTSIDER_NS, host_mac, host_ns, unmapped_drops};
use anyhow::{Context, Result, bail};
use prism_controller::{Booking, BookingRequest, ControllerClient, PublicAddressRequest};
use prism_io::afpacket::{PacketPort, RingConfig};
use prism_io::netns;
use prism_pipeline::traffic::{FrameSpec, build};
use prism_wire::{EthernetAddress, Ipv4Address};
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

/// The Internet host: the outsider's namespace, given an address.
pub(crate) const INTERNET_IP: [u8; 4] = [192, 0, 2, 100];
pub(crate) const INTERNET_MAC: [u8; 6] = [0x02, 0x0e, 0, 0, 0, 1];
/// The inside host's address in a NAT network (on whichever node).
const INSIDE: [u8; 4] = [10, 99, 0, 2];
/// Datagrams, pings and frames per check.
const N: u64 = 200;
const ECHO_PORT: u16 = 9000;
const PUBLIC_PORT: u16 = 7000;

const RING: RingConfig = RingConfig {
    block_size: 1 << 16,
    blocks: 64,
    retire_ms: 8,
};

/// Gives the outsider's namespace its address and a route to the WAN
/// addresses on its link: it resolves them by ARP, as a router would.
pub(crate) fn setup_internet() -> Result<()> {
    let ns = Some(OUTSIDER_NS);
    netns::ip_in(
        ns,
        &[
            "link",
            "set",
            "eth0",
            "address",
            &netns::format_mac(INTERNET_MAC),
        ],
    )?;
    netns::ip_in(ns, &["addr", "add", "192.0.2.100/24", "dev", "eth0"])?;
    netns::ip_in(ns, &["route", "add", "203.0.113.0/24", "dev", "eth0"])?;
    netns::ip_in(ns, &["link", "set", "lo", "up"])?;
    Ok(())
}

/// What the gateway checks measured.
#[derive(Debug, Default, Clone)]
pub struct GatewayOutcome {
    /// Per NAT network: (its node, the sources the echo server saw,
    /// datagrams sent, echoes received inside on its VLAN).
    pub nat: Vec<(String, Vec<String>, u64, u64)>,
    /// Pings sent from inside and answers received inside.
    pub pings: (u64, u64),
    pub public_address: String,
    /// Datagrams from the Internet to the public address: sent, received
    /// inside, answers received by the Internet host's connected socket.
    pub public: (u64, u64, u64),
    /// After the release: sent, received inside, node's `wan/not-leased`.
    pub released: (u64, u64, u64),
}

/// A network with NAT whose host is `INSIDE`: 10.99.0.0/24 to its LAN.
fn nat_network(name: &str) -> BookingRequest {
    let mut r = BookingRequest::network(
        name,
        serde_json::json!({"tier": "hardware", "forwarding": "destination",
            "route": [{"prefix": "10.99.0.0/24", "action": {"port": "lan"}}]}),
        20,
    );
    r.provision = true;
    r.nat = true;
    r
}

pub(crate) fn node_index(b: &Booking) -> Result<usize> {
    b.node
        .as_deref()
        .and_then(|n| n.strip_prefix("node")?.parse().ok())
        .context("a booking on a demo node")
}

/// A UDP frame from the inside host of node `i` on `vlan`.
fn inside_udp(i: usize, vlan: u16, dst: [u8; 4], ports: (u16, u16), tag: &[u8]) -> Vec<u8> {
    build(
        &FrameSpec {
            src_mac: EthernetAddress(host_mac(i)),
            dst_mac: EthernetAddress(GATEWAY_MAC),
            vlan: Some(vlan),
            src: Ipv4Address(INSIDE),
            dst: Ipv4Address(dst),
            src_port: ports.0,
            dst_port: ports.1,
            frame_len: 128,
            ..FrameSpec::default()
        },
        tag,
    )
}

/// An ICMP echo request from the inside host of node `i` on `vlan`.
fn inside_ping(i: usize, vlan: u16, seq: u16) -> Vec<u8> {
    let macs = (host_mac(i), GATEWAY_MAC);
    echo_request(macs, vlan, (INSIDE, INTERNET_IP), (0x7777, seq), *b"PING")
}

/// A tagged ICMP echo request: (source, destination) MACs and addresses,
/// (identifier, sequence), 4 bytes of payload.
pub(crate) fn echo_request(
    (src_mac, dst_mac): ([u8; 6], [u8; 6]),
    vlan: u16,
    (src, dst): ([u8; 4], [u8; 4]),
    (ident, seq): (u16, u16),
    payload: [u8; 4],
) -> Vec<u8> {
    use prism_wire::checksum::checksum;
    let mut f = dst_mac.to_vec();
    f.extend_from_slice(&src_mac);
    f.extend_from_slice(&[0x81, 0x00]);
    f.extend_from_slice(&vlan.to_be_bytes());
    f.extend_from_slice(&[0x08, 0x00]);
    let mut ip = [
        0x45, 0, 0, 36, 0, 0, 0x40, 0, 64, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];
    ip[12..16].copy_from_slice(&src);
    ip[16..20].copy_from_slice(&dst);
    let c = checksum(&ip);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    let mut icmp = [8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    icmp[4..6].copy_from_slice(&ident.to_be_bytes());
    icmp[6..8].copy_from_slice(&seq.to_be_bytes());
    icmp[8..12].copy_from_slice(&payload);
    let c = checksum(&icmp);
    icmp[2..4].copy_from_slice(&c.to_be_bytes());
    f.extend_from_slice(&ip);
    f.extend_from_slice(&icmp);
    f
}

/// Frame `d` untagged, if it carried `vlan` (in the data or in metadata).
fn on_vlan(meta: Option<(u16, u16)>, d: &[u8], vlan: u16) -> Option<Vec<u8>> {
    if let Some((_, tci)) = meta {
        return (tci & 0x0fff == vlan).then(|| d.to_vec());
    }
    if d.len() >= 18
        && d[12..14] == [0x81, 0x00]
        && u16::from_be_bytes([d[14], d[15]]) & 0x0fff == vlan
    {
        let mut v = d[..12].to_vec();
        v.extend_from_slice(&d[16..]);
        return Some(v);
    }
    None
}

/// Untagged IPv4 frame `d` to the inside host: (protocol, source port or
/// ICMP type, destination port, payload from byte 42).
fn to_inside(d: &[u8]) -> Option<(u8, u16, u16, &[u8])> {
    (d.len() >= 42 && d[12..14] == [8, 0] && d[30..34] == INSIDE).then(|| {
        (
            d[23],
            u16::from_be_bytes([d[34], d[35]]),
            u16::from_be_bytes([d[36], d[37]]),
            &d[42..],
        )
    })
}

/// The inside host of node `i`: a ring to read and a socket to send.
pub(crate) fn inside(i: usize) -> Result<(PacketPort, PacketPort)> {
    let rx = netns::in_namespace(&host_ns(i), || PacketPort::open("eth0", Some(RING)))?;
    let tx = netns::in_namespace(&host_ns(i), || PacketPort::open_tx("eth0"))?;
    Ok((rx, tx))
}

/// Reads `rx` for `ms`, handing each frame on `vlan` (untagged) to `f`.
pub(crate) fn drain(rx: &mut PacketPort, vlan: u16, ms: u64, mut f: impl FnMut(&[u8])) {
    let end = Instant::now() + Duration::from_millis(ms);
    loop {
        rx.recv_block(|fr| {
            if let Some(d) = on_vlan(fr.vlan, fr.data, vlan) {
                f(&d);
            }
        });
        if Instant::now() >= end {
            break;
        }
        let _ = PacketPort::wait_any(&[&*rx], 5);
    }
}

/// UDP from the inside of node `i` (VLAN `vlan`) to the Internet host's
/// echo server; returns the sources it saw and the echoes received inside.
fn nat_udp(i: usize, vlan: u16) -> Result<(Vec<String>, u64)> {
    let server = netns::in_namespace(OUTSIDER_NS, || UdpSocket::bind("192.0.2.100:9000"))?;
    server.set_nonblocking(true)?;
    let (mut rx, mut tx) = inside(i)?;
    let frame = inside_udp(i, vlan, INTERNET_IP, (5555, ECHO_PORT), b"NATU");
    let (mut sources, mut echoed) = (Vec::<String>::new(), 0u64);
    let mut buf = [0u8; 2048];
    let mut serve = |sources: &mut Vec<String>| -> Result<()> {
        while let Ok((n, from)) = server.recv_from(&mut buf) {
            if !sources.contains(&from.to_string()) {
                sources.push(from.to_string());
            }
            server.send_to(&buf[..n], from)?;
        }
        Ok(())
    };
    for _ in 0..N {
        tx.send_batch(std::iter::once(frame.as_slice()));
        std::thread::sleep(Duration::from_millis(1));
        serve(&mut sources)?;
        drain(&mut rx, vlan, 1, |d| {
            if let Some((17, ECHO_PORT, 5555, p)) = to_inside(d) {
                echoed += u64::from(p.starts_with(b"NATU"));
            }
        });
    }
    std::thread::sleep(Duration::from_millis(50));
    serve(&mut sources)?;
    drain(&mut rx, vlan, 200, |d| {
        if let Some((17, ECHO_PORT, 5555, p)) = to_inside(d) {
            echoed += u64::from(p.starts_with(b"NATU"));
        }
    });
    Ok((sources, echoed))
}

/// Pings the Internet host from inside node `i`: its kernel answers.
fn nat_ping(i: usize, vlan: u16) -> Result<u64> {
    let (mut rx, mut tx) = inside(i)?;
    let mut answered = 0;
    let mut count = |d: &[u8]| {
        if let Some((1, t, _, _)) = to_inside(d) {
            answered += u64::from(t >> 8 == 0); // echo reply: type 0
        }
    };
    for seq in 0..N as u16 {
        tx.send_batch(std::iter::once(inside_ping(i, vlan, seq).as_slice()));
        drain(&mut rx, vlan, 2, &mut count);
    }
    drain(&mut rx, vlan, 200, &mut count);
    Ok(answered)
}

/// The Internet host's connected socket sends `N` datagrams to `public`;
/// the inside host of node `i` answers each. Returns (received inside,
/// answers received by the socket: from the public address only).
fn through_public(i: usize, vlan: u16, public: &str) -> Result<(u64, u64)> {
    let to: SocketAddr = format!("{public}:{PUBLIC_PORT}").parse()?;
    let sock = netns::in_namespace(OUTSIDER_NS, move || {
        let s = UdpSocket::bind("192.0.2.100:0")?;
        s.connect(to)?;
        Ok(s)
    })?;
    sock.set_nonblocking(true)?;
    let (mut rx, mut tx) = inside(i)?;
    let (mut got, mut answered) = (0u64, 0u64);
    let mut buf = [0u8; 2048];
    let mut answers: Vec<Vec<u8>> = Vec::new();
    for _ in 0..N {
        sock.send(b"PUBL")?;
        drain(&mut rx, vlan, 2, |d| {
            if let Some((17, sport, PUBLIC_PORT, p)) = to_inside(d)
                && p.starts_with(b"PUBL")
            {
                got += 1;
                let reply = inside_udp(i, vlan, INTERNET_IP, (PUBLIC_PORT, sport), b"RPLY");
                answers.push(reply);
            }
        });
        for a in answers.drain(..) {
            tx.send_batch(std::iter::once(a.as_slice()));
        }
        while let Ok(n) = sock.recv(&mut buf) {
            answered += u64::from(buf[..n].starts_with(b"RPLY"));
        }
    }
    drain(&mut rx, vlan, 200, |d| {
        if let Some((17, sport, PUBLIC_PORT, p)) = to_inside(d)
            && p.starts_with(b"PUBL")
        {
            got += 1;
            answers.push(inside_udp(
                i,
                vlan,
                INTERNET_IP,
                (PUBLIC_PORT, sport),
                b"RPLY",
            ));
        }
    });
    for a in answers.drain(..) {
        tx.send_batch(std::iter::once(a.as_slice()));
    }
    std::thread::sleep(Duration::from_millis(200));
    while let Ok(n) = sock.recv(&mut buf) {
        answered += u64::from(buf[..n].starts_with(b"RPLY"));
    }
    Ok((got, answered))
}

/// Datagrams from booking `b`'s host to the Internet host through its
/// node's NAT: the node, the sources the Internet saw, how many were sent
/// and how many echoes came back inside.
async fn nat_through(b: &Booking, say: &dyn Fn(&str)) -> Result<(String, Vec<String>, u64, u64)> {
    let (i, vlan) = (node_index(b)?, b.vlan.unwrap_or(0) as u16);
    let (sources, echoed) = tokio::task::spawn_blocking(move || nat_udp(i, vlan)).await??;
    say(&format!(
        "  {} on node{i} (VLAN {vlan}), NAT: {N} datagrams to 192.0.2.100, seen from {}, {echoed} echoes back inside",
        b.name,
        sources.join(" ")
    ));
    Ok((format!("node{i}"), sources, N, echoed))
}

/// Books two NAT networks and a public address, runs the checks, and
/// releases them all.
pub(crate) async fn run(
    alice: &ControllerClient,
    secret: &str,
    say: &dyn Fn(&str),
) -> Result<GatewayOutcome> {
    let mut out = GatewayOutcome::default();
    setup_internet().context("the Internet host")?;
    let booked = [
        alice.book("wan", &nat_network("web")).await?,
        alice.book("wan", &nat_network("app")).await?,
    ];
    tokio::time::sleep(Duration::from_millis(500)).await; // modelled reconfiguration
    for b in &booked {
        out.nat.push(nat_through(b, say).await?);
    }
    let web = &booked[0];
    let (i, vlan) = (node_index(web)?, web.vlan.unwrap_or(0) as u16);
    let answered = tokio::task::spawn_blocking(move || nat_ping(i, vlan)).await??;
    out.pings = (N, answered);
    say(&format!(
        "  web: {N} pings to the Internet host through NAT, {answered} answered"
    ));
    let lease = PublicAddressRequest {
        booking: web.id.clone(),
        internal: "10.99.0.2".into(),
        node: None,
        lease_s: None,
    };
    let a = alice.lease_public("wan", &lease).await?;
    out.public_address = a.address.clone();
    let public = a.address.clone();
    let (got, answered) =
        tokio::task::spawn_blocking(move || through_public(i, vlan, &public)).await??;
    out.public = (N, got, answered);
    say(&format!(
        "  web: public address {} leased for 10.99.0.2; the Internet sent {N}, {got} reached the host, {answered} answers came back from {}",
        a.address, a.address
    ));
    alice.release_public("wan", &a.address).await?;
    let before = unmapped_drops(i, secret, "wan/not-leased").await?;
    let public = a.address.clone();
    let (got, _) = tokio::task::spawn_blocking(move || through_public(i, vlan, &public)).await??;
    let dropped = unmapped_drops(i, secret, "wan/not-leased").await? - before;
    out.released = (N, got, dropped);
    say(&format!(
        "  released: the Internet sent {N} more, {got} reached the host, node{i} dropped {dropped} as wan/not-leased"
    ));
    for b in &booked {
        alice.release("wan", &b.id).await?;
    }
    if out.nat.iter().any(|(_, s, _, _)| s.is_empty()) {
        bail!("the echo server heard nothing: {:?}", out.nat);
    }
    Ok(out)
}
