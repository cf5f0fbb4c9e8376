//! `prism cleanup`: removes what dead nodes (`prism node`, the demos, the
//! benchmarks) left: namespaces, links, cgroups and router files under
//! their names, and test hosts made beside an instance (the demo's). A
//! running node's things are left alone, and it is named.

use crate::linux::node::{cleanup_instance, instances_on_host};
use crate::linux::options::{NodeOptions, instance_options};
use anyhow::Result;

/// What was removed, a line each, and what was left alone.
#[derive(Debug, Default)]
pub struct Cleaned {
    /// `namespace prism-c3`, `link pc3a`, `cgroup …`, `file …`.
    pub removed: Vec<String>,
    /// A live instance, in words.
    pub left_alone: Vec<String>,
}

impl Cleaned {
    /// What `prism cleanup` prints: a line per object removed, the count,
    /// a line per instance left alone.
    pub fn report(&self) -> String {
        let mut out: Vec<String> = self
            .removed
            .iter()
            .map(|r| format!("removed {r}"))
            .collect();
        out.push(format!(
            "prism cleanup: {} objects removed",
            self.removed.len()
        ));
        out.extend(self.left_alone.iter().map(|r| format!("left alone: {r}")));
        out.join("\n")
    }
}

/// An instance to clean beside those the host shows, with the test hosts
/// made for it: their namespaces' and links' name prefixes.
#[derive(Debug, Clone)]
pub struct WithHosts {
    pub options: NodeOptions,
    pub host_prefix: &'static str,
    pub link_prefix: &'static str,
}

/// Cleans the names of every node instance the host shows (the default
/// one and each `--instance`), and of each of `also` with its test hosts;
/// each only if its lock says it is dead.
pub fn everything(also: impl IntoIterator<Item = WithHosts>) -> Result<Cleaned> {
    let instances = instances_on_host()
        .into_iter()
        .map(|i| (instance_options(i.as_deref()), None));
    let also = also.into_iter().map(|w| {
        let hosts = (w.host_prefix, w.link_prefix);
        (w.options, Some(hosts))
    });
    clean(instances.chain(also))
}

/// Cleans the names of node instance `instance` only (`None`: the
/// default one), if its lock says it is dead.
pub fn instance(instance: Option<&str>) -> Result<Cleaned> {
    clean([(instance_options(instance), None)].into_iter())
}

/// Cleans each instance of `which` (with its test hosts, where given).
fn clean(
    which: impl Iterator<Item = (NodeOptions, Option<(&'static str, &'static str)>)>,
) -> Result<Cleaned> {
    let mut out = Cleaned::default();
    for (opts, hosts) in which {
        let r = match cleanup_instance(&opts) {
            Ok(r) => r,
            Err(e) => {
                out.left_alone.push(format!("{e:#}"));
                continue;
            }
        };
        let rep = &r.report;
        let said = |kind: &str, names: &[String]| {
            names
                .iter()
                .map(|n| format!("{kind} {n}"))
                .collect::<Vec<_>>()
        };
        out.removed.extend(said("namespace", &rep.namespaces));
        out.removed.extend(said("link", &rep.links));
        out.removed.extend(said("cgroup", &rep.cgroups));
        out.removed
            .extend(r.files.iter().map(|f| format!("file {}", f.display())));
        out.removed.extend(r.processing);
        if let Some((host_prefix, link_prefix)) = hosts {
            // The test hosts belong to their (dead) instance.
            let h = prism_io::container::cleanup(host_prefix, link_prefix)?;
            out.removed.extend(said("namespace", &h.namespaces));
            out.removed.extend(said("link", &h.links));
        }
    }
    Ok(out)
}
