//! The gateway service (docs/wan.md): outgoing NAT and public addresses on
//! a node with a LAN port (0) and a WAN port (1). Frames are built by
//! etherparse, and every translated frame's checksums (IPv4 header, UDP,
//! TCP, ICMP, and an ICMP error's quoted header) are checked by
//! etherparse's own computation, not Prism's. One pipeline carries each
//! test's frames in turn, as a node's worker does, so NAT state lives on.

use etherparse::{
    Icmpv4Header, Icmpv4Type, IpNumber, Ipv4HeaderSlice, NetSlice, PacketBuilder, SlicedPacket,
    TransportSlice, VlanSlice,
};
use prism_pipeline::*;
use prism_tables::{PortRange, Ternary};
use prism_wire::{EthernetAddress, Ipv4Address};

const LAN: u16 = 0;
const WAN: u16 = 1;
const HOST: [u8; 6] = [2, 0, 0, 0, 0, 0x10];
const GW: [u8; 6] = [2, 0, 0, 0, 0, 0x11];
const WAN_MAC: [u8; 6] = [2, 0xa, 0, 0, 0, 1];
const ROUTER: [u8; 6] = [2, 0xe, 0, 0, 0, 1];
const WAN_IP: [u8; 4] = [203, 0, 113, 1];
const PUBLIC: [u8; 4] = [203, 0, 113, 10];
const REMOTE: [u8; 4] = [192, 0, 2, 50];
const H7: [u8; 4] = [10, 1, 0, 7];
const H8: [u8; 4] = [10, 1, 0, 8];

/// Network `name` on VLAN `vlan`: 10.1.0.0/24 to the LAN, everything else
/// out of the WAN port to the router beyond, through the gateway.
fn network(name: &str, vlan: u16, gateway: Vec<TunnelSpec>) -> NetworkSpec {
    let deliver = Action {
        out_port: Some(LAN),
        set_dst_mac: Some(EthernetAddress(HOST)),
        set_src_mac: Some(EthernetAddress(GW)),
        ..Default::default()
    };
    let out = Action {
        out_port: Some(WAN),
        decrement_ttl: true,
        vlan: VlanOp::Pop,
        set_src_mac: Some(EthernetAddress(WAN_MAC)),
        set_dst_mac: Some(EthernetAddress(ROUTER)),
        ..Default::default()
    };
    NetworkSpec {
        name: name.into(),
        tier: Tier::Hardware,
        mapping: vec![MappingRule {
            priority: 1,
            fields: Ternary::ANY.vlan(Some(vlan)).in_port(LAN),
            src_port: PortRange::ANY,
            dst_port: PortRange::ANY,
        }],
        forwarding: ForwardingSpec::Destination(vec![
            ("10.1.0.0/24".parse().unwrap(), deliver),
            ("0.0.0.0/0".parse().unwrap(), out),
        ]),
        rate_limit: None,
        software_channel: None,
        quantum: 1514,
        tunnels: gateway,
        program: None,
    }
}

/// The public address standing for host `internal` on VLAN 100.
fn public_for(internal: [u8; 4]) -> TunnelSpec {
    TunnelSpec::Public {
        public: Ipv4Address(PUBLIC),
        internal: Ipv4Address(internal),
        vlan: Some(100),
    }
}

fn nat(vlan: u16) -> TunnelSpec {
    TunnelSpec::Nat { vlan: Some(vlan) }
}

fn node(networks: Vec<NetworkSpec>) -> Substrate {
    let mut s = Substrate::new(
        prism_pipeline::control::device::profile("alveo-u280")
            .unwrap()
            .clone(),
        2,
    );
    s.set_wan_ports(&[WAN]).unwrap();
    s.set_wan_address(Some((Ipv4Address(WAN_IP), EthernetAddress(WAN_MAC))));
    for n in networks {
        s.add_network(n).unwrap();
    }
    s
}

/// A node's worker: one pipeline across calls.
struct Node {
    s: Substrate,
    p: Pipeline,
}

impl Node {
    fn new(networks: Vec<NetworkSpec>, cfg: PipelineConfig) -> Self {
        let s = node(networks);
        let p = Pipeline::new(s.handle(), cfg);
        Self { s, p }
    }

    /// `frame` in on `port` at `now_s`: what leaves (port, frame).
    fn send(&mut self, port: u16, frame: &[u8], now_s: u64) -> Option<(u16, Vec<u8>)> {
        let mut batch = vec![self.p.pool.packet(frame, port, 0).unwrap()];
        self.p.process(&mut batch, now_s * 1_000_000_000);
        (0..2).find_map(|port| {
            let mut v = Vec::new();
            self.p.transmit(port, usize::MAX, &mut v);
            v.first().map(|x| (port, x.data().to_vec()))
        })
    }

    fn drops(&self, net: Option<&str>, r: DropReason) -> u64 {
        let c = self.p.counters();
        match net.and_then(|n| self.s.id(n)) {
            Some(id) => c.networks[usize::from(id)].drops[r.index()],
            None => c.unmapped.drops[r.index()],
        }
    }
}

fn udp_out(vlan: u16, src: [u8; 4], sport: u16) -> Vec<u8> {
    let mut v = Vec::new();
    PacketBuilder::ethernet2(HOST, GW)
        .single_vlan(vlan.try_into().unwrap())
        .ipv4(src, REMOTE, 64)
        .udp(sport, 53)
        .write(&mut v, b"query")
        .unwrap();
    v
}

fn udp_back(dst: [u8; 4], dport: u16) -> Vec<u8> {
    let mut v = Vec::new();
    PacketBuilder::ethernet2(ROUTER, WAN_MAC)
        .ipv4(REMOTE, dst, 60)
        .udp(53, dport)
        .write(&mut v, b"answer")
        .unwrap();
    v
}

/// What etherparse reads of a frame whose checksums it has verified:
/// (VLAN or 0, source, destination, source port, destination port).
fn read(frame: &[u8]) -> (u16, [u8; 4], [u8; 4], u16, u16) {
    let s = SlicedPacket::from_ethernet(frame).expect("etherparse reads it");
    let vlan = match &s.vlan {
        Some(VlanSlice::SingleVlan(v)) => v.vlan_identifier().value(),
        None => 0,
        Some(_) => panic!("two tags"),
    };
    let Some(NetSlice::Ipv4(ip)) = &s.net else {
        panic!("not IPv4")
    };
    let h = ip.header().to_header();
    assert_eq!(
        h.header_checksum,
        h.calc_header_checksum(),
        "IPv4 header checksum"
    );
    let payload = ip.payload().payload;
    let ports = match s.transport.as_ref().expect("a transport header") {
        TransportSlice::Udp(u) => {
            let want = u.to_header().calc_checksum_ipv4(&h, u.payload()).unwrap();
            assert_eq!(u.checksum(), want, "UDP checksum");
            (u.source_port(), u.destination_port())
        }
        TransportSlice::Tcp(t) => {
            let want = t.to_header().calc_checksum_ipv4(&h, t.payload()).unwrap();
            assert_eq!(t.checksum(), want, "TCP checksum");
            (t.source_port(), t.destination_port())
        }
        TransportSlice::Icmpv4(i) => {
            let want = Icmpv4Header::with_checksum(i.icmp_type(), i.payload()).checksum;
            assert_eq!(i.checksum(), want, "ICMP checksum");
            let id = match i.icmp_type() {
                Icmpv4Type::EchoRequest(e) | Icmpv4Type::EchoReply(e) => e.id,
                _ => 0,
            };
            (id, id)
        }
        _ => panic!("{payload:?}"),
    };
    (vlan, h.source, h.destination, ports.0, ports.1)
}

#[test]
fn outgoing_udp_is_translated_and_its_answer_comes_back_to_its_host_and_vlan() {
    let mut n = Node::new(
        vec![network("lab", 100, vec![nat(100)])],
        Default::default(),
    );
    let (port, out) = n.send(LAN, &udp_out(100, H7, 4000), 0).unwrap();
    assert_eq!(port, WAN);
    assert_eq!(
        read(&out),
        (0, WAN_IP, REMOTE, 4000, 53),
        "source NATed, port kept"
    );
    assert_eq!(&out[..12], [ROUTER, WAN_MAC].concat());
    let (port, back) = n.send(WAN, &udp_back(WAN_IP, 4000), 1).unwrap();
    assert_eq!(port, LAN);
    assert_eq!(read(&back), (100, REMOTE, H7, 53, 4000));
    assert_eq!(n.p.nat_stats().unwrap().live, 1);
}

#[test]
fn two_hosts_on_one_port_and_two_networks_on_one_address_stay_apart() {
    let nets = vec![
        network("red", 100, vec![nat(100)]),
        network("blue", 200, vec![nat(200)]),
    ];
    let mut n = Node::new(nets, Default::default());
    let mut ext = Vec::new();
    for (vlan, host) in [(100, H7), (100, H8), (200, H7)] {
        let (_, out) = n.send(LAN, &udp_out(vlan, host, 4000), 0).unwrap();
        let (_, src, _, sport, _) = read(&out);
        assert_eq!(src, WAN_IP);
        ext.push(sport);
    }
    let mut unique = ext.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 3, "one external port per flow: {ext:?}");
    for (e, (vlan, host)) in ext.iter().zip([(100, H7), (100, H8), (200, H7)]) {
        let (_, back) = n.send(WAN, &udp_back(WAN_IP, *e), 1).unwrap();
        assert_eq!(read(&back), (vlan, REMOTE, host, 53, 4000));
    }
}

#[test]
fn tcp_and_ping_are_translated_both_ways() {
    let mut n = Node::new(
        vec![network("lab", 100, vec![nat(100)])],
        Default::default(),
    );
    let mut syn = Vec::new();
    PacketBuilder::ethernet2(HOST, GW)
        .single_vlan(100.try_into().unwrap())
        .ipv4(H7, REMOTE, 64)
        .tcp(40000, 80, 1, 1000)
        .syn()
        .write(&mut syn, &[])
        .unwrap();
    let (_, out) = n.send(LAN, &syn, 0).unwrap();
    assert_eq!(read(&out), (0, WAN_IP, REMOTE, 40000, 80));
    let mut ack = Vec::new();
    PacketBuilder::ethernet2(ROUTER, WAN_MAC)
        .ipv4(REMOTE, WAN_IP, 60)
        .tcp(80, 40000, 9, 1000)
        .syn()
        .ack(2)
        .write(&mut ack, &[])
        .unwrap();
    let (_, back) = n.send(WAN, &ack, 0).unwrap();
    assert_eq!(read(&back), (100, REMOTE, H7, 80, 40000));
    let mut ping = Vec::new();
    PacketBuilder::ethernet2(HOST, GW)
        .single_vlan(100.try_into().unwrap())
        .ipv4(H7, REMOTE, 64)
        .icmpv4_echo_request(7, 1)
        .write(&mut ping, b"ping")
        .unwrap();
    let (_, out) = n.send(LAN, &ping, 0).unwrap();
    let (_, src, _, id, _) = read(&out);
    assert_eq!(src, WAN_IP);
    let mut pong = Vec::new();
    PacketBuilder::ethernet2(ROUTER, WAN_MAC)
        .ipv4(REMOTE, WAN_IP, 60)
        .icmpv4_echo_reply(id, 1)
        .write(&mut pong, b"ping")
        .unwrap();
    let (_, back) = n.send(WAN, &pong, 0).unwrap();
    assert_eq!(read(&back), (100, REMOTE, H7, 7, 7), "identifier restored");
}

#[test]
fn an_icmp_error_about_a_flow_reaches_its_host_with_the_quote_translated() {
    let mut n = Node::new(
        vec![network("lab", 100, vec![nat(100)])],
        Default::default(),
    );
    let (_, out) = n.send(LAN, &udp_out(100, H7, 80), 0).unwrap();
    let (_, _, _, ext, _) = read(&out);
    assert_ne!(ext, 80, "a privileged port is not kept");
    // A router on the way quotes the translated packet's header and 8 bytes.
    let ip_at = 14;
    let quote = &out[ip_at..ip_at + 28];
    let mut err = Vec::new();
    PacketBuilder::ethernet2(ROUTER, WAN_MAC)
        .ipv4([198, 51, 100, 1], WAN_IP, 60)
        .icmpv4(Icmpv4Type::TimeExceeded(
            etherparse::icmpv4::TimeExceededCode::TtlExceededInTransit,
        ))
        .write(&mut err, quote)
        .unwrap();
    let (port, back) = n.send(WAN, &err, 1).unwrap();
    assert_eq!(port, LAN);
    let (vlan, _, dst, ..) = read(&back);
    assert_eq!((vlan, dst), (100, H7));
    let quoted = &back[back.len() - 28..];
    let q = Ipv4HeaderSlice::from_slice(quoted).unwrap().to_header();
    assert_eq!(q.source, H7, "the quote names the host, not the gateway");
    assert_eq!(q.header_checksum, q.calc_header_checksum());
    assert_eq!(u16::from_be_bytes([quoted[20], quoted[21]]), 80);
    // An error about no flow is dropped.
    let mut stray = err.clone();
    stray[14 + 20 + 8 + 20] ^= 1; // the quoted source port
    assert!(n.send(WAN, &stray, 1).is_none());
}

#[test]
fn what_no_flow_or_lease_claims_is_dropped_by_name() {
    let mut n = Node::new(
        vec![network("lab", 100, vec![nat(100)])],
        Default::default(),
    );
    assert!(n.send(WAN, &udp_back(WAN_IP, 4000), 0).is_none());
    assert_eq!(n.drops(None, DropReason::Nat(NatDrop::NoFlow)), 1);
    assert!(n.send(WAN, &udp_back(PUBLIC, 4000), 0).is_none());
    assert_eq!(n.drops(None, DropReason::Wan(WanDrop::NotLeased)), 1);
    // A later fragment going out carries no ports.
    let mut frag = udp_out(100, H7, 4000);
    frag[18 + 6] = 0x00;
    frag[18 + 7] = 0x10;
    frag[18 + 10..18 + 12].fill(0);
    let c = Ipv4HeaderSlice::from_slice(&frag[18..])
        .unwrap()
        .to_header();
    frag[18 + 10..18 + 12].copy_from_slice(&c.calc_header_checksum().to_be_bytes());
    assert!(n.send(LAN, &frag, 0).is_none());
    assert_eq!(n.drops(Some("lab"), DropReason::Nat(NatDrop::Fragment)), 1);
    // A flow past UDP's 300 s is gone.
    n.send(LAN, &udp_out(100, H7, 4000), 0).unwrap();
    assert!(n.send(WAN, &udp_back(WAN_IP, 4000), 299).is_some());
    assert!(n.send(WAN, &udp_back(WAN_IP, 4000), 600).is_none());
    assert_eq!(n.drops(None, DropReason::Nat(NatDrop::NoFlow)), 2);
}

#[test]
fn a_full_table_refuses_new_flows_and_keeps_the_old_ones() {
    let cfg = PipelineConfig {
        nat: prism_pipeline::wan::nat::NatConfig {
            capacity: 2,
            ..Default::default()
        },
        ..Default::default()
    };
    let mut n = Node::new(vec![network("lab", 100, vec![nat(100)])], cfg);
    for port in [4000, 4001] {
        assert!(n.send(LAN, &udp_out(100, H7, port), 0).is_some());
    }
    assert!(n.send(LAN, &udp_out(100, H7, 4002), 0).is_none());
    assert_eq!(n.drops(Some("lab"), DropReason::Nat(NatDrop::TableFull)), 1);
    for port in [4000, 4001] {
        assert!(n.send(LAN, &udp_out(100, H7, port), 1).is_some());
        let (_, back) = n.send(WAN, &udp_back(WAN_IP, port), 1).unwrap();
        assert_eq!(read(&back).2, H7);
    }
}

#[test]
fn a_public_address_reaches_its_host_and_its_host_leaves_from_it() {
    let public = public_for(H7);
    let mut n = Node::new(
        vec![network("lab", 100, vec![nat(100), public])],
        Default::default(),
    );
    let (port, inn) = n.send(WAN, &udp_back(PUBLIC, 7000), 0).unwrap();
    assert_eq!(port, LAN);
    assert_eq!(
        read(&inn),
        (100, REMOTE, H7, 53, 7000),
        "1:1, the port untouched"
    );
    let (_, out) = n.send(LAN, &udp_out(100, H7, 7000), 0).unwrap();
    assert_eq!(read(&out), (0, PUBLIC, REMOTE, 7000, 53));
    let (_, other) = n.send(LAN, &udp_out(100, H8, 7000), 0).unwrap();
    assert_eq!(read(&other).1, WAN_IP, "a host without one leaves by NAT");
    assert_eq!(n.p.nat_stats().unwrap().live, 1);
    // Released: the address is no one's.
    n.s.replace_network(network("lab", 100, vec![nat(100)]))
        .unwrap();
    assert!(n.send(WAN, &udp_back(PUBLIC, 7000), 1).is_none());
    assert_eq!(n.drops(None, DropReason::Wan(WanDrop::NotLeased)), 1);
    let (_, out) = n.send(LAN, &udp_out(100, H7, 7000), 1).unwrap();
    assert_eq!(read(&out).1, WAN_IP);
}

#[test]
fn a_public_address_claimed_twice_is_refused() {
    let mut s = node(vec![network("a", 100, vec![public_for(H7)])]);
    let e = s
        .add_network(network("b", 200, vec![public_for(H8)]))
        .unwrap_err();
    assert!(matches!(e, SubstrateError::TunnelTaken { .. }), "{e}");
    assert!(s.id("b").is_none());
}

#[test]
fn tunnels_of_a_gateway_network_and_networks_without_one_pass_untranslated() {
    let mut n = Node::new(vec![network("plain", 100, vec![])], Default::default());
    let (_, out) = n.send(LAN, &udp_out(100, H7, 4000), 0).unwrap();
    assert_eq!(read(&out).1, H7);
    assert!(n.p.nat_stats().is_none(), "no table made");
    let mut span = network("span", 100, vec![nat(100)]);
    let ForwardingSpec::Destination(routes) = &mut span.forwarding else {
        unreachable!()
    };
    let across = Action {
        out_port: Some(WAN),
        ipip: IpipOp::Encap {
            src: Ipv4Address([198, 18, 0, 1]),
            dst: Ipv4Address([203, 0, 113, 2]),
        },
        vlan: VlanOp::Pop,
        ..Default::default()
    };
    routes.push(("192.0.2.0/24".parse().unwrap(), across));
    let mut n = Node::new(vec![span], Default::default());
    let (port, out) = n.send(LAN, &udp_out(100, H7, 4000), 0).unwrap();
    assert_eq!(port, WAN);
    let s = SlicedPacket::from_ethernet(&out).unwrap();
    let Some(NetSlice::Ipv4(ip)) = &s.net else {
        panic!()
    };
    assert_eq!(ip.header().protocol(), IpNumber::IPV4);
    assert_eq!(
        ip.header().source(),
        [198, 18, 0, 1],
        "the tunnel's source kept"
    );
    assert_eq!(n.p.nat_stats().unwrap().live, 0);
}

/// An ARP request (RFC 826) from the router: who has `target`?
fn who_has(target: [u8; 4]) -> Vec<u8> {
    let mut f = Vec::new();
    f.extend_from_slice(&[0xff; 6]);
    f.extend_from_slice(&ROUTER);
    f.extend_from_slice(&[0x08, 0x06, 0, 1, 0x08, 0, 6, 4, 0, 1]);
    f.extend_from_slice(&ROUTER);
    f.extend_from_slice(&REMOTE);
    f.extend_from_slice(&[0; 6]);
    f.extend_from_slice(&target);
    f.resize(60, 0);
    f
}

#[test]
fn the_gateway_answers_arp_for_its_address_and_leased_ones_only() {
    let public = public_for(H7);
    let mut n = Node::new(
        vec![network("lab", 100, vec![nat(100), public])],
        Default::default(),
    );
    for target in [WAN_IP, PUBLIC] {
        let (port, reply) = n.send(WAN, &who_has(target), 0).unwrap();
        assert_eq!(port, WAN, "out the way it came");
        let mut want = Vec::new();
        want.extend_from_slice(&ROUTER);
        want.extend_from_slice(&WAN_MAC);
        want.extend_from_slice(&[0x08, 0x06, 0, 1, 0x08, 0, 6, 4, 0, 2]);
        want.extend_from_slice(&WAN_MAC);
        want.extend_from_slice(&target);
        want.extend_from_slice(&ROUTER);
        want.extend_from_slice(&REMOTE);
        assert_eq!(&reply[..42], &want[..], "an RFC 826 reply");
    }
    assert!(n.send(WAN, &who_has([203, 0, 113, 99]), 0).is_none());
    assert_eq!(n.drops(None, DropReason::Wan(WanDrop::Unexpected)), 1);
    // Nobody uses the gateway: nobody answers for it.
    let mut quiet = Node::new(vec![network("plain", 100, vec![])], Default::default());
    assert!(quiet.send(WAN, &who_has(WAN_IP), 0).is_none());
}

/// A network removed takes its NAT flows with it (the worker forgets them
/// when it adopts the data plane without it); another network's stay.
#[test]
fn a_removed_network_leaves_no_flow_behind() {
    let mut n = Node::new(
        vec![
            network("lab", 100, vec![nat(100)]),
            network("app", 101, vec![nat(101)]),
        ],
        Default::default(),
    );
    n.send(LAN, &udp_out(100, H7, 4000), 0).unwrap();
    n.send(LAN, &udp_out(101, H7, 4001), 0).unwrap();
    assert_eq!(n.p.nat_stats().unwrap().live, 2);
    n.s.remove_network("lab").unwrap();
    // The next batch adopts the data plane without `lab`.
    n.send(LAN, &udp_out(101, H7, 4001), 1).unwrap();
    assert_eq!(
        n.p.nat_stats().unwrap().live,
        1,
        "lab's flow forgotten, app's kept"
    );
    assert!(
        n.send(WAN, &udp_back(WAN_IP, 4000), 2).is_none(),
        "lab's answer has no way in"
    );
    assert!(
        n.send(WAN, &udp_back(WAN_IP, 4001), 2).is_some(),
        "app's still comes back"
    );
}
