//! The pipeline end to end, with every input built and every output checked
//! by etherparse, an independent implementation of the same headers.

use etherparse::{
    InternetSlice, IpNumber, Ipv4Header, PacketBuilder, SlicedPacket, TransportSlice, VlanSlice,
};
use prism_pipeline::fast::reasons::{ActionDrop, MapDrop, MatchDrop, OutputDrop};
use prism_pipeline::*;
use prism_tables::{Ipv4Prefix, PortRange, Ternary};
use prism_wire::{EthernetAddress, Ipv4Address};

const MAC_A: [u8; 6] = [2, 0, 0, 0, 0, 0xa];
const MAC_B: [u8; 6] = [2, 0, 0, 0, 0, 0xb];

fn pfx(s: &str) -> Ipv4Prefix {
    s.parse().unwrap()
}

fn udp(src: [u8; 4], dst: [u8; 4], ttl: u8, payload: &[u8]) -> Vec<u8> {
    let b = PacketBuilder::ethernet2(MAC_A, MAC_B)
        .ipv4(src, dst, ttl)
        .udp(1000, 2000);
    let mut v = Vec::new();
    b.write(&mut v, payload).unwrap();
    v
}

fn udp_vlan(vid: u16, src: [u8; 4], dst: [u8; 4]) -> Vec<u8> {
    let b = PacketBuilder::ethernet2(MAC_A, MAC_B)
        .single_vlan(vid.try_into().unwrap())
        .ipv4(src, dst, 64)
        .udp(1, 2);
    let mut v = Vec::new();
    b.write(&mut v, b"vlan").unwrap();
    v
}

/// An IPIP packet: outer header by etherparse around an inner UDP packet.
fn ipip(
    outer_src: [u8; 4],
    outer_dst: [u8; 4],
    inner_src: [u8; 4],
    inner_dst: [u8; 4],
    inner_ttl: u8,
) -> Vec<u8> {
    let inner = {
        let b = PacketBuilder::ipv4(inner_src, inner_dst, inner_ttl).udp(5, 6);
        let mut v = Vec::new();
        b.write(&mut v, b"inner").unwrap();
        v
    };
    let b = PacketBuilder::ethernet2(MAC_A, MAC_B).ipv4(outer_src, outer_dst, 64);
    let mut v = Vec::new();
    b.write(&mut v, IpNumber::IPV4, &inner).unwrap();
    v
}

fn out(port: u16) -> Action {
    Action {
        out_port: Some(port),
        ..Default::default()
    }
}

fn net(
    name: &str,
    tier: Tier,
    mapping: Vec<MappingRule>,
    forwarding: ForwardingSpec,
) -> NetworkSpec {
    NetworkSpec {
        name: name.into(),
        tier,
        mapping,
        forwarding,
        rate_limit: None,
        software_channel: None,
        quantum: 1514,
        tunnels: Vec::new(),
        program: None,
    }
}

fn map(fields: Ternary) -> MappingRule {
    MappingRule {
        priority: 1,
        fields,
        src_port: PortRange::ANY,
        dst_port: PortRange::ANY,
    }
}

fn substrate() -> Substrate {
    Substrate::new(
        prism_pipeline::control::device::profile("alveo-u280")
            .unwrap()
            .clone(),
        4,
    )
}

/// Runs frames in on port 0 and returns what leaves each port.
fn run(s: &Substrate, frames: &[Vec<u8>], now: u64) -> (Pipeline, Vec<Vec<Vec<u8>>>) {
    let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
    let mut batch: Vec<Packet> = frames
        .iter()
        .map(|f| p.pool.packet(f, 0, now).unwrap())
        .collect();
    p.process(&mut batch, now);
    // Serve software channels with the software router, as `prism run` does.
    let mut sw = Vec::new();
    for ch in 0..4 {
        p.software_pop(ch, usize::MAX, &mut sw);
    }
    let dp = p.dataplane().clone();
    let mut services = PayloadScratch::new(1);
    for mut pkt in sw.drain(..) {
        let v = prism_pipeline::software::router::route(&dp, &mut pkt, &mut services);
        p.from_software(pkt, v, now);
    }
    let mut outs = Vec::new();
    for port in 0..4 {
        let mut v = Vec::new();
        p.transmit(port, usize::MAX, &mut v);
        outs.push(v.iter().map(|x| x.data().to_vec()).collect());
        for x in v {
            p.pool.recycle(x);
        }
    }
    (p, outs)
}

fn ipv4_of(frame: &[u8]) -> (Ipv4Header, SlicedPacket<'_>) {
    let s = SlicedPacket::from_ethernet(frame).expect("etherparse reads the output");
    let Some(InternetSlice::Ipv4(ip)) = &s.net else {
        panic!("not IPv4")
    };
    (ip.header().to_header(), s)
}

#[test]
fn destination_routing_ttl_and_mac_rewrite() {
    let mut s = substrate();
    let act = Action {
        out_port: Some(2),
        decrement_ttl: true,
        set_src_mac: Some(EthernetAddress([2, 0, 0, 0, 1, 1])),
        set_dst_mac: Some(EthernetAddress([2, 0, 0, 0, 2, 2])),
        ..Default::default()
    };
    s.add_network(net(
        "red",
        Tier::Hardware,
        vec![map(Ternary::ANY.in_port(0))],
        ForwardingSpec::Destination(vec![
            (pfx("10.2.0.0/16"), act),
            (pfx("10.2.3.0/24"), out(3)),
        ]),
    ))
    .unwrap();
    let frames = [
        udp([10, 1, 0, 1], [10, 2, 0, 9], 64, b"hello"),
        udp([10, 1, 0, 1], [10, 2, 3, 9], 64, b"x"),
        udp([10, 1, 0, 1], [10, 9, 0, 1], 64, b"x"),
        udp([10, 1, 0, 1], [10, 2, 0, 9], 1, b"x"),
    ];
    let (p, outs) = run(&s, &frames, 0);
    assert_eq!(outs[2].len(), 1);
    assert_eq!(outs[3].len(), 1);
    let (h, sl) = ipv4_of(&outs[2][0]);
    assert_eq!(h.time_to_live, 63);
    assert_eq!(
        h.header_checksum,
        h.calc_header_checksum(),
        "checksum after RFC 1624 update"
    );
    let eth = sl.link.as_ref().unwrap();
    let etherparse::LinkSlice::Ethernet2(e) = eth else {
        panic!()
    };
    assert_eq!(e.source(), [2, 0, 0, 0, 1, 1]);
    assert_eq!(e.destination(), [2, 0, 0, 0, 2, 2]);
    let Some(TransportSlice::Udp(u)) = sl.transport else {
        panic!()
    };
    assert_eq!(u.payload(), b"hello");
    // Untouched packet is byte-identical.
    assert_eq!(outs[3][0], frames[1]);
    let c = &p.counters().networks[0];
    assert_eq!((c.rx_packets, c.tx_packets), (4, 2));
    assert_eq!(c.drops[DropReason::Match(MatchDrop::NoRoute).index()], 1);
    assert_eq!(
        c.drops[DropReason::Action(ActionDrop::TtlExpired).index()],
        1
    );
}

#[test]
fn source_and_flow_routing() {
    let mut s = substrate();
    s.add_network(net(
        "src",
        Tier::Hardware,
        vec![map(Ternary::ANY.vlan(Some(10)))],
        ForwardingSpec::Source(vec![
            (pfx("10.1.0.0/16"), out(1)),
            (pfx("0.0.0.0/0"), out(2)),
        ]),
    ))
    .unwrap();
    s.add_network(net(
        "flow",
        Tier::Hardware,
        vec![map(Ternary::ANY.vlan(Some(20)))],
        ForwardingSpec::Flow(vec![
            (pfx("10.1.0.0/16"), pfx("10.2.0.0/16"), out(1)),
            (pfx("0.0.0.0/0"), pfx("10.2.0.0/24"), out(3)),
        ]),
    ))
    .unwrap();
    let frames = [
        udp_vlan(10, [10, 1, 5, 5], [1, 1, 1, 1]),
        udp_vlan(10, [10, 7, 5, 5], [1, 1, 1, 1]),
        udp_vlan(20, [10, 1, 5, 5], [10, 2, 0, 1]), // /24 destination wins
        udp_vlan(20, [10, 1, 5, 5], [10, 2, 9, 1]),
        udp_vlan(20, [10, 7, 5, 5], [10, 2, 9, 1]), // no route
        udp_vlan(30, [10, 1, 5, 5], [10, 2, 9, 1]), // no network
    ];
    let (p, outs) = run(&s, &frames, 0);
    assert_eq!(outs[1], vec![frames[0].clone(), frames[3].clone()]);
    assert_eq!(outs[2], vec![frames[1].clone()]);
    assert_eq!(outs[3], vec![frames[2].clone()]);
    assert_eq!(
        p.counters().networks[1].drops[DropReason::Match(MatchDrop::NoRoute).index()],
        1
    );
    assert_eq!(
        p.counters().unmapped.drops[DropReason::Map(MapDrop::NoNetwork).index()],
        1
    );
}

#[test]
fn ipip_layer3_virtualization() {
    // Paper 003: the inner destination (virtual IP) selects the router; the
    // route gives the next virtual hop as new outer addresses.
    let mut s = substrate();
    let hop = Action {
        out_port: Some(1),
        decrement_ttl: true,
        ipip: IpipOp::Rewrite {
            src: Ipv4Address([172, 16, 0, 2]),
            dst: Ipv4Address([172, 16, 0, 3]),
        },
        ..Default::default()
    };
    let exit = Action {
        out_port: Some(2),
        ipip: IpipOp::Decap,
        decrement_ttl: true,
        ..Default::default()
    };
    s.add_network(net(
        "vnet",
        Tier::Hardware,
        vec![map(Ternary::ANY.inner_dst_ip(pfx("192.168.0.0/16")))],
        ForwardingSpec::Destination(vec![
            (pfx("192.168.1.0/24"), hop),
            (pfx("192.168.2.0/24"), exit),
        ]),
    ))
    .unwrap();
    let enter = Action {
        out_port: Some(3),
        ipip: IpipOp::Encap {
            src: Ipv4Address([172, 16, 0, 2]),
            dst: Ipv4Address([172, 16, 0, 9]),
        },
        ..Default::default()
    };
    s.add_network(net(
        "edge",
        Tier::Hardware,
        vec![map(Ternary::ANY.dst_ip(pfx("192.168.0.0/16")))],
        ForwardingSpec::Destination(vec![(pfx("0.0.0.0/0"), enter)]),
    ))
    .unwrap();
    let frames = [
        ipip(
            [172, 16, 0, 1],
            [172, 16, 0, 2],
            [192, 168, 9, 1],
            [192, 168, 1, 7],
            20,
        ),
        ipip(
            [172, 16, 0, 1],
            [172, 16, 0, 2],
            [192, 168, 9, 1],
            [192, 168, 2, 7],
            20,
        ),
        udp([192, 168, 9, 1], [192, 168, 5, 5], 30, b"plain"),
    ];
    let (_, outs) = run(&s, &frames, 0);
    // Rewrite: new outer addresses, inner TTL 19, both checksums valid.
    let (outer, sl) = ipv4_of(&outs[1][0]);
    assert_eq!(
        (outer.source, outer.destination),
        ([172, 16, 0, 2], [172, 16, 0, 3])
    );
    assert_eq!(outer.header_checksum, outer.calc_header_checksum());
    let inner_bytes = sl.ip_payload().unwrap().payload;
    let (inner, _) = Ipv4Header::from_slice(inner_bytes).unwrap();
    assert_eq!(
        (inner.time_to_live, inner.destination),
        (19, [192, 168, 1, 7])
    );
    assert_eq!(inner.header_checksum, inner.calc_header_checksum());
    // Decap: a plain IPv4 packet, TTL decremented.
    let (h, sl) = ipv4_of(&outs[2][0]);
    assert_eq!(
        (h.source, h.destination, h.time_to_live),
        ([192, 168, 9, 1], [192, 168, 2, 7], 19)
    );
    assert_eq!(h.header_checksum, h.calc_header_checksum());
    let Some(TransportSlice::Udp(u)) = sl.transport else {
        panic!("inner UDP after decap")
    };
    assert_eq!(u.payload(), b"inner");
    // Encap: outer header around the original packet.
    let (outer, sl) = ipv4_of(&outs[3][0]);
    assert_eq!(
        (outer.protocol, outer.source, outer.destination),
        (IpNumber::IPV4, [172, 16, 0, 2], [172, 16, 0, 9])
    );
    assert_eq!(outer.header_checksum, outer.calc_header_checksum());
    assert_eq!(sl.ip_payload().unwrap().payload, &frames[2][14..]);
}

#[test]
fn vlan_push_pop_replace() {
    let mut s = substrate();
    let push = Action {
        out_port: Some(1),
        vlan: VlanOp::Push { vid: 300 },
        ..Default::default()
    };
    let pop = Action {
        out_port: Some(2),
        vlan: VlanOp::Pop,
        ..Default::default()
    };
    let replace = Action {
        out_port: Some(3),
        vlan: VlanOp::Replace { vid: 7 },
        ..Default::default()
    };
    s.add_network(net(
        "tags",
        Tier::Hardware,
        vec![map(Ternary::ANY)],
        ForwardingSpec::Rules {
            rules: vec![
                RuleSpec {
                    priority: 3,
                    fields: Ternary::ANY.vlan(None),
                    src_port: PortRange::ANY,
                    dst_port: PortRange::ANY,
                    action: push,
                },
                RuleSpec {
                    priority: 2,
                    fields: Ternary::ANY.vlan(Some(10)),
                    src_port: PortRange::ANY,
                    dst_port: PortRange::ANY,
                    action: pop,
                },
                RuleSpec {
                    priority: 1,
                    fields: Ternary::ANY.vlan(Some(20)),
                    src_port: PortRange::ANY,
                    dst_port: PortRange::ANY,
                    action: replace,
                },
            ],
            default: Some(Action {
                drop: true,
                ..Default::default()
            }),
        },
    ))
    .unwrap();
    let frames = [
        udp([1, 1, 1, 1], [2, 2, 2, 2], 9, b"untagged"),
        udp_vlan(10, [1, 1, 1, 1], [2, 2, 2, 2]),
        udp_vlan(20, [1, 1, 1, 1], [2, 2, 2, 2]),
        udp_vlan(99, [1, 1, 1, 1], [2, 2, 2, 2]),
    ];
    let (p, outs) = run(&s, &frames, 0);
    let pushed = SlicedPacket::from_ethernet(&outs[1][0]).unwrap();
    let Some(VlanSlice::SingleVlan(v)) = pushed.vlan else {
        panic!("one tag")
    };
    assert_eq!(v.vlan_identifier().value(), 300);
    assert_eq!(&outs[1][0][16..], &frames[0][12..]);
    let popped = SlicedPacket::from_ethernet(&outs[2][0]).unwrap();
    assert!(popped.vlan.is_none());
    assert_eq!(&outs[2][0][12..], &frames[1][16..]);
    let replaced = SlicedPacket::from_ethernet(&outs[3][0]).unwrap();
    let Some(VlanSlice::SingleVlan(v)) = replaced.vlan else {
        panic!("one tag")
    };
    assert_eq!(v.vlan_identifier().value(), 7);
    assert_eq!(
        p.counters().networks[0].drops[DropReason::Action(ActionDrop::DropAction).index()],
        1
    );
}

#[test]
fn software_tier_behaves_like_hardware() {
    let act = Action {
        out_port: Some(1),
        decrement_ttl: true,
        set_dst_mac: Some(EthernetAddress([2, 9, 9, 9, 9, 9])),
        ..Default::default()
    };
    let spec = |tier| {
        net(
            "n",
            tier,
            vec![map(Ternary::ANY)],
            ForwardingSpec::Destination(vec![(pfx("0.0.0.0/0"), act)]),
        )
    };
    let frames = [udp([1, 1, 1, 1], [2, 2, 2, 2], 9, b"same")];
    let mut hw = substrate();
    hw.add_network(spec(Tier::Hardware)).unwrap();
    let mut sw = substrate();
    sw.add_network(spec(Tier::Software)).unwrap();
    let (_, a) = run(&hw, &frames, 0);
    let (ps, b) = run(&sw, &frames, 0);
    assert_eq!(a, b);
    assert_eq!(a[1].len(), 1);
    let c = &ps.counters().networks[0];
    assert_eq!((c.to_software, c.from_software, c.tx_packets), (1, 1, 1));
}

#[test]
fn rate_limit_polices_per_network() {
    let mut s = substrate();
    let mut spec = net(
        "slow",
        Tier::Hardware,
        vec![map(Ternary::ANY)],
        ForwardingSpec::Destination(vec![(pfx("0.0.0.0/0"), out(1))]),
    );
    spec.rate_limit = Some((8_000_000, 3000)); // 1 MB/s, 3000-byte burst
    s.add_network(spec).unwrap();
    let frames: Vec<_> = (0..10)
        .map(|_| udp([1, 1, 1, 1], [2, 2, 2, 2], 9, &[0u8; 958]))
        .collect(); // 1000-byte frames
    let (p, outs) = run(&s, &frames, 0);
    assert_eq!(outs[1].len(), 3);
    assert_eq!(
        p.counters().networks[0].drops[DropReason::Output(OutputDrop::RateLimited).index()],
        7
    );
}

#[test]
fn placement_is_checked_and_changeable() {
    let mut s = Substrate::new(
        prism_pipeline::control::device::profile("netfpga-v2p")
            .unwrap()
            .clone(),
        2,
    );
    let routes = |n: u32| {
        ForwardingSpec::Destination(
            (0..n)
                .map(|i| (Ipv4Prefix::new(i << 8, 24), out(1)))
                .collect(),
        )
    };
    s.add_network(net("a", Tier::Hardware, vec![], routes(32)))
        .unwrap();
    let e = s
        .add_network(net("b", Tier::Hardware, vec![], routes(33)))
        .unwrap_err();
    assert!(
        e.to_string().contains("33 routes exceed the 32-route"),
        "{e}"
    );
    s.add_network(net("b", Tier::Hardware, vec![], routes(3)))
        .unwrap();
    let e = s
        .add_network(net("c", Tier::Hardware, vec![], routes(3)))
        .unwrap_err();
    assert!(e.to_string().contains("all 2 hardware slots"), "{e}");
    s.add_network(net("c", Tier::Software, vec![], routes(300)))
        .unwrap();
    assert!(s.set_tier("c", Tier::Hardware).is_err());
    s.set_tier("a", Tier::Software).unwrap();
    assert_eq!(s.hardware().free_slots(), 1);
    assert!(
        s.set_tier("c", Tier::Hardware).is_err(),
        "300 routes do not fit a slot"
    );
    let e = s
        .add_network(net("a", Tier::Software, vec![], routes(1)))
        .unwrap_err();
    assert_eq!(e, SubstrateError::DuplicateName("a".into()));
    let e = s
        .add_network(net(
            "d",
            Tier::Software,
            vec![],
            ForwardingSpec::Destination(vec![(pfx("0.0.0.0/0"), out(5))]),
        ))
        .unwrap_err();
    assert!(matches!(e, SubstrateError::BadPort { port: 5, .. }));
}

#[test]
fn config_swap_is_seen_at_next_batch() {
    let mut s = substrate();
    s.add_network(net(
        "x",
        Tier::Hardware,
        vec![map(Ternary::ANY)],
        ForwardingSpec::Destination(vec![(pfx("0.0.0.0/0"), out(1))]),
    ))
    .unwrap();
    let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
    let f = udp([1, 1, 1, 1], [2, 2, 2, 2], 9, b"a");
    let mut b = vec![p.pool.packet(&f, 0, 0).unwrap()];
    p.process(&mut b, 0);
    assert_eq!(p.queued(1), 1);
    s.replace_network(net(
        "x",
        Tier::Hardware,
        vec![map(Ternary::ANY)],
        ForwardingSpec::Destination(vec![(pfx("0.0.0.0/0"), out(2))]),
    ))
    .unwrap();
    let mut b = vec![p.pool.packet(&f, 0, 0).unwrap()];
    p.process(&mut b, 0);
    assert_eq!((p.queued(1), p.queued(2)), (1, 1));
}

/// Frames in on `port`, frames out of every port (no software networks).
fn pass(s: &Substrate, frames: &[Vec<u8>], port: u16) -> (Pipeline, Vec<Vec<Vec<u8>>>) {
    let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
    let mut batch: Vec<Packet> = frames
        .iter()
        .map(|f| p.pool.packet(f, port, 0).unwrap())
        .collect();
    p.process(&mut batch, 0);
    let mut outs = Vec::new();
    for port in 0..4 {
        let mut v = Vec::new();
        p.transmit(port, usize::MAX, &mut v);
        outs.push(v.iter().map(|x| x.data().to_vec()).collect());
    }
    (p, outs)
}

fn service_pair(there: PayloadOp, back: PayloadOp) -> Substrate {
    let mut s = substrate();
    let a = Action {
        out_port: Some(1),
        payload: Some(there),
        ..Default::default()
    };
    let b = Action {
        out_port: Some(2),
        payload: Some(back),
        ..Default::default()
    };
    s.add_network(net(
        "there",
        Tier::Hardware,
        vec![map(Ternary::ANY.in_port(0))],
        ForwardingSpec::Destination(vec![(pfx("0.0.0.0/0"), a)]),
    ))
    .unwrap();
    s.add_network(net(
        "back",
        Tier::Hardware,
        vec![map(Ternary::ANY.in_port(1))],
        ForwardingSpec::Destination(vec![(pfx("0.0.0.0/0"), b)]),
    ))
    .unwrap();
    s
}

fn udp_checksum_ok(frame: &[u8]) -> bool {
    let s = SlicedPacket::from_ethernet(frame).unwrap();
    let (Some(InternetSlice::Ipv4(ip)), Some(TransportSlice::Udp(u))) = (&s.net, &s.transport)
    else {
        return false;
    };
    let h = ip.header().to_header();
    let uh = u.to_header();
    h.header_checksum == h.calc_header_checksum()
        && uh.calc_checksum_ipv4(&h, u.payload()).unwrap() == uh.checksum
}

#[test]
fn services_round_trip_across_two_networks() {
    let text: Vec<u8> = b"the multi-service edge router compresses this text; "
        .iter()
        .cycle()
        .take(900)
        .copied()
        .collect();
    let frames = vec![
        udp([10, 0, 0, 1], [10, 0, 0, 2], 9, &text),
        udp([10, 0, 0, 1], [10, 0, 0, 2], 9, b"x"),
        udp([10, 0, 0, 1], [10, 0, 0, 2], 9, &[0u8; 0]),
    ];
    let key = [7u8; 32];
    let aead = prism_pipeline::fast::payload::Aead::ChaCha20Poly1305;
    let pairs = [
        (PayloadOp::Seal { aead, key }, PayloadOp::Open { aead, key }),
        (
            PayloadOp::DesEncrypt {
                key: [1, 2, 3, 4, 5, 6, 7, 8],
            },
            PayloadOp::DesDecrypt {
                key: [1, 2, 3, 4, 5, 6, 7, 8],
            },
        ),
        (PayloadOp::Compress, PayloadOp::Decompress),
    ];
    for (there, back) in pairs {
        let s = service_pair(there, back);
        let (_, mid) = pass(&s, &frames, 0);
        assert_eq!(mid[1].len(), frames.len(), "{there:?}");
        for (m, f) in mid[1].iter().zip(&frames) {
            assert!(
                udp_checksum_ok(m),
                "{there:?}: transformed packet has valid lengths and checksums"
            );
            assert_ne!(m, f, "{there:?}: payload transformed");
        }
        if there == PayloadOp::Compress {
            assert!(
                mid[1][0].len() < frames[0].len() / 4,
                "repetitive text compresses"
            );
        }
        let (_, end) = pass(&s, &mid[1], 1);
        assert_eq!(
            end[2], frames,
            "{there:?}: round trip gives back the original frames"
        );
    }
}

#[test]
fn service_failures_are_counted() {
    let key = [9u8; 32];
    let aead = prism_pipeline::fast::payload::Aead::Aes128Gcm;
    let s = service_pair(
        PayloadOp::Seal { aead, key },
        PayloadOp::Open {
            aead,
            key: [8u8; 32],
        },
    );
    let frames = vec![udp([10, 0, 0, 1], [10, 0, 0, 2], 9, b"secret")];
    let (_, mid) = pass(&s, &frames, 0);
    let (p, end) = pass(&s, &mid[1], 1);
    assert!(end[2].is_empty());
    assert_eq!(
        p.counters().networks[1].drops[DropReason::Action(ActionDrop::AuthFailed).index()],
        1
    );
    // Tampering is caught even with the right key.
    let s = service_pair(PayloadOp::Seal { aead, key }, PayloadOp::Open { aead, key });
    let (_, mut mid) = pass(&s, &frames, 0);
    let last = mid[1][0].len() - 1;
    mid[1][0][last] ^= 1;
    let (p, end) = pass(&s, &mid[1], 1);
    assert!(end[2].is_empty());
    assert_eq!(
        p.counters().networks[1].drops[DropReason::Action(ActionDrop::AuthFailed).index()],
        1
    );
    // Decompressing garbage, and services on non-UDP traffic.
    let s = service_pair(PayloadOp::Decompress, PayloadOp::Decompress);
    let (p, _) = pass(
        &s,
        &[
            udp([1, 1, 1, 1], [2, 2, 2, 2], 9, &[0xff; 40]),
            ipip([1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [4, 4, 4, 4], 9),
        ],
        0,
    );
    let c = &p.counters().networks[0];
    assert_eq!(
        c.drops[DropReason::Action(ActionDrop::CorruptCompressed).index()],
        1
    );
    assert_eq!(c.drops[DropReason::Action(ActionDrop::NotUdp).index()], 1);
}

/// A batch publishes once, at its end; names, ids and the mapping total
/// stay right through removals and re-adds.
#[test]
fn a_batch_publishes_once_and_the_index_follows_changes() {
    let mut s = substrate();
    let h = s.handle();
    let before = h.load().generation;
    let dst = |p: &str| ForwardingSpec::Destination(vec![(pfx(p), out(1))]);
    s.batch(|s| {
        for i in 0..100u16 {
            let m = map(Ternary::ANY.vlan(Some(i)));
            s.add_network(net(
                &format!("n{i}"),
                Tier::Software,
                vec![m],
                dst("10.0.0.0/8"),
            ))
            .unwrap();
        }
        // Nothing is published inside the batch.
        assert_eq!(h.load().generation, before);
    });
    assert_eq!(h.load().generation, before + 1);
    assert_eq!(h.load().network_id("n42"), Some(42));
    s.remove_network("n42").unwrap();
    assert_eq!(s.id("n42"), None);
    assert_eq!(h.load().network_id("n42"), None);
    let id = s
        .add_network(net(
            "again",
            Tier::Software,
            vec![map(Ternary::ANY)],
            dst("10.0.0.0/8"),
        ))
        .unwrap();
    assert_eq!((id, s.id("again")), (42, Some(42)));
    assert!(matches!(
        s.add_network(net("again", Tier::Software, vec![], dst("10.0.0.0/8"))),
        Err(SubstrateError::DuplicateName(_))
    ));
    assert_eq!(s.networks().count(), 100);
}
