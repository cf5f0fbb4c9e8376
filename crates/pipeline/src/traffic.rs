//! A small traffic generator: well-formed Ethernet/IPv4/UDP frames (optionally
//! VLAN-tagged or IPIP-encapsulated), built with Prism's own wire emitters.

use prism_wire::{
    EthernetAddress, EthernetFrame, EthernetRepr, Ipv4Address, Ipv4Repr, UdpRepr, ethertype,
    protocol,
};

/// What one generated frame looks like.
#[derive(Debug, Clone, Copy)]
pub struct FrameSpec {
    pub src_mac: EthernetAddress,
    pub dst_mac: EthernetAddress,
    pub vlan: Option<u16>,
    pub src: Ipv4Address,
    pub dst: Ipv4Address,
    /// Outer tunnel endpoints: the frame is IPIP when set.
    pub tunnel: Option<(Ipv4Address, Ipv4Address)>,
    pub ttl: u8,
    pub src_port: u16,
    pub dst_port: u16,
    /// Total frame length to pad the UDP payload to (at least the headers).
    pub frame_len: usize,
}

impl Default for FrameSpec {
    fn default() -> Self {
        Self {
            src_mac: EthernetAddress([2, 0, 0, 0, 0, 1]),
            dst_mac: EthernetAddress([2, 0, 0, 0, 0, 2]),
            vlan: None,
            src: Ipv4Address([10, 0, 0, 1]),
            dst: Ipv4Address([10, 0, 0, 2]),
            tunnel: None,
            ttl: 64,
            src_port: 1024,
            dst_port: 9,
            frame_len: 64,
        }
    }
}

/// Builds the frame; `tag` is written at the start of the UDP payload so a
/// receiver can tell which flow a frame belongs to.
pub fn build(spec: &FrameSpec, tag: &[u8]) -> Vec<u8> {
    let l2 = 14 + if spec.vlan.is_some() { 4 } else { 0 };
    let outer = if spec.tunnel.is_some() { 20 } else { 0 };
    let headers = l2 + outer + 20 + 8;
    let payload_len = spec.frame_len.saturating_sub(headers).max(tag.len());
    let mut f = vec![0u8; headers + payload_len];
    let eth = EthernetRepr {
        src_addr: spec.src_mac,
        dst_addr: spec.dst_mac,
        ethertype: if spec.vlan.is_some() {
            ethertype::VLAN
        } else {
            ethertype::IPV4
        },
    };
    eth.emit(&mut EthernetFrame::new_unchecked(&mut f[..]));
    if let Some(v) = spec.vlan {
        f[14..16].copy_from_slice(&(v & 0x0fff).to_be_bytes());
        f[16..18].copy_from_slice(&ethertype::IPV4.to_be_bytes());
    }
    let inner_at = l2 + outer;
    f[inner_at + 28..inner_at + 28 + tag.len()].copy_from_slice(tag);
    let udp = UdpRepr {
        src_port: spec.src_port,
        dst_port: spec.dst_port,
        payload_len,
    };
    udp.emit(&mut f[inner_at + 20..], spec.src, spec.dst)
        .expect("buffer sized for the datagram");
    let ip = Ipv4Repr::new(spec.src, spec.dst, protocol::UDP, spec.ttl, 8 + payload_len);
    ip.emit(&mut f[inner_at..])
        .expect("buffer sized for the header");
    if let Some((s, d)) = spec.tunnel {
        let o = Ipv4Repr::new(s, d, protocol::IPIP, 64, 28 + payload_len);
        o.emit(&mut f[l2..]).expect("buffer sized for the header");
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_parse_back() {
        let spec = FrameSpec {
            vlan: Some(10),
            tunnel: Some((Ipv4Address([1, 1, 1, 1]), Ipv4Address([2, 2, 2, 2]))),
            frame_len: 128,
            ..Default::default()
        };
        let f = build(&spec, b"tag");
        assert_eq!(f.len(), 128);
        let info = prism_wire::parse_frame(&f, 0).unwrap();
        assert!(info.is_ipip());
        assert_eq!(info.key.vlan, prism_wire::VLAN_PRESENT | 10);
        assert_eq!(info.key.inner_dst_ip, 0x0a00_0002);
        let e = etherparse::SlicedPacket::from_ethernet(&f).unwrap();
        assert!(e.vlan.is_some());
        let plain = build(&FrameSpec::default(), b"x");
        assert_eq!(plain.len(), 64);
        let e = etherparse::SlicedPacket::from_ethernet(&plain).unwrap();
        let Some(etherparse::TransportSlice::Udp(u)) = e.transport else {
            panic!()
        };
        assert_eq!(u.payload()[0], b'x');
    }
}
