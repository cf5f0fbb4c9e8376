//! A program's maps: arrays and hash tables of fixed-size keys and values,
//! allocated whole when the program is loaded, shared by every worker that
//! runs it and by the API that reads and writes them, without a lock.
//!
//! Values live in words of `AtomicU64`: a program's 8-byte aligned load or
//! store is one atomic access, a narrower or unaligned one a compare-and-swap
//! on the words it touches, and its atomic instructions (`lock *(u64 *)(r0 +
//! 0) += r1`, what `__sync_fetch_and_add` compiles to) are atomic here too.
//! As in the kernel, a value read while another worker writes it may mix
//! old and new bytes; unlike the kernel's hash map, which locks a bucket to
//! insert, two workers inserting the same new key at once may both insert it
//! (the first found answers lookups). docs/customizing.md says so.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::*};

use thiserror::Error;

/// `BPF_MAP_TYPE_HASH` and `BPF_MAP_TYPE_ARRAY`.
pub const MAP_TYPE_HASH: u32 = 1;
pub const MAP_TYPE_ARRAY: u32 = 2;
/// Largest key and value a map may have here.
pub const MAX_KEY: u32 = 64;
pub const MAX_VALUE: u32 = 4096;
/// Most bytes all of one program's maps may take.
pub const MAX_MAP_BYTES: u64 = 64 << 20;

/// The update flags of `bpf_map_update_elem`.
pub const BPF_ANY: u64 = 0;
pub const BPF_NOEXIST: u64 = 1;
pub const BPF_EXIST: u64 = 2;

pub const ENOENT: i64 = 2;
pub const E2BIG: i64 = 7;
pub const EEXIST: i64 = 17;
pub const EINVAL: i64 = 22;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MapKind {
    Array,
    Hash,
}

/// A map as the program's object declares it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MapDef {
    pub name: String,
    pub kind: MapKind,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MapError {
    #[error("map {name}: type {map_type} is not taken (array and hash are)")]
    Type { name: String, map_type: u32 },
    #[error("map {name}: {what} of {size} bytes (1 to {max} are taken)")]
    Size {
        name: String,
        what: &'static str,
        size: u32,
        max: u32,
    },
    #[error("map {name}: an array's key is 4 bytes, not {size}")]
    ArrayKey { name: String, size: u32 },
    #[error(
        "map {name} is pinned by name (shared with other programs): a program's maps are its own"
    )]
    Pinned { name: String },
    #[error("map {name}: max_entries must be 1 or more")]
    NoEntries { name: String },
    #[error("the program's maps take {0} bytes; at most {MAX_MAP_BYTES} are allowed")]
    TooLarge(u64),
}

impl MapDef {
    pub fn checked(self) -> Result<MapDef, MapError> {
        let name = self.name.clone();
        if self.key_size == 0 || self.key_size > MAX_KEY {
            let (what, size, max) = ("a key", self.key_size, MAX_KEY);
            return Err(MapError::Size {
                name,
                what,
                size,
                max,
            });
        }
        if self.value_size == 0 || self.value_size > MAX_VALUE {
            let (what, size, max) = ("a value", self.value_size, MAX_VALUE);
            return Err(MapError::Size {
                name,
                what,
                size,
                max,
            });
        }
        if self.kind == MapKind::Array && self.key_size != 4 {
            return Err(MapError::ArrayKey {
                name,
                size: self.key_size,
            });
        }
        if self.max_entries == 0 {
            return Err(MapError::NoEntries { name });
        }
        Ok(self)
    }

    /// Slots the map holds: its entries, or for a hash table twice as many
    /// (a power of two), so that probes stay short when it is full.
    fn slots(&self) -> usize {
        match self.kind {
            MapKind::Array => self.max_entries as usize,
            MapKind::Hash => (self.max_entries as usize * 2).next_power_of_two(),
        }
    }

    pub fn bytes(&self) -> u64 {
        let words = words(self.value_size) + words(self.key_size) + 1;
        self.slots() as u64 * words as u64 * 8
    }
}

fn words(bytes: u32) -> usize {
    (bytes as usize).div_ceil(8)
}

const EMPTY: u32 = 0;
const BUSY: u32 = 1;
const FULL: u32 = 2;
const GONE: u32 = 3;

/// One map's storage.
#[derive(Debug)]
pub struct Map {
    pub def: MapDef,
    /// Words per value slot.
    stride: usize,
    values: Box<[AtomicU64]>,
    /// A hash table's slots' states and keys (empty for an array).
    state: Box<[AtomicU32]>,
    keys: Box<[AtomicU64]>,
    key_words: usize,
    len: AtomicU32,
}

fn zeroed<T: Default>(n: usize) -> Box<[T]> {
    (0..n).map(|_| T::default()).collect()
}

impl Map {
    pub fn new(def: MapDef) -> Map {
        let slots = def.slots();
        let stride = words(def.value_size);
        let (state, key_words) = match def.kind {
            MapKind::Array => (zeroed(0), 0),
            MapKind::Hash => (zeroed(slots), words(def.key_size)),
        };
        Map {
            values: zeroed(slots * stride),
            keys: zeroed(slots * key_words),
            state,
            key_words,
            stride,
            len: AtomicU32::new(0),
            def,
        }
    }

    /// Bytes between two values' starts.
    pub fn stride_bytes(&self) -> usize {
        self.stride * 8
    }

    pub fn slot_count(&self) -> usize {
        self.values.len() / self.stride
    }

    /// The slot holding `key`'s value, if it has one.
    pub fn lookup(&self, key: &[u8]) -> Option<usize> {
        match self.def.kind {
            MapKind::Array => {
                let i = u32::from_le_bytes(key.get(..4)?.try_into().ok()?) as usize;
                (i < self.def.max_entries as usize).then_some(i)
            }
            MapKind::Hash => self.find(key),
        }
    }

    fn find(&self, key: &[u8]) -> Option<usize> {
        let mask = self.state.len() - 1;
        let mut i = hash(key) as usize & mask;
        for _ in 0..self.state.len() {
            match self.state[i].load(Acquire) {
                EMPTY => return None,
                FULL if self.key_is(i, key) => return Some(i),
                _ => i = (i + 1) & mask,
            }
        }
        None
    }

    fn key_is(&self, slot: usize, key: &[u8]) -> bool {
        let stored = &self.keys[slot * self.key_words..(slot + 1) * self.key_words];
        key.chunks(8)
            .zip(stored)
            .all(|(k, w)| word(k) == w.load(Relaxed))
    }

    /// `bpf_map_update_elem`: 0, or a negative errno as the kernel's.
    pub fn update(&self, key: &[u8], value: &[u8], flags: u64) -> i64 {
        if flags > BPF_EXIST {
            return -EINVAL;
        }
        if let Some(slot) = self.lookup(key) {
            if flags == BPF_NOEXIST {
                return -EEXIST;
            }
            self.write_value(slot, value);
            return 0;
        }
        match self.def.kind {
            MapKind::Array => -E2BIG,
            MapKind::Hash if flags == BPF_EXIST => -ENOENT,
            MapKind::Hash => self.insert(key, value),
        }
    }

    fn insert(&self, key: &[u8], value: &[u8]) -> i64 {
        if self.len.fetch_add(1, AcqRel) >= self.def.max_entries {
            self.len.fetch_sub(1, AcqRel);
            return -E2BIG;
        }
        let mask = self.state.len() - 1;
        let mut i = hash(key) as usize & mask;
        loop {
            let s = self.state[i].load(Acquire);
            if (s == EMPTY || s == GONE)
                && self.state[i]
                    .compare_exchange(s, BUSY, AcqRel, Acquire)
                    .is_ok()
            {
                let stored = &self.keys[i * self.key_words..(i + 1) * self.key_words];
                for (w, k) in stored.iter().zip(key.chunks(8)) {
                    w.store(word(k), Relaxed);
                }
                self.write_value(i, value);
                self.state[i].store(FULL, Release);
                return 0;
            }
            i = (i + 1) & mask;
        }
    }

    /// `bpf_map_delete_elem`: 0, or a negative errno.
    pub fn delete(&self, key: &[u8]) -> i64 {
        if self.def.kind == MapKind::Array {
            return -EINVAL;
        }
        let Some(slot) = self.find(key) else {
            return -ENOENT;
        };
        if self.state[slot]
            .compare_exchange(FULL, BUSY, AcqRel, Acquire)
            .is_err()
        {
            return -ENOENT;
        }
        self.state[slot].store(GONE, Release);
        self.len.fetch_sub(1, AcqRel);
        0
    }

    fn write_value(&self, slot: usize, value: &[u8]) {
        let base = slot * self.stride_bytes();
        for (k, chunk) in value.chunks(8).enumerate() {
            self.store(base + k * 8, chunk.len(), word(chunk));
        }
    }

    /// The value in `slot`, `value_size` bytes.
    pub fn value(&self, slot: usize) -> Vec<u8> {
        let base = slot * self.stride_bytes();
        let mut out = Vec::with_capacity(self.def.value_size as usize);
        for k in (0..self.def.value_size as usize).step_by(8) {
            let n = (self.def.value_size as usize - k).min(8);
            out.extend_from_slice(&self.load(base + k, n).to_le_bytes()[..n]);
        }
        out
    }

    /// Every entry: (key, value), in slot order.
    pub fn entries(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        let key_len = self.def.key_size as usize;
        match self.def.kind {
            MapKind::Array => (0..self.def.max_entries)
                .map(|i| (i.to_le_bytes().to_vec(), self.value(i as usize)))
                .collect(),
            MapKind::Hash => (0..self.state.len())
                .filter(|i| self.state[*i].load(Acquire) == FULL)
                .map(|i| {
                    let ks = &self.keys[i * self.key_words..(i + 1) * self.key_words];
                    let mut key: Vec<u8> = ks
                        .iter()
                        .flat_map(|w| w.load(Relaxed).to_le_bytes())
                        .collect();
                    key.truncate(key_len);
                    (key, self.value(i))
                })
                .collect(),
        }
    }

    /// `size` (1, 2, 4 or 8) bytes at byte `at` of the value storage.
    #[inline]
    pub fn load(&self, at: usize, size: usize) -> u64 {
        let (w, shift) = (at / 8, (at % 8) * 8);
        let low = self.values[w].load(Relaxed) >> shift;
        let value = if shift + size * 8 > 64 {
            low | self.values[w + 1].load(Relaxed) << (64 - shift)
        } else {
            low
        };
        value & mask(size)
    }

    #[inline]
    pub fn store(&self, at: usize, size: usize, value: u64) {
        if size == 8 && at.is_multiple_of(8) {
            self.values[at / 8].store(value, Relaxed);
            return;
        }
        let (w, shift) = (at / 8, (at % 8) * 8);
        let bits = value & mask(size);
        merge(&self.values[w], mask(size) << shift, bits << shift);
        if shift + size * 8 > 64 {
            let rest = 64 - shift;
            merge(&self.values[w + 1], mask(size) >> rest, bits >> rest);
        }
    }

    /// An atomic read-modify-write of an aligned 4- or 8-byte value;
    /// returns the old value.
    #[inline]
    pub fn update_atomic(&self, at: usize, size: usize, f: impl Fn(u64) -> u64) -> u64 {
        let (w, shift) = (at / 8, (at % 8) * 8);
        let m = mask(size) << shift;
        let mut old = self.values[w].load(Relaxed);
        loop {
            let new = (old & !m) | ((f((old & m) >> shift) << shift) & m);
            match self.values[w].compare_exchange_weak(old, new, AcqRel, Relaxed) {
                Ok(_) => return (old & m) >> shift,
                Err(now) => old = now,
            }
        }
    }
}

fn merge(w: &AtomicU64, m: u64, bits: u64) {
    let _ = w.fetch_update(Relaxed, Relaxed, |old| Some((old & !m) | (bits & m)));
}

#[inline]
pub fn mask(size: usize) -> u64 {
    if size >= 8 {
        u64::MAX
    } else {
        (1u64 << (size * 8)) - 1
    }
}

fn word(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(b)
}

/// FNV-1a over the key: keys are short, and a program chooses them, so a
/// keyed hash would not help (the table cannot grow past its entries).
fn hash(key: &[u8]) -> u64 {
    key.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
    })
}
