//! A decision tree over the five-tuple (HyperSplit): the classifier for
//! large rule sets with many distinct masks.
//!
//! Each inner node splits one field's range at one value (`<=` left, `>`
//! right), so a lookup is a walk of 8-byte nodes, one comparison each, to a
//! leaf of up to eight candidates in priority order, stored field by field
//! in one 256-byte block so that one vector test checks all eight
//! ([`LeafBlock`]). A rule spanning both sides of a
//! split goes to both. Qi et al., "Packet classification algorithms: from
//! theory to practice" (INFOCOM 2009).
//!
//! Why a tree beside tuple-space search ([`crate::Classifier`]): ClassBench
//! ACL and IPC sets have over a hundred distinct masks even after merging,
//! and tuple-space search probes one hash table per mask; the tree's cost
//! depends on its depth, not on the masks (the peers table: rte_acl was 4×
//! faster than tuple-space search on ipc1_10k and acl1_10k). What a tree
//! gives up is cheap updates: it is built from a rule set. [`TreeClassifier`](crate::TreeClassifier)
//! puts the updates beside it and rebuilds now and then.
//!
//! Splits: in each node, for each field, every end of a rule's range
//! (clipped to the node's region) is a candidate; the one leaving the
//! larger side smallest wins, then the smaller total (less replication).
//! A node becomes a leaf at [`LEAF_RULES`] candidates, or when the best
//! candidate covers the whole region in all fields: the rules after it can
//! never win there, so they are cut (the leaf says so, for deletions).

use crate::leaf_block::LeafBlock;
use crate::rule::{Key, Rule, WORDS};

mod build;
use build::Builder;

/// Candidates a leaf holds before it is split.
pub const LEAF_RULES: usize = 8;
const LEAF: u32 = 1 << 31;

/// The five fields a tree splits on, as inclusive ranges: source and
/// destination IPv4, L4 source and destination port, IP protocol.
type Region = [[u32; 2]; 5];
const FULL: Region = [
    [0, u32::MAX],
    [0, u32::MAX],
    [0, 0xffff],
    [0, 0xffff],
    [0, 0xff],
];

#[inline]
fn fields(k: &Key) -> [u32; 5] {
    [
        (k.0[0] >> 32) as u32,
        k.0[0] as u32,
        (k.0[2] >> 48) as u32 & 0xffff,
        (k.0[2] >> 32) as u32 & 0xffff,
        (k.0[4] >> 48) as u32 & 0xff,
    ]
}

/// A rule's five ranges, and whether they say all it matches on: its
/// addresses are prefixes, its protocol exact or any, and it has no other
/// field. Otherwise the ranges are a superset and the rule is checked whole.
fn ranges(r: &Rule) -> (Region, bool) {
    let m = &r.fields.mask;
    let v = &r.fields.value;
    let prefix = |mask: u32, value: u32| -> Option<[u32; 2]> {
        (mask.leading_ones() + mask.trailing_zeros() == 32)
            .then_some([value & mask, (value & mask) | !mask])
    };
    let src = prefix((m[0] >> 32) as u32, (v[0] >> 32) as u32);
    let dst = prefix(m[0] as u32, v[0] as u32);
    let pm = (m[4] >> 48) as u32 & 0xff;
    let pv = (v[4] >> 48) as u32 & 0xff;
    let proto = match pm {
        0 => Some([0, 0xff]),
        0xff => Some([pv, pv]),
        _ => None,
    };
    let others = m[1] | m[2] | m[3] | (m[4] & !(0xffu64 << 48));
    let exact = src.is_some() && dst.is_some() && proto.is_some() && others == 0;
    let region = [
        src.unwrap_or(FULL[0]),
        dst.unwrap_or(FULL[1]),
        [u32::from(r.src_port.lo), u32::from(r.src_port.hi)],
        [u32::from(r.dst_port.lo), u32::from(r.dst_port.hi)],
        proto.unwrap_or(FULL[4]),
    ];
    (region, exact)
}

/// Whether `r` matches on the five-tuple alone (prefix addresses, port
/// ranges, an exact or any protocol): a tree's splits can then separate it
/// from the others; any other field leaves it everywhere.
pub fn five_tuple_only(r: &Rule) -> bool {
    ranges(r).1
}

/// The groups of [`group`]: two bits, wide source and wide destination.
pub const GROUPS: usize = 4;

/// Which of four groups a rule belongs to: by whether its source and its
/// destination address ranges are wide (a /16 or shorter). A rule wide in a
/// field is copied into both sides of every split on it; kept apart, the
/// wide rules are copied only among themselves (EffiCuts' separation of
/// large and small rules, Vamanan et al., SIGCOMM 2010). Without it,
/// fw1_10k's tree held 63 million candidates (2 GiB). Groups that copy
/// little when together share a tree (`crate::tree_groups`).
pub fn group(r: &Rule) -> usize {
    let (reg, _) = ranges(r);
    let wide = |d: usize| reg[d][1] - reg[d][0] >= 0xffff;
    usize::from(wide(0)) | (usize::from(wide(1)) << 1)
}

#[derive(Debug, Clone, Copy)]
struct Node {
    split: u32,
    field: u32,
    /// Child for `<= split`, child for `> split`: a node index, or a leaf
    /// index with [`LEAF`] set.
    kids: [u32; 2],
}

/// What a walk found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// The best live rule, by its slot in [`SplitTree::rules`].
    Rule(u32),
    /// No rule matches.
    None,
    /// The leaf's covering rule is dead and the rules after it were cut:
    /// the tree cannot say; ask a classifier holding every rule.
    Unknown,
}

/// A built tree. See the module docs.
#[derive(Debug, Clone)]
pub struct SplitTree {
    /// The walk's entries (see [`Step`]), the root first, the two children
    /// of an inner node side by side; padded to a power of two so that an
    /// index masked with `len - 1` needs no bounds check.
    steps: Vec<u64>,
    /// The leaves, each one block or more in a row (see [`LeafBlock::more`]).
    blocks: Vec<LeafBlock>,
    /// Candidates in all leaves.
    stored: usize,
    depth: u32,
    /// The rules, by slot, in priority order (best first).
    pub rules: Vec<Rule>,
}

/// One walk entry packed in a `u64`: the high word a split value, the low
/// word the index of the first of two children (26 bits) above a field
/// (3 bits) above three zero bits; the walk goes to
/// `first + (field value > split)`. A leaf is an entry on field
/// [`NO_FIELD`], whose value is always 0, so the walk stays on it (its
/// children are itself): its high word is the index of the leaf's first
/// block. Every walk thus takes the tree's depth in steps, with no branch
/// on where it stands (see
/// [`SplitTree::lookup_lanes`]); packed, the children's index is an add,
/// not a load.
///
/// Why this order (`crate::wide_walk`): the low word ORed with a key's
/// lane number is the index that picks the key's field out of the
/// vectors of fields (a permute reads only its low bits); and the field's
/// value moved into the high half of the 64-bit lane compares with the
/// whole entry as one unsigned 64-bit number exactly as it compares with
/// the split (the low word only breaks ties, and a tie must go left: it
/// does, `v << 32 > (split << 32 | low)` holding only when `v > split`).
struct Step;

impl Step {
    const FIELD_SHIFT: u32 = 3;
    const INDEX_SHIFT: u32 = 6;

    fn pack(split: u32, field: usize, first: usize) -> u64 {
        assert!(
            first < 1 << (32 - Self::INDEX_SHIFT),
            "a tree of over 2^26 entries"
        );
        let low = ((first as u32) << Self::INDEX_SHIFT) | ((field as u32) << Self::FIELD_SHIFT);
        u64::from(split) << 32 | u64::from(low)
    }

    /// The entry after `step` for a key of `f` (see [`walk_fields`]).
    #[inline(always)]
    fn next(step: u64, f: &[u32; 8]) -> u32 {
        let low = step as u32;
        let value = f[(low >> Self::FIELD_SHIFT) as usize & 7];
        (low >> Self::INDEX_SHIFT) + u32::from(value > (step >> 32) as u32)
    }

    fn is_leaf(step: u64) -> bool {
        (step as u32 >> Self::FIELD_SHIFT) as usize & 7 == NO_FIELD
    }

    /// A leaf entry's word: its first block, and [`PLAIN`].
    fn word(step: u64) -> u32 {
        (step >> 32) as u32
    }
}

/// [`Step`]'s layout, for the vector walk (`crate::wide_walk`).
pub(crate) const STEP_INDEX_SHIFT: u32 = Step::INDEX_SHIFT;

/// Set in a leaf entry's word when the leaf is one block of exact
/// candidates ([`LeafBlock::plain`]): a walk's end says so without
/// reading the block.
pub(crate) const PLAIN: u32 = 1 << 31;

/// The field index of a leaf's entry: [`walk_fields`] holds 0 there.
const NO_FIELD: usize = 5;

/// The five fields and, from [`NO_FIELD`] on, zeros.
#[inline]
pub(crate) fn walk_fields(k: &Key) -> [u32; 8] {
    let f = fields(k);
    [f[0], f[1], f[2], f[3], f[4], 0, 0, 0]
}

impl SplitTree {
    /// Builds a tree of `rules` (any order).
    pub fn build(rules: Vec<Rule>) -> Self {
        Self::build_within(rules, usize::MAX).expect("an unbounded build")
    }

    /// [`Self::build`], or none once the leaves would hold more than
    /// `budget` candidates (rules with their copies): the build stops
    /// there, so a tree that would copy its rules out of bounds costs no
    /// more to try than a tree of `budget` candidates.
    pub fn build_within(mut rules: Vec<Rule>, budget: usize) -> Option<Self> {
        rules.sort_by(|a, b| b.priority.cmp(&a.priority).then(a.id.cmp(&b.id)));
        let base: Vec<_> = rules.iter().map(ranges).collect();
        let mut b = Builder {
            base,
            budget,
            nodes: Vec::new(),
            tree: SplitTree {
                steps: Vec::new(),
                blocks: Vec::new(),
                stored: 0,
                depth: 0,
                rules,
            },
        };
        let all: Vec<u32> = (0..b.base.len() as u32).collect();
        let root = b.node(all, FULL, false);
        if b.tree.stored > budget {
            return None;
        }
        b.lay_out(root);
        Some(b.tree)
    }

    /// The longest walk from the root to a leaf.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    #[inline(always)]
    fn step(&self, at: u32) -> u64 {
        self.steps[at as usize & (self.steps.len() - 1)]
    }

    /// The leaf a walk of `f` ends on, and the inner nodes it visited.
    #[inline]
    fn walk(&self, f: &[u32; 8]) -> (u32, usize) {
        let (mut at, mut visited) = (0, 0);
        loop {
            let step = self.step(at);
            if Step::is_leaf(step) {
                return (Step::word(step) & !PLAIN, visited);
            }
            at = Step::next(step, f);
            visited += 1;
        }
    }

    /// (inner nodes visited, candidates checked) by a lookup of `key`: its cost.
    pub fn work(&self, key: &Key) -> (usize, usize) {
        let f = walk_fields(key);
        let (leaf, depth) = self.walk(&f);
        let mut scanned = 0;
        for b in &self.blocks[leaf as usize..] {
            let hits = b.hits(&f);
            if hits != 0 {
                return (depth, scanned + hits.trailing_zeros() as usize + 1);
            }
            scanned += b.count();
            if !b.more {
                break;
            }
        }
        (depth, scanned)
    }

    /// Candidates stored in all leaves: the rules, with replication.
    pub fn stored(&self) -> usize {
        self.stored
    }

    /// Bytes of walk entries and leaves.
    pub fn bytes(&self) -> usize {
        self.steps.len() * std::mem::size_of::<u64>()
            + self.blocks.len() * std::mem::size_of::<LeafBlock>()
    }

    /// The best rule matching `key` whose slot `dead` does not mark.
    #[inline]
    pub fn lookup(&self, key: &Key, dead: Option<&[bool]>) -> Found {
        let f = walk_fields(key);
        match self.scan(self.walk(&f).0, key, &f, dead) {
            NO_MATCH => Found::None,
            UNKNOWN => Found::Unknown,
            slot => Found::Rule(slot),
        }
    }

    /// [`Self::lookup`] for up to [`LANES`] keys at once, each answer a
    /// slot or [`NO_MATCH`] or [`UNKNOWN`]; their walks interleaved step by
    /// step: a walk is a chain of dependent loads, and several chains in
    /// flight overlap their misses (as rte_acl classifies several packets
    /// together). Every walk takes the tree's depth in steps (see
    /// [`Step`]): a shorter walk marks time at its leaf, which costs less
    /// than the mispredicted branch of stopping it.
    #[inline]
    pub fn lookup_lanes(&self, keys: &[Key], dead: Option<&[bool]>, out: &mut [u32; LANES]) {
        let n = keys.len().min(LANES);
        let mut f = [[0u32; 8]; LANES];
        for i in 0..n {
            f[i] = walk_fields(&keys[i]);
        }
        let mut at = [0u32; LANES];
        let steps = &self.steps[..];
        let mask = steps.len() - 1;
        for _ in 0..self.depth {
            for i in 0..LANES {
                at[i] = Step::next(steps[at[i] as usize & mask], &f[i]);
            }
        }
        for i in 0..n {
            let leaf = Step::word(steps[at[i] as usize & mask]) & !PLAIN;
            out[i] = self.scan(leaf, &keys[i], &f[i], dead);
        }
    }

    /// The walk's entries (see [`Step`]).
    pub(crate) fn step_entries(&self) -> &[u64] {
        &self.steps
    }

    /// Asks for the first lines of the leaf whose entry's word is `word`.
    #[inline]
    pub(crate) fn prefetch_leaf(&self, word: u32) {
        #[cfg(target_arch = "x86_64")]
        if let Some(b) = self.blocks.get((word & !PLAIN) as usize) {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let p = std::ptr::from_ref(b).cast::<i8>();
            // SAFETY: a prefetch reads nothing the program sees; both
            // addresses are within the block.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(p);
                _mm_prefetch::<_MM_HINT_T0>(p.add(64));
            }
        }
    }

    /// The slot a leaf's [`LeafBlock::first_hit`] gives when nothing hits:
    /// one past the rules.
    #[inline]
    pub(crate) fn none(&self) -> u32 {
        self.rules.len() as u32
    }

    /// The first block of the leaf whose entry's word is `word` (see
    /// [`PLAIN`]).
    #[inline]
    pub(crate) fn block(&self, word: u32) -> &LeafBlock {
        &self.blocks[(word & !PLAIN) as usize]
    }

    /// [`Self::lookup_lanes`]'s answer for the leaf whose entry's word
    /// is `word`.
    #[inline]
    pub(crate) fn answer(&self, word: u32, key: &Key, f: &[u32; 8], dead: Option<&[bool]>) -> u32 {
        self.scan(word & !PLAIN, key, f, dead)
    }

    /// The best live candidate of the leaf at block `leaf` holding `key`:
    /// its slot, [`NO_MATCH`] or [`UNKNOWN`].
    #[inline]
    fn scan(&self, leaf: u32, key: &Key, f: &[u32; 8], dead: Option<&[bool]>) -> u32 {
        let b = &self.blocks[leaf as usize];
        if dead.is_none() && b.plain() {
            // The common leaf, with no branch on what it holds: its best
            // hit wins outright. (Where the leaf was cut, its last
            // candidate covers the region and always hits.)
            let best = b.first_hit(b.hits(f));
            return if best < self.none() { best } else { NO_MATCH };
        }
        for b in &self.blocks[leaf as usize..] {
            let mut hits = b.hits(f);
            while hits != 0 {
                let j = hits.trailing_zeros();
                hits &= hits - 1;
                let slot = b.slot(j);
                if (b.exact >> j & 1 != 0 || self.rules[slot as usize].matches(key))
                    && dead.is_none_or(|d| !d[slot as usize])
                {
                    return slot;
                }
            }
            if !b.more {
                return if b.cut { UNKNOWN } else { NO_MATCH };
            }
        }
        NO_MATCH
    }
}

/// A lane's answer when no rule matches.
pub const NO_MATCH: u32 = u32::MAX;
/// A lane's answer when the tree cannot say (see [`Found::Unknown`]).
pub const UNKNOWN: u32 = u32::MAX - 1;

/// Keys [`SplitTree::lookup_lanes`] walks together.
pub const LANES: usize = 8;

const _: () = assert!(WORDS == 5);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linear::LinearClassifier;
    use crate::prefix::Ipv4Prefix;
    use crate::rule::{PortRange, Ternary};
    use crate::testing::key;

    #[test]
    fn ranges_of_a_classbench_rule() {
        let r = Rule::new(
            1,
            0,
            Ternary::ANY
                .src_ip(Ipv4Prefix::new(0x0a00_0000, 8))
                .proto(6, 0xff),
            0,
        )
        .with_ports(PortRange::ANY, PortRange { lo: 80, hi: 90 });
        let (reg, exact) = ranges(&r);
        assert!(exact);
        assert_eq!(reg[0], [0x0a00_0000, 0x0aff_ffff]);
        assert_eq!(reg[1], [0, u32::MAX]);
        assert_eq!(reg[3], [80, 90]);
        assert_eq!(reg[4], [6, 6]);
        // A VLAN is outside the five fields: checked on the rule.
        assert!(!ranges(&Rule::new(2, 0, Ternary::ANY.vlan(Some(5)), 0)).1);
    }

    #[test]
    fn a_covering_rule_cuts_the_rest_and_the_leaf_says_so() {
        let mut rules = vec![Rule::new(0, 100, Ternary::ANY, 7)];
        for i in 1..40u32 {
            rules.push(Rule::new(
                i,
                i,
                Ternary::ANY.dst_ip(Ipv4Prefix::new(i << 24, 8)),
                i,
            ));
        }
        let t = SplitTree::build(rules);
        assert_eq!(t.stored(), 1);
        let k = key(1, 5 << 24, 0, 0, 6);
        assert_eq!(t.lookup(&k, None), Found::Rule(0));
        let mut dead = vec![false; 40];
        dead[0] = true;
        assert_eq!(t.lookup(&k, Some(&dead)), Found::Unknown);
        let mut lin = LinearClassifier::new();
        lin.insert(Rule::new(0, 100, Ternary::ANY, 7));
        assert_eq!(lin.lookup(&k).map(|m| m.id), Some(0));
    }
}
