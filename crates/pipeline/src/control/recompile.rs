//! A rule-table network compiled again after a change to a few of its
//! rules, from its compiled form before the change.
//!
//! In: the network's specification before and after, and its compiled form
//! before. Out: its compiled form after, or `None` where a compile from
//! scratch is the way (another kind of table, many rules changed, a rule
//! the table's classifier should not take in place).
//!
//! Why: the decision trees of a 10,000-rule table take 80–160 ms to build
//! (`prism bench --only pipeline/rules`), and every change through the API
//! hands the node the whole network. Rules are numbered by their place in
//! the table, so the places whose rule differs are the change: the table
//! takes them as updates ([`RuleTable::insert`], [`RuleTable::remove`]:
//! the trees mark the old rule dead and hold new ones beside them, and
//! build themselves again after one change in 32), the action table keeps
//! its indices and gains the new actions. A rule whose match is unchanged
//! (a new next hop, port or rewrite) only points at its new action: no
//! update of the trees, none counted towards their rebuild.

use crate::control::compile::assemble;
use crate::control::spec::{ForwardingSpec, NetworkSpec, RuleSpec};
use crate::fast::action::Action;
use crate::fast::dataplane::Network;
use crate::fast::matching::Forwarding;
use prism_tables::{Rule, RuleTable};
// foldhash (hashbrown's default): the index of every action is made each
// publication, and SipHash was a twentieth of a rule change's time.
use hashbrown::HashMap;

/// Rules changed, beyond one in eight, after which a compile from scratch
/// is cheaper than the updates.
const FEW: usize = 8;

/// Actions no rule uses any more that a network may carry before they are
/// dropped ([`compact`]: the updates only add actions).
const STALE_ACTIONS: usize = 64;

/// `spec`'s compiled form from `old`, the compiled form of `old_spec`, when
/// only a few of its rules changed.
pub(crate) fn rules_changed(
    old_spec: &NetworkSpec,
    old: &Network,
    spec: &NetworkSpec,
) -> Option<Network> {
    let (
        ForwardingSpec::Rules { rules: was, .. },
        ForwardingSpec::Rules {
            rules: now,
            default: spec_default,
        },
    ) = (&old_spec.forwarding, &spec.forwarding)
    else {
        return None;
    };
    let Forwarding::Rules { table, .. } = &old.forwarding else {
        return None;
    };
    let changed: Vec<usize> = (0..was.len().max(now.len()))
        .filter(|&i| was.get(i) != now.get(i))
        .collect();
    // A rule whose match is as it was takes its new action in place: only
    // the others are updates of the trees.
    let same_match =
        |i: usize| matches!((was.get(i), now.get(i)), (Some(w), Some(n)) if w.matches_as(n));
    if changed.iter().filter(|&&i| !same_match(i)).count() > now.len() / FEW + FEW {
        return None;
    }
    let mut actions = Actions::from(old.actions.clone());
    let mut table = table.clone();
    for i in changed {
        let id = i as u32;
        match now.get(i) {
            Some(r) if same_match(i) => {
                if !table.set_action(id, actions.intern(&r.action)) {
                    return None;
                }
            }
            Some(r) => {
                let rule = Rule::new(id, r.priority, r.fields, actions.intern(&r.action))
                    .with_ports(r.src_port, r.dst_port);
                if !table.insert(rule) {
                    return None;
                }
            }
            None => {
                table.remove(id);
            }
        }
    }
    let mut default = spec_default.as_ref().map(|a| actions.intern(a));
    if actions.list.len() > now.len() + STALE_ACTIONS {
        (actions, default) = compact(&mut table, now, spec_default)?;
    }
    Some(assemble(
        spec,
        Forwarding::Rules { table, default },
        actions.list,
    ))
}

/// A network's action table being made: each action once, by index.
#[derive(Default)]
struct Actions {
    list: Vec<Action>,
    index: HashMap<Action, u32>,
}

impl From<Vec<Action>> for Actions {
    fn from(list: Vec<Action>) -> Self {
        let index = list
            .iter()
            .enumerate()
            .map(|(i, a)| (*a, i as u32))
            .collect();
        Self { list, index }
    }
}

impl Actions {
    /// `a`'s index, added at the end if it is new.
    fn intern(&mut self, a: &Action) -> u32 {
        *self.index.entry(*a).or_insert_with(|| {
            self.list.push(*a);
            (self.list.len() - 1) as u32
        })
    }
}

/// The actions the rules of `now` and `default` use, each once, and every
/// rule of `table` pointed at its own (its match untouched): what keeps a
/// table whose actions keep changing from growing without compiling it
/// afresh (a few milliseconds for 10,000 rules, not the trees' 150).
fn compact(
    table: &mut RuleTable,
    now: &[RuleSpec],
    default: &Option<Action>,
) -> Option<(Actions, Option<u32>)> {
    let mut actions = Actions::default();
    for (i, r) in now.iter().enumerate() {
        if !table.set_action(i as u32, actions.intern(&r.action)) {
            return None;
        }
    }
    let default = default.as_ref().map(|a| actions.intern(a));
    Some((actions, default))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::compile::compile;
    use crate::control::spec::{RuleSpec, Tier};
    use crate::fast::matching::{self, rules_batch};
    use prism_tables::{Ipv4Prefix, Key, LinearClassifier, PortRange, Ternary};
    use prism_wire::PacketInfo;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    fn random_rule(rng: &mut SmallRng) -> RuleSpec {
        let p = |rng: &mut SmallRng| {
            Ipv4Prefix::new(rng.random::<u32>() & 0x0a0f_0f00, rng.random_range(0..=24))
        };
        let lo = rng.random_range(0..8u16);
        RuleSpec {
            priority: rng.random_range(0..4),
            fields: Ternary::ANY
                .src_ip(p(rng))
                .dst_ip(p(rng))
                .proto(6, if rng.random() { 0xff } else { 0 }),
            src_port: PortRange::ANY,
            dst_port: PortRange {
                lo,
                hi: lo + rng.random_range(0..4),
            },
            action: crate::fast::action::Action {
                out_port: Some(rng.random_range(0..4)),
                ..Default::default()
            },
        }
    }

    fn spec(rules: Vec<RuleSpec>) -> NetworkSpec {
        NetworkSpec {
            name: "r".into(),
            tier: Tier::Hardware,
            mapping: vec![],
            forwarding: ForwardingSpec::Rules {
                rules,
                default: Some(crate::fast::action::Action {
                    drop: true,
                    ..Default::default()
                }),
            },
            rate_limit: None,
            software_channel: None,
            quantum: 1514,
            tunnels: Vec::new(),
            program: None,
        }
    }

    /// The action the rules of `s` give `key`: the linear reference.
    fn expected(s: &NetworkSpec, key: &Key) -> Option<Action> {
        let ForwardingSpec::Rules { rules, default } = &s.forwarding else {
            unreachable!()
        };
        let mut l = LinearClassifier::new();
        for (i, r) in rules.iter().enumerate() {
            l.insert(
                Rule::new(i as u32, r.priority, r.fields, i as u32)
                    .with_ports(r.src_port, r.dst_port),
            );
        }
        l.lookup(key)
            .map(|m| rules[m.action as usize].action)
            .or(*default)
    }

    #[test]
    fn a_few_changed_rules_answer_as_a_compile_from_scratch() {
        let mut rng = SmallRng::seed_from_u64(3);
        let mut s = spec((0..80).map(|_| random_rule(&mut rng)).collect());
        let mut net = compile(&s).unwrap();
        let mut incremental = 0;
        for _ in 0..300 {
            let mut next = s.clone();
            let ForwardingSpec::Rules { rules, .. } = &mut next.forwarding else {
                unreachable!()
            };
            match rng.random_range(0..6) {
                0 if rules.len() > 40 => {
                    rules.pop();
                }
                1 => rules.push(random_rule(&mut rng)),
                _ => {
                    let i = rng.random_range(0..rules.len());
                    rules[i] = random_rule(&mut rng);
                }
            }
            net = match rules_changed(&s, &net, &next) {
                Some(n) => {
                    incremental += 1;
                    n
                }
                None => compile(&next).unwrap(),
            };
            s = next;
            for _ in 0..40 {
                let k = random_key(&mut rng);
                let got = matching::decide(&net.forwarding, &PacketInfo::default(), &k)
                    .ok()
                    .map(|a| net.actions[a as usize]);
                assert_eq!(got, expected(&s, &k));
            }
        }
        assert!(
            incremental > 250,
            "{incremental} of 300 changes taken in place"
        );
        assert!(rules_batch(&net.forwarding).is_some());
    }

    /// Keys that hit the random rules' space.
    fn random_key(rng: &mut SmallRng) -> Key {
        let mut k = Key::default();
        k.0[0] = u64::from(rng.random::<u32>() & 0x0a0f_0f0f) << 32
            | u64::from(rng.random::<u32>() & 0x0a0f_0f0f);
        k.0[2] = u64::from(rng.random_range(0..12u16)) << 32;
        k.0[4] = 6 << 48;
        k
    }

    #[test]
    fn new_actions_are_taken_in_place_and_the_stale_ones_dropped() {
        let mut rng = SmallRng::seed_from_u64(5);
        let mut s = spec((0..80).map(|_| random_rule(&mut rng)).collect());
        let mut net = compile(&s).unwrap();
        let mut most = 0;
        for c in 0..1000u32 {
            let mut next = s.clone();
            let ForwardingSpec::Rules { rules, .. } = &mut next.forwarding else {
                unreachable!()
            };
            // Each change a next hop no rule had: the actions grow until
            // the stale ones are dropped.
            for _ in 0..rng.random_range(1..4) {
                let i = rng.random_range(0..rules.len());
                rules[i].action.set_dst_mac = Some(prism_wire::EthernetAddress([
                    2,
                    0,
                    0,
                    0,
                    (c >> 8) as u8,
                    c as u8,
                ]));
                rules[i].action.out_port = Some(rng.random_range(0..4));
            }
            net = rules_changed(&s, &net, &next).expect("an action change is taken in place");
            s = next;
            most = most.max(net.actions.len());
            let keys: Vec<Key> = (0..32).map(|_| random_key(&mut rng)).collect();
            let matching::Rules { table, default } =
                rules_batch(&net.forwarding).expect("a rule table");
            let mut found = vec![None; keys.len()];
            table.lookup_batch(&keys, &mut found);
            for (k, m) in keys.iter().zip(&found) {
                let one = matching::decide(&net.forwarding, &PacketInfo::default(), k)
                    .ok()
                    .map(|a| net.actions[a as usize]);
                let batch = m
                    .map(|m| m.action)
                    .or(default)
                    .map(|a| net.actions[a as usize]);
                assert_eq!(one, expected(&s, k), "change {c}");
                assert_eq!(batch, one, "change {c}: the batch walk");
            }
        }
        // 80 rules and at most 64 stale actions (and the default): dropped
        // again and again over 1,000 changes of ~2,000 new actions.
        assert!(most <= 80 + STALE_ACTIONS + 2, "{most} actions held");
        let ForwardingSpec::Rules { rules, .. } = &s.forwarding else {
            unreachable!()
        };
        assert!(net.actions.len() <= rules.len() + STALE_ACTIONS + 1);
    }
}
