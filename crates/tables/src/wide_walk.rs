//! The walks of several trees for [`WIDE`] keys at once, eight keys to a
//! vector, with AVX-512: one gather reads eight keys' walk entries, and
//! nine more vector instructions take the eight steps (the entry's layout,
//! `split_tree::Step`, is made for them: fourteen before).
//!
//! In: the trees, the keys' fields. Out: for each tree and key, the word
//! of the leaf entry its walk ends on: the leaf's first block, and
//! whether it is plain (`split_tree::PLAIN`).
//!
//! Why: stepped one key at a time, a walk costs nine instructions a step,
//! and the trees' lookups were bound by instructions, not by the loads'
//! latency (eight or sixteen keys in flight ran alike); ipc1_10k's four
//! trees take 46 steps a key. A vector step costs about two instructions a
//! key but has a long latency (a gather, then permutes), so the walks of
//! every tree for four vectors of keys go step by step together: up to
//! sixteen independent chains. Where the CPU has no AVX-512 the trees walk
//! one key at a time ([`crate::SplitTree::lookup_lanes`]).

use crate::split_tree::{LANES, SplitTree};

/// Vectors of keys walked together: with four trees, sixteen chains
/// (two vectors: ipc1_10k 93.5 cycles; four: 90; six: 92).
pub const VECTORS: usize = 4;
/// Keys walked together.
pub const WIDE: usize = VECTORS * LANES;
/// Trees walked together, at most.
pub const TREES: usize = 4;

/// The keys' fields, vector by vector: `f[v][d][i]` is field `d` (see
/// `split_tree::walk_fields`) of key `v * LANES + i`.
pub type WideFields = [[[u32; LANES]; 8]; VECTORS];

/// Whether [`walk`] can run here (and the leaf test of
/// `LeafBlock::hits_avx512` beside it).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("avx512bw")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Walks each of `trees` (at most [`TREES`]) for the [`WIDE`] keys of `f`;
/// `leaf[t][k]` is the word of the leaf entry where tree `t`'s walk of
/// key `k` ends.
///
/// Panics where [`available`] is false.
pub fn walk(trees: &[&SplitTree], f: &WideFields, leaf: &mut [[u32; WIDE]; TREES]) {
    assert!(available() && trees.len() <= TREES);
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the CPU has AVX-512F and VL (and BW), asserted above.
    unsafe {
        walk_avx512(trees, f, leaf)
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl")]
fn walk_avx512(trees: &[&SplitTree], f: &WideFields, out: &mut [[u32; WIDE]; TREES]) {
    use std::arch::x86_64::*;
    let load = |a: &[u32; LANES]| -> __m256i {
        // SAFETY: 32 bytes read from an array of 32 bytes.
        unsafe { _mm256_loadu_si256(a.as_ptr().cast()) }
    };
    let wide = |lo: __m256i, hi: __m256i| -> __m512i {
        _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
    };
    // Per vector of keys: fields 0-1 and 2-3 for a two-table permute
    // (index `8 * field + lane`, five bits), field 4 and zeros (field 5, a
    // leaf's) for a one-table permute of the indexes with bit 5 set (it
    // reads four bits: `8 * (field - 4) + lane`).
    let mut f01 = [_mm512_setzero_si512(); VECTORS];
    let mut f23 = [_mm512_setzero_si512(); VECTORS];
    let mut f45 = [_mm512_setzero_si512(); VECTORS];
    for v in 0..VECTORS {
        f01[v] = wide(load(&f[v][0]), load(&f[v][1]));
        f23[v] = wide(load(&f[v][2]), load(&f[v][3]));
        f45[v] = wide(load(&f[v][4]), _mm256_setzero_si256());
    }
    // Each key's lane number in the low word of its 64-bit lane: ORed with
    // an entry's low word (`8 * field` in bits 3-5, see `split_tree::Step`)
    // it is the permutes' index.
    let lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    // Bit 5 of the index, in the low words only: fields 4 and 5.
    let high_field = _mm512_set1_epi64(32);
    let one = _mm256_set1_epi32(1);
    let mut steps = [std::ptr::null::<i64>(); TREES];
    let mut depth = [0u32; TREES];
    for (t, tree) in trees.iter().enumerate() {
        steps[t] = tree.step_entries().as_ptr().cast();
        depth[t] = tree.depth();
    }
    let deepest = depth.iter().copied().max().unwrap_or(0);
    let mut at = [[_mm256_setzero_si256(); VECTORS]; TREES];
    for d in 0..deepest {
        for t in 0..TREES {
            if d >= depth[t] {
                continue;
            }
            for v in 0..VECTORS {
                // SAFETY: every index a walk reaches is an entry of the
                // tree: the root (0) or a child index stored in an entry,
                // each below `steps.len()` (`split_tree::Builder::lay_out`).
                let g = unsafe { _mm512_i32gather_epi64::<8>(at[t][v], steps[t]) };
                let pick = _mm512_or_si512(g, lane);
                let value = _mm512_permutex2var_epi32(f01[v], pick, f23[v]);
                let value = _mm512_mask_permutexvar_epi32(
                    value,
                    _mm512_test_epi32_mask(pick, high_field),
                    pick,
                    f45[v],
                );
                // The value into the high word: compared with the whole
                // entry it is greater exactly when it is greater than the
                // split (see `split_tree::Step`).
                let right = _mm512_cmpgt_epu64_mask(_mm512_slli_epi64::<32>(value), g);
                let first = _mm256_srli_epi32::<{ crate::split_tree::STEP_INDEX_SHIFT as i32 }>(
                    _mm512_cvtepi64_epi32(g),
                );
                at[t][v] = _mm256_mask_add_epi32(first, right, first, one);
            }
        }
    }
    for t in 0..trees.len() {
        for v in 0..VECTORS {
            // SAFETY: as in the walk; then 32 bytes written to 32 bytes of
            // `out[t]`.
            unsafe {
                let g = _mm512_i32gather_epi64::<8>(at[t][v], steps[t]);
                let word = _mm512_cvtepi64_epi32(_mm512_srli_epi64::<32>(g));
                _mm256_storeu_si256(out[t][v * LANES..].as_mut_ptr().cast(), word);
            }
        }
    }
}
