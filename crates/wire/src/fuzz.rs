//! Bodies of the fuzz targets, kept here so the unit tests and proptests run
//! the same checks over generated input as `cargo fuzz` does over its corpus.

use crate::*;

/// Parses `data` as a frame with every view; whenever a header parses into a
/// `Repr`, emitting that `Repr` must give back the same bytes.
pub fn parse_and_reemit(data: &[u8]) {
    let Ok(info) = parse_frame(data, 0) else {
        // Views must still not panic on what the key extractor refused.
        let _ = Ipv4Packet::new_checked(data).map(|p| (p.payload().len(), p.options().len()));
        return;
    };
    let l3 = &data[usize::from(info.l3_offset)..];
    if info.is_ipv4() {
        let ip = Ipv4Packet::new_checked(l3).expect("key extractor accepted this header");
        let repr = Ipv4Repr::parse(&ip).expect("checksum was verified");
        let mut out = [0u8; 60];
        repr.emit(&mut out).expect("header fits");
        let hl = ip.header_len();
        // The checksum may legally differ only as +0/-0 (0x0000 vs 0xffff,
        // RFC 1624 §3): compare the rest and check the emitted one verifies.
        assert_eq!(
            (&out[..10], &out[12..hl]),
            (&l3[..10], &l3[12..hl]),
            "IPv4 re-emit differs"
        );
        assert!(
            Ipv4Packet::new_unchecked(&out[..hl]).verify_checksum(),
            "emitted IPv4 checksum invalid"
        );
        if out[10..12] != l3[10..12] {
            let pair = (
                u16::from_be_bytes([out[10], out[11]]),
                u16::from_be_bytes([l3[10], l3[11]]),
            );
            assert_eq!(pair, (0x0000, 0xffff), "checksums differ beyond +0/-0");
        }
        reemit_transport(&ip);
    }
}

/// Reads `data` as an IPv6 packet with every IPv6 view: its extension
/// chain walked, ICMPv6 read where the chain ends in it; a header that
/// parses into a `Repr` is emitted again as the same bytes. No input may
/// panic.
pub fn ipv6_views(data: &[u8]) {
    let Ok(ip) = Ipv6Packet::new_checked(data) else {
        return;
    };
    let repr = Ipv6Repr::parse(&ip).expect("the view took it");
    let mut out = [0u8; ipv6::HEADER_LEN];
    repr.emit(&mut out).expect("header fits");
    assert_eq!(&out[..], &data[..ipv6::HEADER_LEN], "IPv6 re-emit differs");
    let Ok(chain) = ipv6ext::walk(ip.next_header(), ip.payload()) else {
        return;
    };
    let upper = &ip.payload()[chain.offset..];
    if chain.upper == ipv6ext::ICMPV6
        && chain.has_upper_header()
        && let Ok(m) = Icmpv6Packet::new_checked(upper)
        && let Ok(r) = Icmpv6Repr::parse(&m, ip.src_addr(), ip.dst_addr())
        && r.buffer_len() == upper.len()
        && !matches!(
            r,
            Icmpv6Repr::NeighborSolicit { .. } | Icmpv6Repr::NeighborAdvert { .. }
        )
    {
        let mut buf = vec![0u8; upper.len()];
        r.emit(&mut buf, ip.src_addr(), ip.dst_addr()).unwrap();
        assert_eq!(&buf[..2], &upper[..2], "ICMPv6 re-emit differs");
        assert_eq!(&buf[4..], &upper[4..], "ICMPv6 re-emit differs");
    }
}

/// A whole UDP or TCP segment of `ip` parsed and emitted again: the same
/// bytes (the TCP checksum may differ only as +0/-0).
fn reemit_transport(ip: &Ipv4Packet<&[u8]>) {
    let payload = ip.payload();
    match ip.protocol() {
        protocol::UDP if ip.frag_offset() == 0 && !ip.more_frags() => {
            if let Ok(u) = UdpPacket::new_checked(payload)
                && let Ok(r) = UdpRepr::parse(&u, ip.src_addr(), ip.dst_addr())
                && u.checksum() != 0
                && usize::from(u.len()) == payload.len()
            {
                let mut buf = payload.to_vec();
                r.emit(&mut buf, ip.src_addr(), ip.dst_addr()).unwrap();
                assert_eq!(buf, payload, "UDP re-emit differs");
            }
        }
        protocol::TCP if ip.frag_offset() == 0 && !ip.more_frags() => {
            if let Ok(t) = TcpPacket::new_checked(payload)
                && let Ok(r) = TcpRepr::parse(&t, ip.src_addr(), ip.dst_addr())
                && t.flags() == u16::from_be_bytes([payload[12], payload[13]]) & 0x01ff
                && payload[12] & 0x0e == 0
            {
                let mut buf = payload.to_vec();
                r.emit(&mut buf, ip.src_addr(), ip.dst_addr()).unwrap();
                // As for IPv4, the checksum may differ only as +0/-0.
                assert_eq!(
                    (&buf[..16], &buf[18..]),
                    (&payload[..16], &payload[18..]),
                    "TCP re-emit differs"
                );
                assert!(
                    TcpPacket::new_unchecked(&buf[..])
                        .verify_checksum(ip.src_addr(), ip.dst_addr()),
                    "emitted TCP checksum invalid"
                );
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    // Found by the parse fuzz target: a header carrying checksum 0xffff where
    // emitting computes 0x0000; both are valid (one's-complement zero).
    #[test]
    fn negative_zero_checksum() {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&[0x08, 0x00]);
        f.extend_from_slice(&[
            71, 252, 0, 32, 1, 9, 72, 1, 0, 64, 255, 255, 0, 0, 0, 0, 8, 8, 0, 71, 252, 0, 96, 1,
            9, 72, 1, 0, 0, 0, 0, 0,
        ]);
        super::parse_and_reemit(&f);
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..200)) {
            super::parse_and_reemit(&data);
        }

        // IPv6 headers with a random chain after them.
        #[test]
        fn ipv6_prefixed_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..160), next in any::<u8>()) {
            let mut p = vec![0x60, 0, 0, 0, 0, 0, next, 64];
            p[4..6].copy_from_slice(&(tail.len().min(120) as u16).to_be_bytes());
            p.extend_from_slice(&[0u8; 32]);
            p.extend_from_slice(&tail);
            super::ipv6_views(&p);
            super::ipv6_views(&tail);
        }

        // Mostly-valid frames: an Ethernet + IPv4 prefix with random tail.
        #[test]
        fn ipv4_prefixed_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..120), ihl in 0u8..16) {
            let mut f = vec![0u8; 12];
            f.extend_from_slice(&[0x08, 0x00, 0x40 | ihl]);
            f.extend_from_slice(&tail);
            super::parse_and_reemit(&f);
        }
    }
}
