//! Prism's test bed, apart from the product (as quinn keeps its bench and
//! tools apart): what the demo, the benchmarks, the peers harness and the
//! end-to-end tests share.
//!
//! - [`hosts`]: test hosts in network namespaces, the demo topology, a
//!   node started on it;
//! - [`live_demo`], [`offline_demo`]: `prism demo`, as root and not;
//! - [`bench`]: `prism bench`, the pipeline and tables in memory;
//! - [`bench_live`]: `prism bench-live`, forwarding over veth;
//! - [`bench_migrate`]: `prism bench-live --migrate`, loss while a
//!   network changes tier under traffic;
//! - [`bench_reconfig`]: `prism bench-live --reconfig`, paper 000 Figs. 6
//!   and 7 live (a network reconfigured beside another);
//! - [`reconfig_fig8`]: `prism experiment fig8`, paper 000 Fig. 8 through
//!   the pipeline on a virtual clock;
//! - [`soak`]: `prism bench-live --soak`, a node under churn;
//! - [`tables`]: `prism tables`, build, check and time lookup tables;
//! - [`cleanup`]: `prism cleanup`, what dead nodes and demos left;
//! - [`experiments`]: `prism experiment` and `prism sim`, the papers'
//!   experiments reproduced, with charts.

pub mod bench;
pub mod bench_controller;
pub mod bench_live;
pub mod bench_migrate;
pub mod bench_reconfig;
pub mod cleanup;
pub mod controller_cut;
pub mod controller_demo;
mod controller_setup;
mod controller_traffic;
mod controller_trust;
mod demo_nodes;
pub mod experiments;
pub mod hosts;
pub mod live_demo;
pub mod offline_demo;
pub mod portal_demo;
pub mod reconfig_fig8;
pub mod soak;
pub mod tables;
pub mod wan_demo;
mod wan_faults;
mod wan_gateway;
pub mod wan_public_mac;
pub mod wan_rates;
mod wan_traffic;
