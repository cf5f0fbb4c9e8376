//! Changing the table: a prefix inserted (its range painted at its
//! level, a group made for a longer one) or removed (what it covered
//! restored from the next shorter prefix, groups folded back).

use super::*;

impl LpmTable {
    /// Inserts or replaces `prefix`.
    pub fn insert(&mut self, prefix: Ipv4Prefix, value: u32) -> Result<Option<u32>, LpmError> {
        if value > VALUE_MASK {
            return Err(LpmError::ValueTooLarge(value));
        }
        self.make_room_for(prefix)?;
        let inner = self.inner(prefix);
        self.install(inner, leaf(inner.len(), value), false)?;
        Ok(self.rules.insert(prefix, value))
    }

    /// Writes `value` over every address of `prefix`, whatever longer prefixes
    /// held before. Used to build tables whose priority is not prefix length
    /// (see `FlowTable`); a table built this way must not see `remove`.
    pub fn insert_overriding(&mut self, prefix: Ipv4Prefix, value: u32) -> Result<(), LpmError> {
        if value > VALUE_MASK {
            return Err(LpmError::ValueTooLarge(value));
        }
        if self.may_skip {
            self.may_skip = false;
            if self.skip != 0 {
                self.rebuild(Ipv4Prefix::new(0, 0))?;
            }
        }
        let inner = self.inner(prefix);
        self.install(inner, leaf(inner.len(), value), true)?;
        self.rules.insert(prefix, value);
        Ok(())
    }

    /// `prefix` as the trie holds it: without the skipped bits.
    fn inner(&self, prefix: Ipv4Prefix) -> Ipv4Prefix {
        debug_assert!(u32::from(prefix.len()) >= self.skip);
        Ipv4Prefix::new(prefix.addr() << self.skip, prefix.len() - self.skip as u8)
    }

    /// Sets the skip so that `prefix` lies inside it: the longest prefix
    /// shared by `prefix` and every stored one (capped so the first level
    /// still indexes real bits), rebuilding the trie if the skip shrinks.
    fn make_room_for(&mut self, prefix: Ipv4Prefix) -> Result<(), LpmError> {
        if !self.may_skip {
            return Ok(());
        }
        // Whole bytes only: the levels then end where they would without
        // the skip (on /16, /24, /32), so no prefix expands into more
        // entries or levels than in the plain trie.
        let cap = 32 - self.first_stride;
        let len = u32::from(prefix.len());
        let shared = if self.rules.is_empty() {
            len
        } else {
            let common = (prefix.addr() ^ self.skip_addr).leading_zeros();
            common.min(len).min(self.skip)
        };
        let want = shared.min(cap) / 8 * 8;
        if !self.rules.is_empty() && want == self.skip {
            return Ok(());
        }
        self.rebuild(Ipv4Prefix::new(
            prefix.addr() & mask(want as u8),
            want as u8,
        ))
    }

    /// Rebuilds the trie for the skip `c` from the stored prefixes, all of
    /// which lie inside `c`.
    fn rebuild(&mut self, c: Ipv4Prefix) -> Result<(), LpmError> {
        // `install` leaves longer prefixes' entries alone, so any order
        // builds the same trie.
        let rules: Vec<(Ipv4Prefix, u32)> = self.iter().collect();
        if !rules.is_empty() {
            // An empty table's entries are all zero already (every delete
            // restores and folds), and a first level left untouched stays
            // unfaulted.
            self.entries.truncate(self.top_len);
            self.entries.fill(0);
            self.free_groups.clear();
        }
        debug_assert!(self.entries.iter().all(|&e| e == 0));
        self.skip = u32::from(c.len());
        self.skip_addr = c.addr();
        self.skip_mask = c.mask();
        for (p, v) in rules {
            let inner = self.inner(p);
            self.install(inner, leaf(inner.len(), v), false)?;
        }
        Ok(())
    }

    /// Removes `prefix`; addresses it covered fall back to the next-shorter prefix.
    pub fn remove(&mut self, prefix: Ipv4Prefix) -> Option<u32> {
        let old = self.rules.remove(&prefix)?;
        let skip = self.skip as u8;
        // Every stored prefix is at least `skip` long.
        let replacement = (skip..prefix.len())
            .rev()
            .find_map(|l| {
                let p = Ipv4Prefix::new(prefix.addr(), l);
                self.rules.get(&p).map(|v| leaf(l - skip, *v))
            })
            .unwrap_or(0);
        let inner = self.inner(prefix);
        let len = inner.len();
        let end = self.level_end(len);
        self.visit_range(inner, &mut |t, loc| t.restore(loc, len, replacement, end));
        self.compact_path(inner);
        Some(old)
    }

    fn install(&mut self, prefix: Ipv4Prefix, entry: u32, force: bool) -> Result<(), LpmError> {
        let len = prefix.len();
        // Create the groups down to the level the prefix ends in.
        let mut base = 0usize;
        let mut consumed = 0u32;
        let mut stride = self.first_stride;
        while u32::from(len) > consumed + stride {
            let idx = base + index(prefix.addr(), consumed, stride);
            let e = self.entries[idx];
            let g = if e & EXT != 0 {
                e & VALUE_MASK
            } else {
                let g = self.alloc_group(e)?;
                self.entries[idx] = EXT | g;
                g
            };
            base = self.top_len + ((g as usize) << 8);
            consumed += stride;
            stride = 8;
        }
        self.visit_range(prefix, &mut |t, loc| t.paint(loc, len, entry, force));
        Ok(())
    }

    /// Calls `f` on every entry at the level where `prefix` ends, over the
    /// span it covers. The groups down to that level must exist.
    fn visit_range(&mut self, prefix: Ipv4Prefix, f: &mut dyn FnMut(&mut Self, usize)) {
        let len = u32::from(prefix.len());
        let mut base = 0usize;
        let mut consumed = 0u32;
        let mut stride = self.first_stride;
        loop {
            let idx = index(prefix.addr(), consumed, stride);
            if len <= consumed + stride {
                let width = 1usize << (consumed + stride - len);
                for i in idx..idx + width {
                    f(self, base + i);
                }
                return;
            }
            let e = self.entries[base + idx];
            if e & EXT == 0 {
                return; // nothing deeper: the prefix was never expanded here
            }
            base = self.top_len + (((e & VALUE_MASK) as usize) << 8);
            consumed += stride;
            stride = 8;
        }
    }

    fn paint(&mut self, loc: usize, len: u8, entry: u32, force: bool) {
        let e = self.entries[loc];
        if e & EXT != 0 {
            let g = self.top_len + (((e & VALUE_MASK) as usize) << 8);
            for i in g..g + 256 {
                self.paint(i, len, entry, force);
            }
        } else if force || e & VALID == 0 || depth(e) <= len {
            self.entries[loc] = entry;
        }
    }

    /// Bits resolved by the level a prefix of length `len` ends in.
    fn level_end(&self, len: u8) -> u32 {
        let len = u32::from(len);
        if len <= self.first_stride {
            self.first_stride
        } else {
            len.div_ceil(8) * 8
        }
    }

    /// `end`: bits resolved at the level of `loc`.
    fn restore(&mut self, loc: usize, len: u8, replacement: u32, end: u32) {
        let e = self.entries[loc];
        if e & EXT != 0 {
            let g = (e & VALUE_MASK) as usize;
            let base = self.top_len + (g << 8);
            for i in base..base + 256 {
                self.restore(i, len, replacement, end + 8);
            }
            self.try_fold(loc, end);
        } else if e & VALID != 0 && depth(e) == len {
            self.entries[loc] = replacement;
        }
    }

    /// Folds groups along the path of `prefix` that became uniform, deepest first.
    fn compact_path(&mut self, prefix: Ipv4Prefix) {
        let mut path = [(0usize, 0u32); 4];
        let mut n = 0;
        let mut base = 0usize;
        let mut consumed = 0u32;
        let mut stride = self.first_stride;
        while consumed + stride < 32 {
            let loc = base + index(prefix.addr(), consumed, stride);
            let e = self.entries[loc];
            if e & EXT == 0 {
                break;
            }
            path[n] = (loc, consumed + stride);
            n += 1;
            base = self.top_len + (((e & VALUE_MASK) as usize) << 8);
            consumed += stride;
            stride = 8;
        }
        for &(loc, end) in path[..n].iter().rev() {
            if !self.try_fold(loc, end) {
                break;
            }
        }
    }

    /// If the group `loc` points to holds 256 equal leaves, replace the pointer
    /// by that leaf and free the group. A leaf written by a prefix longer than
    /// `end` (the bits resolved at `loc`'s level) stays in its group, so that
    /// a later delete of that prefix finds it at the level it ends in.
    fn try_fold(&mut self, loc: usize, end: u32) -> bool {
        let e = self.entries[loc];
        let g = e & VALUE_MASK;
        let base = self.top_len + ((g as usize) << 8);
        let first = self.entries[base];
        if first & EXT != 0
            || u32::from(depth(first)) > end
            || self.entries[base..base + 256].iter().any(|&x| x != first)
        {
            return false;
        }
        self.entries[loc] = first;
        self.entries[base..base + 256].fill(0);
        self.free_groups.push(g);
        true
    }

    fn alloc_group(&mut self, fill: u32) -> Result<u32, LpmError> {
        let g = match self.free_groups.pop() {
            Some(g) => g,
            None => {
                let g = (self.entries.len() - self.top_len) >> 8;
                if g > VALUE_MASK as usize {
                    return Err(LpmError::OutOfGroups);
                }
                self.entries.resize(self.entries.len() + 256, 0);
                g as u32
            }
        };
        let base = self.top_len + ((g as usize) << 8);
        self.entries[base..base + 256].fill(fill);
        Ok(g)
    }
}
