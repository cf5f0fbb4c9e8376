//! A rule set with the classifier that suits it: the decision trees
//! ([`TreeClassifier`]) for rules on the five-tuple, tuple-space search
//! ([`Classifier`]) otherwise.
//!
//! Why both: the trees split only on the five-tuple (addresses, ports,
//! protocol). A rule on another field (a VLAN, a MAC, the input port) has
//! the whole five-tuple space as its region, so no split separates it from
//! the others: 1,024 rules selecting networks by VLAN made one leaf of
//! 1,024 candidates checked in turn (`prism bench --only
//! pipeline/1024-networks`: 2,719 cycles a packet against 230 by
//! tuple-space search, whose one mask hashes straight to the rule). Where
//! every rule is on the five-tuple alone, the trees' cost depends on their
//! depth, not on the number of masks (ClassBench's sets: 1.6 to 6.7 times
//! faster, `prism bench --only classifier`).

use crate::classifier::Classifier;
use crate::rule::{Key, Match, Rule};
use crate::split_tree;
use crate::tree_classifier::TreeClassifier;

/// The rules of a table, classified by the structure that suits them.
#[derive(Debug, Clone)]
pub enum RuleTable {
    Trees(Box<TreeClassifier>),
    TupleSpace(Classifier),
}

impl Default for RuleTable {
    fn default() -> Self {
        RuleTable::TupleSpace(Classifier::new())
    }
}

impl RuleTable {
    /// A table of `rules`: trees when every rule matches on the
    /// five-tuple alone, tuple-space search otherwise.
    pub fn build(rules: Vec<Rule>) -> Self {
        if !rules.is_empty() && rules.iter().all(split_tree::five_tuple_only) {
            return RuleTable::Trees(Box::new(TreeClassifier::build(rules)));
        }
        Self::tuple_space(rules)
    }

    /// A table of `rules` by tuple-space search whatever they are: cheap to
    /// build, for a table read rarely.
    pub fn tuple_space(rules: Vec<Rule>) -> Self {
        let mut c = Classifier::new();
        for r in rules {
            c.insert(r);
        }
        RuleTable::TupleSpace(c)
    }

    pub fn len(&self) -> usize {
        match self {
            RuleTable::Trees(t) => t.len(),
            RuleTable::TupleSpace(c) => c.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// "decision trees" or "tuple-space search", for reports.
    pub fn kind(&self) -> &'static str {
        match self {
            RuleTable::Trees(_) => "decision trees",
            RuleTable::TupleSpace(_) => "tuple-space search",
        }
    }

    /// Inserts `rule` (replacing any rule with its id) as an update: the
    /// trees hold it beside them until their next build. `false`, and
    /// nothing changed, where the trees should not take it (a rule on a
    /// field beyond the five-tuple): build the table again instead.
    pub fn insert(&mut self, rule: Rule) -> bool {
        match self {
            RuleTable::Trees(t) if split_tree::five_tuple_only(&rule) => {
                t.insert(rule);
                true
            }
            RuleTable::Trees(_) => false,
            RuleTable::TupleSpace(c) => {
                c.insert(rule);
                true
            }
        }
    }

    /// Gives rule `id` the action `action`, its match unchanged (see
    /// [`TreeClassifier::set_action`]); `false` where there is no rule `id`.
    pub fn set_action(&mut self, id: crate::rule::RuleId, action: u32) -> bool {
        match self {
            RuleTable::Trees(t) => t.set_action(id, action),
            RuleTable::TupleSpace(c) => match c.get(id).copied() {
                Some(mut rule) => {
                    rule.action = action;
                    c.insert(rule);
                    true
                }
                None => false,
            },
        }
    }

    /// Removes the rule with `id`, if any.
    pub fn remove(&mut self, id: crate::rule::RuleId) -> Option<Rule> {
        match self {
            RuleTable::Trees(t) => t.remove(id),
            RuleTable::TupleSpace(c) => c.remove(id),
        }
    }

    /// The best rule matching `key`.
    #[inline]
    pub fn lookup(&self, key: &Key) -> Option<Match> {
        match self {
            RuleTable::Trees(t) => t.lookup(key),
            RuleTable::TupleSpace(c) => c.lookup(key),
        }
    }

    /// [`Self::lookup`] of each of `keys` into `out` (as long): the trees
    /// walk several keys at once; tuple-space search takes them in turn.
    #[inline]
    pub fn lookup_batch(&self, keys: &[Key], out: &mut [Option<Match>]) {
        match self {
            RuleTable::Trees(t) => t.lookup_batch(keys, out),
            RuleTable::TupleSpace(c) => {
                for (k, o) in keys.iter().zip(out) {
                    *o = c.lookup(k);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Ipv4Prefix, Ternary};

    #[test]
    fn five_tuple_rules_get_trees_and_others_tuple_space() {
        let p: Ipv4Prefix = "10.0.0.0/8".parse().unwrap();
        let five = Rule::new(0, 1, Ternary::ANY.dst_ip(p).proto(6, 0xff), 7);
        let vlan = Rule::new(1, 1, Ternary::ANY.vlan(Some(5)), 8);
        assert_eq!(RuleTable::build(vec![five]).kind(), "decision trees");
        assert_eq!(
            RuleTable::build(vec![five, vlan]).kind(),
            "tuple-space search"
        );
        assert_eq!(RuleTable::build(vec![]).kind(), "tuple-space search");
        let mut k = Key::default();
        k.0[0] = 0x0a01_0203;
        k.0[4] = 6 << 48;
        for t in [
            RuleTable::build(vec![five]),
            RuleTable::build(vec![five, vlan]),
        ] {
            assert_eq!(t.lookup(&k).map(|m| m.action), Some(7));
            let mut out = [None; 2];
            t.lookup_batch(&[k, Key::default()], &mut out);
            assert_eq!(out.map(|m| m.map(|m| m.action)), [Some(7), None]);
        }
    }

    #[test]
    fn the_trees_refuse_an_update_off_the_five_tuple_and_stay_as_they_were() {
        let p: Ipv4Prefix = "10.0.0.0/8".parse().unwrap();
        let five = Rule::new(0, 1, Ternary::ANY.dst_ip(p).proto(6, 0xff), 7);
        let mut t = RuleTable::build(vec![five]);
        let vlan = Rule::new(1, 9, Ternary::ANY.vlan(Some(5)), 8);
        assert!(!t.insert(vlan));
        assert_eq!((t.kind(), t.len()), ("decision trees", 1));
        // A five-tuple update is taken, and answers at once.
        let better = Rule::new(2, 5, Ternary::ANY.dst_ip(p), 9);
        assert!(t.insert(better));
        let mut k = Key::default();
        k.0[0] = 0x0a01_0203;
        k.0[4] = 6 << 48;
        assert_eq!(t.lookup(&k).map(|m| m.action), Some(9));
        assert_eq!(t.remove(2).map(|r| r.id), Some(2));
        assert_eq!(t.lookup(&k).map(|m| m.action), Some(7));
        // Tuple-space search takes any rule.
        let mut c = RuleTable::tuple_space(vec![five]);
        assert!(c.insert(vlan));
        assert_eq!(c.len(), 2);
    }
}
