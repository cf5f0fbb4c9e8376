//! The controller's datastore: one module per resource holding its SQL
//! and its row mapping (omicron's `nexus/db-queries`). The application
//! layer (`crate::projects`, `crate::operations`, …) authorizes and
//! validates, then calls these; nothing here checks who is asking.
//!
//! Moved here so far: projects (with service levels and members) and the
//! operation journal; the other resources still hold their SQL beside
//! their application logic (docs/controller.md says which).

pub(crate) mod operations;
pub(crate) mod projects;

pub(crate) use crate::db::{Pool, Tx};
