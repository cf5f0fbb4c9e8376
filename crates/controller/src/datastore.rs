//! The controller's datastore: one module per resource holding its SQL
//! and its row mapping (omicron's `nexus/db-queries`). The application
//! layer (`crate::app::projects`, `crate::app::operations`, …) authorizes and
//! validates, then calls these; nothing here checks who is asking. It
//! uses the pool (`crate::infra::db`) and the model's types; never
//! `crate::app` or `crate::api`: what policy it needs is passed in.
//!
//! Every SQL statement of the controller is here, but for the pool's
//! own setup, migrations and the booking lock (`crate::infra::db`);
//! `crates/lab/tests/layout.rs` keeps it so.

pub(crate) mod accounting;
pub(crate) mod bookings;
pub(crate) mod changes;
pub(crate) mod controller_certificates;
pub(crate) mod identity;
pub(crate) mod images;
pub(crate) mod leader;
pub(crate) mod login_strikes;
pub(crate) mod node_certificates;
pub(crate) mod node_keys;
pub(crate) mod nodes;
pub(crate) mod operations;
pub(crate) mod parts;
pub(crate) mod pool_releases;
pub(crate) mod processing;
pub(crate) mod projects;
pub(crate) mod public_addresses;
pub(crate) mod registry;
pub(crate) mod shared_vlans;
pub(crate) mod ssh_keys;
pub(crate) mod storage;

pub(crate) use crate::infra::db::{Pool, Tx};

/// ` AND {column} IN ($from, $from+1, …)` for `only`'s ids (nothing for
/// `None`), and the ids to bind after the query's own parameters.
pub(crate) fn only_ids<'a>(
    column: &str,
    only: Option<&'a [String]>,
    from: usize,
) -> (String, &'a [String]) {
    match only {
        None => (String::new(), &[]),
        Some([]) => (" AND 1 = 0".to_string(), &[]),
        Some(ids) => {
            let marks: Vec<String> = (0..ids.len()).map(|i| format!("${}", from + i)).collect();
            (format!(" AND {column} IN ({})", marks.join(", ")), ids)
        }
    }
}

/// Whether `e` is a unique constraint refusing a duplicate (a name taken).
/// A `LIKE` pattern for text containing `text` as written (its `%`, `_`
/// and `\\` matched literally; the query says `ESCAPE '\\'`).
pub(crate) fn like_contains(text: &str) -> String {
    let escaped = text
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    format!("%{escaped}%")
}

pub(crate) fn unique_violation(e: &sqlx::Error) -> bool {
    e.as_database_error()
        .is_some_and(|d| d.is_unique_violation())
}

/// An API key's operations as the database keeps them (a JSON list).
pub(crate) fn ops_to_json(ops: &[prism_controller_api::Operation]) -> String {
    serde_json::to_string(ops).unwrap_or_else(|_| "[]".into())
}

pub(crate) fn ops_from_json(s: &str) -> Vec<prism_controller_api::Operation> {
    serde_json::from_str(s).unwrap_or_default()
}
