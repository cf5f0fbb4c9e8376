//! IPv4 longest-prefix match: a multibit trie in the DIR-24-8 family.
//!
//! The first level is indexed by the top `first_stride` bits of the address
//! (8, 16 or 24); every further level is a group of 256 entries indexed by the
//! next 8 bits. With a 24-bit first stride, as in DPDK's rte_lpm and Gupta et
//! al.'s DIR-24-8-BASIC, a full Internet table resolves most addresses with
//! one memory read and the rest with two. Small per-network tables use an
//! 8-bit first stride so a thousand of them fit in cache.
//!
//! Each entry is one u32: a valid bit, an "extended" bit (the entry points to
//! a group), the length of the prefix that wrote it, and a 24-bit value (or
//! group number). Prefixes are expanded into the entries they cover (controlled
//! prefix expansion); the stored length lets an insert leave longer prefixes
//! alone and a delete restore the next-shorter covering prefix. Groups that
//! become uniform after a delete are folded back and reused.
//!
//! Small tables skip the bits every prefix shares. When all of a table's
//! prefixes lie inside one prefix `C` (a network routing only inside its own
//! address block), an address outside `C` matches nothing, and the trie only
//! needs the bits after `C`: its first level is indexed by them. A network's
//! 16 routes of /28 inside a /24 then resolve with one read, where the
//! 8-8-8-8 walk from the top took four (four cache lines per packet per
//! network; with a thousand networks each one a miss). This is the root skip
//! of a path-compressed trie (LC-tries' and Patricia's "skip"). An insert
//! outside `C` rebuilds the table with a shorter skip, so a table pays the
//! rebuild at most once per byte it loses. Tables with a 24-bit first level
//! (Internet-sized, which hold prefixes everywhere) never skip.
//!
//! Lookups read only the entry array and never allocate.

use crate::prefix::{Ipv4Prefix, mask};
use std::collections::HashMap;

pub mod arena;
mod update;

const VALID: u32 = 1 << 31;
const EXT: u32 = 1 << 30;
const DEPTH_SHIFT: u32 = 24;
const DEPTH_MASK: u32 = 0x3f << DEPTH_SHIFT;
const VALUE_MASK: u32 = (1 << 24) - 1;

/// Largest value an entry can hold (24 bits).
pub const MAX_VALUE: u32 = VALUE_MASK;

/// Why an LPM update was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LpmError {
    #[error("value {0} does not fit in 24 bits")]
    ValueTooLarge(u32),
    #[error("the table is out of 256-entry groups")]
    OutOfGroups,
}

#[inline]
const fn depth(e: u32) -> u8 {
    ((e & DEPTH_MASK) >> DEPTH_SHIFT) as u8
}

#[inline]
const fn leaf(len: u8, value: u32) -> u32 {
    VALID | ((len as u32) << DEPTH_SHIFT) | value
}

/// An IPv4 longest-prefix-match table mapping prefixes to 24-bit values.
#[derive(Debug)]
pub struct LpmTable {
    first_stride: u32,
    top_len: usize,
    /// The prefix `C` every stored prefix lies in: its length (the bits the
    /// trie skips), and its address and mask for the check. The trie holds
    /// each prefix shifted left by `skip`.
    skip: u32,
    skip_addr: u32,
    skip_mask: u32,
    /// Whether the skip may grow past 0: not for 24-bit first levels, and
    /// not once `insert_overriding` was used (a rebuild would lose the
    /// order its writes depend on).
    may_skip: bool,
    /// The first level followed by every group, 256 entries each.
    entries: Vec<u32>,
    free_groups: Vec<u32>,
    rules: HashMap<Ipv4Prefix, u32>,
}

impl Default for LpmTable {
    fn default() -> Self {
        Self::with_first_stride(8)
    }
}

impl Clone for LpmTable {
    /// The entries copied into memory advised like the original's.
    fn clone(&self) -> Self {
        let mut entries = huge_zeroed(
            self.entries.len(),
            self.entries.capacity() - self.entries.len(),
        );
        entries.copy_from_slice(&self.entries);
        Self {
            first_stride: self.first_stride,
            top_len: self.top_len,
            skip: self.skip,
            skip_addr: self.skip_addr,
            skip_mask: self.skip_mask,
            may_skip: self.may_skip,
            entries,
            free_groups: self.free_groups.clone(),
            rules: self.rules.clone(),
        }
    }
}

/// `n` zeroed entries with room for `room` more, in memory the kernel is
/// asked to back with 2 MiB pages before anything touches it. A 24-bit
/// first level is 64 MiB: on 4 KiB pages a lookup of a random address
/// misses the TLB nearly every time, on 2 MiB pages the whole level is 32
/// TLB entries. Transparent huge pages in `madvise` mode (Debian's
/// default) need the hint; where the kernel refuses or has none, nothing
/// changes but the speed. The room matters as much: growing past it
/// reallocates, and a move by an address not a multiple of 2 MiB splits
/// the huge pages back into small ones.
pub(crate) fn huge_zeroed(n: usize, room: usize) -> Vec<u32> {
    const HUGE: usize = 2 << 20;
    let mut v: Vec<u32> = Vec::with_capacity(n + room);
    let bytes = v.capacity() * std::mem::size_of::<u32>();
    if bytes >= 2 * HUGE {
        let start = v.as_ptr() as usize;
        let from = start.next_multiple_of(4096);
        let len = (start + bytes - from) & !4095;
        // SAFETY: [from, from + len) lies inside `v`'s allocation, which
        // outlives the call; MADV_HUGEPAGE changes how pages are backed,
        // never their contents, and its failure is ignored on purpose.
        unsafe {
            libc::madvise(from as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
    }
    v.resize(n, 0);
    v
}

impl LpmTable {
    /// A table whose first level has `2^first_stride` entries; `first_stride`
    /// is rounded to 8, 16 or 24.
    pub fn with_first_stride(first_stride: u8) -> Self {
        let first_stride = u32::from(first_stride.clamp(8, 24) / 8 * 8);
        let top_len = 1usize << first_stride;
        Self {
            first_stride,
            top_len,
            skip: 0,
            skip_addr: 0,
            skip_mask: 0,
            may_skip: first_stride < 24,
            // Room for a group per 16 first-level entries: the full
            // Internet table needs about one per 1,000.
            entries: huge_zeroed(top_len, top_len / 16),
            free_groups: Vec::new(),
            rules: HashMap::new(),
        }
    }

    /// A table sized for about `routes` prefixes: a 24-bit first level for
    /// Internet-sized tables, 16 bits from a thousand routes, else 8.
    pub fn for_routes(routes: usize) -> Self {
        Self::with_first_stride(match routes {
            0..1024 => 8,
            1024..65536 => 16,
            _ => 24,
        })
    }

    pub fn first_stride(&self) -> u8 {
        self.first_stride as u8
    }

    /// Leading bits every stored prefix shares and lookups skip.
    pub fn skipped_bits(&self) -> u8 {
        self.skip as u8
    }

    /// Number of prefixes stored.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Bytes of entry memory (first level and groups).
    pub fn memory_bytes(&self) -> usize {
        self.entries.len() * 4
    }

    /// The stored prefixes and their values, in no order.
    pub fn iter(&self) -> impl Iterator<Item = (Ipv4Prefix, u32)> + '_ {
        self.rules.iter().map(|(p, v)| (*p, *v))
    }

    /// The value stored for exactly `prefix`.
    pub fn get(&self, prefix: Ipv4Prefix) -> Option<u32> {
        self.rules.get(&prefix).copied()
    }

    /// The value of the longest prefix containing `addr` (always inlined:
    /// as a call it cost the pipeline 50 instructions a packet).
    #[inline(always)]
    pub fn lookup(&self, addr: u32) -> Option<u32> {
        // Tables that skip nothing (Internet-sized ones) take the plain walk:
        // the check and shift cost them several cycles per random lookup.
        if self.skip_mask == 0 {
            return self.walk(addr);
        }
        if (addr ^ self.skip_addr) & self.skip_mask != 0 {
            return None;
        }
        self.walk(addr << self.skip)
    }

    /// The trie walk for an address with the skipped bits shifted out.
    #[inline(always)]
    fn walk(&self, addr: u32) -> Option<u32> {
        walk(&self.entries, 0, self.top_len, self.first_stride, addr)
    }

    /// What a reader needs besides the entries to look up in this table
    /// (for tables copied into an [`crate::LpmArena`]).
    pub fn shape(&self) -> LpmShape {
        LpmShape {
            first_stride: self.first_stride,
            top_len: self.top_len as u32,
            skip: self.skip,
            skip_addr: self.skip_addr,
            skip_mask: self.skip_mask,
        }
    }

    /// The entry array: the first level, then every group.
    pub fn entries(&self) -> &[u32] {
        &self.entries
    }

    /// Looks up a batch. The first-level reads of all addresses are issued
    /// before any group is followed, so their cache misses overlap.
    #[inline]
    pub fn lookup_batch(&self, addrs: &[u32], out: &mut [Option<u32>]) {
        let shift = 32 - self.first_stride;
        let mut first = [0u32; 64];
        for (chunk, out) in addrs.chunks(64).zip(out.chunks_mut(64)) {
            for (f, &a) in first.iter_mut().zip(chunk) {
                *f = self.entries[((a << self.skip) >> shift) as usize];
            }
            for ((o, &a), &e) in out.iter_mut().zip(chunk).zip(&first) {
                // Outside the skipped prefix: no route (see `lookup`).
                let outside = (a ^ self.skip_addr) & self.skip_mask != 0;
                let a = a << self.skip;
                let mut e = e;
                let mut s = shift;
                while e & EXT != 0 {
                    s -= 8;
                    e = self.entries[self.top_len
                        + (((e & VALUE_MASK) as usize) << 8)
                        + ((a >> s) & 0xff) as usize];
                }
                *o = if e & VALID != 0 && !outside {
                    Some(e & VALUE_MASK)
                } else {
                    None
                };
            }
        }
    }
}

/// How to read an entry array: its strides and skip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LpmShape {
    pub first_stride: u32,
    pub top_len: u32,
    pub skip: u32,
    pub skip_addr: u32,
    pub skip_mask: u32,
}

/// The walk of a table whose entries start at `entries[base]`, for an
/// address with the skipped bits shifted out.
#[inline(always)]
pub(crate) fn walk(
    entries: &[u32],
    base: usize,
    top_len: usize,
    first_stride: u32,
    addr: u32,
) -> Option<u32> {
    let mut shift = 32 - first_stride;
    let mut e = entries[base + (addr >> shift) as usize];
    while e & EXT != 0 {
        shift -= 8;
        let i =
            base + top_len + (((e & VALUE_MASK) as usize) << 8) + ((addr >> shift) & 0xff) as usize;
        e = entries[i];
    }
    if e & VALID != 0 {
        Some(e & VALUE_MASK)
    } else {
        None
    }
}

/// Index of the `stride` bits of `addr` that follow the first `consumed` bits.
#[inline]
fn index(addr: u32, consumed: u32, stride: u32) -> usize {
    ((u64::from(addr) << consumed >> (32 - stride)) & ((1u64 << stride) - 1)) as usize
}

/// The obviously-correct reference: try every length from 32 down to 0.
#[derive(Debug, Clone, Default)]
pub struct ReferenceLpm {
    by_len: Vec<HashMap<u32, u32>>,
}

impl ReferenceLpm {
    pub fn new() -> Self {
        Self {
            by_len: vec![HashMap::new(); 33],
        }
    }
    pub fn insert(&mut self, p: Ipv4Prefix, v: u32) {
        self.by_len[usize::from(p.len())].insert(p.addr(), v);
    }
    pub fn remove(&mut self, p: Ipv4Prefix) -> Option<u32> {
        self.by_len[usize::from(p.len())].remove(&p.addr())
    }
    pub fn lookup(&self, addr: u32) -> Option<u32> {
        (0..=32u8)
            .rev()
            .find_map(|l| self.by_len[usize::from(l)].get(&(addr & mask(l))).copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn p(s: &str) -> Ipv4Prefix {
        s.parse().unwrap()
    }

    /// A 24-bit table's memory is allocated and advised apart from the
    /// vector's own clone, and grows within its room: the copy must answer
    /// as the original, and each must change alone, past the room too.
    #[test]
    fn a_clone_answers_as_the_original_and_changes_alone() {
        let mut a = LpmTable::with_first_stride(24);
        let mut r = ReferenceLpm::new();
        for (i, s) in [
            "10.0.0.0/8",
            "10.1.2.0/24",
            "10.1.2.128/25",
            "192.168.1.7/32",
        ]
        .iter()
        .enumerate()
        {
            a.insert(p(s), i as u32).unwrap();
            r.insert(p(s), i as u32);
        }
        let mut b = a.clone();
        // More groups than the room holds (one per 16 first-level entries).
        let extra = (1 << 24) / 16 / 256 + 3;
        for g in 0..extra as u32 {
            b.insert(Ipv4Prefix::new(0x2000_0000 + (g << 8) + 1, 32), 9)
                .unwrap();
        }
        a.remove(p("10.1.2.128/25"));
        r.remove(p("10.1.2.128/25"));
        for addr in [
            0x0a01_0281u32,
            0x0a01_0201,
            0x0a63_0000,
            0xc0a8_0107,
            0x2000_0001,
            1,
        ] {
            assert_eq!(a.lookup(addr), r.lookup(addr), "{addr:#x}");
        }
        assert_eq!(b.lookup(0x0a01_0281), Some(2));
        assert_eq!(b.lookup(0xc0a8_0107), Some(3));
        assert_eq!(b.lookup(0x2000_0001 + ((extra as u32 - 1) << 8)), Some(9));
        assert_eq!(a.lookup(0x2000_0001), None);
    }

    #[test]
    fn nested_prefixes_all_strides() {
        for stride in [8, 16, 24] {
            let mut t = LpmTable::with_first_stride(stride);
            t.insert(p("0.0.0.0/0"), 1).unwrap();
            t.insert(p("10.0.0.0/8"), 2).unwrap();
            t.insert(p("10.1.0.0/16"), 3).unwrap();
            t.insert(p("10.1.2.0/24"), 4).unwrap();
            t.insert(p("10.1.2.128/25"), 5).unwrap();
            t.insert(p("10.1.2.129/32"), 6).unwrap();
            let ip = |s: &str| u32::from(s.parse::<core::net::Ipv4Addr>().unwrap());
            assert_eq!(t.lookup(ip("11.0.0.0")), Some(1), "stride {stride}");
            assert_eq!(t.lookup(ip("10.200.0.1")), Some(2));
            assert_eq!(t.lookup(ip("10.1.9.9")), Some(3));
            assert_eq!(t.lookup(ip("10.1.2.1")), Some(4));
            assert_eq!(t.lookup(ip("10.1.2.130")), Some(5));
            assert_eq!(t.lookup(ip("10.1.2.129")), Some(6));
            assert_eq!(t.remove(p("10.1.2.128/25")), Some(5));
            assert_eq!(t.lookup(ip("10.1.2.130")), Some(4));
            assert_eq!(t.lookup(ip("10.1.2.129")), Some(6));
            assert_eq!(t.remove(p("10.1.2.129/32")), Some(6));
            assert_eq!(t.lookup(ip("10.1.2.129")), Some(4));
            t.remove(p("0.0.0.0/0"));
            assert_eq!(t.lookup(ip("11.0.0.0")), None);
            assert_eq!(t.remove(p("0.0.0.0/0")), None);
        }
    }

    #[test]
    fn groups_are_reused_after_delete() {
        let mut t = LpmTable::with_first_stride(24);
        for i in 0..100u32 {
            t.insert(Ipv4Prefix::new(0x0a00_0000 + (i << 8) + 7, 32), i)
                .unwrap();
        }
        let size = t.memory_bytes();
        for i in 0..100u32 {
            t.remove(Ipv4Prefix::new(0x0a00_0000 + (i << 8) + 7, 32));
        }
        for i in 0..100u32 {
            t.insert(Ipv4Prefix::new(0x0b00_0000 + (i << 8) + 9, 32), i)
                .unwrap();
        }
        assert_eq!(t.memory_bytes(), size);
        assert_eq!(t.lookup(0x0b00_0509), Some(5));
        assert_eq!(t.lookup(0x0a00_0507), None);
    }

    #[test]
    fn full_group_of_equal_host_routes_survives_delete() {
        let mut t = LpmTable::with_first_stride(24);
        for i in 0..256u32 {
            t.insert(Ipv4Prefix::new(0x0a00_0000 + i, 32), 7).unwrap();
        }
        t.remove(Ipv4Prefix::new(0x0a00_0005, 32));
        t.insert(Ipv4Prefix::new(0x0a00_0006, 32), 7).unwrap();
        t.remove(Ipv4Prefix::new(0x0a00_0006, 32));
        assert_eq!(t.lookup(0x0a00_0005), None);
        assert_eq!(t.lookup(0x0a00_0006), None);
        assert_eq!(t.lookup(0x0a00_0007), Some(7));
    }

    #[test]
    fn skips_the_bits_all_prefixes_share() {
        let mut t = LpmTable::default();
        for i in 0..16u32 {
            t.insert(Ipv4Prefix::new(0x0a01_0200 | (i << 4), 28), i)
                .unwrap();
        }
        // One read per lookup: the first level indexes the last 8 bits.
        assert_eq!(t.skipped_bits(), 24);
        assert_eq!(t.memory_bytes(), 256 * 4);
        assert_eq!(t.lookup(0x0a01_02f5), Some(15));
        assert_eq!(t.lookup(0x0a01_0305), None);
        assert_eq!(t.lookup(0x0b01_0205), None);
        // A route elsewhere shrinks the skip to what both share and keeps
        // every answer.
        t.insert(p("10.1.3.0/24"), 99).unwrap();
        assert_eq!(t.skipped_bits(), 16, "whole bytes only");
        assert_eq!(t.lookup(0x0a01_0305), Some(99));
        assert_eq!(t.lookup(0x0a01_02f5), Some(15));
        t.insert(p("0.0.0.0/0"), 7).unwrap();
        assert_eq!(t.skipped_bits(), 0);
        assert_eq!(t.lookup(0x0b01_0205), Some(7));
        assert_eq!(t.lookup(0x0a01_0215), Some(1));
        assert_eq!(t.remove(p("0.0.0.0/0")), Some(7));
        assert_eq!(t.lookup(0x0b01_0205), None);
        assert_eq!(t.lookup(0x0a01_0305), Some(99));
    }

    #[test]
    fn rejects_wide_values() {
        let mut t = LpmTable::default();
        assert_eq!(
            t.insert(p("1.0.0.0/8"), 1 << 24),
            Err(LpmError::ValueTooLarge(1 << 24))
        );
    }

    #[derive(Debug, Clone)]
    enum Op {
        Insert(u32, u8, u32),
        Remove(usize),
    }

    fn ops() -> impl Strategy<Value = Vec<Op>> {
        // Addresses drawn from a small space so prefixes nest and collide.
        let addr = prop_oneof![
            any::<u32>(),
            (0u32..64).prop_map(|x| 0x0a00_0000 | (x << 18) | (x << 4))
        ];
        let op = prop_oneof![
            3 => (addr, 0u8..=32, 0u32..1000).prop_map(|(a, l, v)| Op::Insert(a, l, v)),
            1 => any::<usize>().prop_map(Op::Remove),
        ];
        // Or mostly long prefixes inside one /20, so the table skips bits,
        // with the odd one outside it (the skip shrinks and the trie is
        // rebuilt) and short ones that cover it.
        let inside = (0u32..4096, 20u8..=32, 0u32..1000)
            .prop_map(|(x, l, v)| Op::Insert(0x0a0b_c000 | x, l, v));
        let outside =
            (any::<u32>(), 8u8..=32, 0u32..1000).prop_map(|(a, l, v)| Op::Insert(a, l, v));
        let confined = prop_oneof![
            12 => inside,
            1 => outside,
            4 => any::<usize>().prop_map(Op::Remove),
        ];
        prop_oneof![
            proptest::collection::vec(op, 1..120),
            proptest::collection::vec(confined, 1..120),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        #[test]
        fn agrees_with_reference(ops in ops(), stride in prop_oneof![Just(8u8), Just(16), Just(24)], probes in proptest::collection::vec(any::<u32>(), 64)) {
            let mut t = LpmTable::with_first_stride(stride);
            let mut r = ReferenceLpm::new();
            let mut live: Vec<Ipv4Prefix> = Vec::new();
            for op in ops {
                match op {
                    Op::Insert(a, l, v) => {
                        let pf = Ipv4Prefix::new(a, l);
                        t.insert(pf, v).unwrap();
                        r.insert(pf, v);
                        live.push(pf);
                    }
                    Op::Remove(i) if !live.is_empty() => {
                        let pf = live.swap_remove(i % live.len());
                        prop_assert_eq!(t.remove(pf), r.remove(pf));
                    }
                    Op::Remove(_) => {}
                }
            }
            let mut addrs = probes.clone();
            addrs.extend(probes.iter().map(|a| 0x0a0b_c000 | (a & 0xfff)));
            for pf in &live {
                addrs.push(pf.addr());
                addrs.push(pf.addr() | !pf.mask());
            }
            let mut batch = vec![None; addrs.len()];
            t.lookup_batch(&addrs, &mut batch);
            for (a, b) in addrs.iter().zip(&batch) {
                prop_assert_eq!(t.lookup(*a), r.lookup(*a), "addr {:#x}", a);
                prop_assert_eq!(*b, r.lookup(*a));
            }
        }
    }
}
