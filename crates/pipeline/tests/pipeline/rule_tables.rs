//! The pipeline's own answers for rule-table networks against the linear
//! reference, on every ClassBench filter set of the shared data with its
//! header trace (or, for a set without one, a header drawn inside each
//! rule): each header sent as a frame through the whole pipeline, the rule
//! that won read back from the frame that came out.
//!
//! Two ways in: one network as the default (the batch is one network's and
//! its keys are walked together), and two networks chosen by a mapping rule
//! on the protocol (the design-select table is then a rule set walked by
//! the trees too, and each batch mixes the networks' packets). A frame
//! that matches no rule takes its network's default action.
//!
//! Each header becomes the frame that can carry it: TCP and UDP with the
//! trace's ports; any other protocol with no ports (ICMP's type and code
//! both 0, the key's ports for it), and the reference is asked for that key.

use etherparse::{IpNumber, PacketBuilder};
use prism_pipeline::*;
use prism_tables::classbench::{TraceEntry, parse_filters, parse_trace};
use prism_tables::{Key, LinearClassifier, PortRange, Rule, Ternary};
use prism_wire::{EthernetAddress, FlowKey};
use rand::{Rng, SeedableRng};
use std::io::BufReader;

/// Which rule won, as the frame's new destination MAC says: the network's
/// tag and the rule's id (`u32::MAX` for the default action).
fn mac(net: u8, rule: u32) -> EthernetAddress {
    let r = rule.to_be_bytes();
    EthernetAddress([2, net, r[0], r[1], r[2], r[3]])
}

fn hop(net: u8, rule: u32) -> Action {
    Action {
        out_port: Some(1),
        set_dst_mac: Some(mac(net, rule)),
        ..Action::default()
    }
}

fn network(name: &str, tag: u8, rules: &[Rule], mapping: Vec<MappingRule>) -> NetworkSpec {
    let rules = rules
        .iter()
        .map(|r| RuleSpec {
            priority: r.priority,
            fields: r.fields,
            src_port: r.src_port,
            dst_port: r.dst_port,
            action: hop(tag, r.id),
        })
        .collect();
    NetworkSpec {
        name: name.into(),
        tier: Tier::Hardware,
        mapping,
        forwarding: ForwardingSpec::Rules {
            rules,
            default: Some(hop(tag, u32::MAX)),
        },
        rate_limit: None,
        software_channel: None,
        quantum: 1514,
        tunnels: Vec::new(),
        program: None,
    }
}

/// The five-tuple of a trace entry (`Key::from_flow`'s layout).
fn five_tuple(k: &Key) -> (u32, u32, u16, u16, u8) {
    let w = k.0;
    let proto = (w[4] >> 48) as u8;
    let (sp, dp) = ((w[2] >> 48) as u16, (w[2] >> 32) as u16);
    ((w[0] >> 32) as u32, w[0] as u32, sp, dp, proto)
}

/// The frame for one header, numbered `seq` in its payload, and the key a
/// frame like it has (ports only where the frame carries them).
fn frame(k: &Key, seq: u32) -> (Vec<u8>, Key) {
    let (src, dst, sp, dp, proto) = five_tuple(k);
    let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]).ipv4(
        src.to_be_bytes(),
        dst.to_be_bytes(),
        64,
    );
    let mut v = Vec::new();
    let ported = match proto {
        6 => b
            .tcp(sp, dp, 1, 1024)
            .write(&mut v, &seq.to_be_bytes())
            .is_ok(),
        17 => b.udp(sp, dp).write(&mut v, &seq.to_be_bytes()).is_ok(),
        _ => {
            let mut payload = [0u8; 12];
            payload[8..].copy_from_slice(&seq.to_be_bytes());
            b.write(&mut v, IpNumber(proto), &payload).unwrap();
            false
        }
    };
    let (sp, dp) = if ported { (sp, dp) } else { (0, 0) };
    let key = Key::from_flow(&FlowKey {
        src_ip: src,
        dst_ip: dst,
        src_port: sp,
        dst_port: dp,
        proto,
        ..Default::default()
    });
    (v, key)
}

/// The sequence number a frame carries at its end.
fn seq_of(frame: &[u8]) -> usize {
    let t = &frame[frame.len() - 4..];
    u32::from_be_bytes([t[0], t[1], t[2], t[3]]) as usize
}

/// Headers drawn inside each rule (a set shipped without a trace).
fn drawn(rules: &[Rule]) -> Vec<Key> {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
    let mut pick = |value: u32, mask: u32| value | (rng.random::<u32>() & !mask);
    let mut keys = Vec::new();
    for r in rules {
        let f = r.fields;
        let src = pick((f.value[0] >> 32) as u32, (f.mask[0] >> 32) as u32);
        let dst = pick(f.value[0] as u32, f.mask[0] as u32);
        keys.push(Key::from_flow(&FlowKey {
            src_ip: src,
            dst_ip: dst,
            src_port: r.src_port.lo,
            dst_port: r.dst_port.hi,
            proto: 6,
            ..Default::default()
        }));
    }
    keys
}

/// Every frame through `p` in batches of 64; the destination MAC each
/// came out with, by sequence number.
fn forward(p: &mut Pipeline, frames: &[Vec<u8>]) -> Vec<Option<[u8; 6]>> {
    let mut seen = vec![None; frames.len()];
    let mut out = Vec::new();
    for chunk in frames.chunks(64) {
        let mut batch: Vec<Packet> = chunk
            .iter()
            .map(|f| p.pool.packet(f, 0, 0).unwrap())
            .collect();
        p.process(&mut batch, 0);
        p.transmit(1, usize::MAX, &mut out);
        for pkt in out.drain(..) {
            let d = pkt.data();
            seen[seq_of(d)] = Some(<[u8; 6]>::try_from(&d[..6]).unwrap());
            p.pool.recycle(pkt);
        }
    }
    seen
}

fn check_set(set: &str, trace: Option<&str>) {
    let test = format!("rule_tables::{set}");
    let Some(file) = prism_testkit::shared_data(&test, &format!("classbench/{set}")) else {
        return;
    };
    let open = |p| BufReader::new(std::fs::File::open(p).unwrap());
    let rules = parse_filters(open(&file), set).unwrap();
    let headers: Vec<Key> = match trace {
        Some(t) => {
            let Some(tf) = prism_testkit::shared_data(&test, &format!("classbench/{t}")) else {
                return;
            };
            let entries: Vec<TraceEntry> = parse_trace(open(&tf), t).unwrap();
            entries.into_iter().map(|e| e.key).collect()
        }
        None => drawn(&rules),
    };
    let mut reference = LinearClassifier::new();
    for r in &rules {
        reference.insert(*r);
    }
    let (frames, keys): (Vec<_>, Vec<_>) = headers
        .iter()
        .enumerate()
        .map(|(i, k)| frame(k, i as u32))
        .unzip();
    let profile = prism_pipeline::control::device::profile("nac-tcam")
        .unwrap()
        .clone();
    // One network, the default: whole batches of its packets.
    let mut s = Substrate::new(profile.clone(), 2);
    s.add_network(network("acl", 1, &rules, vec![])).unwrap();
    s.set_default_network(Some("acl")).unwrap();
    let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
    let got = forward(&mut p, &frames);
    // Two networks by a mapping rule on the protocol: mixed batches.
    let mut s = Substrate::new(profile, 2);
    let tcp = MappingRule {
        priority: 1,
        fields: Ternary::ANY.proto(6, 0xff),
        src_port: PortRange::ANY,
        dst_port: PortRange::ANY,
    };
    s.add_network(network("tcp", 2, &rules, vec![tcp])).unwrap();
    s.add_network(network("rest", 3, &rules, vec![])).unwrap();
    s.set_default_network(Some("rest")).unwrap();
    let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
    let mixed = forward(&mut p, &frames);
    for (i, key) in keys.iter().enumerate() {
        let rule = reference.lookup(key).map_or(u32::MAX, |m| m.id);
        let tag = if five_tuple(key).4 == 6 { 2 } else { 3 };
        let line = i + 1;
        assert_eq!(
            got[i],
            Some(mac(1, rule).0),
            "{set}: header {line}, one network"
        );
        assert_eq!(
            mixed[i],
            Some(mac(tag, rule).0),
            "{set}: header {line}, two networks"
        );
    }
}

#[test]
fn acl1_1k() {
    check_set("acl1_1k", Some("acl1_1k_trace"));
}

#[test]
fn acl1_10k() {
    check_set("acl1_10k", None);
}

#[test]
fn fw1_1k() {
    check_set("fw1_1k", Some("fw1_1k_trace"));
}

#[test]
fn fw1_10k() {
    check_set("fw1_10k", Some("fw1_10k_trace"));
}

#[test]
fn ipc1_1k() {
    check_set("ipc1_1k", Some("ipc1_1k_trace"));
}

#[test]
fn ipc1_10k() {
    check_set("ipc1_10k", Some("ipc1_10k_trace"));
}

/// Rule changes while a rule-table network forwards: after each change
/// (one rule's action, the whole document given, taken in place by the
/// trees, their rebuilds included), the very next batch forwards by the new
/// rules. Every header of the set is sent between changes, each checked
/// against the linear reference of the rules in force.
#[test]
fn every_rule_change_is_seen_by_the_next_batch() {
    let test = "rule_tables::every_rule_change_is_seen_by_the_next_batch";
    let Some(file) = prism_testkit::shared_data(test, "classbench/acl1_1k") else {
        return;
    };
    let open = |p| BufReader::new(std::fs::File::open(p).unwrap());
    let mut rules = parse_filters(open(&file), "acl1_1k").unwrap();
    let (frames, keys): (Vec<_>, Vec<_>) = drawn(&rules)
        .iter()
        .enumerate()
        .map(|(i, k)| frame(k, i as u32))
        .unzip();
    let profile = prism_pipeline::control::device::profile("nac-tcam")
        .unwrap()
        .clone();
    let mut s = Substrate::new(profile, 2);
    s.add_network(network("acl", 1, &rules, vec![])).unwrap();
    s.set_default_network(Some("acl")).unwrap();
    let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
    let mut rng = rand::rngs::SmallRng::seed_from_u64(17);
    // 120 changes: past the trees' rebuild after one change in 32 rules.
    for change in 0..120 {
        // A rule takes another's priority and fields: the winners move.
        let (i, j) = (
            rng.random_range(0..rules.len()),
            rng.random_range(0..rules.len()),
        );
        let id = rules[i].id;
        rules[i] = rules[j];
        rules[i].id = id;
        s.replace_network(network("acl", 1, &rules, vec![]))
            .unwrap();
        let mut reference = LinearClassifier::new();
        for r in &rules {
            reference.insert(*r);
        }
        let got = forward(&mut p, &frames);
        for (h, key) in keys.iter().enumerate() {
            let want = reference.lookup(key).map_or(u32::MAX, |m| m.id);
            assert_eq!(
                got[h],
                Some(mac(1, want).0),
                "change {change}, header {}",
                h + 1
            );
        }
    }
}

mod property {
    //! Random rule sets through the pipeline against the linear reference:
    //! rules on the five-tuple (decision trees) and, in some sets, a rule on
    //! the VLAN (tuple-space search), with priorities that tie and
    //! prefixes that nest.

    use super::*;
    use prism_tables::Ipv4Prefix;
    use proptest::prelude::*;

    /// Source and destination (address, length), destination port (low,
    /// span), TCP, priority.
    type RawRule = (u32, u8, u32, u8, u16, u16, bool, u32);

    fn rule() -> impl Strategy<Value = RawRule> {
        (
            0u32..16,
            0u8..=32,
            0u32..16,
            0u8..=32,
            0u16..4,
            0u16..4,
            any::<bool>(),
            0u32..4,
        )
    }

    fn build(raw: &[RawRule], vlan: bool) -> Vec<Rule> {
        let mut rules: Vec<Rule> = raw
            .iter()
            .enumerate()
            .map(|(i, &(s, sl, d, dl, lo, span, tcp, pri))| {
                let f = Ternary::ANY
                    .src_ip(Ipv4Prefix::new(0x0a00_0000 | s << 4, sl))
                    .dst_ip(Ipv4Prefix::new(0x0a00_0000 | d << 4, dl))
                    .proto(
                        if tcp { 6 } else { 17 },
                        if tcp || pri % 2 == 0 { 0xff } else { 0 },
                    );
                Rule::new(i as u32, pri, f, 0)
                    .with_ports(PortRange::ANY, PortRange { lo, hi: lo + span })
            })
            .collect();
        if vlan {
            let id = rules.len() as u32;
            rules.push(Rule::new(id, 2, Ternary::ANY.vlan(Some(7)), 0));
        }
        rules
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn the_pipeline_answers_as_the_linear_reference(
            raw in proptest::collection::vec(rule(), 1..40),
            vlan in any::<bool>(),
            headers in proptest::collection::vec((0u32..256, 0u32..256, 0u16..8, any::<bool>()), 64),
        ) {
            let rules = build(&raw, vlan);
            let mut reference = LinearClassifier::new();
            for r in &rules {
                reference.insert(*r);
            }
            let (frames, keys): (Vec<_>, Vec<_>) = headers
                .iter()
                .enumerate()
                .map(|(i, &(s, d, dp, tcp))| {
                    let k = Key::from_flow(&FlowKey {
                        src_ip: 0x0a00_0000 | s,
                        dst_ip: 0x0a00_0000 | d,
                        src_port: 1000,
                        dst_port: dp,
                        proto: if tcp { 6 } else { 17 },
                        ..Default::default()
                    });
                    frame(&k, i as u32)
                })
                .unzip();
            let mut s = Substrate::new(prism_pipeline::control::device::profile("nac-tcam").unwrap().clone(), 2);
            s.add_network(network("p", 1, &rules, vec![])).unwrap();
            s.set_default_network(Some("p")).unwrap();
            let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
            let got = forward(&mut p, &frames);
            for (i, k) in keys.iter().enumerate() {
                // The frames are untagged: the VLAN rule never matches,
                // but its presence changes the table's kind.
                let want = reference.lookup(k).map_or(u32::MAX, |m| m.id);
                prop_assert_eq!(got[i], Some(mac(1, want).0), "header {}", i);
            }
        }
    }
}
