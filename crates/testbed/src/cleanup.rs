//! `prism cleanup`: removes what dead nodes (`prism node`, the demos, the
//! benchmarks) left: namespaces, links, cgroups and router files under
//! their names, and the demo's test hosts. A running node's things are
//! left alone, and it is named.

use anyhow::Result;

/// What was removed, a line each, and what was left alone.
#[derive(Debug, Default)]
pub struct Cleaned {
    /// `namespace prism-c3`, `link pc3a`, `cgroup …`, `file …`.
    pub removed: Vec<String>,
    /// A live instance, in words.
    pub left_alone: Vec<String>,
}

/// Cleans the names of every node instance the host shows (the default
/// one and each `--instance`), and the demo's; each only if its lock says
/// it is dead.
pub fn everything() -> Result<Cleaned> {
    let instances = prism_node::instances_on_host()
        .into_iter()
        .map(|i| (prism_node::instance_options(i.as_deref()), false));
    clean(instances.chain([(crate::hosts::demo_options(), true)]))
}

/// Cleans the names of node instance `instance` only (`None`: the
/// default one), if its lock says it is dead.
pub fn instance(instance: Option<&str>) -> Result<Cleaned> {
    clean([(prism_node::instance_options(instance), false)].into_iter())
}

/// Cleans each instance of `which` (with the demo's test hosts where
/// said).
fn clean(which: impl Iterator<Item = (prism_node::NodeOptions, bool)>) -> Result<Cleaned> {
    let mut out = Cleaned::default();
    for (opts, hosts) in which {
        let r = match prism_node::cleanup_instance(&opts) {
            Ok(r) => r,
            Err(e) => {
                out.left_alone.push(format!("{e:#}"));
                continue;
            }
        };
        let rep = &r.report;
        out.removed
            .extend(rep.namespaces.iter().map(|n| format!("namespace {n}")));
        out.removed
            .extend(rep.links.iter().map(|l| format!("link {l}")));
        out.removed
            .extend(rep.cgroups.iter().map(|g| format!("cgroup {g}")));
        out.removed
            .extend(r.files.iter().map(|f| format!("file {}", f.display())));
        if hosts {
            // The demo's test hosts belong to the demo's (dead) instance.
            let h =
                prism_io::container::cleanup(crate::hosts::HOST_PREFIX, crate::hosts::LINK_PREFIX)?;
            out.removed
                .extend(h.namespaces.iter().map(|n| format!("namespace {n}")));
            out.removed
                .extend(h.links.iter().map(|l| format!("link {l}")));
        }
    }
    Ok(out)
}
