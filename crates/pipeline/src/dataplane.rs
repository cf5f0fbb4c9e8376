//! The compiled, immutable configuration the fast path reads.
//!
//! The control side (see [`crate::substrate`]) builds a new [`Dataplane`] for
//! every change and publishes it with one atomic pointer store; a pipeline
//! picks it up at its next batch. No packet ever sees a half-updated table.

use crate::action::{Action, Hop};
use crate::mapping::Mapping;
use crate::matching::{self, Forwarding};
use crate::reasons::MatchDrop;
use crate::wan::WanTable;
use prism_tables::Key;
use prism_tables::{LpmArena, LpmRef, LpmTable};
use prism_wire::PacketInfo;
use std::sync::Arc;

pub use crate::spec::Tier;

mod arenas;
use arenas::Arenas;
pub use arenas::{ArenaRef, OVERLAY_MAX};

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
    /// The network's hops (`Network::hops`) start here in the hop arena.
    hop_base: u32,
    actions: u32,
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
    /// tunnels ([`crate::wan`]).
    pub wan: WanTable,
    /// Indexed by network id; removed networks leave a hole so ids stay
    /// stable. Each compiled network is shared by every generation it is
    /// unchanged in: a change to one network copies a pointer per other.
    pub networks: Vec<Option<Arc<Network>>>,
    /// Derived from `networks` by [`Dataplane::new`], by the same index.
    fast: Vec<Option<NetFast>>,
    arenas: Arenas,
    hops: Vec<Option<Hop>>,
    /// Some network's table is a rule set (stage 3 walks those in batches).
    rule_tables: bool,
}

impl Dataplane {
    pub fn empty(ports: u16) -> Self {
        Self::new(0, ports, Arc::default(), None, Vec::new(), |_| 0, None)
    }

    /// The data plane of `networks`, each dark (loading its slot's
    /// module) until `dark_until_ns` of it; `prev`, the one it follows,
    /// lends the arena places of the networks it shares (see [`arenas`]).
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
        let mut hops = Vec::with_capacity(networks.iter().flatten().map(|n| n.hops.len()).sum());
        let fast = networks
            .iter()
            .zip(places)
            .map(|(n, destination)| {
                let n = n.as_ref()?;
                let hop_base = hops.len() as u32;
                hops.extend_from_slice(&n.hops);
                Some(NetFast {
                    tier: n.tier,
                    software_channel: n.software_channel,
                    dark_until_ns: dark_until_ns(n),
                    destination,
                    bridge: matches!(n.forwarding, Forwarding::Bridge(_)),
                    hop_base,
                    actions: n.hops.len() as u32,
                })
            })
            .collect();
        Self {
            generation,
            ports,
            mapping,
            default_network,
            wan: WanTable::default(),
            fast,
            rule_tables: networks
                .iter()
                .flatten()
                .any(|n| matches!(n.forwarding, Forwarding::Rules { .. })),
            networks,
            arenas,
            hops,
        }
    }

    /// Whether some network's table is a rule set.
    #[inline]
    pub fn has_rule_tables(&self) -> bool {
        self.rule_tables
    }

    /// This data plane with `wan` as its WAN side.
    pub fn with_wan(mut self, wan: WanTable) -> Self {
        self.wan = wan;
        self
    }

    pub fn network(&self, id: u16) -> Option<&Network> {
        self.networks.get(usize::from(id))?.as_deref()
    }

    /// The fast path's record of network `id`.
    #[inline(always)]
    pub fn fast(&self, id: u16) -> Option<&NetFast> {
        self.fast.get(usize::from(id)).and_then(Option::as_ref)
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

    /// The hop form of action `a` of network `f` (`Some(None)`: the action
    /// is not a plain hop; `None`: there is no action `a`).
    #[inline(always)]
    pub fn hop(&self, f: &NetFast, a: u32) -> Option<&Option<Hop>> {
        if a >= f.actions {
            return None;
        }
        self.hops.get((f.hop_base + a) as usize)
    }

    /// Network `id`'s bridge, if it is one.
    #[inline]
    pub fn bridge(&self, id: u16) -> Option<&crate::bridge::Bridge> {
        match &self.network(id)?.forwarding {
            Forwarding::Bridge(b) => Some(b),
            _ => None,
        }
    }

    pub fn network_id(&self, name: &str) -> Option<u16> {
        self.networks
            .iter()
            .position(|n| n.as_ref().is_some_and(|n| n.name == name))
            .map(|i| i as u16)
    }
}
