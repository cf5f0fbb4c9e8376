//! The pipeline's per-packet arrays between stages (a batch's headers,
//! keys, networks, actions and fates, by the batch's index).

use crate::fast::fate::{Fate, NO_NET};
use crate::fast::reasons::MatchDrop;
use prism_tables::{Key, Match};
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
    /// A rule table's answers for a batch walk (stage 2 or 3).
    pub(crate) matched: Vec<Option<Match>>,
    /// Stage 3's decisions made ahead of its loop (rule tables).
    pub(crate) decided: Vec<Option<Result<u32, MatchDrop>>>,
    /// One network's keys gathered for a batch walk, and their indices.
    pub(crate) rule_keys: Vec<Key>,
    pub(crate) rule_index: Vec<u32>,
    /// Where a plain frame's IPv4 packet ends, 0 for any other frame
    /// (`crate::fast::ruled_batch`).
    pub(crate) plain_end: Vec<u16>,
}

impl Scratch {
    pub(crate) fn reset(&mut self, n: usize) {
        if self.fate.len() < n {
            self.info.resize(n, PacketInfo::default());
            self.key.resize(n, Key::default());
            self.net.resize(n, NO_NET);
            self.action.resize(n, 0);
            self.fate.resize(n, Fate::Pending);
            self.matched.resize(n, None);
            self.decided.resize(n, None);
            self.plain_end.resize(n, 0);
            self.rule_keys.reserve(n);
            self.rule_index.reserve(n);
        }
        self.fate[..n].fill(Fate::Pending);
        self.net[..n].fill(NO_NET);
    }
}
