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
        assert_eq!(
            &out[..ip.header_len()],
            &l3[..ip.header_len()],
            "IPv4 re-emit differs"
        );
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
                    assert_eq!(buf, payload, "TCP re-emit differs");
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn random_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..200)) {
            super::parse_and_reemit(&data);
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
