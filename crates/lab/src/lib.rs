//! Prism's lab, apart from the product (as quinn keeps its bench and
//! tools apart): the demos, the benchmarks and the papers' experiments,
//! which the `prism` command runs and the peers harness and the
//! end-to-end tests share.
//!
//! - [`demo`]: `prism demo` (as root and not, `--controller`, the portal
//!   with traffic) and the test hosts in network namespaces it runs on;
//! - [`wan`]: `prism demo --wan`, three nodes across a wide area, with
//!   its traffic, the gateway, public MACs, VANI Table 2's rates and a
//!   node killed under traffic;
//! - [`processing`]: `prism demo --processing`, VANI Table 2 with
//!   processing nodes across one node's shaped WAN link;
//! - [`bench`]: `prism bench` (the pipeline and tables in memory),
//!   `prism bench-live` (forwarding over veth, `--migrate`, `--reconfig`,
//!   `--soak`), `prism bench-controller`, `prism tables`;
//! - [`experiments`]: `prism experiment` and `prism sim`, the papers'
//!   experiments reproduced, with charts.

pub mod bench;
pub mod demo;
pub mod experiments;
pub mod processing;
pub mod wan;
