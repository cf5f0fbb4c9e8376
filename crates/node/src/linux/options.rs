//! A live node's options: its workers and cores, the prefixes of what it
//! creates (containers, links, bridges), where its state goes, and its
//! defaults.

use std::path::PathBuf;

/// How a live node runs and what it names its things.
#[derive(Debug, Clone)]
pub struct NodeOptions {
    pub workers: usize,
    /// Cores to pin workers to, in order (empty: not pinned).
    pub cores: Vec<usize>,
    /// Prefix of container namespace (and cgroup) names.
    pub ns_prefix: String,
    /// Prefix of the root-namespace ends of container veths and of bridges.
    pub link_prefix: String,
    /// Where router logs and `prism` routers' network files go.
    pub state_dir: PathBuf,
    /// The scenario's text, to save the desired state with at every change
    /// (`crate::saved`); `None`: not saved (demos, benchmarks).
    pub persist: Option<String>,
    /// The `prism` executable whose `swrouter` command runs `prism`
    /// routers (`None`: this process's own executable, which is `prism`
    /// everywhere but in tests that start a node in-process).
    pub router_exe: Option<PathBuf>,
    /// How a hardware network's module is changed when a request does not
    /// say (`prism node --reconfig-strategy`).
    pub reconfig_strategy: prism_pipeline::reconfig::Strategy,
}
