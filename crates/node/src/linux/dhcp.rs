//! DHCP served by the node on a processing node's link (docs/processing.md):
//! the one address its booking gives it, and its gateway, handed to the
//! MAC the node gave its interface, and to nothing else. The worker that
//! receives the link's frames asks [`is_request`] of each (a link without
//! a lease asks nothing) and sends back what [`answer`] writes, without
//! I/O or allocation here: the request goes no further.

use prism_node_api::InterfaceDoc;
use prism_wire::dhcpv4::{self, DhcpPacket, DhcpReply, MessageType};
use prism_wire::{
    EthernetAddress, EthernetFrame, EthernetRepr, Ipv4Address, Ipv4Packet, Ipv4Repr, UdpPacket,
    UdpRepr, ethertype, protocol,
};

/// A day: clients renew at half of it, and the node answers while the
/// booking lasts.
const LEASE_S: u32 = 86_400;
/// The server's MAC when the link's gateway has none given.
const SERVER_MAC: [u8; 6] = [0x02, 0x70, 0xff, 0xff, 0xff, 0xfe];
/// A reply's length: Ethernet, IPv4, UDP and a 300-byte message.
pub const REPLY_LEN: usize = 14 + 20 + 8 + 300;

/// Whether `frame` may be a DHCP request: untagged IPv4 (a 20-byte
/// header), UDP to port 67. [`answer`] checks the rest.
pub fn is_request(frame: &[u8]) -> bool {
    frame.len() >= 42
        && frame[12..14] == [0x08, 0x00]
        && frame[14] == 0x45
        && frame[23] == 17
        && frame[36..38] == dhcpv4::SERVER_PORT.to_be_bytes()
}

/// What one link's client is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lease {
    pub mac: EthernetAddress,
    pub ip: Ipv4Address,
    pub mask: Ipv4Address,
    pub router: Option<Ipv4Address>,
    /// The server identifier: the gateway, else another address of the
    /// subnet.
    pub server: Ipv4Address,
    pub server_mac: EthernetAddress,
}

impl Lease {
    /// Interface `l`'s lease for the container MAC `mac` (`None` if it
    /// takes no DHCP or has no IPv4 address).
    pub fn of(l: &InterfaceDoc, mac: [u8; 6]) -> Option<Self> {
        let a = l.addresses.first().filter(|_| l.dhcp)?;
        let (ip, len) = a.split_once('/')?;
        let ip: std::net::Ipv4Addr = ip.parse().ok()?;
        let len: u32 = len.parse().ok().filter(|&l| l <= 30)?;
        let mask = u32::MAX.checked_shl(32 - len).unwrap_or(0);
        let router: Option<std::net::Ipv4Addr> = l.gateway.as_deref().and_then(|g| g.parse().ok());
        let net = u32::from(ip) & mask;
        let other = if net + 1 == u32::from(ip) {
            net + 2
        } else {
            net + 1
        };
        let server = router.unwrap_or(std::net::Ipv4Addr::from(other));
        let server_mac = (l.gateway_mac.as_deref())
            .and_then(|m| m.parse::<EthernetAddress>().ok())
            .unwrap_or(EthernetAddress(SERVER_MAC));
        Some(Self {
            mac: EthernetAddress(mac),
            ip: Ipv4Address(ip.octets()),
            mask: Ipv4Address(mask.to_be_bytes()),
            router: router.map(|r| Ipv4Address(r.octets())),
            server: Ipv4Address(server.octets()),
            server_mac,
        })
    }
}

/// The reply to `frame` for `lease`, written into `out`: its length, or
/// `None` for a frame that is no DHCP request of the lease's MAC, or one
/// that wants no answer (a release, another server chosen).
pub fn answer(frame: &[u8], lease: &Lease, out: &mut [u8; REPLY_LEN]) -> Option<usize> {
    let eth = EthernetFrame::new_checked(frame).ok()?;
    if eth.ethertype() != ethertype::IPV4 || eth.src_addr() != lease.mac {
        return None;
    }
    let ip = Ipv4Packet::new_checked(eth.payload()).ok()?;
    let udp = UdpPacket::new_checked(ip.payload()).ok()?;
    if ip.protocol() != protocol::UDP || udp.dst_port() != dhcpv4::SERVER_PORT {
        return None;
    }
    let m = DhcpPacket::new_checked(udp.payload()).ok()?;
    if !m.is_request() || m.chaddr() != lease.mac {
        return None;
    }
    let kind = match m.message_type()? {
        MessageType::Discover => MessageType::Offer,
        MessageType::Request if m.server_id().is_some_and(|s| s != lease.server) => return None,
        MessageType::Request => {
            let asked = m.requested_ip().unwrap_or(m.ciaddr());
            if asked == lease.ip {
                MessageType::Ack
            } else {
                MessageType::Nak
            }
        }
        _ => return None,
    };
    let reply = DhcpReply {
        message_type: kind,
        xid: m.xid(),
        flags: m.flags(),
        chaddr: lease.mac,
        yiaddr: if kind == MessageType::Nak {
            Ipv4Address([0; 4])
        } else {
            lease.ip
        },
        server: lease.server,
        subnet_mask: lease.mask,
        router: lease.router,
        lease_s: LEASE_S,
    };
    emit(&reply, lease, out).then_some(REPLY_LEN)
}

/// Ethernet to the client's MAC, IPv4 to the broadcast address (the
/// client has none yet), UDP 67 to 68, the message.
fn emit(reply: &DhcpReply, lease: &Lease, out: &mut [u8; REPLY_LEN]) -> bool {
    let eth = EthernetRepr {
        src_addr: lease.server_mac,
        dst_addr: lease.mac,
        ethertype: ethertype::IPV4,
    };
    let udp = UdpRepr {
        src_port: dhcpv4::SERVER_PORT,
        dst_port: dhcpv4::CLIENT_PORT,
        payload_len: reply.buffer_len(),
    };
    let broadcast = Ipv4Address([255; 4]);
    let ip = Ipv4Repr::new(lease.server, broadcast, protocol::UDP, 64, udp.buffer_len());
    eth.emit(&mut EthernetFrame::new_unchecked(&mut out[..]));
    reply.emit(&mut out[42..]).is_ok()
        && udp.emit(&mut out[34..], lease.server, broadcast).is_ok()
        && ip.emit(&mut out[14..]).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAC: [u8; 6] = [2, 0x70, 1, 2, 3, 0];

    fn lease() -> Lease {
        let l = InterfaceDoc {
            port: "proc".into(),
            vlan: 7,
            addresses: vec!["10.7.1.2/24".into()],
            gateway: Some("10.7.1.1".into()),
            gateway_mac: None,
            unplugged: false,
            dhcp: true,
            rate_mbps: None,
        };
        Lease::of(&l, MAC).unwrap()
    }

    /// A client's request from `mac`: `kind`, option 50 `asked`, option
    /// 54 `server`.
    fn request(mac: [u8; 6], kind: u8, asked: [u8; 4], server: Option<[u8; 4]>) -> Vec<u8> {
        let mut m = vec![0u8; 240];
        (m[0], m[1], m[2]) = (1, 1, 6);
        m[4..8].copy_from_slice(&7u32.to_be_bytes());
        m[28..34].copy_from_slice(&mac);
        m[236..240].copy_from_slice(&[99, 130, 83, 99]);
        m.extend([53, 1, kind, 50, 4]);
        m.extend(asked);
        if let Some(s) = server {
            m.extend([54, 4]);
            m.extend(s);
        }
        m.push(255);
        let udp = UdpRepr {
            src_port: 68,
            dst_port: 67,
            payload_len: m.len(),
        };
        let (src, dst) = (Ipv4Address([0; 4]), Ipv4Address([255; 4]));
        let ip = Ipv4Repr::new(src, dst, protocol::UDP, 64, udp.buffer_len());
        let mut f = vec![0u8; 14 + 20 + udp.buffer_len()];
        let eth = EthernetRepr {
            src_addr: EthernetAddress(mac),
            dst_addr: EthernetAddress([255; 6]),
            ethertype: ethertype::IPV4,
        };
        eth.emit(&mut EthernetFrame::new_unchecked(&mut f[..]));
        f[42..].copy_from_slice(&m);
        udp.emit(&mut f[34..], src, dst).unwrap();
        ip.emit(&mut f[14..]).unwrap();
        f
    }

    /// The reply's message, checked through its layers.
    fn reply(f: &[u8]) -> (MessageType, Ipv4Address, Option<Ipv4Address>) {
        let eth = EthernetFrame::new_checked(f).unwrap();
        assert_eq!(eth.dst_addr(), EthernetAddress(MAC));
        let ip = Ipv4Packet::new_checked(eth.payload()).unwrap();
        assert!(ip.verify_checksum());
        let udp = UdpPacket::new_checked(ip.payload()).unwrap();
        assert!(udp.verify_checksum(ip.src_addr(), ip.dst_addr()));
        assert_eq!((udp.src_port(), udp.dst_port()), (67, 68));
        let m = DhcpPacket::new_checked(udp.payload()).unwrap();
        let router = m
            .option(dhcpv4::option::ROUTER)
            .map(|r| Ipv4Address([r[0], r[1], r[2], r[3]]));
        (m.message_type().unwrap(), m.yiaddr(), router)
    }

    #[test]
    fn the_lease_is_offered_acknowledged_and_nothing_else_given() {
        let l = lease();
        let mut out = [0u8; REPLY_LEN];
        let ip = Ipv4Address([10, 7, 1, 2]);
        let gw = Some(Ipv4Address([10, 7, 1, 1]));
        assert!(is_request(&request(MAC, 1, [0; 4], None)));
        let n = answer(&request(MAC, 1, [0; 4], None), &l, &mut out).unwrap();
        assert_eq!(reply(&out[..n]), (MessageType::Offer, ip, gw));
        let n = answer(&request(MAC, 3, ip.0, Some(l.server.0)), &l, &mut out).unwrap();
        assert_eq!(reply(&out[..n]), (MessageType::Ack, ip, gw));
        let n = answer(&request(MAC, 3, [10, 7, 1, 9], None), &l, &mut out).unwrap();
        assert_eq!(reply(&out[..n]).0, MessageType::Nak, "another address");
        let other_server = request(MAC, 3, ip.0, Some([10, 7, 1, 254]));
        assert_eq!(answer(&other_server, &l, &mut out), None);
        let stranger = request([2, 0, 0, 0, 0, 9], 1, [0; 4], None);
        assert_eq!(answer(&stranger, &l, &mut out), None, "another MAC");
        assert_eq!(answer(&request(MAC, 7, ip.0, None), &l, &mut out), None);
        let f = request(MAC, 1, [0; 4], None);
        for cut in 0..f.len() {
            let _ = answer(&f[..cut], &l, &mut out);
        }
    }

    #[test]
    fn a_lease_takes_its_mask_and_a_server_address_from_the_subnet() {
        let mut l = InterfaceDoc {
            port: "p".into(),
            vlan: 1,
            addresses: vec!["10.0.0.1/16".into()],
            gateway: None,
            gateway_mac: None,
            unplugged: false,
            dhcp: true,
            rate_mbps: None,
        };
        let x = Lease::of(&l, MAC).unwrap();
        assert_eq!(x.mask, Ipv4Address([255, 255, 0, 0]));
        assert_eq!(x.server, Ipv4Address([10, 0, 0, 2]), "not the client's own");
        l.dhcp = false;
        assert!(Lease::of(&l, MAC).is_none());
    }
}
