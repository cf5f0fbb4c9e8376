//! Placement: which virtual networks run in the hardware tier and which in
//! the software tier, and when to migrate them (paper 000 §3.2.3, §5.4).
//!
//! Pure logic: no I/O, no clock. The same [`Policy`] objects serve the
//! trace-driven simulator ([`sim`]) and, later, the live substrate.

pub mod allocator;
pub mod dist;
pub mod rmu;
pub mod sim;

pub use allocator::{
    Capacity, Decision, Migration, NetId, NoMigration, PaperGreedy, Policy, Repack, Request, State,
    Tier, policy_by_name,
};
