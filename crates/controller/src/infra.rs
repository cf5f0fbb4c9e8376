//! What the application stands on: the database pool and its migrations
//! (`db`), the clock, secrets (password and bearer hashing), the API's
//! transport (TLS or plain HTTP), the per-node work queue, and what a
//! replica holds of its own client certificate. It uses neither `crate::app` nor
//! `crate::api`; `crate::datastore` uses it for the pool.

pub(crate) mod client_cert_state;
pub mod clock;
pub mod db;
pub(crate) mod secrets;
pub mod transport;
pub(crate) mod work_queue;
