//! IPv6 headers and extension chains against etherparse, an independent
//! parser: random packets (each extension header kind at most once, as
//! etherparse reads them, in RFC 8200 §4.1's order, of random lengths,
//! fragments first or later) must give both the same fields, the same
//! upper-layer protocol and offset, and the same fragment reading (but
//! past a later fragment's header, which etherparse reads on through).

use crate::ipv6::{HEADER_LEN, Ipv6Packet};
use crate::ipv6ext::{self, AUTH, DEST_OPTS, FRAGMENT, HOP_BY_HOP, ROUTING};
use proptest::prelude::*;

/// One extension header of `kind`, `words` long in its unit, leading to
/// `next`.
fn ext(kind: u8, next: u8, words: u8, frag: (u16, bool)) -> Vec<u8> {
    match kind {
        FRAGMENT => {
            let off = (frag.0 & 0xfff8) | u16::from(frag.1);
            let mut h = vec![next, 0];
            h.extend_from_slice(&off.to_be_bytes());
            h.extend_from_slice(&[0xca, 0xfe, 0xf0, 0x0d]);
            h
        }
        AUTH => {
            let mut h = vec![0u8; (usize::from(words) + 2) * 4];
            (h[0], h[1]) = (next, words);
            h
        }
        _ => {
            let mut h = vec![0u8; (usize::from(words) + 1) * 8];
            (h[0], h[1]) = (next, words);
            if kind == ROUTING {
                h[2] = 4; // a segment routing header's type (RFC 8754)
            } else {
                // PadN over the options (RFC 8200 §4.2).
                (h[2], h[3]) = (1, (h.len() - 4) as u8);
            }
            h
        }
    }
}

/// A packet with the chain `kinds` (in order) before a UDP datagram.
fn packet(kinds: &[u8], words: &[u8], frag: (u16, bool), hops: u8, flow: u32) -> Vec<u8> {
    let mut payload = Vec::new();
    for (i, &k) in kinds.iter().enumerate() {
        let next = kinds.get(i + 1).copied().unwrap_or(17);
        // AH lengths are 4-byte words and at least 3 of them (RFC 4302).
        let w = if k == AUTH {
            words[i] * 2 + 1
        } else {
            words[i]
        };
        payload.extend(ext(k, next, w, frag));
    }
    payload.extend_from_slice(&[0x30, 0x39, 0x00, 0x35, 0x00, 0x0c, 0, 0, 1, 2, 3, 4]);
    let mut b = vec![0u8; HEADER_LEN];
    let word = (6u32 << 28) | (flow & 0xfffff);
    b[..4].copy_from_slice(&word.to_be_bytes());
    b[4..6].copy_from_slice(&(payload.len() as u16).to_be_bytes());
    b[6] = kinds.first().copied().unwrap_or(17);
    b[7] = hops;
    b[8..24].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    b[24..40].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
    b.extend(payload);
    b
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn chains_read_as_etherparse_reads_them(
        present in proptest::collection::vec(any::<bool>(), 5),
        words in proptest::collection::vec(0u8..4, 5),
        frag_off in 0u16..8192,
        more in any::<bool>(),
        hops in any::<u8>(),
        flow in any::<u32>(),
    ) {
        let order = [HOP_BY_HOP, DEST_OPTS, ROUTING, FRAGMENT, AUTH];
        let kinds: Vec<u8> = order.iter().zip(&present).filter(|(_, p)| **p).map(|(k, _)| *k).collect();
        let b = packet(&kinds, &words, (frag_off * 8, more), hops, flow);
        let ours = Ipv6Packet::new_checked(&b[..]).unwrap();
        let theirs = etherparse::Ipv6Slice::from_slice(&b).unwrap();
        let h = theirs.header();
        prop_assert_eq!(ours.hop_limit(), h.hop_limit());
        prop_assert_eq!(ours.flow_label(), h.flow_label().value());
        prop_assert_eq!(core::net::Ipv6Addr::from(ours.dst_addr()), h.destination_addr());
        let chain = ipv6ext::walk(ours.next_header(), ours.payload()).unwrap();
        let p = theirs.payload();
        let fragmented = chain.fragment.is_some_and(|f| f.offset != 0 || f.more);
        prop_assert_eq!(fragmented, p.fragmented);
        let at_fragment = kinds.iter().position(|k| *k == FRAGMENT);
        match at_fragment {
            // In a later fragment what follows the fragment header is the
            // middle of the fragmentable part (RFC 8200 §4.5), not headers:
            // the walk stops there; etherparse reads on, so only its
            // fragment reading is compared.
            Some(i) if frag_off != 0 && i + 1 < kinds.len() => {
                prop_assert_eq!(chain.upper, kinds[i + 1]);
                prop_assert_eq!(usize::from(chain.headers), i + 1);
            }
            _ => {
                prop_assert_eq!(chain.upper, p.ip_number.0);
                prop_assert_eq!(chain.offset, ours.payload().len() - p.payload.len());
                prop_assert_eq!(usize::from(chain.headers), kinds.len());
            }
        }
    }
}

#[test]
fn what_etherparse_refuses_is_refused_here_too() {
    // A hop-by-hop header second: RFC 8200 §4.1, refused by both.
    let b = packet(&[DEST_OPTS, HOP_BY_HOP], &[0, 0], (0, false), 64, 0);
    assert!(etherparse::Ipv6Slice::from_slice(&b).is_err());
    let p = Ipv6Packet::new_checked(&b[..]).unwrap();
    assert_eq!(
        ipv6ext::walk(p.next_header(), p.payload()),
        Err(ipv6ext::ChainError::HopByHopNotFirst)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]
    /// UDP and TCP over IPv6: the checksum Prism writes is etherparse's
    /// (RFC 8200 §8.1's pseudo-header, its 32-bit length), and reads back.
    #[test]
    fn transport_checksums_over_ipv6_are_etherparses(
        src in any::<[u8; 16]>(),
        dst in any::<[u8; 16]>(),
        ports in any::<(u16, u16)>(),
        payload in proptest::collection::vec(any::<u8>(), 0..300),
    ) {
        use crate::checksum::Pseudo;
        use crate::{TcpPacket, TcpRepr, UdpPacket, UdpRepr};
        let ips = Pseudo::V6(src, dst);
        let udp = UdpRepr { src_port: ports.0, dst_port: ports.1, payload_len: payload.len() };
        let mut b = vec![0u8; udp.buffer_len()];
        b[8..].copy_from_slice(&payload);
        udp.emit_over(&mut b, ips).unwrap();
        let (theirs, _) = etherparse::UdpHeader::from_slice(&b).unwrap();
        let want = theirs.calc_checksum_ipv6_raw(src, dst, &payload).unwrap();
        prop_assert_eq!(u16::from_be_bytes([b[6], b[7]]), want);
        prop_assert_eq!(UdpRepr::parse_over(&UdpPacket::new_checked(&b[..]).unwrap(), ips), Ok(udp));
        // Over IPv6 a zero UDP checksum is no checksum: refused.
        b[6..8].fill(0);
        prop_assert!(!UdpPacket::new_checked(&b[..]).unwrap().verify_checksum_over(ips));

        let tcp = TcpRepr::new(ports.0, ports.1, 7, crate::tcp::flags::ACK, payload.len());
        let mut b = vec![0u8; tcp.buffer_len()];
        b[20..].copy_from_slice(&payload);
        tcp.emit_over(&mut b, ips).unwrap();
        let (theirs, rest) = etherparse::TcpHeader::from_slice(&b).unwrap();
        prop_assert_eq!(theirs.checksum, theirs.calc_checksum_ipv6_raw(src, dst, rest).unwrap());
        let back = TcpRepr::parse_over(&TcpPacket::new_checked(&b[..]).unwrap(), ips).unwrap();
        prop_assert_eq!(back, tcp);
    }
}
