//! A batch whose network is known up front (no mapping rule, a hardware
//! default network) goes through stages 1 to 4 in one pass per packet
//! when the network routes by destination (`routed_batch`), in three
//! passes when its table is a rule set (`ruled_batch`: keys, the trees'
//! walk, actions); with a mapping rule the same network's packets take the
//! staged loops. The staged loops are the reference: on random batches (plain, tagged, IPIP, with options, bad
//! checksums, cut short, TTLs near expiry, not IPv4; routed to hops, to
//! general actions, to drops, to software, or to no route) both paths must
//! send the same bytes out of each port and to software, and leave the same
//! counters, drops by reason included.

use prism_pipeline::traffic::{FrameSpec, build};
use prism_pipeline::*;
use prism_tables::{Ipv4Prefix, PortRange, Ternary};
use prism_wire::{EthernetAddress, Ipv4Address};
use proptest::prelude::*;
use proptest::strategy::ValueTree;

/// Five routes, one per kind of outcome; with `big`, 400 host routes
/// besides, which put the table past the size the dataplane copies into
/// its arena (so the one-pass path reads the network's own table).
fn routes(big: bool) -> Vec<(Ipv4Prefix, Action)> {
    let p = |s: &str| s.parse::<Ipv4Prefix>().unwrap();
    let hop = Action {
        out_port: Some(1),
        decrement_ttl: true,
        set_src_mac: Some(EthernetAddress([2, 0, 0, 0, 0, 0xfe])),
        set_dst_mac: Some(EthernetAddress([2, 0, 0, 0, 0, 0xfd])),
        ..Action::default()
    };
    let hosts = (0..400u32).map(|i| (Ipv4Prefix::new(0x0b00_0001 | (i << 8), 32), hop));
    let mut r = vec![
        (p("10.1.0.0/16"), hop),
        (
            p("10.2.0.0/16"),
            Action {
                out_port: Some(2),
                set_dst_mac: Some(EthernetAddress([2, 0, 0, 0, 0, 0xfc])),
                ..Action::default()
            },
        ),
        (
            p("10.3.0.0/16"),
            Action {
                vlan: VlanOp::Push { vid: 7 },
                ..hop
            },
        ),
        (p("10.4.0.0/16"), Action { drop: true, ..hop }),
        (
            p("10.5.0.0/16"),
            Action {
                to_software: Some(1),
                ..hop
            },
        ),
    ];
    if big {
        r.extend(hosts);
    }
    r
}

/// The routes as a rule table: each a rule on the destination prefix and
/// one on the inner destination (an IPIP packet's), longer prefixes first; above them one on more fields (UDP from
/// 10.0.0.0/24 to port 9 of 10.2.0.0/17, the frames' own addresses and
/// port: out of port 1, not 2); no default (no rule: no route).
fn rules(big: bool) -> ForwardingSpec {
    let p = |s: &str| s.parse::<Ipv4Prefix>().unwrap();
    let rule = |priority, fields, dst_port, action| RuleSpec {
        priority,
        fields,
        src_port: PortRange::ANY,
        dst_port,
        action,
    };
    let mut rules: Vec<RuleSpec> = routes(big)
        .into_iter()
        .flat_map(|(to, a)| {
            let at = u32::from(to.len());
            [
                rule(at, Ternary::default().dst_ip(to), PortRange::ANY, a),
                rule(at, Ternary::default().inner_dst_ip(to), PortRange::ANY, a),
            ]
        })
        .collect();
    let fields = Ternary::default()
        .src_ip(p("10.0.0.0/24"))
        .dst_ip(p("10.2.0.0/17"))
        .proto(17, 0xff);
    let port9 = PortRange { lo: 9, hi: 9 };
    rules.push(rule(100, fields, port9, routes(false)[0].1));
    ForwardingSpec::Rules {
        rules,
        default: None,
    }
}

/// The network's table: destination routes, or the same as rules.
#[derive(Debug, Clone, Copy)]
enum Table {
    Routes,
    Rules,
}

/// The network, reached by default; with `rule`, also by a mapping rule
/// (which sends every batch through the staged loops).
fn substrate(rule: bool, big: bool, table: Table) -> Substrate {
    let mut s = Substrate::new(
        prism_pipeline::control::device::profile("alveo-u280")
            .unwrap()
            .clone(),
        3,
    );
    let mapping = if rule {
        vec![MappingRule {
            priority: 1,
            fields: Ternary::default().in_port(0),
            src_port: PortRange::ANY,
            dst_port: PortRange::ANY,
        }]
    } else {
        vec![]
    };
    s.add_network(NetworkSpec {
        name: "n".into(),
        tier: Tier::Hardware,
        mapping,
        forwarding: match table {
            Table::Routes => ForwardingSpec::Destination(routes(big)),
            Table::Rules => rules(big),
        },
        rate_limit: None,
        software_channel: None,
        quantum: 1514,
        tunnels: Vec::new(),
        program: None,
    })
    .unwrap();
    s.set_default_network(Some("n")).unwrap();
    s
}

/// A frame: IPv4/UDP to one of the routes or to none, tagged or not,
/// IPIP or not, TTL near expiry or not, padded or not; then perhaps with
/// bytes of its first 48 changed (the IPv4 checksum made right again or
/// not), or cut short, or its IPv4 length too short for its UDP header;
/// or a frame of another EtherType.
fn frame() -> impl Strategy<Value = Vec<u8>> {
    let ip = (
        (1u8..8, any::<u16>()),
        proptest::option::of(1u16..4095),
        any::<bool>(),
        prop_oneof![0u8..3, Just(64u8)],
        (60usize..200, 0usize..8),
        proptest::collection::vec((0usize..48, any::<u8>()), 0..3),
        any::<bool>(),
        (
            proptest::option::of(1usize..60),
            proptest::option::of(20u16..30),
        ),
    )
        .prop_map(
            |((net, host), vlan, tunnel, ttl, (len, pad), pokes, fix, (cut, short))| {
                let [a, b] = host.to_be_bytes();
                let mut f = build(
                    &FrameSpec {
                        vlan,
                        // Net 7: the host routes' addresses, 11.0.0.1 to 11.1.143.1.
                        dst: Ipv4Address(if net == 7 {
                            [11, a & 1, b, 1]
                        } else {
                            [10, net, a, b]
                        }),
                        tunnel: tunnel
                            .then_some((Ipv4Address([192, 0, 2, 1]), Ipv4Address([192, 0, 2, 2]))),
                        ttl,
                        frame_len: len,
                        ..FrameSpec::default()
                    },
                    b"routed",
                );
                f.extend(std::iter::repeat_n(0xee, pad));
                for (at, v) in &pokes {
                    f[*at] = *v;
                }
                let l3 = if vlan.is_some() { 18 } else { 14 };
                // An IPv4 total length too short for the UDP header.
                if let Some(t) = short.filter(|_| pokes.is_empty()) {
                    f[l3 + 2..l3 + 4].copy_from_slice(&t.to_be_bytes());
                }
                if (fix || short.is_some()) && f.len() >= l3 + 20 {
                    f[l3 + 10..l3 + 12].fill(0);
                    let c = prism_wire::checksum::checksum(&f[l3..l3 + 20]);
                    f[l3 + 10..l3 + 12].copy_from_slice(&c.to_be_bytes());
                }
                if let Some(cut) = cut.filter(|_| pokes.is_empty()) {
                    f.truncate(cut);
                }
                f
            },
        );
    let other = proptest::collection::vec(any::<u8>(), 14..80).prop_map(|mut f| {
        f[12..14].copy_from_slice(&0x88b5u16.to_be_bytes());
        f
    });
    prop_oneof![6 => ip, 1 => other]
}

/// What a pipeline made of `batches`: the frames out of each port and to
/// each software channel; and the pipeline, for its counters.
fn run(s: &Substrate, batches: &[Vec<Vec<u8>>]) -> (Vec<Vec<Vec<u8>>>, Pipeline) {
    let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
    let mut seen = vec![Vec::new(); 3 + prism_pipeline::fast::dataplane::SOFTWARE_CHANNELS];
    for frames in batches {
        let mut batch: Vec<Packet> = frames
            .iter()
            .map(|f| p.pool.packet(f, 0, 1).unwrap())
            .collect();
        p.process(&mut batch, 1);
        let mut out = Vec::new();
        for port in 0..3u16 {
            p.transmit(port, usize::MAX, &mut out);
            seen[usize::from(port)].extend(out.iter().map(|f| f.data().to_vec()));
            p.pool.recycle_all(&mut out);
        }
        for ch in 0..prism_pipeline::fast::dataplane::SOFTWARE_CHANNELS {
            p.software_pop(ch as u8, usize::MAX, &mut out);
            seen[3 + ch].extend(out.iter().map(|f| f.data().to_vec()));
            p.pool.recycle_all(&mut out);
        }
    }
    assert_eq!(p.pool.available(), p.pool.capacity(), "no buffer lost");
    (seen, p)
}

/// Whether `batches` through the network of `table` reached by default
/// (a one-pass path) and by a mapping rule (the staged loops) give the
/// same frames and counters.
fn same_as_staged(table: Table, big: bool, batches: &[Vec<Vec<u8>>]) -> Result<(), TestCaseError> {
    let (fast, a) = run(&substrate(false, big, table), batches);
    let (staged, b) = run(&substrate(true, big, table), batches);
    prop_assert_eq!(fast, staged);
    prop_assert_eq!(
        format!("{:#?}", a.counters()),
        format!("{:#?}", b.counters())
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn one_pass_per_packet_is_the_staged_loops(
        batches in proptest::collection::vec(proptest::collection::vec(frame(), 0..40), 1..4),
        big in any::<bool>(),
    ) {
        same_as_staged(Table::Routes, big, &batches)?;
    }

    #[test]
    fn three_passes_for_a_rule_table_are_the_staged_loops(
        batches in proptest::collection::vec(proptest::collection::vec(frame(), 0..40), 1..4),
        big in any::<bool>(),
    ) {
        same_as_staged(Table::Rules, big, &batches)?;
    }
}

/// The frames the property test makes reach every outcome: out of both
/// ports, to software, and dropped for each of the reasons the one-pass
/// path names (so the comparison above is not of empty batches); and the
/// rule table's rule on more fields than the destination wins for some.
#[test]
fn the_batches_reach_every_outcome() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let frames: Vec<Vec<u8>> = (0..2000)
        .map(|_| frame().new_tree(&mut runner).unwrap().current())
        .collect();
    let batches: Vec<Vec<Vec<u8>>> = frames.chunks(32).map(<[_]>::to_vec).collect();
    let routed = reaches_every_outcome(&substrate(false, false, Table::Routes), &batches);
    let ruled = reaches_every_outcome(&substrate(false, false, Table::Rules), &batches);
    assert!(
        ruled > routed,
        "out of port 1: {ruled} by rules, {routed} by routes"
    );
}

/// Frames out of port 1.
fn reaches_every_outcome(s: &Substrate, batches: &[Vec<Vec<u8>>]) -> usize {
    let (seen, p) = run(s, batches);
    let p = p.snapshot();
    assert!(seen[1].len() > 100 && seen[2].len() > 50, "{p:?}");
    assert!(!seen[3 + 1].is_empty(), "to software");
    let net = &p.networks[0].drops;
    for reason in [
        "matching/no-route",
        "action/ttl-expired",
        "action/drop-action",
    ] {
        assert!(net.get(reason).is_some_and(|n| *n > 0), "{reason}: {net:?}");
    }
    assert!(
        p.unmapped_drops.keys().any(|k| k.starts_with("parse/")),
        "{:?}",
        p.unmapped_drops
    );
    seen[1].len()
}

/// A tap armed on the same network makes the batch take the staged loops,
/// which report each packet's stages: the one-pass path writes no trace.
#[test]
fn a_tap_keeps_its_trace_of_every_packet() {
    let s = substrate(false, false, Table::Routes);
    let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
    p.arm_tap(TapRequest {
        network: Some(0),
        count: 100,
        capture: false,
        snaplen: 0,
    });
    let frames: Vec<Vec<u8>> = (1..=8u8)
        .map(|host| {
            build(
                &FrameSpec {
                    dst: Ipv4Address([10, 1, 0, host]),
                    ..FrameSpec::default()
                },
                b"traced",
            )
        })
        .collect();
    let mut batch: Vec<Packet> = frames
        .iter()
        .map(|f| p.pool.packet(f, 0, 1).unwrap())
        .collect();
    p.process(&mut batch, 1);
    let t = p.take_tap();
    assert_eq!(t.len(), frames.len(), "{t:?}");
    for r in &t {
        let names: Vec<&str> = r.stages.iter().map(|s| s.stage.as_str()).collect();
        assert_eq!(
            (r.point, r.network, names),
            (
                TapPoint::Ingress,
                Some(0),
                vec!["parse", "mapping", "matching", "action"]
            ),
            "{r:?}"
        );
    }
}
