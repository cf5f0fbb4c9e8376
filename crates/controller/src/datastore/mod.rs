//! The controller's datastore: one module per resource holding its SQL
//! and its row mapping (omicron's `nexus/db-queries`). The application
//! layer (`crate::projects`, `crate::operations`, …) authorizes and
//! validates, then calls these; nothing here checks who is asking.
//!
//! Moved here so far: accounting and audit, bookings, identity (users, sessions, API keys), nodes and
//! their keys,
//! projects (with service levels and members), the registry and the
//! operation journal; the other resources still hold their SQL beside
//! their application logic (docs/controller.md says which).

pub(crate) mod accounting;
pub(crate) mod bookings;
pub(crate) mod identity;
pub(crate) mod node_keys;
pub(crate) mod nodes;
pub(crate) mod operations;
pub(crate) mod parts;
pub(crate) mod projects;
pub(crate) mod registry;

pub(crate) use crate::db::{Pool, Tx};

/// Whether `e` is a unique constraint refusing a duplicate (a name taken).
pub(crate) fn unique_violation(e: &sqlx::Error) -> bool {
    e.as_database_error()
        .is_some_and(|d| d.is_unique_violation())
}
