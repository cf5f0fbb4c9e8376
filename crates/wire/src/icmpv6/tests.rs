//! ICMPv6 against byte literals and against etherparse's checksum (an
//! independent implementation of RFC 4443 §2.3's pseudo-header).

use super::*;
use etherparse::{Icmpv6Header, Icmpv6Type};

fn addr(s: &str) -> Ipv6Address {
    s.parse::<core::net::Ipv6Addr>().unwrap().into()
}

/// What etherparse computes for a message of `t`/`code`/`word` and `body`.
fn their_checksum(
    t: u8,
    code: u8,
    word: [u8; 4],
    body: &[u8],
    src: Ipv6Address,
    dst: Ipv6Address,
) -> u16 {
    let kind = Icmpv6Type::Unknown {
        type_u8: t,
        code_u8: code,
        bytes5to8: word,
    };
    Icmpv6Header::with_checksum(kind, src.0, dst.0, body)
        .unwrap()
        .checksum
}

#[test]
fn a_neighbour_solicitation_as_linux_sends_it() {
    // fe80::1 asks ff02::1:ff00:2 who has fe80::2, saying its MAC.
    let (src, target) = (addr("fe80::1"), addr("fe80::2"));
    let dst = target.solicited_node();
    let mac = EthernetAddress([0x02, 0, 0, 0, 0, 0x01]);
    let r = Icmpv6Repr::NeighborSolicit {
        target,
        source_mac: Some(mac),
    };
    let mut b = [0u8; 32];
    r.emit(&mut b, src, dst).unwrap();
    let mut want = vec![135, 0, 0, 0, 0, 0, 0, 0];
    want.extend_from_slice(&target.0);
    want.extend_from_slice(&[1, 1, 0x02, 0, 0, 0, 0, 0x01]);
    let c = their_checksum(135, 0, [0; 4], &want[8..], src, dst);
    want[2..4].copy_from_slice(&c.to_be_bytes());
    assert_eq!(&b[..], &want[..]);
    let p = Icmpv6Packet::new_checked(&b[..]).unwrap();
    assert_eq!(Icmpv6Repr::parse(&p, src, dst).unwrap(), r);
    assert_eq!(
        Icmpv6Repr::parse(&p, src, addr("ff02::1")),
        Err(Error::BadChecksum)
    );
}

#[test]
fn an_advertisement_and_an_echo_round_trip_with_the_independent_checksum() {
    let (src, dst) = (addr("2001:db8::2"), addr("2001:db8::1"));
    let na = Icmpv6Repr::NeighborAdvert {
        router: true,
        solicited: true,
        override_: false,
        target: src,
        target_mac: Some(EthernetAddress([2, 0, 0, 0, 0, 2])),
    };
    let echo = Icmpv6Repr::EchoRequest {
        ident: 0x1234,
        seq_no: 7,
        data: b"prism",
    };
    for r in [na, echo] {
        let mut b = vec![0u8; r.buffer_len()];
        r.emit(&mut b, src, dst).unwrap();
        let theirs = their_checksum(b[0], b[1], [b[4], b[5], b[6], b[7]], &b[8..], src, dst);
        assert_eq!(u16::from_be_bytes([b[2], b[3]]), theirs, "{r:?}");
        let p = Icmpv6Packet::new_checked(&b[..]).unwrap();
        assert_eq!(Icmpv6Repr::parse(&p, src, dst).unwrap(), r);
    }
    let mut b = vec![0u8; na.buffer_len()];
    na.emit(&mut b, src, dst).unwrap();
    assert_eq!(b[4], 0xc0, "router and solicited");
}

#[test]
fn an_error_carries_the_invoking_packet_up_to_the_minimum_mtu() {
    let (src, dst) = (addr("2001:db8::fe"), addr("2001:db8::1"));
    let invoking = [0x60u8; 1500];
    let r = Icmpv6Repr::Error {
        msg_type: kind::PACKET_TOO_BIG,
        code: 0,
        word: 1280,
        invoking: &invoking,
    };
    assert_eq!(r.buffer_len(), 8 + MAX_INVOKING);
    let mut b = vec![0u8; r.buffer_len()];
    r.emit(&mut b, src, dst).unwrap();
    assert_eq!(&b[4..8], &1280u32.to_be_bytes());
    let p = Icmpv6Packet::new_checked(&b[..]).unwrap();
    match Icmpv6Repr::parse(&p, src, dst).unwrap() {
        Icmpv6Repr::Error {
            msg_type,
            word,
            invoking,
            ..
        } => {
            assert_eq!((msg_type, word, invoking.len()), (2, 1280, MAX_INVOKING));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn malformed_discovery_is_refused_not_a_panic() {
    let (src, dst) = (addr("fe80::1"), addr("ff02::1:ff00:2"));
    let ns = Icmpv6Repr::NeighborSolicit {
        target: addr("fe80::2"),
        source_mac: Some(EthernetAddress([2; 6])),
    };
    let mut good = [0u8; 32];
    ns.emit(&mut good, src, dst).unwrap();
    let reparsed = |mut b: Vec<u8>| {
        if let Ok(mut p) = Icmpv6Packet::new_checked(&mut b[..]) {
            p.fill_checksum(src, dst);
        }
        let p = Icmpv6Packet::new_checked(&b[..])?;
        Icmpv6Repr::parse(&p, src, dst).map(|_| ())
    };
    let mut zero_len = good.to_vec();
    zero_len[25] = 0;
    assert_eq!(
        reparsed(zero_len),
        Err(Error::BadLength),
        "an option of length 0"
    );
    let mut long = good.to_vec();
    long[25] = 2;
    assert_eq!(
        reparsed(long),
        Err(Error::Truncated),
        "an option past the end"
    );
    let mut multicast = good.to_vec();
    multicast[8] = 0xff;
    assert_eq!(
        reparsed(multicast),
        Err(Error::Unsupported),
        "a multicast target"
    );
    for cut in 0..32 {
        let _ = reparsed(good[..cut].to_vec());
    }
    assert_eq!(reparsed(good[..20].to_vec()), Err(Error::Truncated));
}
