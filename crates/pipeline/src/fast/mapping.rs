//! Network mapping: the design-select table in the form the pipeline reads.
//!
//! In: a packet's destination address and packed key. Out: the id of the
//! network whose rule wins, or none (the default network then applies).
//!
//! In general the table is a set of ternary rules over the whole key, with
//! the classifier's semantics: the highest priority wins, then the lowest
//! id. The most common table selects networks by destination prefix alone
//! (paper 003's destination-routed virtual routers, Prism's prefix
//! networks). When every rule matches a destination prefix and nothing else,
//! and no rule loses to a rule that contains it (unless both select the same
//! network), the longest matching prefix is the rule the classifier would
//! choose, so the table is also compiled to an LPM: one or two reads where
//! tuple-space search hashes the key and compares a stored rule (2.5 cache
//! misses per packet with 1,024 networks, by callgrind's cache model). The
//! rule set stays the reference and what a trace reports.

use prism_tables::{Ipv4Prefix, Key, LpmTable, Match, PortRange, Rule, RuleTable};
use std::collections::HashMap;

/// The design-select table, with its LPM form when it has one.
#[derive(Debug, Clone, Default)]
pub struct Mapping {
    /// The rules, classified as suits them ([`RuleTable`]).
    rules: RuleTable,
    by_destination: Option<LpmTable>,
}

impl Mapping {
    pub fn new(rules: &[Rule]) -> Self {
        let by_destination = as_destination_lpm(rules);
        // With an LPM form the rules are read by traces and checks only:
        // no trees built for them.
        let rules = match by_destination {
            Some(_) => RuleTable::tuple_space(rules.to_vec()),
            None => RuleTable::build(rules.to_vec()),
        };
        Self {
            rules,
            by_destination,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Whether lookups go by destination prefix alone (no packed key needed).
    pub fn by_destination(&self) -> bool {
        self.by_destination.is_some()
    }

    /// The rules, when lookups go by them (no LPM form): the pipeline
    /// walks a batch's keys through them at once.
    pub fn rule_table(&self) -> Option<&RuleTable> {
        (self.by_destination.is_none() && !self.rules.is_empty()).then_some(&self.rules)
    }

    /// The winning rule, by the classifier (for traces and checks).
    pub fn lookup(&self, key: &Key) -> Option<Match> {
        self.rules.lookup(key)
    }

    /// The network the table selects. `key` is read only when the table
    /// has no LPM form.
    #[inline(always)]
    pub fn network(&self, dst_ip: u32, key: &Key) -> Option<u32> {
        match &self.by_destination {
            Some(t) => t.lookup(dst_ip),
            None if self.rules.is_empty() => None,
            None => self.rules.lookup(key).map(|m| m.action),
        }
    }
}

/// The destination prefix `r` matches, if it matches nothing else.
fn destination_only(r: &Rule) -> Option<Ipv4Prefix> {
    let f = &r.fields;
    if r.src_port != PortRange::ANY
        || r.dst_port != PortRange::ANY
        || f.mask[0] >> 32 != 0
        || f.mask[1..].iter().any(|&w| w != 0)
    {
        return None;
    }
    let m = f.mask[0] as u32;
    let len = m.leading_ones();
    (m.count_ones() == len).then(|| Ipv4Prefix::new(f.value[0] as u32, len as u8))
}

/// The rules as an LPM on the destination, if it answers as they do.
fn as_destination_lpm(rules: &[Rule]) -> Option<LpmTable> {
    if rules.is_empty() {
        return None;
    }
    // Per prefix, the rule that wins among those with exactly that prefix.
    let mut best: HashMap<Ipv4Prefix, Match> = HashMap::new();
    for r in rules {
        let p = destination_only(r)?;
        let m = r.as_match();
        let e = best.entry(p).or_insert(m);
        if m.beats(e.priority, e.id) {
            *e = m;
        }
    }
    // For an address, the longest matching prefix must select the network
    // the classifier's winner selects. It does if every rule beats each
    // shorter rule containing it, or selects the same network: the winner
    // then either is the longest, or contains it and selects its network.
    for (p, m) in &best {
        for len in 0..p.len() {
            if let Some(outer) = best.get(&Ipv4Prefix::new(p.addr(), len))
                && outer.action != m.action
                && !m.beats(outer.priority, outer.id)
            {
                return None;
            }
        }
    }
    let mut t = LpmTable::for_routes(best.len());
    for (p, m) in &best {
        t.insert(*p, m.action).ok()?;
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use prism_tables::Ternary;
    use proptest::prelude::*;

    fn key(dst: u32, proto: u8) -> Key {
        let mut k = Key::default();
        k.0[0] = u64::from(dst);
        k.0[4] = u64::from(proto) << 48;
        k
    }

    fn rule(id: u32, priority: u32, prefix: Ipv4Prefix, net: u32) -> Rule {
        Rule::new(id, priority, Ternary::ANY.dst_ip(prefix), net)
    }

    #[test]
    fn destination_prefixes_compile_to_an_lpm() {
        let a: Ipv4Prefix = "10.0.0.0/8".parse().unwrap();
        let b: Ipv4Prefix = "10.1.0.0/16".parse().unwrap();
        // The longer prefix wins: an LPM.
        let m = Mapping::new(&[rule(0, 1, a, 1), rule(1, 2, b, 2)]);
        assert!(m.by_destination());
        assert_eq!(m.network(0x0a01_0203, &Key::default()), Some(2));
        assert_eq!(m.network(0x0a02_0203, &Key::default()), Some(1));
        assert_eq!(m.network(0x0b02_0203, &Key::default()), None);
        // The shorter prefix beats the longer one: not an LPM.
        let m = Mapping::new(&[rule(0, 3, a, 1), rule(1, 2, b, 2)]);
        assert!(!m.by_destination());
        assert_eq!(m.network(0x0a01_0203, &key(0x0a01_0203, 0)), Some(1));
        // ... unless both select the same network.
        assert!(Mapping::new(&[rule(0, 3, a, 1), rule(1, 2, b, 1)]).by_destination());
        // A rule on anything else, or a port range: not an LPM.
        let proto = Rule::new(0, 1, Ternary::ANY.dst_ip(a).proto(6, 0xff), 1);
        assert!(!Mapping::new(&[proto]).by_destination());
        let vlan = Rule::new(0, 1, Ternary::ANY.vlan(Some(5)), 1);
        assert!(!Mapping::new(&[vlan]).by_destination());
        let ports = rule(0, 1, a, 1).with_ports(PortRange::exact(80), PortRange::ANY);
        assert!(!Mapping::new(&[ports]).by_destination());
        let src = Rule::new(0, 1, Ternary::ANY.src_ip(a), 1);
        assert!(!Mapping::new(&[src]).by_destination());
        assert!(!Mapping::new(&[]).by_destination());
    }

    fn rules() -> impl Strategy<Value = Vec<Rule>> {
        // Prefixes that nest (few addresses), priorities that sometimes
        // contradict length, few networks so equal actions happen, and the
        // odd rule on another field.
        let prefix = (0u32..8, 0u8..=32)
            .prop_map(|(x, l)| Ipv4Prefix::new(0x0a00_0000 | (x << 20) | (x << 9), l));
        let r = (prefix, 0u32..4, 0u32..3, 0u32..20).prop_map(|(p, pri, net, other)| {
            let t = Ternary::ANY.dst_ip(p);
            (t, pri, net, other)
        });
        proptest::collection::vec(r, 0..12).prop_map(|v| {
            v.into_iter()
                .enumerate()
                .map(|(i, (t, pri, net, other))| {
                    let t = if other == 0 { t.proto(6, 0xff) } else { t };
                    Rule::new(i as u32, pri, t, net)
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn the_lpm_form_agrees_with_the_rules(rules in rules(), probes in proptest::collection::vec(any::<u32>(), 32)) {
            let m = Mapping::new(&rules);
            let mut addrs = probes;
            for r in &rules {
                let (v, mask) = (r.fields.value[0] as u32, r.fields.mask[0] as u32);
                addrs.extend([v, v | !mask, v.wrapping_sub(1)]);
            }
            for a in addrs {
                for proto in [6u8, 17] {
                    let k = key(a, proto);
                    let want = m.lookup(&k).map(|x| x.action);
                    prop_assert_eq!(m.network(a, &k), want, "addr {:#x} proto {}", a, proto);
                }
            }
        }
    }
}
