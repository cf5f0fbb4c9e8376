//! The compiled, immutable configuration the fast path reads.
//!
//! The control side (see [`crate::control::substrate`]) builds a new [`Dataplane`] for
//! every change and publishes it with one atomic pointer store; a pipeline
//! picks it up at its next batch. No packet ever sees a half-updated table.

use crate::fast::action::{Action, Hop};
use crate::fast::mapping::Mapping;
use crate::fast::matching::{self, Forwarding};
use crate::fast::reasons::MatchDrop;
use crate::wan::tunnels::WanTable;
use prism_tables::Key;
use prism_tables::{LpmArena, LpmRef, LpmTable};
use prism_wire::PacketInfo;
use std::sync::Arc;

pub use prism_placement::Tier;

mod arenas;
mod chunks;
use arenas::Arenas;
pub use arenas::{ArenaRef, OVERLAY_MAX};
pub use chunks::CHUNK;
use chunks::Chunk;

/// Number of software channels (paper 001's DMA channels).
pub const SOFTWARE_CHANNELS: usize = 4;
/// Channels 0..3 are dedicated to one network each; channel 3 is shared.
pub const SHARED_CHANNEL: u8 = 3;

/// One network as the fast path sees it.
#[derive(Debug, Clone)]
pub struct Network {
    pub name: String,
    pub tier: Tier,
    pub forwarding: Forwarding,
    /// Action results; forwarding tables hold indices into this.
    pub actions: Vec<Action>,
    /// `Hop::of` each action, by the same index: the fast path's form of
    /// the common router hop.
    pub hops: Vec<Option<Hop>>,
    pub software_channel: u8,
    /// DRR quantum in bytes.
    pub quantum: u32,
    /// Token bucket: rate in bit/s and burst in bytes.
    pub rate_limit: Option<(u64, u64)>,
    /// Hardware slot, when in hardware.
    pub slot: Option<usize>,
    /// The researcher's program, with its maps (shared by every worker and
    /// read by the API), run before the tables ([`crate::fast::stages`]).
    pub program: Option<NetProgram>,
}

/// A network's program as the fast path runs it.
#[derive(Debug, Clone)]
pub struct NetProgram {
    /// The object's SHA-256 (what a later spec is compared by).
    pub digest: String,
    pub program: prism_program::Program,
    /// The ports a program may send a frame out of (`XDP_TX` and
    /// `bpf_redirect`): its network's own.
    pub ports: Vec<u16>,
}

/// Largest destination table copied into the dataplane's arena (entries):
/// the per-network tables of a many-network node are a few hundred entries
/// each; an Internet-sized table stays where it is, read through its own
/// header (copying 64 MiB per publication would cost more than it saves).
const ARENA_TABLE_MAX: usize = 1 << 16;

/// What the fast path reads about a network on every packet, in one
/// record: one cache line per network instead of the three or four that
/// `Network`'s fields span (and a line per table header and per hop table
/// besides). Built from the networks at publication.
#[derive(Debug, Clone, Copy)]
pub struct NetFast {
    pub tier: Tier,
    pub software_channel: u8,
    /// The network's slot forwards nothing before this time (ns, the
    /// pipeline's clock): it is loading a module (`reconfig`). 0 when ready.
    pub dark_until_ns: u64,
    /// Destination routing in the dataplane's LPM arenas, if the table is there.
    pub destination: Option<ArenaRef>,
    /// A learning bridge: the pipeline decides with its learned table.
    pub bridge: bool,
    /// The network's hops (`Network::hops`) start here in its chunk's
    /// ([`chunks`]).
    hop_base: u32,
    actions: u32,
}

/// What a generation built by [`Dataplane::next`] changes.
#[derive(Debug, Clone)]
pub struct Next<'a> {
    pub generation: u64,
    pub mapping: Arc<Mapping>,
    pub default_network: Option<u16>,
    /// The networks changed (id, network or `None` for removed).
    pub changed: &'a [(u16, Option<Arc<Network>>)],
}

/// A network's record and its hop table, as [`Dataplane::fast`] finds
/// them: the hops' place resolved once for all of its packets' lookups.
#[derive(Debug, Clone, Copy)]
pub struct Net<'a> {
    pub fast: &'a NetFast,
    hops: &'a [Option<Hop>],
}

impl<'a> Net<'a> {
    /// The hop form of action `a` (`Some(None)`: the action is not a
    /// plain hop; `None`: there is no action `a`).
    #[inline(always)]
    pub fn hop(&self, a: u32) -> Option<&'a Option<Hop>> {
        self.hops.get(a as usize)
    }
}

impl std::ops::Deref for Net<'_> {
    type Target = NetFast;
    #[inline(always)]
    fn deref(&self) -> &NetFast {
        self.fast
    }
}

/// A destination table small enough for the arena.
fn arena_table(n: &Network) -> Option<&LpmTable> {
    match &n.forwarding {
        Forwarding::Destination(t) if t.entries().len() <= ARENA_TABLE_MAX => Some(t),
        _ => None,
    }
}

/// Where a network's destination table lies.
#[derive(Debug, Clone, Copy)]
pub enum DestinationTable<'a> {
    /// In one of the dataplane's arenas (a small table): the arena's
    /// entries, read once for a batch.
    Arena(&'a [u32], &'a LpmRef),
    /// In the network's own forwarding (an Internet-sized one).
    Own(&'a LpmTable),
}

/// Everything the pipeline reads, for one configuration generation.
#[derive(Debug, Clone)]
pub struct Dataplane {
    pub generation: u64,
    pub ports: u16,
    /// Network mapping (the design-select table): rule action = network id.
    /// Shared with the generations before while no mapping rule changes.
    pub mapping: Arc<Mapping>,
    pub default_network: Option<u16>,
    /// The WAN side: which ports face the wide area and the networks'
    /// tunnels ([`crate::wan::tunnels`]); shared while no tunnel changes.
    pub wan: Arc<WanTable>,
    /// Network ids in use are below this; removed networks leave a hole
    /// so ids stay stable.
    len: usize,
    /// The networks and their fast-path records by id, in chunks shared
    /// with the generations they are unchanged in ([`chunks`]).
    chunks: Vec<Arc<Chunk>>,
    arenas: Arenas,
    /// Networks whose table is a rule set (stage 3 walks those in
    /// batches), and learning bridges.
    rule_tables: u32,
    bridges: u32,
    programs: u32,
}

impl Dataplane {
    pub fn empty(ports: u16) -> Self {
        Self::new(0, ports, Arc::default(), None, Vec::new(), |_| 0, None)
    }

    /// The data plane of `networks` (by id), each dark (loading its
    /// slot's module) until `dark_until_ns` of it; `prev`, the one it
    /// follows, lends the arena places of the networks it shares (see
    /// [`arenas`]). Builds every record: [`Self::next`] builds only the
    /// changed ones'.
    pub fn new(
        generation: u64,
        ports: u16,
        mapping: Arc<Mapping>,
        default_network: Option<u16>,
        networks: Vec<Option<Arc<Network>>>,
        dark_until_ns: impl Fn(&Network) -> u64,
        prev: Option<&Dataplane>,
    ) -> Self {
        let (arenas, places) = Arenas::place(&networks, prev);
        let chunks = chunks::build(&networks, &places, &dark_until_ns);
        Self {
            generation,
            ports,
            mapping,
            default_network,
            wan: Arc::default(),
            len: networks.len(),
            chunks,
            arenas,
            rule_tables: 0,
            bridges: 0,
            programs: 0,
        }
        .counted()
    }

    /// The data plane that follows `self` with the networks of
    /// `g.changed` in place of what their ids held: the chunks holding them built again, every other
    /// chunk shared, the changed destination tables added to the arenas'
    /// overlay (a full build when it would fill). Its cost grows with the
    /// changes, not with the networks held.
    pub fn next(&self, g: Next<'_>, dark_until_ns: impl Fn(&Network) -> u64) -> Self {
        let changed = g.changed;
        let kept =
            |id: u16, n: &Arc<Network>| self.network_arc(id).is_some_and(|was| Arc::ptr_eq(was, n));
        let tables: Vec<(u16, &LpmTable)> = (changed.iter())
            .filter_map(|(id, n)| Some((*id, n.as_ref().filter(|n| !kept(*id, n))?)))
            .filter_map(|(id, n)| Some((id, arena_table(n)?)))
            .collect();
        let Some((arenas, refs)) = self.arenas.with_overlay(tables.iter().map(|t| t.1)) else {
            return self.rebuilt(g, dark_until_ns);
        };
        let placed = |id: u16| tables.iter().position(|t| t.0 == id).map(|k| refs[k]);
        let len = (changed.iter().map(|(id, _)| usize::from(*id) + 1)).fold(self.len, usize::max);
        let mut chunks = self.chunks.clone();
        chunks.resize_with(len.div_ceil(CHUNK), Default::default);
        let mut touched: Vec<usize> = Vec::with_capacity(changed.len());
        for (id, n) in changed {
            let (k, i) = (usize::from(*id) / CHUNK, usize::from(*id) % CHUNK);
            Arc::make_mut(&mut chunks[k]).networks[i] = n.clone();
            touched.push(k);
        }
        touched.sort_unstable();
        touched.dedup();
        for k in touched {
            let was = self.chunks.get(k);
            let destination = |i: usize, n: &Network| match was.and_then(|c| c.networks[i].as_ref())
            {
                Some(w) if std::ptr::eq(&**w, n) => was.and_then(|c| c.fast[i]?.destination),
                _ => placed((k * CHUNK + i) as u16),
            };
            Arc::make_mut(&mut chunks[k]).refresh(destination, &dark_until_ns);
        }
        Self {
            generation: g.generation,
            ports: self.ports,
            mapping: g.mapping,
            default_network: g.default_network,
            wan: self.wan.clone(),
            len,
            chunks,
            arenas,
            rule_tables: 0,
            bridges: 0,
            programs: 0,
        }
        .counted()
    }

    /// [`Self::next`] by a full build (the arenas' overlay would fill).
    fn rebuilt(&self, g: Next<'_>, dark_until_ns: impl Fn(&Network) -> u64) -> Self {
        let mut networks: Vec<Option<Arc<Network>>> =
            self.network_slots().map(|n| n.cloned()).collect();
        for (id, n) in g.changed {
            let i = usize::from(*id);
            if i >= networks.len() {
                networks.resize(i + 1, None);
            }
            networks[i] = n.clone();
        }
        let (ports, wan) = (self.ports, self.wan.clone());
        let (generation, mapping, default) = (g.generation, g.mapping, g.default_network);
        Self::new(
            generation,
            ports,
            mapping,
            default,
            networks,
            dark_until_ns,
            None,
        )
        .with_wan(wan)
    }

    /// Sums the chunks' counts of rule tables and bridges.
    fn counted(mut self) -> Self {
        self.rule_tables = self.chunks.iter().map(|c| c.rule_tables).sum();
        self.bridges = self.chunks.iter().map(|c| c.bridges).sum();
        self.programs = self.chunks.iter().map(|c| c.programs).sum();
        self
    }

    /// Whether some network's table is a rule set.
    #[inline]
    pub fn has_rule_tables(&self) -> bool {
        self.rule_tables > 0
    }

    /// Whether some network is a learning bridge.
    #[inline]
    pub fn has_bridges(&self) -> bool {
        self.bridges > 0
    }

    /// Whether network `id` runs a program of its own.
    #[inline]
    pub fn runs_program(&self, id: u16) -> bool {
        self.network(id).is_some_and(|n| n.program.is_some())
    }

    /// Whether some network runs a program of its own.
    #[inline]
    pub fn has_programs(&self) -> bool {
        self.programs > 0
    }

    /// This data plane with `wan` as its WAN side.
    pub fn with_wan(mut self, wan: Arc<WanTable>) -> Self {
        self.wan = wan;
        self
    }

    /// Ids in use are below this (removed ones leave holes).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every id's network, `None` for a hole, by id.
    pub fn network_slots(&self) -> impl Iterator<Item = Option<&Arc<Network>>> {
        (self.chunks.iter())
            .flat_map(|c| c.networks.iter().map(Option::as_ref))
            .take(self.len)
    }

    /// The ids whose network may differ from `old`'s: those of every
    /// chunk not shared with it (a worker adopting `self` configures
    /// only these).
    pub fn changed_since<'a>(&'a self, old: &'a Dataplane) -> impl Iterator<Item = u16> + 'a {
        (self.chunks.iter().enumerate())
            .filter(|(k, c)| old.chunks.get(*k).is_none_or(|o| !Arc::ptr_eq(o, c)))
            .flat_map(|(k, _)| k * CHUNK..((k + 1) * CHUNK).min(self.len))
            .map(|id| id as u16)
    }

    pub fn network(&self, id: u16) -> Option<&Network> {
        self.network_arc(id).map(|n| &**n)
    }

    fn network_arc(&self, id: u16) -> Option<&Arc<Network>> {
        let id = usize::from(id);
        self.chunks.get(id / CHUNK)?.networks[id % CHUNK].as_ref()
    }

    /// The fast path's record of network `id`, with its hops.
    #[inline(always)]
    pub fn fast(&self, id: u16) -> Option<Net<'_>> {
        let id = usize::from(id);
        let c = self.chunks.get(id / CHUNK)?;
        let fast = c.fast[id % CHUNK].as_ref()?;
        let base = fast.hop_base as usize;
        let hops = c.hops.get(base..base + fast.actions as usize)?;
        Some(Net { fast, hops })
    }

    /// The action network `f` chooses for a packet: by its arena table when
    /// it has one there, else by its own forwarding table.
    #[inline(always)]
    pub fn decide(
        &self,
        id: u16,
        f: &NetFast,
        info: &PacketInfo,
        key: &Key,
    ) -> Option<Result<u32, MatchDrop>> {
        if let Some(r) = &f.destination
            && info.is_ipv4()
        {
            let dst = matching::routed_addrs(info).1;
            return Some(self.route(self.arena_table(r), dst));
        }
        Some(matching::decide(&self.network(id)?.forwarding, info, key))
    }

    /// Network `id`'s destination table, if it routes by destination:
    /// resolved once for a batch of that network's packets.
    pub fn destination_table<'a>(
        &'a self,
        id: u16,
        f: &'a NetFast,
    ) -> Option<DestinationTable<'a>> {
        if let Some(r) = &f.destination {
            return Some(self.arena_table(r));
        }
        match &self.network(id)?.forwarding {
            Forwarding::Destination(t) => Some(DestinationTable::Own(t)),
            _ => None,
        }
    }

    /// Network `id`'s rule table, if its table is one: resolved once for
    /// a batch of that network's packets.
    pub(crate) fn rule_table(&self, id: u16) -> Option<matching::Rules<'_>> {
        matching::rules_batch(&self.network(id)?.forwarding)
    }

    /// Entries in the destination-table arenas: the base shared with
    /// earlier generations, and the overlay of tables changed since.
    pub fn arena_entries(&self) -> (usize, usize) {
        self.arenas.entries()
    }

    /// A table in the arenas, with the arena it lies in.
    #[inline(always)]
    fn arena_table<'a>(&'a self, r: &'a ArenaRef) -> DestinationTable<'a> {
        DestinationTable::Arena(self.arenas.of(r).entries(), &r.table)
    }

    /// The action table `t` gives destination `dst`.
    #[inline(always)]
    pub fn route(&self, t: DestinationTable<'_>, dst: u32) -> Result<u32, MatchDrop> {
        match t {
            DestinationTable::Arena(a, r) => LpmArena::lookup_in(a, r, dst),
            DestinationTable::Own(t) => t.lookup(dst),
        }
        .ok_or(MatchDrop::NoRoute)
    }

    /// Network `id`'s bridge, if it is one.
    #[inline]
    pub fn bridge(&self, id: u16) -> Option<&crate::fast::bridge::Bridge> {
        match &self.network(id)?.forwarding {
            Forwarding::Bridge(b) => Some(b),
            _ => None,
        }
    }

    pub fn network_id(&self, name: &str) -> Option<u16> {
        self.network_slots()
            .position(|n| n.is_some_and(|n| n.name == name))
            .map(|i| i as u16)
    }
}
