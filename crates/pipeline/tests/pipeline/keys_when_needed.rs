//! The parser builds the packed classification key only when the
//! configuration in force reads one (mapping rules, a rule table, a tap).
//! These check that every reader still gets it: a rule table reached by the
//! default network, with no mapping rule at all, and the same after a
//! configuration without any reader is replaced by one with a reader.

use etherparse::PacketBuilder;
use prism_pipeline::*;
use prism_tables::{PortRange, Ternary};

fn udp(dst_port: u16) -> Vec<u8> {
    let mut v = Vec::new();
    PacketBuilder::ethernet2([2, 0, 0, 0, 0, 0xa], [2, 0, 0, 0, 0, 0xb])
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
        .udp(1000, dst_port)
        .write(&mut v, b"key")
        .unwrap();
    v
}

fn out(port: u16) -> Action {
    Action {
        out_port: Some(port),
        ..Action::default()
    }
}

fn network(name: &str, forwarding: ForwardingSpec) -> NetworkSpec {
    NetworkSpec {
        name: name.into(),
        tier: Tier::Hardware,
        mapping: vec![],
        forwarding,
        rate_limit: None,
        software_channel: None,
        quantum: 1514,
        tunnels: Vec::new(),
        program: None,
    }
}

fn by_port() -> ForwardingSpec {
    ForwardingSpec::Rules {
        rules: vec![RuleSpec {
            priority: 1,
            fields: Ternary::ANY,
            src_port: PortRange::ANY,
            dst_port: PortRange::exact(80),
            action: out(1),
        }],
        default: Some(out(2)),
    }
}

/// Ports the frames left by, in order of `dst_ports`.
fn egress(p: &mut Pipeline, dst_ports: &[u16]) -> Vec<u16> {
    let mut batch: Vec<Packet> = dst_ports
        .iter()
        .map(|d| p.pool.packet(&udp(*d), 0, 0).unwrap())
        .collect();
    p.process(&mut batch, 0);
    let mut sent = Vec::new();
    for port in 0..3 {
        let mut o = Vec::new();
        p.transmit(port, usize::MAX, &mut o);
        for pkt in o {
            let d = u16::from_be_bytes([pkt.data()[36], pkt.data()[37]]);
            sent.push((d, port));
            p.pool.recycle(pkt);
        }
    }
    dst_ports
        .iter()
        .map(|d| sent.iter().find(|(x, _)| x == d).map_or(u16::MAX, |s| s.1))
        .collect()
}

fn substrate() -> Substrate {
    Substrate::new(
        prism_pipeline::control::device::profile("alveo-u280")
            .unwrap()
            .clone(),
        3,
    )
}

#[test]
fn a_rule_table_reached_by_default_reads_the_key() {
    let mut s = substrate();
    s.add_network(network("acl", by_port())).unwrap();
    s.set_default_network(Some("acl")).unwrap();
    let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
    assert_eq!(egress(&mut p, &[80, 81]), vec![1, 2]);
}

#[test]
fn a_reader_published_later_gets_keys() {
    let mut s = substrate();
    let route = ForwardingSpec::Destination(vec![("0.0.0.0/0".parse().unwrap(), out(0))]);
    s.add_network(network("routed", route)).unwrap();
    s.set_default_network(Some("routed")).unwrap();
    let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
    assert_eq!(egress(&mut p, &[80, 81]), vec![0, 0]);
    s.add_network(network("acl", by_port())).unwrap();
    s.set_default_network(Some("acl")).unwrap();
    assert_eq!(egress(&mut p, &[80, 81]), vec![1, 2]);
}
