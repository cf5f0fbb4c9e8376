//! A decision tree's leaf: up to eight candidate rules' ranges, stored
//! field by field so that one lookup tests all eight at once.
//!
//! In: a key's five fields. Out: a bit mask of the candidates whose ranges
//! hold it, in priority order (bit 0 the best). With AVX2 that is a dozen
//! vector instructions for the eight, where testing them one by one took
//! about forty instructions each, most of a tree lookup's cost (callgrind
//! on ipc1_10k: ten candidates tested a lookup, ~450 of its ~1,470
//! instructions). A range is stored as its low end and its width, and `v`
//! is in it when `v - low <= width` (wrapping): one unsigned compare per
//! field, which AVX2 does as `min(d, width) == d`.

/// Candidates one block holds.
pub const BLOCK: usize = 8;

/// Up to [`BLOCK`] candidates, in priority order. Four cache lines.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(64))]
pub struct LeafBlock {
    src_lo: [u32; BLOCK],
    src_w: [u32; BLOCK],
    dst_lo: [u32; BLOCK],
    dst_w: [u32; BLOCK],
    /// Source ports in the first eight, destination ports in the last.
    port_lo: [u16; 2 * BLOCK],
    port_w: [u16; 2 * BLOCK],
    proto_lo: [u8; BLOCK],
    proto_w: [u8; BLOCK],
    /// Each candidate's slot in its tree's rules, and after them the slot
    /// [`Self::first_hit`] gives when none holds (see [`Self::new`]).
    slots: [u32; BLOCK + 1],
    /// Bit `j`: candidate `j` is there.
    live: u8,
    /// Bit `j`: candidate `j`'s ranges are the whole rule (otherwise the
    /// rule is checked whole after its ranges hold).
    pub exact: u8,
    /// The leaf goes on in the next block.
    pub more: bool,
    /// Rules after the leaf's last candidate were cut (it covers the
    /// leaf's region); said on the leaf's last block.
    pub cut: bool,
}

/// A candidate's ranges: source, destination, source port, destination
/// port, protocol, each inclusive `[low, high]` within its field's width.
pub type Ranges = [[u32; 2]; 5];

impl LeafBlock {
    /// An empty block whose [`Self::first_hit`] is `none` when nothing hits.
    pub fn new(none: u32) -> Self {
        let mut b = Self::default();
        b.slots[BLOCK] = none;
        b
    }

    /// The slot of the best candidate in `hits` (from [`Self::hits`]), or
    /// the block's `none`: with no branch on whether any hit, which no
    /// predictor can guess.
    #[inline(always)]
    pub fn first_hit(&self, hits: u32) -> u32 {
        self.slots[(hits | 1 << BLOCK).trailing_zeros() as usize]
    }

    /// Candidate `j`'s slot.
    #[inline]
    pub fn slot(&self, j: u32) -> u32 {
        self.slots[j as usize]
    }

    /// Candidates held.
    pub fn count(&self) -> usize {
        self.live.count_ones() as usize
    }

    /// Adds a candidate after the others. False when the block is full.
    pub fn push(&mut self, r: &Ranges, exact: bool, slot: u32) -> bool {
        let j = self.count();
        if j == BLOCK {
            return false;
        }
        let w = |d: usize| r[d][1] - r[d][0];
        self.src_lo[j] = r[0][0];
        self.src_w[j] = w(0);
        self.dst_lo[j] = r[1][0];
        self.dst_w[j] = w(1);
        self.port_lo[j] = r[2][0] as u16;
        self.port_w[j] = w(2) as u16;
        self.port_lo[BLOCK + j] = r[3][0] as u16;
        self.port_w[BLOCK + j] = w(3) as u16;
        self.proto_lo[j] = r[4][0] as u8;
        self.proto_w[j] = w(4) as u8;
        self.slots[j] = slot;
        self.live |= 1 << j;
        self.exact |= u8::from(exact) << j;
        true
    }

    /// The candidates whose ranges hold `f` (source, destination, source
    /// port, destination port, protocol; ports below 2^16, protocol below
    /// 2^8), as bits.
    #[inline]
    pub fn hits(&self, f: &[u32; 8]) -> u32 {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, just checked.
            return unsafe { self.hits_avx2(f) };
        }
        self.hits_one_by_one(f)
    }

    /// [`Self::hits`] a candidate at a time: the reference for the vector
    /// code, and the code where there is none.
    pub fn hits_one_by_one(&self, f: &[u32; 8]) -> u32 {
        let mut m = 0;
        for j in 0..BLOCK {
            let ok = f[0].wrapping_sub(self.src_lo[j]) <= self.src_w[j]
                && f[1].wrapping_sub(self.dst_lo[j]) <= self.dst_w[j]
                && (f[2] as u16).wrapping_sub(self.port_lo[j]) <= self.port_w[j]
                && (f[3] as u16).wrapping_sub(self.port_lo[BLOCK + j]) <= self.port_w[BLOCK + j]
                && (f[4] as u8).wrapping_sub(self.proto_lo[j]) <= self.proto_w[j];
            m |= u32::from(ok) << j;
        }
        m & u32::from(self.live)
    }

    /// Holds one block of exact candidates: a hit needs no more checks.
    #[inline]
    pub fn plain(&self) -> bool {
        !self.more && self.exact == self.live
    }

    /// The block's ranges in vector registers.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline]
    fn lanes(&self) -> BlockLanes {
        use std::arch::x86_64::*;
        // SAFETY: each load reads 32 (or 8) bytes from an array of exactly
        // that size in `self`; unaligned loads need no alignment.
        unsafe {
            let ld = |a: *const u8| _mm256_loadu_si256(a.cast::<__m256i>());
            BlockLanes {
                src_lo: ld(self.src_lo.as_ptr().cast()),
                src_w: ld(self.src_w.as_ptr().cast()),
                dst_lo: ld(self.dst_lo.as_ptr().cast()),
                dst_w: ld(self.dst_w.as_ptr().cast()),
                port_lo: ld(self.port_lo.as_ptr().cast()),
                port_w: ld(self.port_w.as_ptr().cast()),
                proto_lo: _mm_loadl_epi64(self.proto_lo.as_ptr().cast()),
                proto_w: _mm_loadl_epi64(self.proto_w.as_ptr().cast()),
            }
        }
    }

    /// [`Self::hits`] with AVX2, inlined where the caller has it.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn hits_avx2(&self, f: &[u32; 8]) -> u32 {
        use std::arch::x86_64::*;
        let b = self.lanes();
        let d = _mm256_sub_epi32(_mm256_set1_epi32(f[0] as i32), b.src_lo);
        let src = _mm256_cmpeq_epi32(_mm256_min_epu32(d, b.src_w), d);
        let d = _mm256_sub_epi32(_mm256_set1_epi32(f[1] as i32), b.dst_lo);
        let dst = _mm256_cmpeq_epi32(_mm256_min_epu32(d, b.dst_w), d);
        let key = _mm256_setr_m128i(_mm_set1_epi16(f[2] as i16), _mm_set1_epi16(f[3] as i16));
        let d = _mm256_sub_epi16(key, b.port_lo);
        let ports = _mm256_cmpeq_epi16(_mm256_min_epu16(d, b.port_w), d);
        let ports = _mm_and_si128(
            _mm256_castsi256_si128(ports),
            _mm256_extracti128_si256::<1>(ports),
        );
        let d = _mm_sub_epi8(_mm_set1_epi8(f[4] as i8), b.proto_lo);
        let proto = _mm_cmpeq_epi8(_mm_min_epu8(d, b.proto_w), d);
        let all = _mm256_and_si256(
            _mm256_and_si256(src, dst),
            _mm256_and_si256(_mm256_cvtepi16_epi32(ports), _mm256_cvtepi8_epi32(proto)),
        );
        _mm256_movemask_ps(_mm256_castsi256_ps(all)) as u32 & u32::from(self.live)
    }
}

/// A block's ranges in vector registers.
#[cfg(target_arch = "x86_64")]
struct BlockLanes {
    src_lo: std::arch::x86_64::__m256i,
    src_w: std::arch::x86_64::__m256i,
    dst_lo: std::arch::x86_64::__m256i,
    dst_w: std::arch::x86_64::__m256i,
    port_lo: std::arch::x86_64::__m256i,
    port_w: std::arch::x86_64::__m256i,
    proto_lo: std::arch::x86_64::__m128i,
    proto_w: std::arch::x86_64::__m128i,
}

/// A key's fields spread over vector lanes once, for every leaf it is
/// tested against ([`LeafBlock::hits_avx512`]).
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Clone, Copy)]
pub struct KeyLanes {
    src: std::arch::x86_64::__m256i,
    dst: std::arch::x86_64::__m256i,
    /// The source port in the first eight 16-bit lanes, the destination
    /// port in the last eight, as [`LeafBlock`] stores ports.
    ports: std::arch::x86_64::__m256i,
    proto: std::arch::x86_64::__m128i,
}

#[cfg(target_arch = "x86_64")]
impl KeyLanes {
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn new(f: &[u32; 8]) -> Self {
        use std::arch::x86_64::*;
        Self {
            src: _mm256_set1_epi32(f[0] as i32),
            dst: _mm256_set1_epi32(f[1] as i32),
            ports: _mm256_setr_m128i(_mm_set1_epi16(f[2] as i16), _mm_set1_epi16(f[3] as i16)),
            proto: _mm_set1_epi8(f[4] as i8),
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl LeafBlock {
    /// [`Self::hits`] with AVX-512's unsigned compares into mask
    /// registers: half the instructions of the AVX2 test.
    #[target_feature(enable = "avx512f,avx512vl,avx512bw")]
    #[inline]
    pub fn hits_avx512(&self, k: &KeyLanes) -> u32 {
        use std::arch::x86_64::*;
        let b = self.lanes();
        let m = _mm256_cmple_epu32_mask(_mm256_sub_epi32(k.src, b.src_lo), b.src_w);
        let m = _mm256_mask_cmple_epu32_mask(m, _mm256_sub_epi32(k.dst, b.dst_lo), b.dst_w);
        let p = _mm256_cmple_epu16_mask(_mm256_sub_epi16(k.ports, b.port_lo), b.port_w);
        let r = _mm_cmple_epu8_mask(_mm_sub_epi8(k.proto, b.proto_lo), b.proto_w);
        u32::from(m & (p & (p >> 8)) as u8 & r as u8 & self.live)
    }
}

const _: () = assert!(std::mem::size_of::<LeafBlock>() == 256);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn range(bits: u32) -> impl Strategy<Value = [u32; 2]> {
        let max = if bits == 32 {
            u32::MAX
        } else {
            (1 << bits) - 1
        };
        prop_oneof![
            Just([0, max]),
            (0..=max).prop_map(|v| [v, v]),
            (0..=max, 0..=max).prop_map(|(a, b)| [a.min(b), a.max(b)]),
        ]
    }

    fn ranges() -> impl Strategy<Value = Ranges> {
        [range(32), range(32), range(16), range(16), range(8)]
    }

    #[test]
    fn a_range_holds_its_ends_and_nothing_past_them() {
        let mut b = LeafBlock::default();
        assert!(b.push(
            &[[10, 20], [0, u32::MAX], [80, 80], [0, 0xffff], [6, 6]],
            true,
            7
        ));
        let f = |s, sp, p| [s, 1, sp, 9, p, 0, 0, 0];
        assert_eq!(b.hits(&f(10, 80, 6)), 1);
        assert_eq!(b.hits(&f(20, 80, 6)), 1);
        assert_eq!(b.hits(&f(9, 80, 6)), 0);
        assert_eq!(b.hits(&f(21, 80, 6)), 0);
        assert_eq!(b.hits(&f(15, 81, 6)), 0);
        assert_eq!(b.hits(&f(15, 80, 17)), 0);
        // An empty slot (low 0, width 0) would hold an all-zero key: the
        // live bits keep it out.
        assert_eq!(b.hits(&[0; 8]), 0);
    }

    proptest! {
        /// The vector test is the one-by-one test, and both are the
        /// ranges' definition.
        #[test]
        fn all_at_once_is_one_by_one(
            cands in proptest::collection::vec(ranges(), 0..=BLOCK),
            probe in (any::<u32>(), any::<u32>(), any::<u16>(), any::<u16>(), any::<u8>()),
            near in 0..BLOCK,
        ) {
            let mut b = LeafBlock::default();
            for (j, r) in cands.iter().enumerate() {
                prop_assert!(b.push(r, j % 2 == 0, j as u32));
            }
            let mut full = b;
            prop_assert_eq!(full.push(&cands.first().copied().unwrap_or_default(), true, 9), cands.len() < BLOCK);
            let mut keys = vec![[probe.0, probe.1, u32::from(probe.2), u32::from(probe.3), u32::from(probe.4), 0, 0, 0]];
            // Keys at a candidate's corners, where an off-by-one shows.
            if let Some(r) = cands.get(near) {
                for end in 0..2 {
                    let mut k = [0u32; 8];
                    for (v, range) in k.iter_mut().zip(r) {
                        *v = range[end];
                    }
                    keys.push(k);
                    k[near % 5] = k[near % 5].wrapping_add(if end == 0 { u32::MAX } else { 1 });
                    keys.push(k);
                }
            }
            for k in keys {
                if k[2] > 0xffff || k[3] > 0xffff || k[4] > 0xff {
                    continue;
                }
                let mut want = 0u32;
                for (j, r) in cands.iter().enumerate() {
                    want |= u32::from((0..5).all(|d| r[d][0] <= k[d] && k[d] <= r[d][1])) << j;
                }
                prop_assert_eq!(b.hits_one_by_one(&k), want);
                prop_assert_eq!(b.hits(&k), want);
                #[cfg(target_arch = "x86_64")]
                if crate::wide_walk::available() {
                    // SAFETY: the CPU has AVX-512F, VL and BW (and so AVX2).
                    let got = unsafe { b.hits_avx512(&KeyLanes::new(&k)) };
                    prop_assert_eq!(got, want);
                }
            }
        }
    }
}
