//! A decision tree over the five-tuple (HyperSplit): the classifier for
//! large rule sets with many distinct masks.
//!
//! Each inner node splits one field's range at one value (`<=` left, `>`
//! right), so a lookup is a walk of 16-byte nodes, one comparison each, to a
//! leaf of a few candidates in priority order, stored inline (32 bytes each)
//! so that the scan reads consecutive lines. A rule spanning both sides of a
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

use crate::rule::{Key, Rule, WORDS};

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

/// Which of four trees a rule goes to: by whether its source and its
/// destination address ranges are wide (a /16 or shorter). A rule wide in a
/// field is copied into both sides of every split on it; kept apart, the
/// wide rules are copied only among themselves (EffiCuts' separation of
/// large and small rules, Vamanan et al., SIGCOMM 2010). Without it,
/// fw1_10k's tree held 63 million candidates (2 GiB).
pub fn group(r: &Rule) -> usize {
    let (reg, _) = ranges(r);
    let wide = |d: usize| reg[d][1] - reg[d][0] >= 0xffff;
    usize::from(wide(0)) | (usize::from(wide(1)) << 1)
}

/// A leaf's candidate: a rule's ranges, packed.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(32))]
struct Cand {
    src: [u32; 2],
    dst: [u32; 2],
    sport: [u16; 2],
    dport: [u16; 2],
    proto: [u8; 2],
    /// The ranges are the whole rule (see [`ranges`]).
    exact: bool,
    slot: u32,
}

impl Cand {
    #[inline]
    fn hits(&self, f: &[u32; 5]) -> bool {
        let within = |v: u32, r: [u32; 2]| v.wrapping_sub(r[0]) <= r[1].wrapping_sub(r[0]);
        within(f[0], self.src)
            & within(f[1], self.dst)
            & within(f[2], [u32::from(self.sport[0]), u32::from(self.sport[1])])
            & within(f[3], [u32::from(self.dport[0]), u32::from(self.dport[1])])
            & within(f[4], [u32::from(self.proto[0]), u32::from(self.proto[1])])
    }
}

#[derive(Debug, Clone, Copy)]
struct Node {
    split: u32,
    field: u32,
    /// Child for `<= split`, child for `> split`: a node index, or a leaf
    /// index with [`LEAF`] set.
    kids: [u32; 2],
}

#[derive(Debug, Clone, Copy)]
struct Leaf {
    start: u32,
    len: u32,
    /// Rules after the last candidate were cut (it covers the region).
    cut: bool,
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
    nodes: Vec<Node>,
    leaves: Vec<Leaf>,
    cands: Vec<Cand>,
    root: u32,
    /// The nodes again, each leaf as a node of its own that leads to
    /// itself (`split` is `u32::MAX`, so the walk always takes `kids[0]`,
    /// and `kids[1]` holds the leaf): every walk is `depth` steps long, so
    /// [`SplitTree::lookup_lanes`] runs its lanes without a branch on where
    /// each one stands.
    flat: Vec<Node>,
    flat_root: u32,
    depth: u32,
    /// The rules, by slot, in priority order (best first).
    pub rules: Vec<Rule>,
}

struct Builder {
    base: Vec<(Region, bool)>,
    tree: SplitTree,
}

impl SplitTree {
    /// Builds a tree of `rules` (any order).
    pub fn build(mut rules: Vec<Rule>) -> Self {
        rules.sort_by(|a, b| b.priority.cmp(&a.priority).then(a.id.cmp(&b.id)));
        let base: Vec<_> = rules.iter().map(ranges).collect();
        let mut b = Builder {
            base,
            tree: SplitTree {
                nodes: Vec::new(),
                leaves: Vec::new(),
                cands: Vec::new(),
                root: 0,
                flat: Vec::new(),
                flat_root: 0,
                depth: 0,
                rules,
            },
        };
        let all: Vec<u32> = (0..b.base.len() as u32).collect();
        b.tree.root = b.node(all, FULL, false);
        b.tree.flatten();
        b.tree
    }

    fn flatten(&mut self) {
        let mut flat = self.nodes.clone();
        let as_node = |c: u32, flat: &mut Vec<Node>| -> u32 {
            if c & LEAF == 0 {
                return c;
            }
            let at = flat.len() as u32;
            flat.push(Node {
                split: u32::MAX,
                field: 0,
                kids: [at, c],
            });
            at
        };
        for n in 0..self.nodes.len() {
            for k in 0..2 {
                flat[n].kids[k] = as_node(self.nodes[n].kids[k], &mut flat);
            }
        }
        self.flat_root = as_node(self.root, &mut flat);
        self.flat = flat;
        let mut stack = vec![(self.root, 0u32)];
        while let Some((c, d)) = stack.pop() {
            if c & LEAF != 0 {
                self.depth = self.depth.max(d);
            } else {
                for k in self.nodes[c as usize].kids {
                    stack.push((k, d + 1));
                }
            }
        }
    }

    /// The longest walk from the root to a leaf.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// (inner nodes visited, candidates checked) by a lookup of `key`: its cost.
    pub fn work(&self, key: &Key) -> (usize, usize) {
        let f = fields(key);
        let (mut c, mut depth) = (self.root, 0);
        while c & LEAF == 0 {
            let n = &self.nodes[c as usize];
            c = n.kids[usize::from(f[n.field as usize] > n.split)];
            depth += 1;
        }
        let leaf = self.leaves[(c & !LEAF) as usize];
        let cands = &self.cands[leaf.start as usize..(leaf.start + leaf.len) as usize];
        let scanned = cands
            .iter()
            .position(|c| c.hits(&f))
            .map_or(cands.len(), |i| i + 1);
        (depth, scanned)
    }

    /// Candidates stored in all leaves: the rules, with replication.
    pub fn stored(&self) -> usize {
        self.cands.len()
    }

    /// Bytes of nodes, leaves and candidates.
    pub fn bytes(&self) -> usize {
        (self.nodes.len() + self.flat.len()) * std::mem::size_of::<Node>()
            + self.leaves.len() * std::mem::size_of::<Leaf>()
            + self.cands.len() * std::mem::size_of::<Cand>()
    }

    /// The best rule matching `key` whose slot `dead` does not mark.
    #[inline]
    pub fn lookup(&self, key: &Key, dead: Option<&[bool]>) -> Found {
        let f = fields(key);
        let mut c = self.root;
        while c & LEAF == 0 {
            let n = &self.nodes[c as usize];
            c = n.kids[usize::from(f[n.field as usize] > n.split)];
        }
        self.scan(c, key, &f, dead)
    }

    /// [`Self::lookup`] for up to [`LANES`] keys at once, their walks
    /// interleaved step by step: a walk is a chain of dependent loads, and
    /// several chains in flight overlap their misses (as rte_acl classifies
    /// several packets together). Every walk takes the tree's depth in
    /// steps (see `flat`): a shorter walk marks time at its leaf, which
    /// costs less than the mispredicted branch of stopping it.
    #[inline]
    pub fn lookup_lanes(&self, keys: &[Key], dead: Option<&[bool]>, out: &mut [Found; LANES]) {
        let n = keys.len().min(LANES);
        let mut f = [[0u32; 5]; LANES];
        for i in 0..n {
            f[i] = fields(&keys[i]);
        }
        let mut c = [self.flat_root; LANES];
        for _ in 0..self.depth {
            for i in 0..LANES {
                let node = &self.flat[c[i] as usize];
                c[i] = node.kids[usize::from(f[i][node.field as usize] > node.split)];
            }
        }
        // The leaves' first lines, loaded for all lanes before any scan
        // branches: their misses overlap.
        let mut touch = 0u32;
        for i in 0..n {
            let leaf = self.leaves[(self.flat[c[i] as usize].kids[1] & !LEAF) as usize];
            touch ^= self.cands.get(leaf.start as usize).map_or(0, |c| c.slot);
        }
        std::hint::black_box(touch);
        for i in 0..n {
            let leaf = self.flat[c[i] as usize].kids[1];
            out[i] = self.scan(leaf, &keys[i], &f[i], dead);
        }
    }

    #[inline]
    fn scan(&self, leaf: u32, key: &Key, f: &[u32; 5], dead: Option<&[bool]>) -> Found {
        let leaf = self.leaves[(leaf & !LEAF) as usize];
        let cands = &self.cands[leaf.start as usize..(leaf.start + leaf.len) as usize];
        for cand in cands {
            if cand.hits(f)
                && (cand.exact || self.rules[cand.slot as usize].matches(key))
                && dead.is_none_or(|d| !d[cand.slot as usize])
            {
                return Found::Rule(cand.slot);
            }
        }
        if leaf.cut {
            Found::Unknown
        } else {
            Found::None
        }
    }
}

/// Keys [`SplitTree::lookup_lanes`] walks together.
pub const LANES: usize = 8;

impl Builder {
    /// Builds the subtree of `rules` (slots, best first) within `region`;
    /// `cut`: an ancestor cut rules behind a covering one.
    fn node(&mut self, mut rules: Vec<u32>, region: Region, mut cut: bool) -> u32 {
        // Past a rule that covers the region, nothing can win.
        let covers = |&(r, exact): &(Region, bool)| {
            exact && (0..5).all(|d| r[d][0] <= region[d][0] && region[d][1] <= r[d][1])
        };
        if let Some(i) = rules.iter().position(|&s| covers(&self.base[s as usize])) {
            cut |= i + 1 < rules.len();
            rules.truncate(i + 1);
        }
        if rules.len() > LEAF_RULES
            && let Some((field, split)) = self.best_split(&rules, &region)
        {
            let side = |lo: bool| -> (Vec<u32>, Region) {
                let mut reg = region;
                if lo {
                    reg[field][1] = split;
                } else {
                    reg[field][0] = split + 1;
                }
                let kept = rules
                    .iter()
                    .copied()
                    .filter(|&s| {
                        let r = self.base[s as usize].0[field];
                        r[0] <= reg[field][1] && reg[field][0] <= r[1]
                    })
                    .collect();
                (kept, reg)
            };
            let (l, lreg) = side(true);
            let (r, rreg) = side(false);
            drop(rules);
            let at = self.tree.nodes.len();
            self.tree.nodes.push(Node {
                split,
                field: field as u32,
                kids: [0, 0],
            });
            let lk = self.node(l, lreg, cut);
            let rk = self.node(r, rreg, cut);
            self.tree.nodes[at].kids = [lk, rk];
            return at as u32;
        }
        let start = self.tree.cands.len() as u32;
        for &s in &rules {
            let (r, exact) = self.base[s as usize];
            self.tree.cands.push(Cand {
                src: r[0],
                dst: r[1],
                sport: [r[2][0] as u16, r[2][1] as u16],
                dport: [r[3][0] as u16, r[3][1] as u16],
                proto: [r[4][0] as u8, r[4][1] as u8],
                exact,
                slot: s,
            });
        }
        self.tree.leaves.push(Leaf {
            start,
            len: rules.len() as u32,
            cut,
        });
        (self.tree.leaves.len() as u32 - 1) | LEAF
    }

    /// The split leaving the larger side smallest, then the fewest copies.
    fn best_split(&self, rules: &[u32], region: &Region) -> Option<(usize, u32)> {
        let n = rules.len();
        let mut best: Option<((usize, usize), usize, u32)> = None;
        let mut los = Vec::with_capacity(n);
        let mut his = Vec::with_capacity(n);
        let mut points = Vec::with_capacity(2 * n);
        for (d, &[rlo, rhi]) in region.iter().enumerate() {
            los.clear();
            his.clear();
            points.clear();
            for &s in rules {
                let [lo, hi] = self.base[s as usize].0[d];
                let (lo, hi) = (lo.max(rlo), hi.min(rhi));
                los.push(lo);
                his.push(hi);
                if lo > rlo {
                    points.push(lo - 1);
                }
                if hi < rhi {
                    points.push(hi);
                }
            }
            los.sort_unstable();
            his.sort_unstable();
            points.sort_unstable();
            points.dedup();
            for &p in &points {
                let left = los.partition_point(|&x| x <= p);
                let right = n - his.partition_point(|&x| x <= p);
                let cost = (left.max(right), left + right);
                if best.is_none_or(|b| cost < b.0) {
                    best = Some((cost, d, p));
                }
            }
        }
        // A split that leaves every rule on one side gains nothing.
        best.filter(|b| b.0.0 < n).map(|(_, d, p)| (d, p))
    }
}

const _: () = assert!(std::mem::size_of::<Cand>() == 32 && WORDS == 5);

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
