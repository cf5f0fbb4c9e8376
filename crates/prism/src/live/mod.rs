//! The live substrate on Linux: a node forwarding on real interfaces, its
//! software-tier containers, and the live demo.

pub mod api;
pub mod bench_live;
pub mod cli;
pub mod control;
pub mod ctl;
pub mod demo;
pub mod kernel_router;
pub mod node;
pub mod router;
pub mod swrouter;
pub mod worker;
