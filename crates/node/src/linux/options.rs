//! A live node's options: its workers and cores, the prefixes of what it
//! creates (containers, links, bridges), where its state goes, and its
//! defaults.

use std::path::PathBuf;

/// Container namespaces and cgroups of a served node start with this.
pub const NS_PREFIX: &str = "prism-c";
/// Root-namespace ends of container veths start with this.
pub const LINK_PREFIX: &str = "pc";

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
    pub reconfig_strategy: prism_pipeline::control::reconfig::Strategy,
    /// Runs processing nodes (`PUT /v1/processing`): a served node whose
    /// host has runc, umoci, tini and the seccomp profile.
    pub processing: bool,
    /// Where processing nodes' ssh doors listen (the API's TCP address;
    /// `None`: no door).
    pub door_ip: Option<std::net::IpAddr>,
}

impl NodeOptions {
    /// The instance's letters (`ab` of `prism-cab`), empty for the default one.
    pub fn instance_letters(&self) -> &str {
        self.ns_prefix.strip_prefix(NS_PREFIX).unwrap_or("")
    }
}

/// Checks an instance name: one or two of a-z.
pub fn instance_name(s: &str) -> Result<String, String> {
    // Letters only: names end in a network's number, which must not be
    // read as part of the instance.
    if (1..=2).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_lowercase()) {
        Ok(s.to_string())
    } else {
        Err("one or two of a-z (it goes into 15-byte interface names)".into())
    }
}

/// The names and state directory of a served node of `instance`.
pub fn instance_options(instance: Option<&str>) -> NodeOptions {
    let i = instance.unwrap_or("");
    NodeOptions {
        workers: 1,
        cores: Vec::new(),
        ns_prefix: format!("{NS_PREFIX}{i}"),
        link_prefix: format!("{LINK_PREFIX}{i}"),
        state_dir: match instance {
            Some(i) => PathBuf::from(format!("/run/prism-{i}")),
            None => PathBuf::from("/run/prism"),
        },
        persist: None,
        router_exe: None,
        reconfig_strategy: Default::default(),
        processing: false,
        door_ip: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_instance_has_its_own_default_api_socket() {
        use crate::linux::serve::{DEFAULT_SOCKET, default_socket};
        assert_eq!(default_socket(None), PathBuf::from(DEFAULT_SOCKET));
        assert_eq!(
            default_socket(Some("b")),
            PathBuf::from("/run/prism-b/node.sock")
        );
        assert_ne!(default_socket(Some("b")), default_socket(Some("c")));
    }
}
