//! The network document (`prism-netdoc`) compiled into what the pipeline
//! runs: a network's `NetworkSpec` checked against the node's ports, a
//! scenario file loaded into a substrate with its errors located by file,
//! line and field, and `tier = "auto"` placed by the placement library.
//!
//! No I/O: callers read files and pass their text.

mod auto_tier;
mod bridge;
mod compile;
mod program;
mod scenario;

pub use auto_tier::AutoPlacer;
pub use compile::{Compiled, MAX_NAME, MIN_BURST, compile, default_burst};
pub use program::{MAX_BUDGET, digest, program};
pub use scenario::{Scenario, load, load_with_networks};
