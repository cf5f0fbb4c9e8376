//! What the classifiers' tests share: keys from five-tuples, and random
//! rules of the shapes that make classifiers disagree (nested prefixes,
//! overlapping port ranges, protocol or any, a field outside the five).

use crate::prefix::Ipv4Prefix;
use crate::rule::{Key, PortRange, Rule, Ternary};
use proptest::prelude::*;

/// The key of a packet with this five-tuple and no VLAN tag.
pub fn key(src: u32, dst: u32, sp: u16, dp: u16, proto: u8) -> Key {
    key_on_vlan(src, dst, sp, dp, proto, 0)
}

/// The key of a packet with this five-tuple and VLAN tag (0: none).
pub fn key_on_vlan(src: u32, dst: u32, sp: u16, dp: u16, proto: u8, vlan: u16) -> Key {
    Key::from_flow(&prism_wire::FlowKey {
        src_ip: src,
        dst_ip: dst,
        src_port: sp,
        dst_port: dp,
        proto,
        vlan,
        ..Default::default()
    })
}

/// A probe for the property tests: a third of them on VLAN 5, so that the
/// rules on it (see [`rule_strategy`]) match some.
pub fn probe_key(src: u32, dst: u32, sp: u16, dp: u16, proto: u8) -> Key {
    let vlan = if sp.is_multiple_of(3) { 0x1005 } else { 0 };
    key_on_vlan(src, dst, sp, dp, proto, vlan)
}

/// Probes drawn around the prefixes [`rule_strategy`] uses: (source,
/// destination, source port, destination port, protocol).
pub fn probe_strategy() -> impl Strategy<Value = (u32, u32, u16, u16, u8)> {
    let addr = || prop_oneof![Just(0x0a00_0001u32), Just(0x0a01_0203), any::<u32>()];
    (
        addr(),
        addr(),
        0u16..10,
        0u16..10,
        prop_oneof![Just(6u8), Just(17)],
    )
}

/// Random rules: ids 0..40 (so inserts replace and removes hit), eight
/// priorities, prefixes nested around 10.0.0.0/8, port ranges in 0..8,
/// TCP, UDP or any protocol, and one in five on VLAN 5 too.
pub fn rule_strategy() -> impl Strategy<Value = Rule> {
    let prefix = (
        prop_oneof![Just(0x0a00_0000u32), Just(0x0a01_0000), any::<u32>()],
        prop_oneof![Just(0u8), Just(8), Just(16), Just(24), 0u8..=32],
    )
        .prop_map(|(a, l)| Ipv4Prefix::new(a, l));
    let range = prop_oneof![
        Just(PortRange::ANY),
        (0u16..8).prop_map(PortRange::exact),
        (0u16..8, 0u16..8).prop_map(|(a, b)| PortRange {
            lo: a.min(b),
            hi: a.max(b)
        }),
    ];
    (
        0u32..40,
        0u32..8,
        (prefix.clone(), prefix),
        (range.clone(), range),
        prop_oneof![Just(None), Just(Some(6u8)), Just(Some(17))],
        prop_oneof![4 => Just(None), 1 => Just(Some(5u16))],
        0u32..100,
    )
        .prop_map(|(id, prio, (s, d), (sp, dp), proto, vlan, action)| {
            let mut t = Ternary::ANY.src_ip(s).dst_ip(d);
            if let Some(p) = proto {
                t = t.proto(p, 0xff);
            }
            if vlan.is_some() {
                t = t.vlan(vlan);
            }
            Rule::new(id, prio, t, action).with_ports(sp, dp)
        })
}

/// A change to a classifier.
#[derive(Debug, Clone)]
pub enum Op {
    Insert(Rule),
    Remove(u32),
}

/// Changes: three inserts (of [`rule_strategy`]'s rules) to `removes`
/// removals of an id that may or may not be present.
pub fn op_strategy(removes: u32) -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => rule_strategy().prop_map(Op::Insert),
        removes => (0u32..40).prop_map(Op::Remove),
    ]
}
