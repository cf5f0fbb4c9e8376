//! `prism demo --processing`: VANI Table 2 (paper 002 §5) with processing
//! nodes. Five experiments, each a pair of processing nodes (containers
//! from the base image, booked through the controller) on a network of
//! its own spanning node 1 and node 2 or 3, send and receive through
//! node 1's one WAN port, shaped as the paper's shared 1 GbE link was
//! (scaled); `iperf3` inside the containers, UDP and TCP, without and with
//! the bookings' rate limits; the rates measured at the receiving
//! containers' interfaces.
//!
//! - [`demo`]: the run, its outcome and its table;
//! - `machine`: the three nodes in namespaces, the shaped link, the
//!   bookings;
//! - `table2`: the traffic and what each receiving host counts;
//! - [`notebook`]: a researcher's notebook (examples/experiment.ipynb)
//!   run against the same testbed (`--notebook`).

pub mod demo;
mod machine;
pub mod notebook;
mod table2;

pub use table2::{Cell, Column, Kind, Rate};
