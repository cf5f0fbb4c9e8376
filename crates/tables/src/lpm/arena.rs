//! Many small LPM tables in one array.
//!
//! A node with a thousand networks looks up each packet in the table of the
//! network it belongs to. Each [`LpmTable`] owns its entries, so a thousand
//! tables are a thousand allocations, each reached through its own header,
//! and each header and table a cache line (and with 4 KiB pages, a TLB entry)
//! of its own. The arena copies the tables' entries end to end into one
//! array; a reader keeps an [`LpmRef`] (where a table starts and its shape,
//! 24 bytes) next to the rest of what it knows about the network, and the
//! lookup touches that record and the entries, nothing else.
//!
//! The arena is built once per published configuration and read only; the
//! tables stay the ones updated.

use crate::lpm::{LpmShape, LpmTable, huge_zeroed, walk};

/// Where a table lies in an [`LpmArena`] and how to walk it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LpmRef {
    base: u32,
    shape: LpmShape,
}

/// The entries of many LPM tables, end to end.
#[derive(Debug, Default)]
pub struct LpmArena {
    entries: Vec<u32>,
}

impl Clone for LpmArena {
    fn clone(&self) -> Self {
        let mut entries = huge_zeroed(self.entries.len(), 0);
        entries.copy_from_slice(&self.entries);
        Self { entries }
    }
}

impl LpmArena {
    /// An arena for tables of `entries` entries in all, so that adding them
    /// does not reallocate (and the array can sit on huge pages).
    pub fn with_capacity(entries: usize) -> Self {
        let mut v = huge_zeroed(0, entries);
        v.clear();
        Self { entries: v }
    }

    /// A copy of this arena with room for `room` more entries: the tables
    /// in it keep their [`LpmRef`]s.
    pub fn copy_with_room(&self, room: usize) -> Self {
        let mut c = Self::with_capacity(self.entries.len() + room);
        c.entries.extend_from_slice(&self.entries);
        c
    }

    /// Copies `t` in; `None` when the arena would outgrow 32-bit offsets.
    pub fn add(&mut self, t: &LpmTable) -> Option<LpmRef> {
        let base = u32::try_from(self.entries.len()).ok()?;
        u32::try_from(self.entries.len() + t.entries().len()).ok()?;
        self.entries.extend_from_slice(t.entries());
        Some(LpmRef {
            base,
            shape: t.shape(),
        })
    }

    /// Entries held, over all tables.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// What `LpmTable::lookup` on the table `r` was made from returns.
    #[inline(always)]
    pub fn lookup(&self, r: &LpmRef, addr: u32) -> Option<u32> {
        Self::lookup_in(&self.entries, r, addr)
    }

    /// The arena's entries, for [`Self::lookup_in`]: a reader that looks
    /// up a batch in one arena reads where they are once.
    #[inline(always)]
    pub fn entries(&self) -> &[u32] {
        &self.entries
    }

    /// [`Self::lookup`] in `entries`, an arena's [`Self::entries`].
    #[inline(always)]
    pub fn lookup_in(entries: &[u32], r: &LpmRef, addr: u32) -> Option<u32> {
        let s = &r.shape;
        if (addr ^ s.skip_addr) & s.skip_mask != 0 {
            return None;
        }
        walk(
            entries,
            r.base as usize,
            s.top_len as usize,
            s.first_stride,
            addr << s.skip,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Ipv4Prefix;
    use proptest::prelude::*;

    proptest! {
        /// Several tables in one arena answer as each table does.
        #[test]
        fn answers_as_the_tables_do(
            tables in proptest::collection::vec(
                proptest::collection::vec((0u32..4096, 16u8..=32, 0u32..1000), 0..24), 1..6),
            probes in proptest::collection::vec(0u32..4096, 48),
        ) {
            let mut arena = LpmArena::with_capacity(0);
            let mut built = Vec::new();
            for (i, routes) in tables.iter().enumerate() {
                let mut t = LpmTable::default();
                for &(x, len, v) in routes {
                    // Table i's routes mostly inside its own /20.
                    let base = if x % 7 == 0 { x << 20 } else { 0x0a00_0000 | ((i as u32) << 12) };
                    t.insert(Ipv4Prefix::new(base | x, len), v).unwrap();
                }
                let r = arena.add(&t).unwrap();
                built.push((t, r));
            }
            for (i, (t, r)) in built.iter().enumerate() {
                for &x in &probes {
                    for a in [0x0a00_0000 | ((i as u32) << 12) | x, x << 20 | x, 0x0a00_0000 | x << 8] {
                        prop_assert_eq!(arena.lookup(r, a), t.lookup(a), "table {} addr {:#x}", i, a);
                    }
                }
            }
        }
    }
}
