//! The controller API's bodies the datastore reads and writes, apart
//! from the logic that produces them, so that the application layer and
//! the datastore share them without depending on each other. (The
//! bookings' bodies are in `crate::model`; the next step is a crate of
//! their own, `prism-controller-api`, that clients link without the
//! server.)

pub mod accounting;
pub mod gateway;
pub mod identity;
pub mod node_keys;
pub mod projects;
