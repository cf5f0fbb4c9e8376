//! Prism's hardware tier: the packet pipeline of paper 001 §4 (network
//! mapping, action matching, action processing, software processing,
//! forwarding) as compiled, batched, run-to-completion code.
//!
//! This crate does no I/O and reads no clock: packets come in as batches,
//! the current time is an argument, and packets leave through per-port
//! queues and software channels that the caller drains.
//!
//! Its folders are its layers. The data plane: `fast` (the stages and
//! their batches, over one compiled [`Dataplane`]), `wan` (the stages and
//! tables of the wide-area side: tunnels, NAT, public addresses and MACs)
//! and `software` (the hand-off to the software tier and Prism's software
//! router). Above them, `control` (the substrate: network specs compiled
//! into data planes, placement on a device profile, reconfiguration,
//! power), which the data plane never uses (`crates/lab/tests/layout.rs`).

pub mod control;
pub mod fast;
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
pub mod software;
#[cfg(any(test, feature = "fixtures"))]
pub mod traffic;
pub mod wan;

pub use control::datasheet::datasheet;
pub use control::device::{DeviceProfile, HardwareTier, ModuleKind, PROFILES, PlacementError};
pub use control::substrate::{
    ForwardingSpec, MappingRule, NetworkSpec, ProgramSpec, RuleSpec, Substrate, SubstrateError,
    TunnelSpec,
};
pub use fast::action::{Action, Hop, IpipOp, Verdict, VlanOp, apply, apply_hop};
pub use fast::counters::{CounterSnapshot, Counters, NamedCounters, NetworkCounters};
pub use fast::dataplane::{Dataplane, Network, Tier};
pub use fast::mapping::Mapping;
pub use fast::packet::{Packet, PacketPool};
pub use fast::payload::{PayloadOp, PayloadScratch};
pub use fast::reasons::{DropReason, IoDrop, NatDrop, WanDrop};
pub use fast::stages::{Pipeline, PipelineConfig};
pub use fast::tap::{StageDecision, TapPoint, TapRecord, TapRequest};
pub use wan::tunnels::WanTable;
