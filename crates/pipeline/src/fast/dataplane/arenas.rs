//! The small destination tables of all networks, end to end in two LPM
//! arenas shared between generations: a base built now and then, and an
//! overlay of the tables changed since.
//!
//! Why: one array for every network's table is what keeps a many-network
//! node's lookups in few cache lines and pages (`prism_tables::lpm::arena`),
//! but built whole at each publication it was the cost of every change: at
//! 10,000 networks of 16 routes, 10 MB copied per route change, 1.05 ms of
//! the change's 1.05 ms (`prism bench --only control/change`). Now a
//! generation keeps the base of the one before (an `Arc`, not a copy) and
//! the place of every table that did not change, and copies in only the
//! changed tables, after the overlay's copy (at most [`OVERLAY_MAX`]
//! entries). When the overlay would pass that, both are built again in one
//! base, which also drops the tables no longer in use: a full build every
//! [`OVERLAY_MAX`] entries of changes.

use super::{Dataplane, Network, arena_table};
use prism_tables::{LpmArena, LpmRef, LpmTable};
use std::sync::Arc;

/// Overlay entries (4 bytes each) before the arenas are built again.
pub const OVERLAY_MAX: usize = 1 << 16;

/// Where a network's table lies: which arena, and where in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArenaRef {
    pub(crate) table: LpmRef,
    pub(crate) overlay: bool,
}

/// The base arena and the overlay.
#[derive(Debug, Clone, Default)]
pub(crate) struct Arenas {
    base: Arc<LpmArena>,
    overlay: LpmArena,
}

impl Arenas {
    /// Entries in the base and in the overlay.
    pub(crate) fn entries(&self) -> (usize, usize) {
        (self.base.len(), self.overlay.len())
    }

    /// The arena `r` lies in.
    #[inline(always)]
    pub(crate) fn of(&self, r: &ArenaRef) -> &LpmArena {
        if r.overlay { &self.overlay } else { &self.base }
    }

    /// The arenas for `networks`, and each one's place (by id): from
    /// `prev`'s where it can, built whole where it cannot.
    pub(crate) fn place(
        networks: &[Option<Arc<Network>>],
        prev: Option<&Dataplane>,
    ) -> (Self, Vec<Option<ArenaRef>>) {
        if let Some(prev) = prev
            && let Some(placed) = Self::place_changed(networks, prev)
        {
            return placed;
        }
        Self::build(networks)
    }

    /// These arenas with `tables` added to a copy of the overlay, and
    /// where each lies; `None` when the overlay would outgrow
    /// [`OVERLAY_MAX`] (build them again whole).
    pub(crate) fn with_overlay<'a>(
        &self,
        tables: impl Iterator<Item = &'a LpmTable> + Clone,
    ) -> Option<(Self, Vec<ArenaRef>)> {
        let added: usize = tables.clone().map(|t| t.entries().len()).sum();
        if self.overlay.len() + added > OVERLAY_MAX {
            return None;
        }
        let mut overlay = self.overlay.copy_with_room(added);
        let refs = tables
            .map(|t| {
                Some(ArenaRef {
                    table: overlay.add(t)?,
                    overlay: true,
                })
            })
            .collect::<Option<_>>()?;
        let arenas = Self {
            base: self.base.clone(),
            overlay,
        };
        Some((arenas, refs))
    }

    /// Every table in a new base.
    fn build(networks: &[Option<Arc<Network>>]) -> (Self, Vec<Option<ArenaRef>>) {
        let entries = networks
            .iter()
            .flatten()
            .filter_map(|n| arena_table(n))
            .map(|t| t.entries().len())
            .sum();
        let mut base = LpmArena::with_capacity(entries);
        let refs = networks
            .iter()
            .map(|n| {
                let table = base.add(arena_table(n.as_deref()?)?)?;
                Some(ArenaRef {
                    table,
                    overlay: false,
                })
            })
            .collect();
        let arenas = Self {
            base: Arc::new(base),
            overlay: LpmArena::default(),
        };
        (arenas, refs)
    }

    /// `prev`'s base, its overlay with the tables of the networks that are
    /// not `prev`'s (same id, same compiled network) added; `None` when
    /// the overlay would outgrow [`OVERLAY_MAX`].
    fn place_changed(
        networks: &[Option<Arc<Network>>],
        prev: &Dataplane,
    ) -> Option<(Self, Vec<Option<ArenaRef>>)> {
        let kept = |id: usize, n: &Arc<Network>| {
            let was = prev.network_arc(id as u16)?;
            Arc::ptr_eq(n, was).then(|| prev.fast(id as u16).and_then(|f| f.destination))
        };
        let mut added = 0;
        for (id, n) in networks.iter().enumerate() {
            if let Some(n) = n
                && kept(id, n).is_none()
            {
                added += arena_table(n).map_or(0, |t| t.entries().len());
            }
        }
        if prev.arenas.overlay.len() + added > OVERLAY_MAX {
            return None;
        }
        let mut overlay = prev.arenas.overlay.copy_with_room(added);
        let mut refs = Vec::with_capacity(networks.len());
        for (id, n) in networks.iter().enumerate() {
            let Some(n) = n else {
                refs.push(None);
                continue;
            };
            let r = match kept(id, n) {
                Some(r) => r,
                None => match arena_table(n) {
                    Some(t) => Some(ArenaRef {
                        table: overlay.add(t)?,
                        overlay: true,
                    }),
                    None => None,
                },
            };
            refs.push(r);
        }
        let arenas = Self {
            base: prev.arenas.base.clone(),
            overlay,
        };
        Some((arenas, refs))
    }
}
