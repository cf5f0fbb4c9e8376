//! Prism's hardware tier: the packet pipeline of paper 001 §4 (network
//! mapping, action matching, action processing, software processing,
//! forwarding) as compiled, batched, run-to-completion code.
//!
//! This crate does no I/O and reads no clock: packets come in as batches,
//! the current time is an argument, and packets leave through per-port
//! queues and software channels that the caller drains.

pub mod action;
pub mod boundary;
pub mod bridge;
mod compile;
pub mod counters;
pub mod dataplane;
mod datasheet;
pub mod device;
mod fate;
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
mod gateway;
mod ingress;
pub mod mapping;
pub mod matching;
pub mod nat;
pub mod output;
pub mod packet;
pub mod pipeline;
pub mod power;
mod public_mac;
pub mod reasons;
mod recompile;
pub mod reconfig;
mod routed_batch;
mod ruled_batch;
mod scratch;
pub mod services;
pub mod software;
pub mod software_router;
mod spec;
pub mod substrate;
pub mod tap;
#[cfg(any(test, feature = "fixtures"))]
pub mod traffic;
pub mod wan;

pub use action::{Action, Hop, IpipOp, Verdict, VlanOp, apply, apply_hop};
pub use counters::{CounterSnapshot, Counters, NamedCounters, NetworkCounters};
pub use dataplane::{Dataplane, Network, Tier};
pub use datasheet::datasheet;
pub use device::{DeviceProfile, HardwareTier, ModuleKind, PROFILES, PlacementError};
pub use mapping::Mapping;
pub use packet::{Packet, PacketPool};
pub use pipeline::{Pipeline, PipelineConfig};
pub use reasons::{DropReason, IoDrop};
pub use reasons::{NatDrop, WanDrop};
pub use services::{Service, ServiceScratch};
pub use substrate::{
    ForwardingSpec, MappingRule, NetworkSpec, RuleSpec, Substrate, SubstrateError, TunnelSpec,
};
pub use tap::{StageDecision, TapPoint, TapRecord, TapRequest};
pub use wan::WanTable;
