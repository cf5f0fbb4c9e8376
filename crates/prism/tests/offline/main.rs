//! The command line without root: `prism run` over the shared captures and
//! the other offline commands, and the controller killed mid-operation.

mod cli;
mod controller_crash;
