//! The learning bridge (docs/wan.md, "Bridged networks"): a node with LAN
//! ports 0, 1 and 2 and a WAN port 3; bridge network `a` on VLAN 30 with
//! all four ports as members (the WAN member pushes S-tag 3001), bridge
//! network `b` on VLAN 31 with ports 0 and 1. Frames are built and read
//! back by etherparse; one pipeline carries each test's frames in turn, as
//! a node's worker does, so what it learned lives on.

use etherparse::{LinkSlice, PacketBuilder, SlicedPacket, VlanSlice};
use prism_pipeline::*;

const WAN: u16 = 3;
const PORTS: u16 = 4;
const H1: [u8; 6] = [2, 0, 0, 0, 0, 1];
const H2: [u8; 6] = [2, 0, 0, 0, 0, 2];
const H3: [u8; 6] = [2, 0, 0, 0, 0, 3];
const BCAST: [u8; 6] = [0xff; 6];
const S_TAG: u16 = 3001;

fn member(port: u16) -> Action {
    Action {
        out_port: Some(port),
        vlan: if port == WAN {
            VlanOp::Push { vid: S_TAG }
        } else {
            VlanOp::None
        },
        ..Default::default()
    }
}

fn network(name: &str, vlan: u16, ports: &[u16], statics: Vec<([u8; 6], u16)>) -> NetworkSpec {
    let bridge = ForwardingSpec::Bridge(prism_pipeline::fast::bridge::BridgeSpec {
        members: ports.iter().map(|p| member(*p)).collect(),
        statics,
        ageing_s: 60,
    });
    let tunnels = match ports.contains(&WAN) {
        true => vec![TunnelSpec::QinQ {
            s_tag: S_TAG,
            c_tag: Some(vlan),
        }],
        false => Vec::new(),
    };
    fixtures::on_vlan(name, vlan, bridge, tunnels)
}

struct Node {
    s: Substrate,
    p: Pipeline,
}

impl Node {
    fn new(cfg: PipelineConfig) -> Self {
        let mut s = Substrate::new(
            prism_pipeline::control::device::profile("alveo-u280")
                .unwrap()
                .clone(),
            PORTS,
        );
        s.set_wan_ports(&[WAN]).unwrap();
        s.add_network(network("a", 30, &[0, 1, 2, WAN], Vec::new()))
            .unwrap();
        s.add_network(network("b", 31, &[0, 1], Vec::new()))
            .unwrap();
        let p = Pipeline::new(s.handle(), cfg);
        Self { s, p }
    }

    /// `frame` in on `port` at `now_s`: what leaves each port.
    fn send(&mut self, port: u16, frame: &[u8], now_s: u64) -> Vec<Vec<Vec<u8>>> {
        let mut batch = vec![self.p.pool.packet(frame, port, 0).unwrap()];
        self.p.process(&mut batch, now_s * 1_000_000_000);
        (0..PORTS)
            .map(|port| {
                let mut v = Vec::new();
                self.p.transmit(port, usize::MAX, &mut v);
                let out = v.iter().map(|x| x.data().to_vec()).collect();
                self.p.pool.recycle_all(&mut v);
                out
            })
            .collect()
    }

    /// The ports a frame left by.
    fn sent_to(&mut self, port: u16, frame: &[u8], now_s: u64) -> Vec<u16> {
        let outs = self.send(port, frame, now_s);
        (0..PORTS)
            .filter(|p| !outs[usize::from(*p)].is_empty())
            .collect()
    }

    fn drops(&self, net: &str, r: DropReason) -> u64 {
        let id = self.s.id(net).unwrap();
        self.p.counters().networks[usize::from(id)].drops[r.index()]
    }
}

/// A frame of a made-up protocol (EtherType 0x88b5) on `vlan`.
fn frame(vlan: u16, dst: [u8; 6], src: [u8; 6]) -> Vec<u8> {
    let mut f = dst.to_vec();
    f.extend_from_slice(&src);
    f.extend_from_slice(&[0x81, 0x00]);
    f.extend_from_slice(&vlan.to_be_bytes());
    f.extend_from_slice(&[0x88, 0xb5]);
    f.extend_from_slice(b"not IP at all; any EtherType crosses a bridge.");
    f
}

/// An IPv4/UDP frame on `vlan`, built by etherparse.
fn udp(vlan: u16, dst: [u8; 6], src: [u8; 6]) -> Vec<u8> {
    let mut v = Vec::new();
    PacketBuilder::ethernet2(src, dst)
        .single_vlan(vlan.try_into().unwrap())
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
        .udp(4000, 5000)
        .write(&mut v, b"hello")
        .unwrap();
    v
}

/// (outer tag, inner tag) of a frame as etherparse reads it.
fn tags(frame: &[u8]) -> (u16, Option<u16>) {
    let s = SlicedPacket::from_ethernet(frame).expect("etherparse reads it");
    assert!(matches!(s.link, Some(LinkSlice::Ethernet2(_))));
    match s.vlan.expect("tagged") {
        VlanSlice::SingleVlan(v) => (v.vlan_identifier().value(), None),
        VlanSlice::DoubleVlan(d) => (
            d.outer().vlan_identifier().value(),
            Some(d.inner().vlan_identifier().value()),
        ),
    }
}

#[test]
fn unknown_destinations_flood_within_the_network_then_learned_ones_go_to_one_port() {
    let mut n = Node::new(PipelineConfig::default());
    // H1 on port 0 to H2, not yet seen: a copy on every other member,
    // byte for byte; across the WAN under the S-tag over its C-tag.
    let f = frame(30, H2, H1);
    let outs = n.send(0, &f, 0);
    assert!(outs[0].is_empty(), "never back out of the port it came by");
    assert_eq!(outs[1], vec![f.clone()]);
    assert_eq!(outs[2], vec![f.clone()]);
    assert_eq!(outs[3].len(), 1);
    assert_eq!(tags(&outs[3][0]), (S_TAG, Some(30)));
    assert_eq!(&outs[3][0][..12], &f[..12]);
    assert_eq!(&outs[3][0][16..], &f[12..]);
    // H2 answers from port 2: to H1's port only (learned from its frame).
    assert_eq!(n.sent_to(2, &udp(30, H1, H2), 1), vec![0]);
    // Now H1 to H2 goes to port 2 only; IPv4 and any EtherType alike.
    assert_eq!(n.sent_to(0, &f, 2), vec![2]);
    assert_eq!(n.sent_to(0, &udp(30, H2, H1), 2), vec![2]);
    // Broadcast floods whatever is learned.
    assert_eq!(n.sent_to(0, &frame(30, BCAST, H1), 3), vec![1, 2, 3]);
    // A host behind the WAN: its frame arrives under the S-tag, is learned
    // on the WAN member, and H1's answer leaves by the WAN only.
    let mut far = frame(30, H1, H3);
    far.splice(12..12, [0x88, 0xa8, 0x0b, 0xb9]);
    assert_eq!(n.sent_to(WAN, &far, 4), vec![0]);
    let outs = n.send(0, &frame(30, H3, H1), 5);
    assert!(outs[..3].iter().all(Vec::is_empty));
    assert_eq!(tags(&outs[3][0]), (S_TAG, Some(30)));
}

#[test]
fn two_bridges_on_the_same_ports_and_macs_stay_apart() {
    let mut n = Node::new(PipelineConfig::default());
    // In `a`, H2 is learned on port 1; in `b` (VLAN 31), H2 is unknown.
    n.send(1, &frame(30, BCAST, H2), 0);
    assert_eq!(n.sent_to(0, &frame(30, H2, H1), 1), vec![1]);
    let outs = n.send(0, &frame(31, H2, H1), 1);
    assert_eq!(
        outs[1].len(),
        1,
        "flooded within `b`: its only other member"
    );
    assert_eq!(tags(&outs[1][0]), (31, None));
    assert!(outs[2].is_empty() && outs[3].is_empty(), "not `a`'s ports");
    // `b`'s broadcast never reaches `a`'s members 2 and WAN.
    assert_eq!(n.sent_to(1, &frame(31, BCAST, H2), 2), vec![0]);
}

#[test]
fn frames_for_the_port_they_came_by_and_from_non_members_are_dropped_by_name() {
    let mut n = Node::new(PipelineConfig::default());
    n.send(1, &frame(30, BCAST, H2), 0);
    n.send(1, &frame(30, BCAST, H3), 0);
    // H3 to H2, both behind port 1: filtered (802.1D), not sent back.
    assert!(n.sent_to(1, &frame(30, H2, H3), 1).is_empty());
    let same = DropReason::Match(prism_pipeline::fast::reasons::MatchDrop::SamePort);
    assert_eq!(n.drops("a", same), 1);
    // `b` on port 2, which is not one of its members.
    assert!(n.sent_to(2, &frame(31, BCAST, H1), 1).is_empty());
    let not_member = DropReason::Match(prism_pipeline::fast::reasons::MatchDrop::NotMember);
    assert_eq!(n.drops("b", not_member), 1);
}

#[test]
fn a_learned_mac_ages_out_and_a_moved_host_is_found_where_it_is() {
    let mut n = Node::new(PipelineConfig::default());
    n.send(1, &frame(30, BCAST, H2), 100);
    assert_eq!(n.sent_to(0, &frame(30, H2, H1), 160), vec![1]);
    // 61 s unused (ageing 60 s): unknown again, flooded.
    assert_eq!(n.sent_to(0, &frame(30, H2, H1), 221), vec![1, 2, 3]);
    // H2 moves to port 2 and speaks: found there at once.
    n.send(2, &frame(30, BCAST, H2), 222);
    assert_eq!(n.sent_to(0, &frame(30, H2, H1), 222), vec![2]);
}

#[test]
fn static_entries_win_and_survive_what_learning_says() {
    let mut s = Substrate::new(
        prism_pipeline::control::device::profile("alveo-u280")
            .unwrap()
            .clone(),
        PORTS,
    );
    s.set_wan_ports(&[WAN]).unwrap();
    s.add_network(network("a", 30, &[0, 1, 2], vec![(H2, 2)]))
        .unwrap();
    let p = Pipeline::new(s.handle(), PipelineConfig::default());
    let mut n = Node { s, p };
    // A frame claiming H2 from port 1 does not move it.
    n.send(1, &frame(30, BCAST, H2), 0);
    assert_eq!(n.sent_to(0, &frame(30, H2, H1), 1), vec![2]);
}

#[test]
fn a_member_removed_is_never_sent_to_from_what_was_learned() {
    let mut n = Node::new(PipelineConfig::default());
    n.send(2, &frame(30, BCAST, H2), 0);
    assert_eq!(n.sent_to(0, &frame(30, H2, H1), 0), vec![2]);
    n.s.replace_network(network("a", 30, &[0, 1, WAN], Vec::new()))
        .unwrap();
    assert_eq!(n.sent_to(0, &frame(30, H2, H1), 1), vec![1, 3]);
}

#[test]
fn a_flood_without_buffers_for_its_copies_counts_each_missed_member() {
    // Two buffers: the frame itself and one copy; a flood to three
    // members misses one.
    let cfg = PipelineConfig {
        pool_packets: 2,
        ..Default::default()
    };
    let mut n = Node::new(cfg);
    let outs = n.send(0, &frame(30, BCAST, H1), 0);
    assert_eq!(outs.iter().filter(|o| !o.is_empty()).count(), 2);
    let no_buffer = DropReason::Output(prism_pipeline::fast::reasons::OutputDrop::NoBuffer);
    assert_eq!(n.drops("a", no_buffer), 1);
    assert_eq!(n.p.pool.available(), 2, "every buffer back");
}

#[test]
fn the_trace_says_a_frame_was_flooded() {
    let mut n = Node::new(PipelineConfig::default());
    n.p.arm_tap(TapRequest {
        network: None,
        count: 1,
        capture: false,
        snaplen: 0,
    });
    n.send(0, &frame(30, BCAST, H1), 0);
    let records = n.p.take_tap();
    let said: Vec<String> = records[0]
        .stages
        .iter()
        .map(|d| format!("{}: {}", d.stage, d.decision))
        .collect();
    assert!(
        said.iter()
            .any(|d| d.starts_with("matching: bridge") && d.contains("flood")),
        "{said:?}"
    );
}

/// Under a bridged network's S-tag, only frames on its own VLAN (one C-tag,
/// the network's) enter it: another network's C-tag or none are dropped as
/// `wan/wrong-c-tag` and counted (three tags in all are the parser's `too-many-vlan-tags`); an
/// S-tag does not reach every VLAN on the node's side ports.
#[test]
fn under_an_s_tag_only_the_networks_own_vlan_enters() {
    let mut n = Node::new(PipelineConfig::default());
    let under_s_tag = |mut f: Vec<u8>| {
        f.splice(12..12, [0x88, 0xa8, 0x0b, 0xb9]);
        f
    };
    let untagged = {
        let mut f = frame(30, BCAST, H3);
        f.drain(12..16);
        f
    };
    let double = {
        let mut f = frame(30, BCAST, H3);
        f.splice(12..12, [0x81, 0x00, 0x00, 0x1e]);
        f
    };
    // `b`'s VLAN 31, untagged, two C-tags: none reaches a port.
    for (what, inner) in [
        ("b's VLAN", frame(31, BCAST, H3)),
        ("untagged", untagged),
        ("two C-tags", double),
    ] {
        let outs = n.send(WAN, &under_s_tag(inner), 0);
        assert!(outs.iter().all(Vec::is_empty), "{what} under a's S-tag");
    }
    let wrong = DropReason::Wan(prism_pipeline::fast::reasons::WanDrop::WrongCTag);
    // Counted where the WAN side's drops are, before any network; three
    // tags in all are the parser's own refusal.
    let c = n.p.counters();
    assert_eq!(c.unmapped.drops[wrong.index()], 2, "wan/wrong-c-tag");
    let three = DropReason::Parse(prism_wire::Malformed::TooManyVlanTags);
    assert_eq!(
        c.unmapped.drops[three.index()],
        1,
        "parse/too-many-vlan-tags"
    );
    // `a`'s own VLAN floods to a's members.
    assert_eq!(
        n.sent_to(WAN, &under_s_tag(frame(30, BCAST, H3)), 1),
        vec![0, 1, 2]
    );
}
