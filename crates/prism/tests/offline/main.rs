//! The command line without root: `prism run` over the shared captures and
//! the other offline commands, the controller killed mid-operation, and
//! `prism ctl` against a controller (login, booking from a spec file).

mod cli;
mod common;
mod controller_crash;
mod controller_db_restart;
mod controller_replicas;
mod controller_tls;
mod ctl_session;
mod storage;
