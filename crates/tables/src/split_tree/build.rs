//! Building a tree: each node's cut chosen over the rules within its
//! region, down to leaves of at most `LEAF_RULES` rules.

use super::*;

pub(super) struct Builder {
    pub(super) base: Vec<(Region, bool)>,
    /// Candidates the leaves may hold; past it the build gives up.
    pub(super) budget: usize,
    /// Inner nodes as built; [`SplitTree::steps`] is made from them.
    pub(super) nodes: Vec<Node>,
    pub(super) tree: SplitTree,
}

impl Builder {
    /// Builds the subtree of `rules` (slots, best first) within `region`;
    /// `cut`: an ancestor cut rules behind a covering one.
    pub(super) fn node(&mut self, mut rules: Vec<u32>, region: Region, mut cut: bool) -> u32 {
        if self.tree.stored > self.budget {
            // Over budget: the tree is thrown away, so build no more of it.
            return LEAF;
        }
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
            let at = self.nodes.len();
            self.nodes.push(Node {
                split,
                field: field as u32,
                kids: [0, 0],
            });
            let lk = self.node(l, lreg, cut);
            let rk = self.node(r, rreg, cut);
            self.nodes[at].kids = [lk, rk];
            return at as u32;
        }
        self.leaf(&rules, cut)
    }

    /// A leaf of `rules`, in blocks of as many as one holds; `cut` when
    /// rules that cannot win were left out.
    fn leaf(&mut self, rules: &[u32], cut: bool) -> u32 {
        let start = self.tree.blocks.len() as u32;
        let none = self.tree.rules.len() as u32;
        let mut block = LeafBlock::new(none);
        for &s in rules {
            let (r, exact) = &self.base[s as usize];
            if !block.push(r, *exact, s) {
                block.more = true;
                self.tree.blocks.push(block);
                block = LeafBlock::new(none);
                block.push(r, *exact, s);
            }
        }
        block.cut = cut;
        self.tree.blocks.push(block);
        self.tree.stored += rules.len();
        start | LEAF
    }

    /// Lays the tree from `root` out as [`SplitTree::steps`], breadth first.
    pub(super) fn lay_out(&mut self, root: u32) {
        let mut steps = vec![0u64];
        let mut todo = std::collections::VecDeque::from([(root, 0usize, 0u32)]);
        let mut depth = 0;
        while let Some((c, at, d)) = todo.pop_front() {
            if c & LEAF != 0 {
                let start = c & !LEAF;
                let plain = if self.tree.blocks[start as usize].plain() {
                    PLAIN
                } else {
                    0
                };
                steps[at] = Step::pack(start | plain, NO_FIELD, at);
                depth = depth.max(d);
                continue;
            }
            let n = self.nodes[c as usize];
            let first = steps.len();
            steps[at] = Step::pack(n.split, n.field as usize, first);
            steps.extend([0, 0]);
            todo.push_back((n.kids[0], first, d + 1));
            todo.push_back((n.kids[1], first + 1, d + 1));
        }
        steps.resize(steps.len().next_power_of_two(), 0);
        self.tree.steps = steps;
        self.tree.depth = depth;
    }

    /// The split leaving the larger side smallest, then the fewest copies.
    pub(super) fn best_split(&self, rules: &[u32], region: &Region) -> Option<(usize, u32)> {
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
