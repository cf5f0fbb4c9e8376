//! The compiled, immutable configuration the fast path reads.
//!
//! The control side (see [`crate::substrate`]) builds a new [`Dataplane`] for
//! every change and publishes it with one atomic pointer store; a pipeline
//! picks it up at its next batch. No packet ever sees a half-updated table.

use crate::action::{Action, Hop};
use crate::mapping::Mapping;
use crate::matching::Forwarding;
use serde::Serialize;

/// Which tier forwards a network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// The compiled pipeline, in a device slot.
    Hardware,
    /// A software router behind a software channel.
    Software,
}

impl Tier {
    pub const fn as_str(self) -> &'static str {
        match self {
            Tier::Hardware => "hardware",
            Tier::Software => "software",
        }
    }
}

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
    /// The slot forwards nothing before this time (ns, the pipeline's
    /// clock): it is loading a module (`reconfig`). 0 when ready.
    pub dark_until_ns: u64,
}

/// Everything the pipeline reads, for one configuration generation.
#[derive(Debug, Clone)]
pub struct Dataplane {
    pub generation: u64,
    pub ports: u16,
    /// Network mapping (the design-select table): rule action = network id.
    pub mapping: Mapping,
    pub default_network: Option<u16>,
    /// Indexed by network id; removed networks leave a hole so ids stay stable.
    pub networks: Vec<Option<Network>>,
}

impl Dataplane {
    pub fn empty(ports: u16) -> Self {
        Self {
            generation: 0,
            ports,
            mapping: Mapping::default(),
            default_network: None,
            networks: Vec::new(),
        }
    }

    pub fn network(&self, id: u16) -> Option<&Network> {
        self.networks.get(usize::from(id)).and_then(Option::as_ref)
    }

    pub fn network_id(&self, name: &str) -> Option<u16> {
        self.networks
            .iter()
            .position(|n| n.as_ref().is_some_and(|n| n.name == name))
            .map(|i| i as u16)
    }
}
