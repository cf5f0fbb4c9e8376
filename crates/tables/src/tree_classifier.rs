//! A decision-tree classifier that takes updates: a built [`SplitTree`],
//! the rules changed since it was built beside it, and a rebuild now and
//! then.
//!
//! - A deletion marks the rule's slot dead; leaves keep every candidate in
//!   priority order, so a walk skips the dead one and finds the next best.
//!   Where a leaf cut its tail behind a covering rule that is now dead, the
//!   walk cannot say, and that lookup goes to the tuple-space classifier
//!   that holds every rule.
//! - An insertion goes to a tuple-space classifier of the rules inserted
//!   since the build ([`crate::Classifier`]: O(1) updates); a lookup asks it
//!   too when it is not empty and keeps the better answer.
//! - After [`TreeClassifier::rebuild_after`] changes the tree is built again
//!   from the rules in force (`prism bench` and the peers table report the
//!   update rate this gives: rte_acl, for comparison, rebuilds on every
//!   change).

use crate::classifier::Classifier;
#[cfg(target_arch = "x86_64")]
use crate::leaf_block::KeyLanes;
use crate::rule::{Key, Match, Rule, RuleId};
use crate::split_tree::{self, Found, LANES, NO_MATCH, SplitTree, UNKNOWN};
use crate::tree_groups;
use crate::wide_walk::{self, WIDE, WideFields};
use std::collections::HashMap;
use std::sync::Arc;

/// One tree and its dead slots.
#[derive(Debug, Clone)]
struct Group {
    tree: Arc<SplitTree>,
    dead: Vec<bool>,
    any_dead: bool,
    /// (priority, id) of its best rule: no lookup can get more from it.
    best: (u32, RuleId),
    /// Each slot's rank among the rules of all trees (0 the best), and
    /// `u32::MAX` after them for no match ([`SplitTree::none`]).
    rank: Vec<u32>,
}

impl Group {
    /// The rank of a tree's answer (a slot, [`NO_MATCH`] or [`UNKNOWN`]),
    /// and whether the tree could not say.
    #[inline]
    fn rank_of(&self, found: u32) -> (u32, bool) {
        (
            self.rank.get(found as usize).copied().unwrap_or(u32::MAX),
            found == UNKNOWN,
        )
    }
}

#[derive(Debug, Clone)]
pub struct TreeClassifier {
    /// Best first (see [`split_tree::group`]).
    groups: Vec<Group>,
    /// Which groups share a tree: kept for the rebuilds.
    layout: tree_groups::Layout,
    /// Tree rules still in force, by id: their group and slot. Shared
    /// between a table and its copies until one removes a rule.
    slots: Arc<HashMap<RuleId, (u32, u32)>>,
    /// Rules inserted since the build.
    added: Classifier,
    /// The trees' rules, best first: [`Group::rank`] indexes it.
    by_rank: Vec<Match>,
    /// Every rule in force: for lookups the trees cannot answer. Shared
    /// between a table and its copies until one inserts or removes a rule;
    /// [`Self::set_action`] leaves it as it is, so its actions may be old:
    /// every answer from it takes the rule's action of now
    /// ([`Self::current`]).
    all: Arc<Classifier>,
    changes: usize,
}

impl Default for TreeClassifier {
    fn default() -> Self {
        Self::build(Vec::new())
    }
}

impl TreeClassifier {
    /// A classifier of `rules`, its trees built at once.
    pub fn build(rules: Vec<Rule>) -> Self {
        Self::build_in(rules, None)
    }

    /// [`Self::build`], in the layout `keep` where it still fits (see
    /// [`tree_groups::build`]).
    fn build_in(rules: Vec<Rule>, keep: Option<&tree_groups::Layout>) -> Self {
        let mut all = Classifier::new();
        let mut unique: HashMap<RuleId, Rule> = HashMap::new();
        for r in rules {
            unique.insert(r.id, r);
        }
        let mut parts: [Vec<Rule>; split_tree::GROUPS] = Default::default();
        for r in unique.into_values() {
            all.insert(r);
            parts[split_tree::group(&r)].push(r);
        }
        let (layout, trees) = tree_groups::build(&parts, keep);
        let mut groups: Vec<Group> = trees
            .into_iter()
            .map(|tree| {
                let best = tree
                    .rules
                    .first()
                    .map_or((0, RuleId::MAX), |r| (r.priority, r.id));
                Group {
                    dead: vec![false; tree.rules.len()],
                    rank: vec![u32::MAX; tree.rules.len() + 1],
                    tree: Arc::new(tree),
                    any_dead: false,
                    best,
                }
            })
            .collect();
        groups.sort_by(|a, b| b.best.0.cmp(&a.best.0).then(a.best.1.cmp(&b.best.1)));
        let mut slots = HashMap::new();
        let mut order = Vec::new();
        for (g, group) in groups.iter().enumerate() {
            for (i, r) in group.tree.rules.iter().enumerate() {
                slots.insert(r.id, (g as u32, i as u32));
                order.push((r.as_match(), g, i));
            }
        }
        order.sort_by(|a, b| b.0.priority.cmp(&a.0.priority).then(a.0.id.cmp(&b.0.id)));
        let mut by_rank = Vec::with_capacity(order.len());
        for (rank, (m, g, i)) in order.into_iter().enumerate() {
            groups[g].rank[i] = rank as u32;
            by_rank.push(m);
        }
        Self {
            groups,
            layout,
            slots: Arc::new(slots),
            by_rank,
            added: Classifier::new(),
            all: Arc::new(all),
            changes: 0,
        }
    }

    /// The trees, best first.
    pub fn trees(&self) -> impl Iterator<Item = &SplitTree> {
        self.groups.iter().map(|g| &*g.tree)
    }

    pub fn len(&self) -> usize {
        self.all.len()
    }

    pub fn is_empty(&self) -> bool {
        self.all.is_empty()
    }

    /// Changes since the build after which an update rebuilds the tree: one
    /// in 32 of the rules, and at least 64.
    pub fn rebuild_after(&self) -> usize {
        (self.len() / 32).max(64)
    }

    /// Inserts `rule`, replacing any rule with the same id. Returns the old one.
    pub fn insert(&mut self, rule: Rule) -> Option<Rule> {
        let old = self.take(rule.id);
        Arc::make_mut(&mut self.all).insert(rule);
        self.added.insert(rule);
        self.changed();
        old
    }

    /// Gives rule `id` the action `action`, its match unchanged: the trees
    /// are not touched and the change does not count towards their rebuild
    /// (a rule's new next hop or port costs a copy, not an update).
    /// `false`, and nothing changed, where no rule `id` is in force.
    pub fn set_action(&mut self, id: RuleId, action: u32) -> bool {
        match self.rank(id) {
            Some(rank) => match self.by_rank.get_mut(rank) {
                Some(m) => m.action = action,
                None => return false,
            },
            None => match self.added.get(id).copied() {
                Some(rule) => {
                    self.added.insert(Rule { action, ..rule });
                }
                None => return false,
            },
        }
        true
    }

    /// A tree rule's rank (none for a rule added since the build).
    fn rank(&self, id: RuleId) -> Option<usize> {
        let &(g, slot) = self.slots.get(&id)?;
        Some(self.groups[g as usize].rank[slot as usize] as usize)
    }

    /// Rule `id`'s action of now (none where it is not in force): `all`
    /// may hold an older one.
    fn action_of(&self, id: RuleId) -> Option<u32> {
        match self.rank(id) {
            Some(rank) => self.by_rank.get(rank).map(|m| m.action),
            None => self.added.get(id).map(|r| r.action),
        }
    }

    /// `m` (an answer of `all`) with its rule's action of now.
    fn current(&self, m: Match) -> Match {
        Match {
            action: self.action_of(m.id).unwrap_or(m.action),
            ..m
        }
    }

    /// Removes the rule with `id`.
    pub fn remove(&mut self, id: RuleId) -> Option<Rule> {
        let old = self.take(id);
        if old.is_some() {
            self.changed();
        }
        old
    }

    fn take(&mut self, id: RuleId) -> Option<Rule> {
        let action = self.action_of(id)?;
        let old = Rule {
            action,
            ..Arc::make_mut(&mut self.all).remove(id)?
        };
        if let Some((g, slot)) = Arc::make_mut(&mut self.slots).remove(&id) {
            let g = &mut self.groups[g as usize];
            g.dead[slot as usize] = true;
            g.any_dead = true;
        } else {
            self.added.remove(id);
        }
        Some(old)
    }

    fn changed(&mut self) {
        self.changes += 1;
        if self.changes >= self.rebuild_after() {
            self.rebuild();
        }
    }

    /// Builds the trees again from the rules in force, in the same layout
    /// while it fits them (choosing one builds every candidate's trees).
    pub fn rebuild(&mut self) {
        let rules = self
            .all
            .rules()
            .map(|r| Rule {
                action: self.current(r.as_match()).action,
                ..*r
            })
            .collect();
        *self = Self::build_in(rules, Some(&self.layout));
    }

    /// Which of [`split_tree::group`]'s groups share a tree: one bit mask
    /// a tree, in the order the layout was chosen (not [`Self::trees`]'s).
    pub fn layout(&self) -> Vec<u8> {
        self.layout.trees().to_vec()
    }

    /// The best rule matching `key`.
    #[inline]
    pub fn lookup(&self, key: &Key) -> Option<Match> {
        let mut best: Option<Match> = None;
        for g in &self.groups {
            if best.is_some_and(|b| b.beats(g.best.0, g.best.1)) {
                break;
            }
            match g.tree.lookup(key, g.any_dead.then_some(&g.dead[..])) {
                Found::Rule(slot) => {
                    // Its rank's entry, not the tree's copy of the rule:
                    // `set_action` changes the one and not the other.
                    let (rank, _) = g.rank_of(slot);
                    if let Some(&m) = self.by_rank.get(rank as usize)
                        && best.is_none_or(|b| !b.beats(m.priority, m.id))
                    {
                        best = Some(m);
                    }
                }
                Found::None => {}
                Found::Unknown => return self.all.lookup(key).map(|m| self.current(m)),
            }
        }
        self.with_added(key, best)
    }

    /// The rule of rank `best` (none past the ranks), with the rules added
    /// since the build; or, where a tree could not say, the answer of the
    /// classifier holding every rule.
    #[inline]
    fn ranked(&self, key: &Key, best: u32, unknown: bool) -> Option<Match> {
        if unknown {
            self.all.lookup(key).map(|m| self.current(m))
        } else {
            self.with_added(key, self.by_rank.get(best as usize).copied())
        }
    }

    /// [`Self::ranked`] written into `out`. The common case (no rule
    /// added since the build, every tree sure) copies the rule of rank
    /// `best` straight into `out`: built as a value, the `Option<Match>`
    /// was assembled on the stack by four 4-byte stores and copied by one
    /// 16-byte load, which store forwarding cannot serve (on the AMD host
    /// that stall was a quarter of the time outside the walks). `ranked`
    /// stays a function of its own for the rare cases: written out here
    /// (the same logic) the batch lookup ran slower, acl1_10k 105 -> 118
    /// cycles on that host.
    #[inline]
    fn ranked_into(&self, key: &Key, best: u32, unknown: bool, out: &mut Option<Match>) {
        if unknown || !self.added.is_empty() {
            *out = self.ranked(key, best, unknown);
            return;
        }
        match self.by_rank.get(best as usize) {
            Some(m) => *out = Some(*m),
            None => *out = None,
        }
    }

    #[inline]
    fn with_added(&self, key: &Key, best: Option<Match>) -> Option<Match> {
        if self.added.is_empty() {
            return best;
        }
        match (best, self.added.lookup(key)) {
            (Some(t), Some(a)) => Some(if t.beats(a.priority, a.id) { t } else { a }),
            (t, a) => t.or(a),
        }
    }

    /// The trees, for reports: "1 tree (depth 18)", "3 trees (depths
    /// 9/10/18)".
    pub fn shape(&self) -> String {
        let depths: Vec<String> = self.trees().map(|t| t.depth().to_string()).collect();
        match depths.len() {
            0 => "no trees".to_string(),
            1 => format!("1 tree (depth {})", depths[0]),
            n => format!("{n} trees (depths {})", depths.join("/")),
        }
    }

    /// How [`Self::lookup_batch`] walks the trees here, for reports: "32
    /// keys at a time, eight to a vector (AVX-512)" or "8 keys at a time".
    pub fn batch_walk(&self) -> String {
        if self.groups.len() <= wide_walk::TREES && wide_walk::available() {
            format!("{WIDE} keys at a time, {LANES} to a vector (AVX-512)")
        } else {
            format!("{LANES} keys at a time")
        }
    }

    /// [`Self::lookup`] of each of `keys` into `out` (as long): the trees
    /// walked for several keys at once (see [`SplitTree::lookup_lanes`]),
    /// their answers merged by rank, with no branch on what each found.
    pub fn lookup_batch(&self, keys: &[Key], out: &mut [Option<Match>]) {
        if let Some(first) = self.groups.first()
            && self.groups.len() <= wide_walk::TREES
            && wide_walk::available()
        {
            let mut trees = [&*first.tree; wide_walk::TREES];
            for (t, g) in trees.iter_mut().zip(&self.groups) {
                *t = &*g.tree;
            }
            let trees = &trees[..self.groups.len()];
            for (keys, out) in keys.chunks(WIDE).zip(out.chunks_mut(WIDE)) {
                // SAFETY: the CPU has AVX-512F, VL and BW (checked above),
                // and so AVX2.
                unsafe { self.lookup_wide(trees, keys, out) };
            }
            return;
        }
        for (keys, out) in keys.chunks(LANES).zip(out.chunks_mut(LANES)) {
            let mut best = [u32::MAX; LANES];
            let mut unknown = 0u32;
            let mut found = [NO_MATCH; LANES];
            for g in &self.groups {
                g.tree
                    .lookup_lanes(keys, g.any_dead.then_some(&g.dead[..]), &mut found);
                for i in 0..LANES {
                    let (rank, lost) = g.rank_of(found[i]);
                    best[i] = best[i].min(rank);
                    unknown |= u32::from(lost) << i;
                }
            }
            for i in 0..keys.len() {
                self.ranked_into(&keys[i], best[i], unknown >> i & 1 != 0, &mut out[i]);
            }
        }
    }
}

impl TreeClassifier {
    /// [`Self::lookup_batch`] of up to [`WIDE`] keys, the trees walked
    /// together by [`wide_walk::walk`]. Compiled for AVX2 so that the
    /// leaves' tests ([`crate::leaf_block::LeafBlock::hits`]) inline here.
    #[cfg_attr(
        target_arch = "x86_64",
        target_feature(enable = "avx2,avx512f,avx512vl,avx512bw")
    )]
    fn lookup_wide(&self, trees: &[&SplitTree], keys: &[Key], out: &mut [Option<Match>]) {
        let mut f: WideFields = [[[0; LANES]; 8]; wide_walk::VECTORS];
        for (k, key) in keys.iter().enumerate() {
            for (d, v) in split_tree::walk_fields(key).into_iter().enumerate() {
                f[k / LANES][d][k % LANES] = v;
            }
        }
        let mut leaf = [[0u32; WIDE]; wide_walk::TREES];
        wide_walk::walk(trees, &f, &mut leaf);
        for (g, leaf) in self.groups.iter().zip(&leaf) {
            for &word in &leaf[..keys.len()] {
                g.tree.prefetch_leaf(word);
            }
        }
        for (k, key) in keys.iter().enumerate() {
            let fk = std::array::from_fn(|d| f[k / LANES][d][k % LANES]);
            #[cfg(target_arch = "x86_64")]
            let lanes = KeyLanes::new(&fk);
            let mut best = u32::MAX;
            let mut unknown = false;
            for (g, leaf) in self.groups.iter().zip(&leaf) {
                let dead = g.any_dead.then_some(&g.dead[..]);
                let word = leaf[k];
                let rank = if dead.is_none() && word & split_tree::PLAIN != 0 {
                    let leaf = g.tree.block(word);
                    // The common leaf (see `SplitTree::scan`), tested here
                    // where the AVX-512 code inlines.
                    #[cfg(target_arch = "x86_64")]
                    let hits = leaf.hits_avx512(&lanes);
                    #[cfg(not(target_arch = "x86_64"))]
                    let hits = leaf.hits(&fk);
                    // The rank of "none" is last (see `Group::rank`).
                    g.rank[leaf.first_hit(hits) as usize]
                } else {
                    let (rank, lost) = g.rank_of(g.tree.answer(word, key, &fk, dead));
                    unknown |= lost;
                    rank
                };
                best = best.min(rank);
            }
            self.ranked_into(key, best, unknown, &mut out[k]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linear::LinearClassifier;
    use crate::testing::{Op, op_strategy, probe_key, probe_strategy, rule_strategy};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// Built from a set, then updated past a rebuild or two: every
        /// answer is the reference's.
        #[test]
        fn agrees_with_linear(
            first in proptest::collection::vec(rule_strategy(), 0..60),
            ops in proptest::collection::vec(op_strategy(2), 0..150),
            retargets in proptest::collection::vec((0u32..40, 1000u32..2000), 0..150),
            probes in proptest::collection::vec(probe_strategy(), 40),
        ) {
            let mut slow = LinearClassifier::new();
            for r in &first {
                slow.insert(*r);
            }
            let mut fast = TreeClassifier::build(first);
            let check = |fast: &TreeClassifier, slow: &LinearClassifier| -> Result<(), TestCaseError> {
                let keys: Vec<Key> = probes.iter().map(|&(s, d, sp, dp, p)| probe_key(s, d, sp, dp, p)).collect();
                let mut batch = vec![None; keys.len()];
                fast.lookup_batch(&keys, &mut batch);
                for (k, b) in keys.iter().zip(batch) {
                    let want = slow.lookup(k);
                    prop_assert_eq!(fast.lookup(k), want);
                    prop_assert_eq!(b, want, "lookup_batch");
                }
                Ok(())
            };
            check(&fast, &slow)?;
            for (i, op) in ops.into_iter().enumerate() {
                match op {
                    Op::Insert(r) => { fast.insert(r); slow.insert(r); }
                    Op::Remove(id) => { prop_assert_eq!(fast.remove(id).is_some(), slow.remove(id).is_some()); }
                }
                // And a rule's action changed in place: the trees keep it
                // where it was, every answer (the tuple-space one for a
                // walk that cannot say, and the rebuilds') takes the new.
                if let Some(&(id, action)) = retargets.get(i) {
                    let had = slow.remove(id);
                    prop_assert_eq!(fast.set_action(id, action), had.is_some());
                    if let Some(r) = had {
                        slow.insert(Rule { action, ..r });
                    }
                }
                prop_assert_eq!(fast.len(), slow.len());
                check(&fast, &slow)?;
            }
        }
    }
}
