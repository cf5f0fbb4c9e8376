//! Which groups of rules share a tree: the layout of a
//! [`TreeClassifier`](crate::TreeClassifier)'s trees.
//!
//! In: the rules, in [`crate::split_tree::group`]'s four groups (by
//! whether their addresses are wide). Out: the trees, each built from one or more groups,
//! and the layout (which groups went together), kept for the rebuilds.
//!
//! Why: a lookup pays every tree its depth in walk steps and one leaf
//! test, so two groups in one tree cost less than apart, unless together
//! they copy their rules many times over (which is why there are groups).
//! Whether they do depends on the rule set: acl1_10k's three groups fit in
//! one tree of 18 levels and 49 thousand candidates, and its lookups went
//! from 105 to 72 TSC cycles on the AMD host (Zen 4); fw1_10k's wide groups
//! together copy their rules two million times.
//!
//! How: every way of putting the groups into trees (at most fifteen for
//! four groups) whose trees hold at most [`budget`] candidates is scored
//! by the model below, and the cheapest wins. Each set of groups is built
//! once; a build stops at the budget ([`SplitTree::build_within`]), and a
//! set is not tried where a smaller set inside it already went over.
//!
//! The model, from the trees' lookups on the AMD host: a step of the walk
//! costs about 1.8 cycles a key and a tree's leaf test about 8.5 (merging
//! two of ipc1_10k's or acl1_10k's groups into one tree seven levels deeper
//! saved 20 to 22 cycles a key). In whole units: [`STEP_COST`] and
//! [`TREE_COST`]. Fitted before the walk's step was shortened (nine
//! vector instructions, not fourteen): a level now costs less, which can
//! only favour merging more, and the budget is what bounds merging.

use crate::rule::Rule;
use crate::split_tree::{GROUPS, SplitTree};

/// The modelled cost of one level of a tree, for each key.
const STEP_COST: usize = 2;
/// The modelled cost of one more tree, for each key, besides its levels.
const TREE_COST: usize = 9;

/// Which groups share each tree: one bit mask over the groups a tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    trees: Vec<u8>,
    /// Candidates the trees may hold, and the rules there were, when the
    /// layout was chosen.
    budget: usize,
    rules: usize,
}

impl Layout {
    /// The groups of each tree, as bit masks.
    pub fn trees(&self) -> &[u8] {
        &self.trees
    }
}

/// The candidates a layout's trees may hold together: eight a rule, or
/// twice what the groups hold each in a tree of its own, whichever is
/// more. (fw1_10k's groups apart already hold eight a rule.)
pub fn budget(rules: usize, apart: usize) -> usize {
    (8 * rules).max(2 * apart)
}

/// The rules of the groups in `mask`.
fn rules_of(parts: &[Vec<Rule>; GROUPS], mask: u8) -> Vec<Rule> {
    (0..GROUPS)
        .filter(|g| mask >> g & 1 != 0)
        .flat_map(|g| parts[g].iter().copied())
        .collect()
}

fn cost(t: &SplitTree) -> usize {
    STEP_COST * t.depth() as usize + TREE_COST
}

/// Builds the trees of `parts` (the rules by [`crate::split_tree::group`])
/// in the cheapest layout; or in `keep`'s where it is given, has a tree
/// for every group with rules, still fits its budget, and the rules have
/// not halved or doubled since it was chosen.
pub fn build(parts: &[Vec<Rule>; GROUPS], keep: Option<&Layout>) -> (Layout, Vec<SplitTree>) {
    let rules: usize = parts.iter().map(Vec::len).sum();
    if let Some(keep) = keep
        && rules <= 2 * keep.rules
        && keep.rules <= 2 * rules
        && let Some(built) = build_layout(parts, keep)
    {
        return built;
    }
    choose(parts)
}

/// The trees of `layout` (less those left with no rules), or none if a
/// group with rules has no tree there or they go over its budget.
fn build_layout(parts: &[Vec<Rule>; GROUPS], layout: &Layout) -> Option<(Layout, Vec<SplitTree>)> {
    let covered = layout.trees.iter().fold(0u8, |a, m| a | m);
    if (0..GROUPS).any(|g| !parts[g].is_empty() && covered >> g & 1 == 0) {
        return None;
    }
    let mut left = layout.budget;
    let mut kept = Layout {
        trees: Vec::with_capacity(layout.trees.len()),
        ..layout.clone()
    };
    let mut trees = Vec::with_capacity(layout.trees.len());
    for &mask in &layout.trees {
        let rules = rules_of(parts, mask);
        if rules.is_empty() {
            continue;
        }
        let t = SplitTree::build_within(rules, left)?;
        left -= t.stored();
        trees.push(t);
        kept.trees.push(mask);
    }
    Some((kept, trees))
}

/// Every layout of the groups that have rules, scored; the cheapest built.
fn choose(parts: &[Vec<Rule>; GROUPS]) -> (Layout, Vec<SplitTree>) {
    let present: Vec<u8> = (0..GROUPS as u8)
        .filter(|&g| !parts[g as usize].is_empty())
        .collect();
    let rules: usize = parts.iter().map(Vec::len).sum();
    // built[mask]: the tree of the groups in `mask`, none where it went
    // over the budget or was not tried.
    let mut built: [Option<SplitTree>; 1 << GROUPS] = Default::default();
    for &g in &present {
        built[1 << g] = Some(SplitTree::build(parts[g as usize].clone()));
    }
    let apart = built.iter().flatten().map(SplitTree::stored).sum();
    let budget = budget(rules, apart);
    let all: u8 = present.iter().map(|&g| 1u8 << g).sum();
    // Sets of two groups or more, the smaller first, so that a set holding
    // one that went over (or was skipped) is skipped: every set one group
    // smaller is then a single group, built, or a set already tried.
    let mut sets: Vec<u8> = (1..=all)
        .filter(|&m| m & !all == 0 && m.count_ones() >= 2)
        .collect();
    sets.sort_by_key(|m| m.count_ones());
    for m in sets {
        let holds_over =
            (0..GROUPS).any(|g| m >> g & 1 != 0 && built[usize::from(m & !(1 << g))].is_none());
        if !holds_over {
            built[usize::from(m)] = SplitTree::build_within(rules_of(parts, m), budget);
        }
    }
    // The groups apart always qualify: their candidates are at most half
    // the budget.
    let masks = cheapest(&present, &built, budget).unwrap_or_default();
    let trees = masks
        .iter()
        .map(|&m| {
            built[usize::from(m)]
                .take()
                .expect("a scored tree was built")
        })
        .collect();
    let layout = Layout {
        trees: masks,
        budget,
        rules,
    };
    (layout, trees)
}

/// The partition of `present` whose trees (all built, within `budget`)
/// cost least to walk, then store least.
fn cheapest(
    present: &[u8],
    built: &[Option<SplitTree>; 1 << GROUPS],
    budget: usize,
) -> Option<Vec<u8>> {
    let mut best: Option<((usize, usize), Vec<u8>)> = None;
    for layout in partitions(present) {
        let trees: Option<Vec<&SplitTree>> = layout
            .iter()
            .map(|&m| built[usize::from(m)].as_ref())
            .collect();
        let Some(trees) = trees else { continue };
        let stored: usize = trees.iter().map(|t| t.stored()).sum();
        if stored > budget {
            continue;
        }
        let score = (trees.iter().map(|t| cost(t)).sum::<usize>(), stored);
        if best.as_ref().is_none_or(|b| score < b.0) {
            best = Some((score, layout));
        }
    }
    best.map(|b| b.1)
}

/// Every way of splitting `groups` into sets, each set a bit mask.
fn partitions(groups: &[u8]) -> Vec<Vec<u8>> {
    let Some((&first, rest)) = groups.split_first() else {
        return vec![Vec::new()];
    };
    let mut out = Vec::new();
    for mut p in partitions(rest) {
        // `first` alone, or joined to each set in turn.
        for i in 0..p.len() {
            let mut q = p.clone();
            q[i] |= 1 << first;
            out.push(q);
        }
        p.push(1 << first);
        out.push(p);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TreeClassifier;
    use crate::prefix::Ipv4Prefix;
    use crate::rule::Ternary;
    use crate::testing::key;

    fn rule(id: u32, src: (u32, u8), dst: (u32, u8)) -> Rule {
        let f = Ternary::ANY
            .src_ip(Ipv4Prefix::new(src.0, src.1))
            .dst_ip(Ipv4Prefix::new(dst.0, dst.1));
        Rule::new(id, 1000 - id, f, id)
    }

    /// Any source to one host, and one host to anywhere: in one tree each
    /// leaf holds both kinds and the rules are copied over and over, so the
    /// two groups keep a tree each.
    #[test]
    fn crossed_wide_groups_keep_a_tree_each() {
        let mut rules = Vec::new();
        for i in 0..64u32 {
            rules.push(rule(2 * i, (0, 0), (0x0a00_0000 + i * 4099, 32)));
            rules.push(rule(2 * i + 1, (0x0b00_0000 + i * 4099, 32), (0, 0)));
        }
        let mut parts: [Vec<Rule>; GROUPS] = Default::default();
        for r in &rules {
            parts[crate::split_tree::group(r)].push(*r);
        }
        let apart: usize = [1, 2]
            .iter()
            .map(|&g| SplitTree::build(parts[g].clone()).stored())
            .sum();
        assert!(
            SplitTree::build(rules.clone()).stored() > budget(rules.len(), apart),
            "the test's premise: together they go over the budget"
        );
        assert!(SplitTree::build_within(rules.clone(), budget(rules.len(), apart)).is_none());
        let c = TreeClassifier::build(rules);
        let mut layout = c.layout();
        layout.sort();
        assert_eq!(layout, vec![0b0010, 0b0100]);
        let k = key(0x0b00_0000 + 5 * 4099, 0x0a00_0000 + 7 * 4099, 1, 2, 6);
        assert_eq!(c.lookup(&k).map(|m| m.id), Some(11));
    }

    /// The report names one tree in the singular and lists every depth.
    #[test]
    fn the_shape_says_how_many_trees_and_how_deep() {
        let one = TreeClassifier::build(vec![rule(1, (0x0a00_0000, 24), (0x0b00_0000, 24))]);
        assert_eq!(one.shape(), "1 tree (depth 0)");
        let mut rules = Vec::new();
        for i in 0..64u32 {
            rules.push(rule(2 * i, (0, 0), (0x0a00_0000 + i * 4099, 32)));
            rules.push(rule(2 * i + 1, (0x0b00_0000 + i * 4099, 32), (0, 0)));
        }
        let two = TreeClassifier::build(rules);
        let depths: Vec<String> = two.trees().map(|t| t.depth().to_string()).collect();
        assert_eq!(depths.len(), 2);
        assert_eq!(
            two.shape(),
            format!("2 trees (depths {})", depths.join("/"))
        );
        assert_eq!(TreeClassifier::build(Vec::new()).shape(), "no trees");
    }

    /// Many narrow rules and a few from any source to one subnet: one
    /// tree, a level or two deeper, costs less than two, and copies the
    /// few only a little.
    #[test]
    fn narrow_groups_share_a_tree_and_keep_it_through_rebuilds() {
        let mut rules = Vec::new();
        for i in 0..200u32 {
            rules.push(rule(
                i,
                (0x0a00_0000 + (i << 8), 24),
                (0x0c00_0000 + (i << 8), 24),
            ));
        }
        for i in 0..4u32 {
            rules.push(rule(200 + i, (0, 0), (0x0c00_0000 + (i << 12), 20)));
        }
        let mut c = TreeClassifier::build(rules.clone());
        assert_eq!(c.layout(), vec![0b0011]);
        // A rule of a group the layout has no tree for: the rebuild
        // chooses again rather than lose it.
        let late = rule(300, (0x0d00_0000, 24), (0, 0));
        c.insert(late);
        c.rebuild();
        assert!(c.layout().iter().fold(0, |a, m| a | m) & 0b0100 != 0);
        let k = key(0x0d00_0001, 0x0900_0000, 1, 2, 6);
        assert_eq!(c.lookup(&k).map(|m| m.id), Some(300));
        // Rules taken out and put back: the layout stays.
        let before = c.layout();
        for r in &rules[..100] {
            c.remove(r.id);
            c.insert(*r);
        }
        c.rebuild();
        assert_eq!(c.layout(), before);
    }

    #[test]
    fn four_groups_have_fifteen_layouts_each_a_partition() {
        let all = partitions(&[0, 1, 2, 3]);
        assert_eq!(all.len(), 15);
        for p in &all {
            assert_eq!(p.iter().fold(0u8, |a, m| a | m), 0b1111);
            assert_eq!(p.iter().map(|m| m.count_ones()).sum::<u32>(), 4);
        }
        let mut sorted: Vec<Vec<u8>> = all
            .into_iter()
            .map(|mut p| {
                p.sort();
                p
            })
            .collect();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 15);
        assert_eq!(partitions(&[]), vec![Vec::<u8>::new()]);
        assert_eq!(partitions(&[2]), vec![vec![4u8]]);
    }
}
