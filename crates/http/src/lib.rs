//! Prism's HTTP transport, shared by the node API and the controller API:
//!
//! - [`tls`]: rustls configurations from PEM files (a server's certificate
//!   and key, a client's trusted CA or the system's roots) and the lab CA
//!   `prism controller bootstrap` makes;
//! - [`serve`]: the server loop over TCP, plain or TLS, with a handshake
//!   and a header timeout and a cap on connections, so that slow or
//!   garbage connections cannot starve the others;
//! - [`identity`]: node identities, the controller's CA signing each
//!   node a short-lived certificate for its name, mutual TLS between them;
//! - [`Target`]: an address a client is given (`https://host:port`,
//!   `http://host:port` or `host:port`).

pub mod identity;
mod serve;
mod target;
pub mod tls;

pub use identity::{NodeCa, NodeIdentity};
pub use serve::{CurrentTls, FAILURE_REPORT_EVERY, Limits, ServeStats, Transport, serve};
pub use target::{Target, TargetError};
pub use tls::{ClientStream, ClientTls, TlsError};

/// A server's TLS configuration, as [`tls::server_config`] makes it.
pub type ServerTls = std::sync::Arc<rustls::ServerConfig>;
