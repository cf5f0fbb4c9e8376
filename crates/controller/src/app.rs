//! The application: what each API call means, one module per resource
//! (authorization, validation, the side effects on nodes: their desired
//! states, sent in each node's own task), over the datastore. It
//! holds no SQL (`crates/lab/tests/layout.rs`): what it reads and
//! writes goes through `crate::datastore`; it never uses `crate::api`.

pub mod accounting;
pub(crate) mod audit;
pub mod audit_scope;
pub(crate) mod auth_cache;
pub(crate) mod authz;
pub(crate) mod bookings;
pub(crate) mod checks;
pub(crate) mod client_certs;
pub(crate) mod context;
pub(crate) mod converge;
pub(crate) mod desired;
pub(crate) mod desired_change;
pub(crate) mod gateway;
pub(crate) mod heartbeat;
pub(crate) mod identity;
pub(crate) mod image_pull;
pub mod images;
pub mod leader;
pub(crate) mod live;
pub(crate) mod login_guard;
pub(crate) mod node_identity;
pub(crate) mod node_work;
pub(crate) mod nodes;
pub(crate) mod observe;
pub(crate) mod operations;
pub(crate) mod placement;
pub(crate) mod pools;
pub(crate) mod processing;
pub(crate) mod programs;
pub(crate) mod projects;
pub(crate) mod public;
pub(crate) mod public_mac;
pub(crate) mod quota;
pub(crate) mod registry;
pub(crate) mod release;
pub mod shared_vlans;
pub(crate) mod span;
pub mod ssh_keys;
pub mod storage;
pub(crate) mod wan_guard;
