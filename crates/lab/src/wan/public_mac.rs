//! Public MACs live (docs/wan.md), in the WAN demo: a bridge network on
//! a node whose host holds a public MAC reaches the "Internet" host's real
//! Linux stack beyond the WAN bridge as one Ethernet: the host asks for
//! 192.168.77.100 by ARP, the Internet host's kernel answers to the public
//! MAC (the node gives the answer to the host, ARP target renamed), then
//! pings it and the kernel answers; after the release, frames the WAN
//! sends to that MAC reach no one and the node counts `wan/unexpected`.
//!
//! The inside host is a packet socket (no 802.1Q devices on this kernel);
//! checked at the receiving ends: the inside host counts what it reads,
//! the Internet host is the kernel's own ARP and ICMP.

use crate::wan::gateway::{drain, echo_request, inside, node_index};
use crate::wan::traffic::{OUTSIDER_NS, host_mac, unmapped_drops};
use anyhow::{Context, Result};
use prism_controller::{BookingRequest, ControllerClient, PublicAddressRequest};
use prism_io::afpacket::PacketPort;
use prism_io::netns;
use std::time::Duration;

/// The inside host's and the Internet host's addresses on the experiment's subnet.
const INSIDE: [u8; 4] = [192, 168, 77, 2];
const OUTSIDE: [u8; 4] = [192, 168, 77, 100];
const N: u64 = 200;

/// What the public-MAC checks measured.
#[derive(Debug, Default, Clone)]
pub struct PublicMacOutcome {
    pub mac: String,
    /// ARP requests sent, answers read inside (to the host's own MAC,
    /// naming it as target).
    pub arp: (u64, u64),
    /// Pings sent from inside, answers read inside.
    pub pings: (u64, u64),
    /// After the release: frames sent from the WAN to the MAC, read inside,
    /// the node's `wan/unexpected` meanwhile.
    pub released: (u64, u64, u64),
}

fn l2_network() -> BookingRequest {
    let mut r = BookingRequest::network(
        "lab",
        serde_json::json!({"tier": "hardware", "forwarding": "bridge",
            "bridge": {"port": [{"port": "lan"}]}}),
        20,
    );
    r.provision = true;
    r
}

fn tagged(i: usize, dst: [u8; 6], vlan: u16, ethertype: u16) -> Vec<u8> {
    let mut f = dst.to_vec();
    f.extend_from_slice(&host_mac(i));
    f.extend_from_slice(&[0x81, 0x00]);
    f.extend_from_slice(&vlan.to_be_bytes());
    f.extend_from_slice(&ethertype.to_be_bytes());
    f
}

/// An ARP request for `OUTSIDE` from the inside host (RFC 826).
fn arp_request(i: usize, vlan: u16) -> Vec<u8> {
    let mut f = tagged(i, [0xff; 6], vlan, 0x0806);
    f.extend_from_slice(&[0, 1, 8, 0, 6, 4, 0, 1]);
    f.extend_from_slice(&host_mac(i));
    f.extend_from_slice(&INSIDE);
    f.extend_from_slice(&[0; 6]);
    f.extend_from_slice(&OUTSIDE);
    f
}

/// An ICMP echo request to `OUTSIDE` at `mac`.
fn ping(i: usize, vlan: u16, mac: [u8; 6], seq: u16) -> Vec<u8> {
    let macs = (host_mac(i), mac);
    echo_request(macs, vlan, (INSIDE, OUTSIDE), (0x4d41, seq), *b"PMAC")
}

/// The ARP exchange and the pings, from the inside host of node `i`.
fn exchange(i: usize, vlan: u16) -> Result<((u64, u64), (u64, u64))> {
    let (mut rx, mut tx) = inside(i)?;
    let me = host_mac(i);
    let mut far = None;
    let mut answers = 0;
    for _ in 0..N {
        tx.send_batch(std::iter::once(arp_request(i, vlan).as_slice()));
        drain(&mut rx, vlan, 2, |d| {
            if d.len() >= 42 && d[..6] == me && d[12..14] == [8, 6] && d[21] == 2 && d[32..38] == me
            {
                answers += 1;
                far = d[22..28].try_into().ok();
            }
        });
    }
    drain(&mut rx, vlan, 100, |d| {
        answers += u64::from(d.len() >= 42 && d[..6] == me && d[12..14] == [8, 6] && d[21] == 2);
    });
    let far = far.context("no ARP answer from the Internet host")?;
    let mut pongs = 0;
    let mut count = |d: &[u8]| {
        pongs += u64::from(
            d.len() >= 42 && d[..6] == me && d[12..14] == [8, 0] && d[23] == 1 && d[34] == 0,
        );
    };
    for seq in 0..N as u16 {
        tx.send_batch(std::iter::once(ping(i, vlan, far, seq).as_slice()));
        drain(&mut rx, vlan, 2, &mut count);
    }
    drain(&mut rx, vlan, 200, &mut count);
    Ok(((N, answers), (N, pongs)))
}

/// Frames from the Internet host's link to `mac`: how many the inside
/// host reads.
fn from_wan_to(i: usize, mac: [u8; 6], vlan: u16) -> Result<u64> {
    let (mut rx, _) = inside(i)?;
    let mut tx = netns::in_namespace(OUTSIDER_NS, || PacketPort::open_tx("eth0"))?;
    let mut f = mac.to_vec();
    f.extend_from_slice(&crate::wan::gateway::INTERNET_MAC);
    f.extend_from_slice(&[0x88, 0xb5]);
    f.extend_from_slice(b"to a released public MAC, 46 bytes or more...");
    let mut got = 0;
    for _ in 0..N {
        tx.send_batch(std::iter::once(f.as_slice()));
        drain(&mut rx, vlan, 1, |d| {
            got += u64::from(d.ends_with(b"more..."))
        });
    }
    drain(&mut rx, vlan, 200, |d| {
        got += u64::from(d.ends_with(b"more..."))
    });
    Ok(got)
}

/// Books the bridge network, leases and releases the public MAC, runs the
/// checks.
pub(crate) async fn run(
    alice: &ControllerClient,
    secret: &str,
    say: &dyn Fn(&str),
) -> Result<PublicMacOutcome> {
    let ns = Some(OUTSIDER_NS);
    netns::ip_in(ns, &["addr", "add", "192.168.77.100/24", "dev", "eth0"])?;
    let b = alice.book("wan", &l2_network()).await?;
    let (i, vlan) = (node_index(&b)?, b.vlan.unwrap_or(0) as u16);
    let lease = PublicAddressRequest {
        booking: b.id.clone(),
        internal: netns::format_mac(host_mac(i)),
        node: None,
        lease_s: None,
    };
    let m = alice.lease_public("wan", &lease).await?;
    tokio::time::sleep(Duration::from_millis(500)).await; // modelled reconfiguration
    let (arp, pings) = tokio::task::spawn_blocking(move || exchange(i, vlan)).await??;
    say(&format!(
        "  lab on node{i} (bridge, VLAN {vlan}): public MAC {} for {}; {} ARP requests, {} answered to it; {} pings to 192.168.77.100, {} answered",
        m.address, lease.internal, arp.0, arp.1, pings.0, pings.1
    ));
    let mac: prism_wire::EthernetAddress =
        m.address.parse().map_err(|_| anyhow::anyhow!("a MAC"))?;
    alice.release_public("wan", &m.address).await?;
    let before = unmapped_drops(i, secret, "wan/unexpected").await?;
    let got = tokio::task::spawn_blocking(move || from_wan_to(i, mac.0, vlan)).await??;
    let dropped = unmapped_drops(i, secret, "wan/unexpected").await? - before;
    say(&format!(
        "  released: {N} frames from the WAN to {}, {got} reached the host, node{i} dropped {dropped} as wan/unexpected",
        m.address
    ));
    alice.release("wan", &b.id).await?;
    netns::ip_in(ns, &["addr", "del", "192.168.77.100/24", "dev", "eth0"])?;
    Ok(PublicMacOutcome {
        mac: m.address,
        arp,
        pings,
        released: (N, got, dropped),
    })
}
