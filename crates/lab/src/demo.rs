//! The demos on one machine: test hosts in network namespaces (`hosts`),
//! `prism demo` live as root (`live`) and over in-memory ports otherwise
//! (`offline`), and `prism demo --controller` (`controller`: two nodes in
//! namespaces that register themselves with a controller, its setup, its
//! traffic counted at the receiving host, the trust checks and the
//! controller cut from its nodes; `portal`: left running with traffic for
//! the web portal).

pub mod controller;
pub mod controller_cut;
mod controller_setup;
mod controller_traffic;
mod controller_trust;
pub mod hosts;
pub mod live;
pub(crate) mod nodes;
pub mod offline;
pub mod portal;
