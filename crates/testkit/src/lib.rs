//! Prism's test kit, a dev-only crate (never a dependency of the product):
//! what the tests of every crate share.
//!
//! - [`gates`]: prerequisites a machine may lack (root, the shared data
//!   sets, the Python SDK, a PostgreSQL server), with one behaviour: where
//!   every prerequisite is required (CI, which runs as root with everything
//!   installed) a missing one fails the test; elsewhere the test says
//!   `skipped` on a line `scripts/test-lanes` counts, and returns;
//! - [`fake_node`]: the one fake node (`NodeApi` over a list of
//!   documents), for the server glue's tests, the controller's and the
//!   crash test;
//! - [`fake_controller`]: the one fake controller (the API's area traits
//!   in memory), for the controller's handlers and its clients' tests;
//! - [`TempDir`]: a directory removed when dropped.

pub mod fake_controller;
pub mod fake_node;
pub mod gates;

pub use fake_controller::FakeController;
pub use fake_node::FakeNode;
pub use gates::{bpf_object, root, shared_data};

/// A fresh directory under the system's temporary directory, named for
/// the test and the process, removed (with what is in it) when dropped.
#[derive(Debug)]
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        let p = std::env::temp_dir().join(format!("prism-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("a temporary directory");
        Self(p)
    }

    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
