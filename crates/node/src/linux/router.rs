//! A software-tier network's router: its container and what runs in it.
//!
//! Kinds (`router = { kind = ... }`): `kernel` (Linux forwarding from the
//! network's table, see `kernel_router`, optionally with a routing daemon
//! such as BIRD or FRR started beside it), `prism` (`prism swrouter` in the
//! container, reading its network from a scenario file the node writes and
//! re-reading it on SIGHUP), `command` (any program, with its own routing).
//!
//! Links: one veth per substrate port the network uses, `eth<p>` inside
//! with the gateway MAC `02:50:<net>:<port>`. On the single-receiver path
//! the root-namespace end is a Prism socket; on the multi-receiver path
//! (the port has a software interface) it joins that port's bridge, and the
//! network's rate limit is a `tbf` qdisc on the router's `eth<p>` since the
//! pipeline does not see that traffic.

use super::kernel_router::{self, Generation, inner_ifname};
use super::names::{container_name, gateway_mac, host_link, used_ports};
use super::options::NodeOptions;
use crate::runtime::{RouterRequest, RuntimeError};
use anyhow::{Context, Result, bail};
use prism_io::container::{Container, ContainerSpec, LinkSpec};
use prism_io::netns;
use prism_io::port::IoChoice;
use prism_netdoc::{NetworkDoc, RouterConfig, RouterKind, ScenarioDoc};
use prism_pipeline::NetworkSpec;
use std::path::{Path, PathBuf};

/// What a router needs to know of its node.
#[derive(Debug, Clone, Copy)]
pub struct RouterEnv<'a> {
    pub opts: &'a NodeOptions,
    pub device: &'a str,
    pub port_names: &'a [String],
    /// Per port, the bridge of the multi-receiver path, if the port has one.
    pub bridges: &'a [Option<String>],
    pub io: IoChoice,
}

/// One link of a router's container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouterLink {
    pub port: u16,
    /// The root-namespace end.
    pub host: String,
    /// Joined to the port's multi-receiver bridge (no Prism socket receives on it).
    pub bridged: bool,
}

#[derive(Debug)]
pub struct SoftwareRouter {
    pub net: u16,
    pub name: String,
    pub cfg: RouterConfig,
    pub links: Vec<RouterLink>,
    /// Which of the two names its container has (see [`container_name`]).
    pub variant: bool,
    container: Container,
    kernel: Option<Generation>,
    spec_file: Option<PathBuf>,
    pid: Option<u32>,
    rate: Option<(u64, u64)>,
}

/// Whether `prog` names an executable file: a path, or a name on `PATH`
/// (containers share the node's file system).
fn executable(prog: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let runs = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if prog.contains('/') {
        return runs(std::path::Path::new(prog));
    }
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| runs(&d.join(prog))))
}

impl SoftwareRouter {
    /// Creates the container of network `req.net` and starts its router.
    pub fn start(env: RouterEnv<'_>, req: RouterRequest<'_>) -> Result<Self, RuntimeError> {
        let RouterRequest {
            net,
            variant,
            spec,
            router: cfg,
            doc,
        } = req;
        refuse_early(spec, cfg)?;
        let ports = env.port_names.len() as u16;
        let links: Vec<RouterLink> = used_ports(spec, cfg, ports)
            .into_iter()
            .map(|p| RouterLink {
                port: p,
                host: host_link(env.opts, net, p, variant),
                bridged: env.bridges.get(usize::from(p)).is_some_and(Option::is_some),
            })
            .collect();
        let cspec = ContainerSpec {
            name: container_name(env.opts, net, variant),
            links: links.iter().map(|l| link_spec(net, l, cfg)).collect(),
            ip_forward: cfg.kind == RouterKind::Kernel,
            cpu_weight: cfg.cpu_weight,
            memory_max: cfg.memory_max,
            join_pid: None,
        };
        let container = Container::create(cspec)
            .map_err(|e| RuntimeError::failed(format!("network `{}`: {e:#}", spec.name)))?;
        let mut r = Self {
            net,
            name: spec.name.clone(),
            cfg: cfg.clone(),
            links,
            variant,
            container,
            kernel: None,
            spec_file: None,
            pid: None,
            rate: None,
        };
        if let Err(e) = r.boot(env, spec, doc) {
            let _ = r.remove();
            return Err(RuntimeError::failed(format!(
                "network `{}`: {e:#}",
                spec.name
            )));
        }
        Ok(r)
    }

    fn boot(&mut self, env: RouterEnv<'_>, spec: &NetworkSpec, doc: &NetworkDoc) -> Result<()> {
        for l in self.links.iter().filter(|l| l.bridged) {
            let br = env.bridges[usize::from(l.port)]
                .as_deref()
                .unwrap_or_default();
            netns::ip(&["link", "set", &l.host, "master", br])?;
        }
        let ns = self.container.namespace().to_string();
        let log = env.opts.state_dir.join(format!("{ns}.log"));
        match self.cfg.kind {
            RouterKind::Kernel => {
                let (mut lines, g) =
                    kernel_router::install(spec, &self.cfg, 0).map_err(anyhow::Error::msg)?;
                lines.extend(kernel_router::activate(&g, None));
                netns::ip_batch(Some(&ns), &lines)?;
                self.kernel = Some(g);
                if !self.cfg.command.is_empty() {
                    // A routing daemon beside Linux forwarding: its routes go
                    // to the main table, which each generation consults after
                    // the network's own routes.
                    self.pid = Some(self.container.spawn(&self.cfg.command, Some(&log))?);
                }
            }
            RouterKind::Prism => {
                let file = env.opts.state_dir.join(format!("{ns}.toml"));
                self.write_spec(&file, env, doc)?;
                let exe = match &env.opts.router_exe {
                    Some(e) => e.clone(),
                    None => std::env::current_exe()?,
                };
                let argv = vec![
                    exe.display().to_string(),
                    "swrouter".into(),
                    "--config".into(),
                    file.display().to_string(),
                    "--network".into(),
                    spec.name.clone(),
                    "--io".into(),
                    env.io.as_str().into(),
                ];
                let ready = super::swrouter::ready_file(&file);
                let _ = std::fs::remove_file(&ready);
                self.spec_file = Some(file);
                self.pid = Some(self.container.spawn(&argv, Some(&log))?);
                self.wait_ready(&ready, &log)?;
            }
            RouterKind::Command => {
                self.pid = Some(self.container.spawn(&self.cfg.command, Some(&log))?);
            }
        }
        self.set_bridge_rate(spec.rate_limit)
    }

    /// Waits for Prism's router to say (file `ready`) that it receives:
    /// traffic moves to it only then. Its exit, or 10 s, is an error that
    /// names its log.
    fn wait_ready(&mut self, ready: &Path, log: &Path) -> Result<()> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !ready.exists() {
            if let Some((_, st)) = self.container.exited().first() {
                bail!(
                    "its router exited ({st}) before it was ready; see {}",
                    log.display()
                );
            }
            if std::time::Instant::now() > deadline {
                bail!(
                    "its router was not ready within 10 s; see {}",
                    log.display()
                );
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        Ok(())
    }

    /// Writes the network as a one-network scenario, which `prism swrouter`
    /// loads (and reloads on SIGHUP).
    fn write_spec(
        &self,
        file: &std::path::Path,
        env: RouterEnv<'_>,
        doc: &NetworkDoc,
    ) -> Result<()> {
        let text = ScenarioDoc::single(env.device, env.port_names, doc.clone()).to_toml()?;
        let tmp = file.with_extension("toml.new");
        std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, file).with_context(|| format!("replacing {}", file.display()))?;
        Ok(())
    }

    pub fn namespace(&self) -> &str {
        self.container.namespace()
    }

    /// The CPU and memory limits in force (see `Container::limits`).
    pub fn limits(&self) -> &str {
        self.container.limits()
    }

    /// Whether a new specification can be applied by [`Self::update`]
    /// (same router, same links), or needs a new container.
    pub fn can_update(&self, env: RouterEnv<'_>, spec: &NetworkSpec, cfg: &RouterConfig) -> bool {
        let ports = used_ports(spec, cfg, env.port_names.len() as u16);
        *cfg == self.cfg && ports == self.links.iter().map(|l| l.port).collect::<Vec<_>>()
    }

    /// Applies a changed table (and rate limit) to the running router. The
    /// `kernel` router switches generations atomically; the `prism` router
    /// re-reads its file on SIGHUP between two batches.
    pub fn update(
        &mut self,
        env: RouterEnv<'_>,
        old: &NetworkSpec,
        spec: &NetworkSpec,
        doc: &NetworkDoc,
    ) -> Result<(), RuntimeError> {
        let failed = |e: anyhow::Error| RuntimeError::failed(format!("{e:#}"));
        if spec.forwarding != old.forwarding {
            match self.cfg.kind {
                RouterKind::Kernel => {
                    if let Err(e) = kernel_router::install(spec, &self.cfg, 0) {
                        return Err(RuntimeError::unsupported(e));
                    }
                    self.switch_kernel_table(spec).map_err(failed)?
                }
                RouterKind::Prism => {
                    let file = self
                        .spec_file
                        .clone()
                        .ok_or_else(|| RuntimeError::failed("no router file"))?;
                    self.write_spec(&file, env, doc).map_err(failed)?;
                    let pid = self
                        .pid
                        .ok_or_else(|| RuntimeError::failed("no router process"))?;
                    prism_io::sys::signal(pid, prism_io::sys::Signal::Hangup).map_err(|e| {
                        RuntimeError::failed(format!(
                            "network `{}`: cannot signal its router: {e}",
                            self.name
                        ))
                    })?;
                }
                RouterKind::Command => {
                    return Err(RuntimeError::conflict(format!(
                        "network `{}`: its router is a user command, whose routes are its own; change the command's configuration, or the router kind",
                        self.name
                    )));
                }
            }
        }
        self.set_bridge_rate(spec.rate_limit).map_err(failed)
    }

    fn switch_kernel_table(&mut self, spec: &NetworkSpec) -> Result<()> {
        let ns = self.namespace().to_string();
        let old = self.kernel.clone().context("kernel tables")?;
        let (lines, g) =
            kernel_router::install(spec, &self.cfg, old.number + 1).map_err(anyhow::Error::msg)?;
        if let Err(e) = netns::ip_batch(Some(&ns), &lines) {
            // Remove what of the new generation got in; the old one stays.
            let undo: Vec<String> = g
                .prefs
                .iter()
                .map(|p| format!("rule del pref {p}"))
                .chain(g.tables.iter().map(|t| format!("route flush table {t}")))
                .collect();
            for l in undo {
                let _ = netns::ip_batch(Some(&ns), &[l]);
            }
            return Err(e.into());
        }
        netns::ip_batch(Some(&ns), &kernel_router::activate(&g, Some(&old)))?;
        self.kernel = Some(g);
        Ok(())
    }

    /// On the multi-receiver path the pipeline does not see the network's
    /// traffic, so its rate limit becomes a token-bucket qdisc on the
    /// router's bridged interfaces.
    fn set_bridge_rate(&mut self, rate: Option<(u64, u64)>) -> Result<()> {
        if rate == self.rate {
            return Ok(());
        }
        let ns = self.namespace().to_string();
        for l in self.links.iter().filter(|l| l.bridged) {
            let dev = inner_ifname(l.port);
            match rate {
                Some((bps, burst)) => {
                    let (r, b) = (format!("{bps}bit"), burst.to_string());
                    netns::run(
                        "tc",
                        &[
                            "-n", &ns, "qdisc", "replace", "dev", &dev, "root", "tbf", "rate", &r,
                            "burst", &b, "latency", "50ms",
                        ],
                    )?;
                }
                None if self.rate.is_some() => {
                    netns::run("tc", &["-n", &ns, "qdisc", "del", "dev", &dev, "root"])?;
                }
                None => {}
            }
        }
        self.rate = rate;
        Ok(())
    }

    /// Stops the router and removes the container and its files.
    pub fn remove(self) -> std::io::Result<()> {
        if let Some(f) = &self.spec_file {
            let _ = std::fs::remove_file(f);
            let _ = std::fs::remove_file(super::swrouter::ready_file(f));
        }
        self.container.remove()
    }
}

/// What the caller must fix, refused before anything is made (not found
/// later in a log): a program that cannot run, a table the kernel router
/// cannot express.
fn refuse_early(spec: &NetworkSpec, cfg: &RouterConfig) -> Result<(), RuntimeError> {
    if let Some(prog) = cfg.command.first()
        && !executable(prog)
    {
        return Err(RuntimeError::unsupported(format!(
            "network `{}`: field `router.command[0]`: `{prog}` is not an executable program on this node",
            spec.name
        )));
    }
    if cfg.kind == RouterKind::Kernel
        && let Err(e) = kernel_router::install(spec, cfg, 0)
    {
        return Err(RuntimeError::unsupported(e));
    }
    Ok(())
}

/// The container's side of router link `l`: its interface, the gateway
/// MAC and the addresses the router configuration gives that port.
fn link_spec(net: u16, l: &RouterLink, cfg: &RouterConfig) -> LinkSpec {
    LinkSpec {
        host: l.host.clone(),
        inner: inner_ifname(l.port),
        mac: Some(gateway_mac(net, l.port)),
        addresses: cfg
            .addresses
            .iter()
            .filter(|(ap, _)| *ap == l.port)
            .map(|(_, a)| a.clone())
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::executable;

    #[test]
    fn programs_are_found_as_exec_would_find_them() {
        assert!(executable("sh"));
        assert!(executable("/bin/sh"));
        assert!(!executable("/nonexistent"));
        assert!(!executable("/etc/passwd"));
        assert!(!executable("/etc"));
        assert!(!executable("no-such-program-here"));
    }
}
