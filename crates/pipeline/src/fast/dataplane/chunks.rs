//! A data plane's per-network records in chunks of [`CHUNK`] networks,
//! each chunk shared (an `Arc`) by every generation it is unchanged in.
//!
//! Why: a change to one network must not build every network's record,
//! hop table and pointer again (docs/performance.md, `prism bench --only
//! control/change-at-10000`). A generation copies the chunk pointers of the one before (one per 64 networks) and builds
//! again only the chunks holding a changed network: its 64 records and
//! their hops, a few kilobytes. The fast path pays one more pointer load
//! (the chunk's) per network lookup, in a table of N/64 pointers that
//! stays in L1.

use super::{ArenaRef, NetFast, Network};
use crate::fast::action::Hop;
use crate::fast::matching::Forwarding;
use std::sync::Arc;

/// Networks per chunk: a chunk's records are ~3.5 KB.
pub const CHUNK: usize = 64;

/// The records of networks `k * CHUNK ..` (`k` the chunk's place).
#[derive(Debug, Clone)]
pub(crate) struct Chunk {
    pub(super) networks: [Option<Arc<Network>>; CHUNK],
    pub(super) fast: [Option<NetFast>; CHUNK],
    /// The hops of this chunk's networks, end to end (`NetFast::hop_base`).
    pub(super) hops: Vec<Option<Hop>>,
    /// This chunk's networks whose table is a rule set, and bridges.
    pub(super) rule_tables: u32,
    pub(super) bridges: u32,
    /// ... and networks with a program of their own.
    pub(super) programs: u32,
}

impl Default for Chunk {
    fn default() -> Self {
        Self {
            networks: std::array::from_fn(|_| None),
            fast: [None; CHUNK],
            hops: Vec::new(),
            rule_tables: 0,
            bridges: 0,
            programs: 0,
        }
    }
}

impl Chunk {
    /// Builds every record from its networks again: `destination(i, n)`
    /// places network `i`'s destination table, `dark_until_ns(n)` is when
    /// its slot forwards.
    pub(super) fn refresh(
        &mut self,
        mut destination: impl FnMut(usize, &Network) -> Option<ArenaRef>,
        dark_until_ns: &dyn Fn(&Network) -> u64,
    ) {
        let Self {
            networks,
            fast,
            hops,
            rule_tables,
            bridges,
            programs,
        } = self;
        hops.clear();
        (*rule_tables, *bridges, *programs) = (0, 0, 0);
        for (i, (n, f)) in networks.iter().zip(fast.iter_mut()).enumerate() {
            *f = n.as_deref().map(|n| {
                let hop_base = hops.len() as u32;
                hops.extend_from_slice(&n.hops);
                let bridge = matches!(n.forwarding, Forwarding::Bridge(_));
                *rule_tables += u32::from(matches!(n.forwarding, Forwarding::Rules { .. }));
                *bridges += u32::from(bridge);
                *programs += u32::from(n.program.is_some());
                NetFast {
                    tier: n.tier,
                    software_channel: n.software_channel,
                    dark_until_ns: dark_until_ns(n),
                    destination: destination(i, n),
                    bridge,
                    hop_base,
                    actions: n.hops.len() as u32,
                }
            });
        }
    }
}

/// The chunks of `networks`, each record's destination table placed by
/// `places` (by network id).
pub(super) fn build(
    networks: &[Option<Arc<Network>>],
    places: &[Option<ArenaRef>],
    dark_until_ns: &dyn Fn(&Network) -> u64,
) -> Vec<Arc<Chunk>> {
    networks
        .chunks(CHUNK)
        .zip(places.chunks(CHUNK))
        .map(|(nets, places)| {
            let mut c = Chunk::default();
            c.networks[..nets.len()].clone_from_slice(nets);
            c.refresh(|i, _| places[i], dark_until_ns);
            Arc::new(c)
        })
        .collect()
}
