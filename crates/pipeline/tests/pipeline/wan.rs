//! The WAN side (docs/wan.md): two nodes' substrates, each with a LAN port
//! (0) and a WAN port (1), carry two experiments on the same inner
//! addresses across the wide area by IPIP. Frames are built and read by
//! etherparse; what leaves node A's WAN port is what node B receives.
//! Checks: delivery across and back, each experiment's frames to its own
//! VLAN only, every spoof dropped under its named reason (and never given to
//! the default network), a tunnel claimed twice refused with nothing changed.

use etherparse::{IpNumber, LinkSlice, NetSlice, PacketBuilder, SlicedPacket, VlanSlice};
use prism_pipeline::*;
use prism_tables::{PortRange, Ternary};
use prism_wire::Ipv4Address;

const LAN: u16 = 0;
const WAN: u16 = 1;
const HOST: [u8; 6] = [2, 0, 0, 0, 0, 0x10];
const GW: [u8; 6] = [2, 0, 0, 0, 0, 0x11];
const WAN_A: [u8; 4] = [203, 0, 113, 1];
const WAN_B: [u8; 4] = [203, 0, 113, 2];
const MAC_A: [u8; 6] = [2, 0xa, 0, 0, 0, 1];
const MAC_B: [u8; 6] = [2, 0xa, 0, 0, 0, 2];

/// One experiment's part on a node: routes its own prefix to the LAN
/// (tag kept), the far part's prefix into a tunnel to the far node.
struct Part {
    name: &'static str,
    vlan: u16,
    local: &'static str,
    remote: &'static str,
    /// This part's tunnel source address and the far part's.
    me: [u8; 4],
    far: [u8; 4],
}

fn spec(
    p: &Part,
    my_wan: [u8; 4],
    far_wan: [u8; 4],
    my_mac: [u8; 6],
    far_mac: [u8; 6],
) -> NetworkSpec {
    let vlan_only = Ternary::ANY.vlan(Some(p.vlan));
    let deliver = Action {
        out_port: Some(LAN),
        decrement_ttl: true,
        set_dst_mac: Some(prism_wire::EthernetAddress(HOST)),
        set_src_mac: Some(prism_wire::EthernetAddress(GW)),
        ..Default::default()
    };
    let across = Action {
        out_port: Some(WAN),
        decrement_ttl: true,
        ipip: IpipOp::Encap {
            src: Ipv4Address(p.me),
            dst: Ipv4Address(far_wan),
        },
        vlan: VlanOp::Pop,
        set_src_mac: Some(prism_wire::EthernetAddress(my_mac)),
        set_dst_mac: Some(prism_wire::EthernetAddress(far_mac)),
        ..Default::default()
    };
    NetworkSpec {
        name: p.name.into(),
        tier: Tier::Hardware,
        mapping: vec![MappingRule {
            priority: 1,
            fields: vlan_only,
            src_port: PortRange::ANY,
            dst_port: PortRange::ANY,
        }],
        forwarding: ForwardingSpec::Destination(vec![
            (p.local.parse().unwrap(), deliver),
            (p.remote.parse().unwrap(), across),
        ]),
        rate_limit: None,
        software_channel: None,
        quantum: 1514,
        tunnels: vec![TunnelSpec::Ipip {
            src: Ipv4Address(p.far),
            dst: Ipv4Address(my_wan),
            vlan: Some(p.vlan),
        }],
        program: None,
    }
}

/// Experiments `red` (VLAN 100) and `blue` (VLAN 200) on the same inner
/// addresses: 10.1.0.0/24 at node A, 10.2.0.0/24 at node B.
fn parts(at_a: bool) -> [Part; 2] {
    let (local, remote) = if at_a {
        ("10.1.0.0/24", "10.2.0.0/24")
    } else {
        ("10.2.0.0/24", "10.1.0.0/24")
    };
    let t = |red_a: u8, blue_a: u8| {
        // Tunnel sources: red's parts .1 (A) and .2 (B), blue's .3 and .4.
        let (ra, rb, ba, bb) = (red_a, red_a + 1, blue_a, blue_a + 1);
        if at_a {
            ((ra, rb), (ba, bb))
        } else {
            ((rb, ra), (bb, ba))
        }
    };
    let ((rm, rf), (bm, bf)) = t(1, 3);
    [
        Part {
            name: "red",
            vlan: 100,
            local,
            remote,
            me: [198, 18, 0, rm],
            far: [198, 18, 0, rf],
        },
        Part {
            name: "blue",
            vlan: 200,
            local,
            remote,
            me: [198, 18, 0, bm],
            far: [198, 18, 0, bf],
        },
    ]
}

fn node(at_a: bool) -> Substrate {
    let mut s = Substrate::new(
        prism_pipeline::control::device::profile("alveo-u280")
            .unwrap()
            .clone(),
        2,
    );
    s.set_wan_ports(&[WAN]).unwrap();
    let (me, far, my_mac, far_mac) = if at_a {
        (WAN_A, WAN_B, MAC_A, MAC_B)
    } else {
        (WAN_B, WAN_A, MAC_B, MAC_A)
    };
    for p in parts(at_a) {
        s.add_network(spec(&p, me, far, my_mac, far_mac)).unwrap();
    }
    // A catch-all network: nothing from the WAN may land in it.
    let mut any = spec(&parts(at_a)[0], me, far, my_mac, far_mac);
    any.name = "catch-all".into();
    any.mapping.clear();
    any.tunnels.clear();
    s.add_network(any).unwrap();
    s.set_default_network(Some("catch-all")).unwrap();
    s
}

fn lan_frame(vlan: u16, src: [u8; 4], dst: [u8; 4], payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    PacketBuilder::ethernet2(HOST, GW)
        .single_vlan(vlan.try_into().unwrap())
        .ipv4(src, dst, 64)
        .udp(4000, 5000)
        .write(&mut v, payload)
        .unwrap();
    v
}

fn ipip(outer_src: [u8; 4], outer_dst: [u8; 4], inner_dst: [u8; 4]) -> Vec<u8> {
    let mut inner = Vec::new();
    PacketBuilder::ipv4([10, 1, 0, 7], inner_dst, 64)
        .udp(1, 2)
        .write(&mut inner, b"spoof")
        .unwrap();
    let mut v = Vec::new();
    PacketBuilder::ethernet2(MAC_A, MAC_B)
        .ipv4(outer_src, outer_dst, 64)
        .write(&mut v, IpNumber::IPV4, &inner)
        .unwrap();
    v
}

/// Runs `frames` in on `port`; returns what leaves each port and the pipeline.
fn run(s: &Substrate, port: u16, frames: &[Vec<u8>]) -> (Vec<Vec<Vec<u8>>>, Pipeline) {
    let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
    let mut batch: Vec<Packet> = frames
        .iter()
        .map(|f| p.pool.packet(f, port, 0).unwrap())
        .collect();
    p.process(&mut batch, 0);
    let outs = (0..2)
        .map(|port| {
            let mut v = Vec::new();
            p.transmit(port, usize::MAX, &mut v);
            v.iter().map(|x| x.data().to_vec()).collect()
        })
        .collect();
    (outs, p)
}

/// (VLAN, inner source, inner destination, TTL, UDP payload) of a LAN frame.
fn read_lan(frame: &[u8]) -> (u16, [u8; 4], [u8; 4], u8, Vec<u8>) {
    let s = SlicedPacket::from_ethernet(frame).expect("etherparse reads it");
    let Some(LinkSlice::Ethernet2(eth)) = &s.link else {
        panic!("not Ethernet")
    };
    assert_eq!(eth.destination(), HOST);
    let Some(VlanSlice::SingleVlan(vlan)) = &s.vlan else {
        panic!("one tag")
    };
    let vlan = vlan.vlan_identifier();
    let Some(NetSlice::Ipv4(ip)) = &s.net else {
        panic!("not IPv4 (an outer header left on?)")
    };
    let h = ip.header();
    assert_ne!(h.protocol(), IpNumber::IPV4, "still IPIP");
    let payload = s
        .transport
        .map(|_| ())
        .and(Some(frame[frame.len() - 5..].to_vec()));
    (
        vlan.value(),
        h.source(),
        h.destination(),
        h.ttl(),
        payload.unwrap(),
    )
}

fn wan_drops(p: &Pipeline, r: WanDrop) -> u64 {
    p.counters().unmapped.drops[DropReason::Wan(r).index()]
}

#[test]
fn two_experiments_on_the_same_addresses_cross_the_wan_each_to_its_own_vlan() {
    let (a, b) = (node(true), node(false));
    let frames = [
        lan_frame(100, [10, 1, 0, 7], [10, 2, 0, 9], b"red!!"),
        lan_frame(200, [10, 1, 0, 7], [10, 2, 0, 9], b"blue!"),
    ];
    let (outs, _) = run(&a, LAN, &frames);
    assert_eq!(outs[LAN as usize].len(), 0);
    let wan = &outs[WAN as usize];
    assert_eq!(wan.len(), 2);
    for (f, (src, tag)) in wan.iter().zip([(1u8, "red!!"), (3, "blue!")]) {
        let s = SlicedPacket::from_ethernet(f).unwrap();
        assert!(s.vlan.is_none(), "the WAN frame carries no internal VLAN");
        let Some(LinkSlice::Ethernet2(eth)) = &s.link else {
            panic!()
        };
        assert_eq!((eth.source(), eth.destination()), (MAC_A, MAC_B));
        let Some(NetSlice::Ipv4(ip)) = &s.net else {
            panic!()
        };
        let h = ip.header();
        assert_eq!(h.protocol(), IpNumber::IPV4);
        assert_eq!((h.source(), h.destination()), ([198, 18, 0, src], WAN_B));
        assert!(f.ends_with(tag.as_bytes()));
    }
    // What left A's WAN port arrives at B's.
    let (outs, p) = run(&b, WAN, wan);
    let lan: Vec<_> = outs[LAN as usize].iter().map(|f| read_lan(f)).collect();
    assert_eq!(
        lan,
        vec![
            (100, [10, 1, 0, 7], [10, 2, 0, 9], 62, b"red!!".to_vec()),
            (200, [10, 1, 0, 7], [10, 2, 0, 9], 62, b"blue!".to_vec()),
        ],
        "each experiment's frame on its own VLAN, TTL down once per node"
    );
    let c = p.counters();
    let id = |n| b.id(n).unwrap() as usize;
    assert_eq!(c.networks[id("red")].rx_packets, 1);
    assert_eq!(c.networks[id("blue")].rx_packets, 1);
    assert_eq!(c.networks[id("catch-all")].rx_packets, 0);
}

#[test]
fn spoofed_and_stray_wan_frames_are_dropped_by_name_never_defaulted() {
    let b = node(false);
    let arp = {
        let mut v = vec![0xff; 6];
        v.extend_from_slice(&MAC_A);
        v.extend_from_slice(&[0x08, 0x06]);
        v.extend_from_slice(&[0, 1, 8, 0, 6, 4, 0, 1]);
        v.extend_from_slice(&MAC_A);
        v.extend_from_slice(&WAN_A);
        v.extend_from_slice(&[0; 6]);
        v.extend_from_slice(&WAN_B);
        v
    };
    let qinq = {
        let mut v = Vec::new();
        PacketBuilder::ethernet2(MAC_A, MAC_B)
            .double_vlan(300.try_into().unwrap(), 100.try_into().unwrap())
            .ipv4([10, 1, 0, 7], [10, 2, 0, 9], 64)
            .udp(1, 2)
            .write(&mut v, b"qinq")
            .unwrap();
        v[12..14].copy_from_slice(&0x88a8u16.to_be_bytes());
        v
    };
    let mut plain = Vec::new();
    PacketBuilder::ethernet2(MAC_A, MAC_B)
        .ipv4(WAN_A, WAN_B, 64)
        .udp(1, 2)
        .write(&mut plain, b"plain")
        .unwrap();
    let frames = [
        // A source that is no part's tunnel (not a node of the experiment).
        ipip([198, 18, 0, 99], WAN_B, [10, 2, 0, 9]),
        // Red's tunnel source, to an address that is not B's.
        ipip([198, 18, 0, 1], [203, 0, 113, 77], [10, 2, 0, 9]),
        qinq,
        plain,
        arp,
    ];
    let (outs, p) = run(&b, WAN, &frames);
    assert!(outs.iter().all(|o| o.is_empty()), "nothing delivered");
    assert_eq!(wan_drops(&p, WanDrop::UnknownTunnel), 2);
    assert_eq!(wan_drops(&p, WanDrop::UnknownSTag), 1);
    assert_eq!(wan_drops(&p, WanDrop::NotLeased), 1);
    assert_eq!(wan_drops(&p, WanDrop::Unexpected), 1);
    let id = b.id("catch-all").unwrap() as usize;
    assert_eq!(p.counters().networks[id].rx_packets, 0);
}

#[test]
fn a_released_part_stops_its_tunnel_and_a_claimed_tunnel_is_refused() {
    let mut b = node(false);
    let red = b.spec("red").unwrap().clone();
    let mut thief = red.clone();
    thief.name = "thief".into();
    thief.mapping.clear();
    let before = b.handle().load().generation;
    assert!(matches!(
        b.add_network(thief),
        Err(SubstrateError::TunnelTaken { .. })
    ));
    assert_eq!(b.handle().load().generation, before, "nothing published");
    b.remove_network("red").unwrap();
    let (outs, p) = run(&b, WAN, &[ipip([198, 18, 0, 1], WAN_B, [10, 2, 0, 9])]);
    assert!(outs.iter().all(|o| o.is_empty()));
    assert_eq!(wan_drops(&p, WanDrop::UnknownTunnel), 1);
}

#[test]
fn the_rate_limit_charges_the_experiment_s_frames_not_the_tunnel() {
    // A bucket of exactly two 1,000-byte frames: both go into the tunnel
    // (1,016 bytes each on the WAN), as they would to the LAN.
    let mut a = Substrate::new(
        prism_pipeline::control::device::profile("alveo-u280")
            .unwrap()
            .clone(),
        2,
    );
    a.set_wan_ports(&[WAN]).unwrap();
    let mut red = spec(&parts(true)[0], WAN_A, WAN_B, MAC_A, MAC_B);
    red.rate_limit = Some((8_000, 2_000));
    a.add_network(red).unwrap();
    let frame = |n: usize| lan_frame(100, [10, 1, 0, 7], [10, 2, 0, 9], &vec![b'x'; n]);
    let f = frame(1000 - frame(0).len());
    assert_eq!(f.len(), 1000);
    let (outs, p) = run(&a, LAN, &[f.clone(), f.clone(), f]);
    assert_eq!(outs[WAN as usize].len(), 2);
    assert!(outs[WAN as usize].iter().all(|f| f.len() == 1016));
    let id = a.id("red").unwrap() as usize;
    let limited = DropReason::Output(prism_pipeline::fast::reasons::OutputDrop::RateLimited);
    assert_eq!(p.counters().networks[id].drops[limited.index()], 1);
}

/// A bridged network (VANI's bridge service): a learning bridge of the
/// LAN port and the WAN port, whose frames leave under S-tag 3001. What is
/// unknown floods to the other member, so LAN frames of VLAN 300 leave by
/// the WAN port under the S-tag and WAN frames under it come out on the
/// LAN as they went in.
fn bridged(s_tag: u16) -> Substrate {
    let mut s = Substrate::new(
        prism_pipeline::control::device::profile("alveo-u280")
            .unwrap()
            .clone(),
        2,
    );
    s.set_wan_ports(&[WAN]).unwrap();
    let to_wan = Action {
        out_port: Some(WAN),
        vlan: VlanOp::Push { vid: 3001 },
        ..Default::default()
    };
    let to_lan = Action {
        out_port: Some(LAN),
        ..Default::default()
    };
    s.add_network(NetworkSpec {
        name: "l2".into(),
        tier: Tier::Hardware,
        mapping: vec![MappingRule {
            priority: 1,
            fields: Ternary::ANY.vlan(Some(300)),
            src_port: PortRange::ANY,
            dst_port: PortRange::ANY,
        }],
        forwarding: ForwardingSpec::Bridge(prism_pipeline::fast::bridge::BridgeSpec {
            members: vec![to_lan, to_wan],
            statics: Vec::new(),
            ageing_s: 300,
        }),
        rate_limit: None,
        software_channel: None,
        quantum: 1514,
        tunnels: vec![TunnelSpec::QinQ { s_tag, c_tag: None }],
        program: None,
    })
    .unwrap();
    s
}

#[test]
fn a_bridged_network_carries_any_ethertype_across_the_wan_under_its_s_tag() {
    // A made-up layer-3 protocol (EtherType 0x88b5, IEEE's local
    // experimental one) on VLAN 300, to host B's MAC.
    let mut frame = Vec::new();
    frame.extend_from_slice(&[2, 0, 0, 0, 0, 0xb]);
    frame.extend_from_slice(&HOST);
    frame.extend_from_slice(&[0x81, 0x00, 0x01, 0x2c, 0x88, 0xb5]);
    frame.extend_from_slice(b"a new layer-3 protocol, 46 bytes long at least.");
    let (outs, _) = run(&bridged(3001), LAN, std::slice::from_ref(&frame));
    let mut wire = frame[..12].to_vec();
    wire.extend_from_slice(&[0x88, 0xa8, 0x0b, 0xb9]); // 802.1ad, S-tag 3001
    wire.extend_from_slice(&frame[12..]);
    assert_eq!(
        outs[WAN as usize],
        vec![wire.clone()],
        "re-framed as Q-in-Q"
    );
    let (outs, p) = run(&bridged(3001), WAN, std::slice::from_ref(&wire));
    assert_eq!(outs[LAN as usize], vec![frame], "delivered as it was sent");
    assert_eq!(p.counters().networks[0].rx_packets, 1);
    // Another experiment's S-tag on this node: dropped by name.
    let (outs, p) = run(&bridged(3002), WAN, &[wire]);
    assert!(outs.iter().all(|o| o.is_empty()));
    assert_eq!(wan_drops(&p, WanDrop::UnknownSTag), 1);
}
