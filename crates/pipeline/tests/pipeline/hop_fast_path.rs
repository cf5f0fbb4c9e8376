//! The pipeline's fast form of a router hop (`Hop`, `apply_hop`) against
//! the general action processing (`apply`), its reference: same verdict,
//! same bytes out, on random frames (tagged or not, IPIP or not, padded,
//! TTLs near expiry, not IPv4) and random hops. And `Hop::of` takes an
//! action only when a hop is all it does.

use prism_pipeline::traffic::{FrameSpec, build};
use prism_pipeline::{
    Action, Hop, IpipOp, PacketPool, PayloadScratch, VlanOp, apply, apply_hop, fast::payload,
};
use prism_wire::{EthernetAddress, Ipv4Address, parse_frame};
use proptest::prelude::*;

fn mac() -> impl Strategy<Value = Option<EthernetAddress>> {
    proptest::option::of(any::<[u8; 6]>().prop_map(EthernetAddress))
}

fn hop_action() -> impl Strategy<Value = Action> {
    (any::<u16>(), any::<bool>(), mac(), mac()).prop_map(|(port, ttl, dst, src)| Action {
        out_port: Some(port),
        decrement_ttl: ttl,
        set_dst_mac: dst,
        set_src_mac: src,
        ..Action::default()
    })
}

/// A hop, or a hop into an IPIP tunnel with the VLAN tag popped (a span's
/// route to another part).
fn any_hop() -> impl Strategy<Value = Action> {
    (
        hop_action(),
        any::<bool>(),
        any::<[u8; 4]>(),
        any::<[u8; 4]>(),
    )
        .prop_map(|(a, tunnel, src, dst)| match tunnel {
            true => Action {
                ipip: IpipOp::Encap {
                    src: Ipv4Address(src),
                    dst: Ipv4Address(dst),
                },
                vlan: VlanOp::Pop,
                ..a
            },
            false => a,
        })
}

/// A frame: IPv4/UDP with no VLAN tag, one or two, with or without an IPIP outer header,
/// TTL 0..4 or 64, padded past its IP length or not; or a frame of a local experimental EtherType (0x88b5)
/// that is not IPv4 at all.
fn frame() -> impl Strategy<Value = Vec<u8>> {
    let ip = (
        proptest::option::of((1u16..4095, any::<bool>())),
        any::<bool>(),
        prop_oneof![0u8..4, Just(64u8)],
        60usize..200,
        0usize..8,
        (any::<u8>(), any::<bool>()),
    )
        .prop_map(|(vlan, tunnel, ttl, len, pad, (tos, df))| {
            let mut f = build(
                &FrameSpec {
                    vlan: vlan.map(|(v, _)| v),
                    tunnel: tunnel
                        .then_some((Ipv4Address([192, 0, 2, 1]), Ipv4Address([192, 0, 2, 2]))),
                    ttl,
                    frame_len: len,
                    ..FrameSpec::default()
                },
                b"hop",
            );
            // The first IPv4 header's TOS and don't-fragment bit, which an
            // outer header copies.
            let l3 = 14 + if vlan.is_some() { 4 } else { 0 };
            f[l3 + 1] = tos;
            f[l3 + 6] |= if df { 0x40 } else { 0 };
            f[l3 + 10..l3 + 12].fill(0);
            let c = prism_wire::checksum::checksum(&f[l3..l3 + 20]);
            f[l3 + 10..l3 + 12].copy_from_slice(&c.to_be_bytes());
            f.extend(std::iter::repeat_n(0xee, pad));
            if let Some((v, true)) = vlan {
                // A second (outer) tag: 802.1ad over the 802.1Q one.
                let mut outer = vec![0x88, 0xa8];
                outer.extend_from_slice(&(v ^ 0x0555).to_be_bytes());
                f.splice(12..12, outer);
            }
            f
        });
    let other = proptest::collection::vec(any::<u8>(), 14..80).prop_map(|mut f| {
        f[12..14].copy_from_slice(&0x88b5u16.to_be_bytes());
        f
    });
    prop_oneof![4 => ip, 1 => other]
}

proptest! {
    #[test]
    fn a_hop_does_what_the_general_path_does(action in any_hop(), f in frame()) {
        let hop = Hop::of(&action).expect("a hop");
        let info = parse_frame(&f, 0).expect("the generated frames parse");
        let mut pool = PacketPool::new(2);
        let mut scratch = PayloadScratch::new(0);
        let mut general = pool.packet(&f, 0, 0).unwrap();
        let mut fast = pool.packet(&f, 0, 0).unwrap();
        let want = apply(&action, &mut general, &info, &mut scratch);
        let got = apply_hop(&hop, &mut fast, &info);
        prop_assert_eq!(got, want);
        if matches!(got, prism_pipeline::Verdict::Output(_)) {
            // A dropped frame's bytes are nobody's: the general path may
            // have pushed the outer header before finding no tag to pop.
            prop_assert_eq!(fast.data(), general.data());
        }
    }

    #[test]
    fn only_a_plain_hop_is_a_hop(action in hop_action(), which in 0usize..6) {
        let mut a = action;
        match which {
            0 => a.drop = true,
            1 => a.to_software = Some(1),
            2 => a.ipip = IpipOp::Decap,
            3 => a.vlan = VlanOp::Pop,
            4 => a.payload = Some(payload::PayloadOp::Compress),
            _ => a.out_port = None,
        }
        prop_assert_eq!(Hop::of(&a), None);
        prop_assert!(Hop::of(&action).is_some());
        // A tunnel hop is a hop only with its tag popped.
        let encap = IpipOp::Encap { src: Ipv4Address([1, 2, 3, 4]), dst: Ipv4Address([5, 6, 7, 8]) };
        let tunnel = Action { ipip: encap, vlan: VlanOp::Pop, ..action };
        prop_assert!(Hop::of(&tunnel).is_some());
        prop_assert_eq!(Hop::of(&Action { vlan: VlanOp::None, ..tunnel }), None);
        prop_assert_eq!(Hop::of(&Action { payload: Some(payload::PayloadOp::Compress), ..tunnel }), None);
    }
}
