//! Two-dimensional (source, destination) prefix lookup for flow routing.
//!
//! Semantics (destination first, as in source-specific routing, RFC 8043 and
//! Linux IPv6 subtrees): among the rules whose destination and source
//! prefixes both contain the packet's addresses, the one with the longest
//! destination prefix wins; among those, the longest source prefix.
//!
//! Structure: a destination [`LpmTable`] maps an address to its longest
//! destination prefix D; each D owns a source table holding the rules of D and
//! of every destination prefix that covers D. That source table is "painted"
//! in (destination length, source length) order, each rule overriding what it
//! covers, so one source lookup gives the winner. A lookup is therefore two
//! LPM lookups, whatever the number of rules (a set-pruning trie, Srinivasan
//! and Varghese 1999, built with LPM tables). The table is immutable: a change
//! rebuilds it, and the pipeline publishes the new one atomically.

use crate::lpm::{LpmError, LpmTable};
use crate::prefix::Ipv4Prefix;
use std::collections::HashMap;

/// A flow route: packets from `src` to `dst` get `value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FlowRule {
    pub src: Ipv4Prefix,
    pub dst: Ipv4Prefix,
    pub value: u32,
}

#[derive(Debug, Clone, Default)]
pub struct FlowTable {
    dst: LpmTable,
    src_tables: Vec<LpmTable>,
    rules: Vec<FlowRule>,
}

impl FlowTable {
    /// Builds the table; a later rule with the same (src, dst) replaces an earlier one.
    pub fn build(rules: &[FlowRule]) -> Result<Self, LpmError> {
        let mut unique: HashMap<(Ipv4Prefix, Ipv4Prefix), u32> = HashMap::new();
        for r in rules {
            unique.insert((r.src, r.dst), r.value);
        }
        let mut rules: Vec<FlowRule> = unique
            .into_iter()
            .map(|((src, dst), value)| FlowRule { src, dst, value })
            .collect();
        rules.sort_by_key(|r| (r.dst.len(), r.src.len(), r.dst, r.src));
        let mut by_dst: HashMap<Ipv4Prefix, Vec<FlowRule>> = HashMap::new();
        for r in &rules {
            by_dst.entry(r.dst).or_default().push(*r);
        }
        let mut dsts: Vec<Ipv4Prefix> = by_dst.keys().copied().collect();
        dsts.sort();
        let mut dst = LpmTable::for_routes(dsts.len());
        let mut src_tables = Vec::with_capacity(dsts.len());
        for (i, d) in dsts.iter().enumerate() {
            // Rules of D and of every destination prefix covering it, already
            // in (dst len, src len) order since ancestors come first.
            let mut t = LpmTable::default();
            for l in 0..=d.len() {
                if let Some(rs) = by_dst.get(&Ipv4Prefix::new(d.addr(), l)) {
                    for r in rs {
                        t.insert_overriding(r.src, r.value)?;
                    }
                }
            }
            dst.insert(*d, i as u32)?;
            src_tables.push(t);
        }
        Ok(Self {
            dst,
            src_tables,
            rules,
        })
    }

    #[inline]
    pub fn lookup(&self, src: u32, dst: u32) -> Option<u32> {
        let d = self.dst.lookup(dst)?;
        self.src_tables[d as usize].lookup(src)
    }

    pub fn rules(&self) -> &[FlowRule] {
        &self.rules
    }

    pub fn len(&self) -> usize {
        self.rules.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
}

/// The reference: scan every rule.
#[derive(Debug, Clone, Default)]
pub struct ReferenceFlowTable {
    pub rules: Vec<FlowRule>,
}

impl ReferenceFlowTable {
    pub fn lookup(&self, src: u32, dst: u32) -> Option<u32> {
        let mut best: Option<&FlowRule> = None;
        for r in &self.rules {
            if r.src.contains(src) && r.dst.contains(dst) {
                // Later rules with the same (src, dst) replace earlier ones.
                if best.is_none_or(|b| (r.dst.len(), r.src.len()) >= (b.dst.len(), b.src.len())) {
                    best = Some(r);
                }
            }
        }
        best.map(|r| r.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn r(src: &str, dst: &str, value: u32) -> FlowRule {
        FlowRule {
            src: src.parse().unwrap(),
            dst: dst.parse().unwrap(),
            value,
        }
    }

    #[test]
    fn destination_first() {
        let rules = [
            r("0.0.0.0/0", "0.0.0.0/0", 1),
            r("10.9.0.0/16", "192.168.0.0/16", 2),
            r("0.0.0.0/0", "192.168.1.0/24", 3),
            r("10.9.9.0/24", "192.168.1.0/24", 4),
        ];
        let t = FlowTable::build(&rules).unwrap();
        let a = |s: &str| u32::from(s.parse::<core::net::Ipv4Addr>().unwrap());
        assert_eq!(t.lookup(a("1.1.1.1"), a("8.8.8.8")), Some(1));
        assert_eq!(t.lookup(a("10.9.1.1"), a("192.168.2.1")), Some(2));
        // The /24 destination wins over the /16 even with a shorter source.
        assert_eq!(t.lookup(a("10.9.1.1"), a("192.168.1.1")), Some(3));
        assert_eq!(t.lookup(a("10.9.9.1"), a("192.168.1.1")), Some(4));
        assert_eq!(t.lookup(a("1.1.1.1"), a("192.168.2.1")), Some(1));
    }

    proptest! {
        #[test]
        fn agrees_with_reference(raw in proptest::collection::vec((prop_oneof![Just(0x0a00_0000u32), any::<u32>()], 0u8..=32, prop_oneof![Just(0xc0a8_0000u32), any::<u32>()], 0u8..=32, 0u32..50), 0..40),
                                 probes in proptest::collection::vec((prop_oneof![Just(0x0a00_0001u32), any::<u32>()], prop_oneof![Just(0xc0a8_0001u32), any::<u32>()]), 50)) {
            let rules: Vec<FlowRule> = raw.iter().map(|&(s, sl, d, dl, v)| FlowRule { src: Ipv4Prefix::new(s, sl), dst: Ipv4Prefix::new(d, dl), value: v }).collect();
            let t = FlowTable::build(&rules).unwrap();
            let reference = ReferenceFlowTable { rules: rules.clone() };
            let mut addrs = probes.clone();
            addrs.extend(rules.iter().map(|r| (r.src.addr(), r.dst.addr())));
            for (s, d) in addrs {
                prop_assert_eq!(t.lookup(s, d), reference.lookup(s, d));
            }
        }
    }
}
