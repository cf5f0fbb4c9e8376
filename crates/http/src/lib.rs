//! Prism's HTTP transport, shared by the node API and the controller API.
//! A client links [`tls`]'s client side and [`Target`]; the `server`
//! feature adds the server loop, the CA and node identities (axum, rcgen):
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

#[cfg(feature = "server")]
mod ca;
#[cfg(feature = "server")]
pub mod identity;
#[cfg(feature = "server")]
mod serve;
mod target;
pub mod tls;

#[cfg(feature = "server")]
pub use ca::LabCa;
#[cfg(feature = "server")]
pub use identity::{NodeCa, NodeIdentity};
#[cfg(feature = "server")]
pub use serve::{CurrentTls, FAILURE_REPORT_EVERY, Limits, ServeStats, Transport, serve};
pub use target::{Target, TargetError};
pub use tls::{ClientStream, ClientTls, TlsError};

/// A server's TLS configuration, as [`tls::server_config`] makes it.
pub type ServerTls = std::sync::Arc<rustls::ServerConfig>;
