//! The pipeline's per-packet arrays between stages (a batch's headers,
//! keys, networks, actions and fates, by the batch's index).

use crate::fate::{Fate, NO_NET};
use prism_tables::Key;
use prism_wire::PacketInfo;

/// Per-packet state between stages, kept across batches so that a batch
/// allocates nothing once the largest batch size has been seen.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    pub(crate) info: Vec<PacketInfo>,
    pub(crate) key: Vec<Key>,
    pub(crate) net: Vec<u16>,
    pub(crate) action: Vec<u32>,
    pub(crate) fate: Vec<Fate>,
}

impl Scratch {
    pub(crate) fn reset(&mut self, n: usize) {
        if self.fate.len() < n {
            self.info.resize(n, PacketInfo::default());
            self.key.resize(n, Key::default());
            self.net.resize(n, NO_NET);
            self.action.resize(n, 0);
            self.fate.resize(n, Fate::Pending);
        }
        self.fate[..n].fill(Fate::Pending);
        self.net[..n].fill(NO_NET);
    }
}
