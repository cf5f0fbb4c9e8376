//! The Prism node agent as a library.
//!
//! - [`control`]: the reconciler, converging the substrate and the software
//!   routers to the networks' documents, in an order that never leaves a
//!   packet without a path; it reaches the machine only through
//!   [`runtime::NodeRuntime`];
//! - [`linux`]: that runtime on Linux: containers, the `kernel`, `prism`
//!   and `command` routers, the polling workers and their sockets;
//! - [`Node`] (`linux::node`): a node on real interfaces (workers, routers,
//!   API state);
//! - [`serve`] / [`NodeServer`] (`linux::serve`): a whole node in-process:
//!   the node, its saved state restored, its API listeners, and the
//!   heartbeat [`agent`] that registers it with a controller;
//! - [`api_server`]: the node API served from the control side;
//! - [`swrouter`]: Prism's software router process inside a container
//!   (`linux::swrouter`);
//! - [`taps`]: packet trace and capture across the workers;
//! - [`saved`]: the desired state on disk, restored at the next start;
//! - [`offline`]: the substrate over in-memory frames; [`captures`]: over
//!   pcap/pcapng files, merged by time (`prism run`);
//! - [`report`]: counter tables for people.

pub mod agent;
pub mod api_server;
pub mod api_views;
pub mod captures;
pub mod cleanup;
pub mod control;
pub mod linux;
pub mod offline;
pub mod program_maps;
pub mod report;
pub mod runtime;
pub mod saved;
pub mod taps;

pub use api_server::{NodeApiServer, NodeFacts};
pub use control::{ApplyError, Control};
pub use linux::names::gateway_mac;
pub use linux::node::{
    Leftovers, Node, cleanup_instance, instances_on_host, pin_to_core, sum_counters,
};
pub use linux::options::{NodeOptions, instance_name, instance_options};
pub use linux::processing::interface_mac as processing_mac;
pub use linux::serve::{
    DEFAULT_SOCKET, JoinController, NodeServer, ServeConfig, TcpAuth, default_socket, serve,
};
pub use linux::{IoSettings, LinuxRuntime};
pub use linux::{foreground, swrouter};
pub use runtime::{Generations, NodeRuntime, RouterRequest, RuntimeError, RuntimeErrorKind};
pub use taps::TapSource;
