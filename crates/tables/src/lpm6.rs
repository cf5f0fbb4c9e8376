//! IPv6 longest-prefix match: a multibit trie as DPDK's rte_fib6 builds
//! its `trie` (a first level indexed by the address's top bits, then groups
//! of 256 entries, one per further byte), and as [`crate::lpm`] is for
//! IPv4.
//!
//! The first level is indexed by the top 24 bits (a full table, as
//! rte_fib6: 16 Mi entries), 16 or 8 (a network's own few routes); each
//! further level by the next 8 bits. Every entry is one u32: a valid bit, an "extended" bit
//! (the entry points to a group), the length of the prefix that wrote it
//! (8 bits: 0 to 128) and a 22-bit value or group number. A prefix is
//! expanded into the entries of the level its length ends in (controlled
//! prefix expansion); the stored length lets an insert leave longer
//! prefixes' entries alone and a removal restore the next-shorter covering
//! prefix. Internet prefixes are /48 at most in the main (the shared
//! table: 75,488 of 160,147 are /48, 11 longer), so a lookup reads four
//! entries at most for them, one for a /24; a batch walks its addresses
//! side by side, so that their misses overlap.
//!
//! Lookups read only the entry arrays and never allocate.

use prism_wire::prefix6::{Ipv6Prefix, mask6};
use std::collections::HashMap;

const VALID: u32 = 1 << 31;
const EXT: u32 = 1 << 30;
const DEPTH_SHIFT: u32 = 22;
const DEPTH_MASK: u32 = 0xff << DEPTH_SHIFT;
const VALUE_MASK: u32 = (1 << 22) - 1;

/// Addresses a batch lookup walks side by side.
const LANES: usize = 16;

/// Largest value an entry can hold (22 bits).
pub const MAX_VALUE6: u32 = VALUE_MASK;

/// Why an IPv6 LPM update was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Lpm6Error {
    #[error("value {0} does not fit in 22 bits")]
    ValueTooLarge(u32),
    #[error("the table is out of 256-entry groups")]
    OutOfGroups,
}

#[inline]
const fn depth(e: u32) -> u8 {
    ((e & DEPTH_MASK) >> DEPTH_SHIFT) as u8
}

const fn leaf(len: u8, value: u32) -> u32 {
    VALID | ((len as u32) << DEPTH_SHIFT) | value
}

/// An IPv6 longest-prefix-match table.
#[derive(Debug, Clone)]
pub struct Lpm6Table {
    first_stride: u32,
    first: Vec<u32>,
    groups: Vec<u32>,
    routes: HashMap<Ipv6Prefix, u32>,
}

impl Lpm6Table {
    /// An empty table whose first level is indexed by `first_stride` bits
    /// (8, 16 or 24).
    pub fn with_first_stride(first_stride: u8) -> Self {
        let fs = u32::from(first_stride.clamp(8, 24)) / 8 * 8;
        Self {
            first_stride: fs,
            first: vec![0; 1 << fs],
            groups: Vec::new(),
            routes: HashMap::new(),
        }
    }

    /// An empty table sized for `routes` prefixes: an Internet-sized one
    /// with rte_fib6's 24-bit first level (64 MiB, one read fewer for
    /// every prefix longer than /24), a network's own few with 8 bits.
    pub fn for_routes(routes: usize) -> Self {
        let fs = match routes {
            0..=1024 => 8,
            1025..=65536 => 16,
            _ => 24,
        };
        Self::with_first_stride(fs)
    }

    pub fn len(&self) -> usize {
        self.routes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.routes.is_empty()
    }
    /// The entry arrays' size in bytes.
    pub fn memory_bytes(&self) -> usize {
        (self.first.len() + self.groups.len()) * 4
    }
    /// The value `prefix` was inserted with.
    pub fn get(&self, prefix: Ipv6Prefix) -> Option<u32> {
        self.routes.get(&prefix).copied()
    }

    /// The value of the longest prefix holding `addr`.
    #[inline]
    pub fn lookup(&self, addr: u128) -> Option<u32> {
        let mut shift = 128 - self.first_stride;
        let mut e = self.first[(addr >> shift) as usize];
        while e & EXT != 0 {
            shift -= 8;
            let at = ((e & VALUE_MASK) as usize) << 8 | ((addr >> shift) as usize & 0xff);
            e = self.groups[at];
        }
        (e & VALID != 0).then_some(e & VALUE_MASK)
    }

    /// [`Self::lookup`] of each of `addrs` into `out` (as long), the
    /// addresses of each run of [`LANES`] walked level by level side by
    /// side, so that their reads (each a likely cache miss in a full
    /// table) overlap rather than wait on one another.
    pub fn lookup_batch(&self, addrs: &[u128], out: &mut [Option<u32>]) {
        for (a, o) in addrs.chunks(LANES).zip(out.chunks_mut(LANES)) {
            self.lookup_lanes(a, o);
        }
    }

    #[inline]
    fn lookup_lanes(&self, addrs: &[u128], out: &mut [Option<u32>]) {
        let n = addrs.len().min(out.len());
        let mut e = [0u32; LANES];
        let top = 128 - self.first_stride;
        for i in 0..n {
            e[i] = self.first[(addrs[i] >> top) as usize];
        }
        let mut shift = top;
        let mut pending = e[..n].iter().any(|x| x & EXT != 0);
        while pending {
            shift -= 8;
            pending = false;
            for i in 0..n {
                if e[i] & EXT != 0 {
                    let at =
                        ((e[i] & VALUE_MASK) as usize) << 8 | ((addrs[i] >> shift) as usize & 0xff);
                    e[i] = self.groups[at];
                    pending |= e[i] & EXT != 0;
                }
            }
        }
        for i in 0..n {
            out[i] = (e[i] & VALID != 0).then_some(e[i] & VALUE_MASK);
        }
    }

    /// Inserts (or replaces) `prefix` with `value`.
    pub fn insert(&mut self, prefix: Ipv6Prefix, value: u32) -> Result<(), Lpm6Error> {
        if value > VALUE_MASK {
            return Err(Lpm6Error::ValueTooLarge(value));
        }
        self.write(prefix, leaf(prefix.len(), value), |d| d <= prefix.len())?;
        self.routes.insert(prefix, value);
        Ok(())
    }

    /// Removes `prefix`, its entries given to the next-shorter prefix
    /// covering it (or emptied); its old value.
    pub fn remove(&mut self, prefix: Ipv6Prefix) -> Option<u32> {
        let old = self.routes.remove(&prefix)?;
        let cover = (0..prefix.len()).rev().find_map(|l| {
            let p = Ipv6Prefix::new(prefix.addr(), l);
            self.routes.get(&p).map(|v| leaf(l, *v))
        });
        // Entries this prefix wrote are those of exactly its length.
        let wrote = |d: u8| d == prefix.len();
        self.write(prefix, cover.unwrap_or(0), wrote)
            .expect("a removal splits no entry");
        Some(old)
    }

    /// Writes `entry` over the entries `prefix` covers whose depth `over`
    /// allows, at the level its length ends in (groups made on the way).
    fn write(
        &mut self,
        prefix: Ipv6Prefix,
        entry: u32,
        over: impl Fn(u8) -> bool + Copy,
    ) -> Result<(), Lpm6Error> {
        let (addr, len) = (prefix.addr(), u32::from(prefix.len()));
        let fs = self.first_stride;
        if len <= fs {
            let start = (addr >> (128 - fs)) as usize;
            for i in start..start + (1usize << (fs - len)) {
                let e = self.first[i];
                self.first[i] = self.fill(e, entry, over);
            }
            return Ok(());
        }
        let mut slot = Slot::First((addr >> (128 - fs)) as usize);
        let mut consumed = fs;
        loop {
            let group = self.group_at(slot)?;
            let byte = ((addr >> (128 - consumed - 8)) & 0xff) as usize;
            if len <= consumed + 8 {
                let start = byte & !((1usize << (consumed + 8 - len)) - 1);
                for i in start..start + (1usize << (consumed + 8 - len)) {
                    let e = self.groups[group << 8 | i];
                    self.groups[group << 8 | i] = self.fill(e, entry, over);
                }
                return Ok(());
            }
            slot = Slot::Group(group << 8 | byte);
            consumed += 8;
        }
    }

    /// The group entry `slot` points to, made (holding what the entry
    /// held) if it points to none.
    fn group_at(&mut self, slot: Slot) -> Result<usize, Lpm6Error> {
        let e = match slot {
            Slot::First(i) => self.first[i],
            Slot::Group(i) => self.groups[i],
        };
        if e & EXT != 0 {
            return Ok((e & VALUE_MASK) as usize);
        }
        let g = self.groups.len() >> 8;
        if g > VALUE_MASK as usize {
            return Err(Lpm6Error::OutOfGroups);
        }
        self.groups.extend(std::iter::repeat_n(e, 256));
        let ext = EXT | g as u32;
        match slot {
            Slot::First(i) => self.first[i] = ext,
            Slot::Group(i) => self.groups[i] = ext,
        }
        Ok(g)
    }

    /// Entry `e` with `entry` written where `over` allows: a leaf
    /// replaced, a group's entries each considered.
    fn fill(&mut self, e: u32, entry: u32, over: impl Fn(u8) -> bool + Copy) -> u32 {
        if e & EXT == 0 {
            let empty_or_over = e & VALID == 0 && over(0) || e & VALID != 0 && over(depth(e));
            return if empty_or_over { entry } else { e };
        }
        let g = (e & VALUE_MASK) as usize;
        for i in 0..256 {
            let inner = self.groups[g << 8 | i];
            self.groups[g << 8 | i] = self.fill(inner, entry, over);
        }
        e
    }
}

/// Where a group pointer is kept.
#[derive(Debug, Clone, Copy)]
enum Slot {
    First(usize),
    Group(usize),
}

/// The obviously-correct reference: every length tried from 128 down.
#[derive(Debug, Clone)]
pub struct ReferenceLpm6 {
    by_len: Vec<HashMap<u128, u32>>,
}

impl Default for ReferenceLpm6 {
    fn default() -> Self {
        Self {
            by_len: vec![HashMap::new(); 129],
        }
    }
}

impl ReferenceLpm6 {
    pub fn insert(&mut self, p: Ipv6Prefix, v: u32) {
        self.by_len[usize::from(p.len())].insert(p.addr(), v);
    }
    pub fn remove(&mut self, p: Ipv6Prefix) -> Option<u32> {
        self.by_len[usize::from(p.len())].remove(&p.addr())
    }
    pub fn lookup(&self, addr: u128) -> Option<u32> {
        (0..=128u8)
            .rev()
            .find_map(|l| self.by_len[usize::from(l)].get(&(addr & mask6(l))).copied())
    }
}

#[cfg(test)]
mod tests;
