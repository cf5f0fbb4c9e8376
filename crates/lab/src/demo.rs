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

/// A demo's line printer, silent when `quiet`. A line that cannot be
/// written (its reader gone: `prism demo | head`, or a test that stopped
/// reading) is dropped rather than ending the process, so that the demo
/// still releases what it booked and removes what it made.
pub fn printer(quiet: bool) -> impl Fn(&str) {
    move |s: &str| {
        if !quiet {
            use std::io::Write;
            let _ = writeln!(std::io::stdout(), "{s}");
        }
    }
}
