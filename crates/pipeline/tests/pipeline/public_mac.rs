//! Public MACs (docs/wan.md): a bridge network `l2` on VLAN 30 with LAN
//! ports 0 and 1 and the WAN port 2 as an untagged member; host H1 holds
//! public MAC P1, host H2 none. Frames are byte literals (ARP after RFC
//! 826's layout) read back by offset and by etherparse.

use etherparse::{SlicedPacket, VlanSlice};
use prism_pipeline::*;
use prism_tables::Ternary;
use prism_wire::EthernetAddress;

const WAN: u16 = 2;
const H1: [u8; 6] = [2, 0, 0, 0, 0, 1];
const H2: [u8; 6] = [2, 0, 0, 0, 0, 2];
const P1: [u8; 6] = [2, 0xb, 0, 0, 0, 1];
const P2: [u8; 6] = [2, 0xb, 0, 0, 0, 2];
const FAR: [u8; 6] = [2, 0xf, 0, 0, 0, 1];
const BCAST: [u8; 6] = [0xff; 6];

fn node() -> (Substrate, Pipeline) {
    let mut s = Substrate::new(
        prism_pipeline::control::device::profile("alveo-u280")
            .unwrap()
            .clone(),
        3,
    );
    s.set_wan_ports(&[WAN]).unwrap();
    let member = |port: u16, vlan: VlanOp| Action {
        out_port: Some(port),
        vlan,
        ..Default::default()
    };
    let bridge = ForwardingSpec::Bridge(prism_pipeline::fast::bridge::BridgeSpec {
        members: vec![
            member(0, VlanOp::None),
            member(1, VlanOp::None),
            member(WAN, VlanOp::Pop),
        ],
        statics: Vec::new(),
        ageing_s: 300,
    });
    let public = TunnelSpec::PublicMac {
        public: EthernetAddress(P1),
        internal: EthernetAddress(H1),
        vlan: Some(30),
    };
    s.add_network(fixtures::on_vlan("l2", 30, bridge, vec![public]))
        .unwrap();
    let p = Pipeline::new(s.handle(), PipelineConfig::default());
    (s, p)
}

fn send(p: &mut Pipeline, port: u16, frame: &[u8]) -> Vec<Vec<Vec<u8>>> {
    let mut batch = vec![p.pool.packet(frame, port, 0).unwrap()];
    p.process(&mut batch, 0);
    (0..3)
        .map(|port| {
            let mut v = Vec::new();
            p.transmit(port, usize::MAX, &mut v);
            let out = v.iter().map(|x| x.data().to_vec()).collect();
            p.pool.recycle_all(&mut v);
            out
        })
        .collect()
}

/// An Ethernet/IPv4 ARP packet (RFC 826), tagged `vlan` if given.
fn arp(vlan: Option<u16>, dst: [u8; 6], src: [u8; 6], op: u8, tha: [u8; 6]) -> Vec<u8> {
    let mut f = dst.to_vec();
    f.extend_from_slice(&src);
    if let Some(v) = vlan {
        f.extend_from_slice(&[0x81, 0x00]);
        f.extend_from_slice(&v.to_be_bytes());
    }
    f.extend_from_slice(&[0x08, 0x06, 0, 1, 8, 0, 6, 4, 0, op]);
    f.extend_from_slice(&src); // sender hardware address
    f.extend_from_slice(&[10, 0, 0, 1]);
    f.extend_from_slice(&tha); // target hardware address
    f.extend_from_slice(&[10, 0, 0, 2]);
    f.resize(f.len().max(60), 0);
    f
}

/// A frame of a made-up protocol, tagged `vlan` if given.
fn frame(vlan: Option<u16>, dst: [u8; 6], src: [u8; 6]) -> Vec<u8> {
    let mut f = dst.to_vec();
    f.extend_from_slice(&src);
    if let Some(v) = vlan {
        f.extend_from_slice(&[0x81, 0x00]);
        f.extend_from_slice(&v.to_be_bytes());
    }
    f.extend_from_slice(&[0x88, 0xb5]);
    f.extend_from_slice(b"a layer-2 experiment, no Q-in-Q on this WAN.");
    f
}

fn vlan_of(f: &[u8]) -> Option<u16> {
    match SlicedPacket::from_ethernet(f)
        .expect("etherparse reads it")
        .vlan
    {
        Some(VlanSlice::SingleVlan(v)) => Some(v.vlan_identifier().value()),
        None => None,
        Some(other) => panic!("{other:?}"),
    }
}

fn drops(p: &Pipeline, r: WanDrop) -> u64 {
    p.counters().networks[0].drops[DropReason::Wan(r).index()]
}

#[test]
fn a_host_leaves_by_its_public_mac_and_is_reached_at_it() {
    let (_s, mut p) = node();
    // H1 asks for the far host: flooded; on the LAN as it was, on the WAN
    // untagged from P1, the ARP sender address P1 too.
    let ask = arp(Some(30), BCAST, H1, 1, [0; 6]);
    let outs = send(&mut p, 0, &ask);
    assert_eq!(outs[1], vec![ask.clone()]);
    let out = &outs[WAN as usize][0];
    assert_eq!(vlan_of(out), None, "untagged on the WAN");
    assert_eq!(&out[..6], &BCAST);
    assert_eq!(&out[6..12], &P1);
    assert_eq!(&out[14 + 8..14 + 14], &P1, "ARP sender hardware address");
    assert_eq!(&out[14 + 14..], &ask[18 + 14..], "the rest as sent");
    // The far host answers to P1: delivered to H1 alone, tagged with the
    // network's VLAN, ARP target H1.
    let answer = arp(None, P1, FAR, 2, P1);
    let outs = send(&mut p, WAN, &answer);
    assert!(outs[1].is_empty() && outs[2].is_empty());
    let got = &outs[0][0];
    assert_eq!(vlan_of(got), Some(30));
    assert_eq!(&got[..6], &H1);
    assert_eq!(&got[6..12], &FAR);
    assert_eq!(&got[18 + 18..18 + 24], &H1, "ARP target hardware address");
    // Any EtherType both ways, the far host learned on the WAN member.
    let outs = send(&mut p, 0, &frame(Some(30), FAR, H1));
    assert!(outs[1].is_empty(), "FAR is known: not flooded");
    assert_eq!(
        outs[WAN as usize],
        vec![frame(None, FAR, P1)],
        "renamed, untagged"
    );
    let outs = send(&mut p, WAN, &frame(None, P1, FAR));
    assert_eq!(outs[0], vec![frame(Some(30), H1, FAR)]);
}

#[test]
fn a_host_without_a_public_mac_stays_inside_and_unleased_macs_are_dropped() {
    let (_s, mut p) = node();
    // H2 holds no public MAC: its broadcast reaches the LAN, not the WAN.
    let outs = send(&mut p, 1, &frame(Some(30), BCAST, H2));
    assert_eq!(outs[0].len(), 1);
    assert!(outs[WAN as usize].is_empty());
    assert_eq!(drops(&p, WanDrop::NoPublicMac), 1);
    // A frame to a MAC nobody leased, and a broadcast from the WAN: never
    // delivered.
    for f in [frame(None, P2, FAR), frame(None, BCAST, FAR)] {
        let outs = send(&mut p, WAN, &f);
        assert!(outs.iter().all(Vec::is_empty));
    }
    let unexpected = DropReason::Wan(WanDrop::Unexpected);
    assert_eq!(p.counters().unmapped.drops[unexpected.index()], 2);
}

#[test]
fn a_public_mac_is_one_network_s_on_a_node() {
    let (mut s, _p) = node();
    let mut other = s.spec("l2").unwrap().clone();
    other.name = "other".into();
    other.mapping[0].fields = Ternary::ANY.vlan(Some(31));
    let e = s.add_network(other).unwrap_err();
    assert!(matches!(e, SubstrateError::TunnelTaken { .. }), "{e}");
}
