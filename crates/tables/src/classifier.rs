//! The fast ternary classifier: tuple-space search with priority pruning.
//!
//! Rules are grouped by their mask ("tuple"); each tuple is a hash table from
//! the masked key to its rules, best first. A lookup masks the key once per
//! tuple and probes its table. Tuples are visited in the order of the best
//! rule they hold, and the search stops as soon as the best match so far
//! beats everything a remaining tuple could return.
//!
//! Why tuple-space search (Srinivasan et al., SIGCOMM 1999; the design of Open
//! vSwitch's classifier): inserts and deletes are O(1) hash operations, so
//! rules change at run time without rebuilding anything; it works unchanged
//! for any mix of fields (ingress port, VLAN, MACs, inner addresses, which
//! decision trees such as HyperCuts handle poorly); and the network-mapping
//! stage, whose rules use few distinct masks, costs one or two hash probes.
//! Its weakness is rule sets with many distinct masks (ClassBench ACLs have
//! hundreds), where decision trees look up faster; `prism bench` measures it.
//!
//! L4 port ranges that are aligned power-of-two blocks (exact ports,
//! wildcards) are part of the mask; other ranges are checked on the rules of
//! the bucket, which is exact without the blow-up of range-to-prefix expansion.

use crate::rule::{Key, Match, PortRange, Rule, RuleId, Ternary, WORDS};
use arc_swap::ArcSwap;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::{Arc, Mutex};

/// A key with a tuple's mask applied; hashes its words with an Fx-style mix.
#[derive(Debug, Clone, Copy)]
struct Masked([u64; WORDS]);

// Word-wise comparison: the derived one calls memcmp for 40 bytes.
impl PartialEq for Masked {
    #[inline]
    fn eq(&self, o: &Self) -> bool {
        (self.0[0] ^ o.0[0])
            | (self.0[1] ^ o.0[1])
            | (self.0[2] ^ o.0[2])
            | (self.0[3] ^ o.0[3])
            | (self.0[4] ^ o.0[4])
            == 0
    }
}

impl Eq for Masked {}

impl Hash for Masked {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(mix(&self.0));
    }
}

/// Fx-style mix of the five words. Words a tuple masks out are zero, and
/// mixing a zero word is one multiply, so this stays cheap for narrow masks.
#[inline]
fn mix(w: &[u64; WORDS]) -> u64 {
    let k = 0x9e37_79b9_7f4a_7c15u64;
    let a = (w[0] ^ w[1].rotate_left(32)).wrapping_mul(k);
    let b = (w[2] ^ w[3].rotate_left(17) ^ w[4].rotate_left(41)).wrapping_mul(k);
    let h = a.rotate_left(26) ^ b;
    h ^ (h >> 29)
}

/// Passes the precomputed hash through.
#[derive(Debug, Default, Clone, Copy)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) | u64::from(*b);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    priority: u32,
    id: RuleId,
    /// The rule's own value/mask: a merged tuple's mask may be coarser.
    fields: Ternary,
    src_port: PortRange,
    dst_port: PortRange,
    action: u32,
}

/// The rules of one masked key, best first. The best is copied inline so
/// that the common lookup (the best rule's port ranges match) reads no
/// further memory.
#[derive(Debug, Clone)]
struct Bucket {
    head: Entry,
    all: Vec<Entry>,
}

#[derive(Debug, Clone)]
struct Tuple {
    mask: [u64; WORDS],
    buckets: HashMap<Masked, Bucket, BuildHasherDefault<PassThrough>>,
    /// (priority, id) of the best rule in the tuple.
    best: (u32, RuleId),
    rules: usize,
}

impl Tuple {
    fn recompute_best(&mut self) {
        self.best = self
            .buckets
            .values()
            .map(|b| &b.head)
            .map(|e| (e.priority, e.id))
            .min_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)))
            .unwrap_or((0, RuleId::MAX));
    }
}

/// A tuple-space-search classifier. See the module docs.
#[derive(Debug, Clone, Default)]
pub struct Classifier {
    tuples: Vec<Tuple>,
    /// Each rule and the mask of the tuple it was put in.
    rules: HashMap<RuleId, (Rule, [u64; WORDS])>,
}

/// Most rules a bucket of a merged tuple takes before a rule goes to a tuple
/// of its own exact mask instead (TupleMerge's collision limit).
const BUCKET_LIMIT: usize = 8;

/// The coarser mask a rule is first offered to: address prefixes shortened
/// to a multiple of 8 bits, L4 ports wildcarded (ranges are checked per rule
/// anyway). Rules with nearby prefix lengths then share one tuple, which cuts
/// the number of tuples a lookup probes (Daly and Torng, TupleMerge, 2017).
fn relaxed(mask: &[u64; WORDS]) -> [u64; WORDS] {
    let prefix = |m: u32| {
        let len = m.leading_ones();
        u64::from(crate::prefix::mask((len / 8 * 8) as u8))
    };
    let mut r = *mask;
    r[0] = (prefix((mask[0] >> 32) as u32) << 32) | prefix(mask[0] as u32);
    r[1] = (prefix((mask[1] >> 32) as u32) << 32) | prefix(mask[1] as u32);
    r[2] &= 0x0000_0000_ffff_ffff;
    r
}

/// Whether every bit `coarse` masks is also masked by `fine`.
fn within(coarse: &[u64; WORDS], fine: &[u64; WORDS]) -> bool {
    (0..WORDS).all(|i| coarse[i] & !fine[i] == 0)
}

#[inline]
fn better(a: (u32, RuleId), b: (u32, RuleId)) -> bool {
    a.0 > b.0 || (a.0 == b.0 && a.1 < b.1)
}

impl Classifier {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.rules.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Number of distinct masks, the main cost of a lookup.
    pub fn tuple_count(&self) -> usize {
        self.tuples.len()
    }

    pub fn get(&self, id: RuleId) -> Option<&Rule> {
        self.rules.get(&id).map(|(r, _)| r)
    }

    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.rules.values().map(|(r, _)| r)
    }

    fn tuple_index(&mut self, mask: [u64; WORDS]) -> usize {
        match self.tuples.iter().position(|x| x.mask == mask) {
            Some(i) => i,
            None => {
                self.tuples.push(Tuple {
                    mask,
                    buckets: HashMap::default(),
                    best: (0, RuleId::MAX),
                    rules: 0,
                });
                self.tuples.len() - 1
            }
        }
    }

    /// Inserts `rule`, replacing any rule with the same id. Returns the old one.
    pub fn insert(&mut self, rule: Rule) -> Option<Rule> {
        let old = self.remove(rule.id);
        let t = rule.hashed_fields();
        let entry = Entry {
            priority: rule.priority,
            id: rule.id,
            fields: rule.fields,
            src_port: rule.src_port,
            dst_port: rule.dst_port,
            action: rule.action,
        };
        // The relaxed tuple if its bucket has room, else the rule's exact mask.
        let coarse = relaxed(&t.mask);
        debug_assert!(within(&coarse, &t.mask));
        let room = |c: &Self, mask: &[u64; WORDS]| {
            c.tuples.iter().find(|x| x.mask == *mask).is_none_or(|x| {
                let k: [u64; WORDS] = std::array::from_fn(|i| t.value[i] & mask[i]);
                x.buckets
                    .get(&Masked(k))
                    .is_none_or(|b| b.all.len() < BUCKET_LIMIT)
            })
        };
        let mask = if room(self, &coarse) { coarse } else { t.mask };
        let ti = self.tuple_index(mask);
        let tuple = &mut self.tuples[ti];
        let key: [u64; WORDS] = std::array::from_fn(|i| t.value[i] & mask[i]);
        let bucket = tuple.buckets.entry(Masked(key)).or_insert_with(|| Bucket {
            head: entry,
            all: Vec::new(),
        });
        let at = bucket
            .all
            .partition_point(|e| better((e.priority, e.id), (entry.priority, entry.id)));
        bucket.all.insert(at, entry);
        bucket.head = bucket.all[0];
        tuple.rules += 1;
        if better((entry.priority, entry.id), tuple.best) {
            tuple.best = (entry.priority, entry.id);
        }
        self.rules.insert(rule.id, (rule, mask));
        self.sort_tuples();
        old
    }

    /// Removes the rule with `id`.
    pub fn remove(&mut self, id: RuleId) -> Option<Rule> {
        let (rule, mask) = self.rules.remove(&id)?;
        let t = rule.hashed_fields();
        let ti = self
            .tuples
            .iter()
            .position(|x| x.mask == mask)
            .expect("rule's tuple exists");
        let tuple = &mut self.tuples[ti];
        let key = Masked(std::array::from_fn(|i| t.value[i] & mask[i]));
        let bucket = tuple.buckets.get_mut(&key).expect("rule's bucket exists");
        bucket.all.retain(|e| e.id != id);
        match bucket.all.first() {
            Some(h) => bucket.head = *h,
            None => {
                tuple.buckets.remove(&key);
            }
        }
        tuple.rules -= 1;
        if tuple.rules == 0 {
            self.tuples.swap_remove(ti);
        } else if tuple.best.1 == id {
            tuple.recompute_best();
        }
        self.sort_tuples();
        Some(rule)
    }

    fn sort_tuples(&mut self) {
        self.tuples
            .sort_by(|a, b| b.best.0.cmp(&a.best.0).then(a.best.1.cmp(&b.best.1)));
    }

    /// The best rule matching `key`.
    #[inline]
    pub fn lookup(&self, key: &Key) -> Option<Match> {
        let mut best: Option<Match> = None;
        let (sp, dp) = (key.src_port(), key.dst_port());
        for t in &self.tuples {
            if let Some(b) = &best
                && b.beats(t.best.0, t.best.1)
            {
                break;
            }
            let m: [u64; WORDS] = std::array::from_fn(|i| key.0[i] & t.mask[i]);
            let Some(bucket) = t.buckets.get(&Masked(m)) else {
                continue;
            };
            let fits = |e: &&Entry| {
                e.src_port.contains(sp) && e.dst_port.contains(dp) && e.fields.matches(key)
            };
            let found = if fits(&&bucket.head) {
                Some(&bucket.head)
            } else {
                bucket.all.iter().skip(1).find(fits)
            };
            if let Some(e) = found
                && best.is_none_or(|b| !b.beats(e.priority, e.id))
            {
                best = Some(Match {
                    id: e.id,
                    priority: e.priority,
                    action: e.action,
                });
            }
        }
        best
    }
}

/// A classifier that takes inserts and deletes while other threads look up.
///
/// Readers load the current snapshot without a lock (read-copy-update via
/// `arc-swap`); writers serialise on a mutex, copy the snapshot, change the
/// copy and publish it in one atomic store. A lookup therefore sees the table
/// entirely before or entirely after an update, never half of it.
#[derive(Debug, Default)]
pub struct SharedClassifier {
    current: ArcSwap<Classifier>,
    writer: Mutex<()>,
}

impl SharedClassifier {
    pub fn new(c: Classifier) -> Self {
        Self {
            current: ArcSwap::from_pointee(c),
            writer: Mutex::new(()),
        }
    }

    /// The current snapshot; hold it for a batch of lookups.
    pub fn snapshot(&self) -> Arc<Classifier> {
        self.current.load_full()
    }

    pub fn lookup(&self, key: &Key) -> Option<Match> {
        self.current.load().lookup(key)
    }

    /// Applies `f` to a copy and publishes it atomically.
    pub fn update<R>(&self, f: impl FnOnce(&mut Classifier) -> R) -> R {
        let _w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let mut next = Classifier::clone(&self.current.load());
        let r = f(&mut next);
        self.current.store(Arc::new(next));
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linear::LinearClassifier;
    use crate::rule::Ternary;
    use crate::testing::{Op, key, op_strategy, probe_key, probe_strategy};
    use proptest::prelude::*;

    #[test]
    fn priority_then_id() {
        let mut c = Classifier::new();
        let any = Ternary::ANY;
        c.insert(Rule::new(
            5,
            10,
            any.dst_ip("10.0.0.0/8".parse().unwrap()),
            1,
        ));
        c.insert(Rule::new(
            2,
            10,
            any.dst_ip("10.1.0.0/16".parse().unwrap()),
            2,
        ));
        c.insert(Rule::new(9, 20, any.proto(6, 0xff), 3));
        c.insert(Rule::new(1, 0, any, 4));
        assert_eq!(c.lookup(&key(0, 0x0a01_0000, 0, 0, 17)).unwrap().action, 2);
        assert_eq!(c.lookup(&key(0, 0x0a02_0000, 0, 0, 17)).unwrap().action, 1);
        assert_eq!(c.lookup(&key(0, 0x0a01_0000, 0, 0, 6)).unwrap().action, 3);
        assert_eq!(c.lookup(&key(0, 0x0b00_0000, 0, 0, 17)).unwrap().action, 4);
        c.remove(9);
        assert_eq!(c.lookup(&key(0, 0x0a01_0000, 0, 0, 6)).unwrap().action, 2);
        c.remove(1);
        assert_eq!(c.lookup(&key(0, 0x0b00_0000, 0, 0, 17)), None);
        assert_eq!(c.tuple_count(), 2);
    }

    #[test]
    fn ranges_checked_in_bucket() {
        let mut c = Classifier::new();
        c.insert(Rule::new(1, 2, Ternary::ANY, 1).with_ports(
            PortRange::ANY,
            PortRange {
                lo: 1024,
                hi: 65535,
            },
        ));
        c.insert(Rule::new(2, 1, Ternary::ANY, 2));
        assert_eq!(c.lookup(&key(0, 0, 0, 1023, 6)).unwrap().action, 2);
        assert_eq!(c.lookup(&key(0, 0, 0, 1024, 6)).unwrap().action, 1);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn agrees_with_linear(ops in proptest::collection::vec(op_strategy(1), 1..60),
                              probes in proptest::collection::vec(probe_strategy(), 40)) {
            let mut fast = Classifier::new();
            let mut slow = LinearClassifier::new();
            for op in ops {
                match op {
                    Op::Insert(r) => { fast.insert(r); slow.insert(r); }
                    Op::Remove(id) => { prop_assert_eq!(fast.remove(id).is_some(), slow.remove(id).is_some()); }
                }
                prop_assert_eq!(fast.len(), slow.len());
            }
            for (s, d, sp, dp, p) in probes {
                let k = probe_key(s, d, sp, dp, p);
                prop_assert_eq!(fast.lookup(&k), slow.lookup(&k));
            }
        }
    }

    #[test]
    fn updates_while_lookups_go_on() {
        // Rules 0..100 all match; the winner is always the lowest id present.
        // A reader must never see an answer that no snapshot could give.
        let shared = Arc::new(SharedClassifier::new(Classifier::new()));
        shared.update(|c| c.insert(Rule::new(1000, 0, Ternary::ANY, 1000)));
        let reader = {
            let shared = shared.clone();
            std::thread::spawn(move || {
                let k = key(1, 2, 3, 4, 6);
                let mut seen = 0;
                for _ in 0..20_000 {
                    let m = shared.lookup(&k).expect("rule 1000 is never removed");
                    assert!(m.id == 1000 || m.id < 100);
                    assert_eq!(m.action, m.id);
                    seen += 1;
                }
                seen
            })
        };
        for round in 0..50u32 {
            for id in 0..100u32 {
                if (id + round) % 3 == 0 {
                    shared.update(|c| c.insert(Rule::new(id, 0, Ternary::ANY, id)));
                } else {
                    shared.update(|c| c.remove(id));
                }
            }
        }
        assert_eq!(reader.join().unwrap(), 20_000);
    }
}
