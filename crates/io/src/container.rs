//! Software-tier containers: a named network namespace, veth links to the
//! substrate, a cgroup for the router's processes, and those processes.
//!
//! The papers run each software router in an OpenVZ container reached by a
//! virtual Ethernet interface; here a container is the Linux pieces OpenVZ
//! is made of. Everything a container owns carries its name, so
//! [`cleanup`] can find what a killed Prism left behind.
//!
//! CPU and memory shares: a cgroup v2 group under `<cgroup2 mount>/prism/`
//! always tracks the processes (and kills them all at removal); `cpu.weight`
//! and `memory.max` are set there when the v2 hierarchy has those
//! controllers, else through the v1 `cpu` and `memory` hierarchies if they
//! are mounted, else not at all. [`Container::limits`] says which.

use crate::netns;
use std::fs;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The CPU weight every process has without a group.
pub const DEFAULT_CPU_WEIGHT: u32 = 100;

/// One link between the substrate (root namespace) and the container.
#[derive(Debug, Clone)]
pub struct LinkSpec {
    /// Name in the root namespace (at most 15 bytes).
    pub host: String,
    /// Name inside the container.
    pub inner: String,
    /// Address of the inner end, if set.
    pub mac: Option<[u8; 6]>,
    /// Addresses (CIDR) of the inner end.
    pub addresses: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct ContainerSpec {
    /// Namespace and cgroup name.
    pub name: String,
    pub links: Vec<LinkSpec>,
    /// Turns on IPv4 forwarding inside.
    pub ip_forward: bool,
    /// Relative CPU share (cgroup v2 `cpu.weight`, 1..=10000; 100, the
    /// default, makes no CPU group).
    pub cpu_weight: Option<u32>,
    /// Memory limit in bytes.
    pub memory_max: Option<u64>,
    /// The network namespace of this process (a processing node's
    /// container, whose runtime made it in the container's own user
    /// namespace) rather than a new one.
    pub join_pid: Option<u32>,
}

#[derive(Debug)]
pub struct Container {
    pub spec: ContainerSpec,
    cgroups: Vec<PathBuf>,
    limits: String,
    children: Vec<Child>,
}

fn cgroup2_root() -> Option<PathBuf> {
    let mi = fs::read_to_string("/proc/self/mountinfo").ok()?;
    mi.lines()
        .find(|l| l.contains(" - cgroup2 "))
        .and_then(|l| l.split_whitespace().nth(4))
        .map(PathBuf::from)
}

fn v1_root(controller: &str) -> Option<PathBuf> {
    let p = Path::new("/sys/fs/cgroup").join(controller);
    p.join("cgroup.procs").exists().then_some(p)
}

impl Container {
    /// Creates the namespace, links, addresses and cgroup. On failure the
    /// pieces made so far are removed again.
    pub fn create(spec: ContainerSpec) -> io::Result<Self> {
        let mut c = Self {
            spec,
            cgroups: Vec::new(),
            limits: String::new(),
            children: Vec::new(),
        };
        match c.build() {
            Ok(()) => Ok(c),
            Err(e) => {
                c.remove_quietly();
                Err(io::Error::new(
                    e.kind(),
                    format!("container `{}`: {e}", c.spec.name),
                ))
            }
        }
    }

    fn build(&mut self) -> io::Result<()> {
        let ns = self.spec.name.clone();
        match self.spec.join_pid {
            Some(pid) => netns::attach_namespace(&ns, pid)?,
            None => netns::create_namespace(&ns)?,
        }
        for l in &self.spec.links {
            netns::delete_link(&l.host)?;
            netns::create_veth(&l.host, None, &l.inner, Some(&ns))?;
            if let Some(mac) = l.mac {
                let m = netns::format_mac(mac);
                netns::ip_in(Some(&ns), &["link", "set", &l.inner, "address", &m])?;
            }
            for a in &l.addresses {
                netns::ip_in(Some(&ns), &["addr", "add", a, "dev", &l.inner])?;
            }
        }
        if self.spec.ip_forward {
            netns::sysctl_in(Some(&ns), "net.ipv4.ip_forward", "1")?;
            // Routers must answer for their own addresses only, and must
            // not drop asymmetric paths (source routing makes them normal).
            netns::sysctl_in(Some(&ns), "net.ipv4.conf.all.rp_filter", "0")?;
            netns::sysctl_in(Some(&ns), "net.ipv4.conf.default.rp_filter", "0")?;
        }
        self.make_cgroups()
    }

    fn make_cgroups(&mut self) -> io::Result<()> {
        let name = &self.spec.name;
        // The default weight needs no CPU group, and a group costs: with
        // the kernel's session autogroups on (Debian's default), a router
        // alone in a CPU group waited on the run queue for seconds at a
        // time when other work kept both CPUs busy (schedstat: 1.5 s of
        // waiting per second; its receive ring overflowed), and none
        // outside the group or with autogroups off (10 ms per second).
        let cpu_weight = self.spec.cpu_weight.filter(|&w| w != DEFAULT_CPU_WEIGHT);
        let mut limits = Vec::new();
        if let Some(root) = cgroup2_root() {
            let parent = root.join("prism");
            fs::create_dir_all(&parent)?;
            let ctl = fs::read_to_string(root.join("cgroup.controllers")).unwrap_or_default();
            for c in ["cpu", "memory"] {
                if ctl.split_whitespace().any(|x| x == c) {
                    let _ = fs::write(root.join("cgroup.subtree_control"), format!("+{c}"));
                    let _ = fs::write(parent.join("cgroup.subtree_control"), format!("+{c}"));
                }
            }
            let g = parent.join(name);
            fs::create_dir_all(&g)?;
            if let Some(w) = cpu_weight
                && fs::write(g.join("cpu.weight"), w.to_string()).is_ok()
            {
                limits.push(format!("cpu.weight={w} (v2)"));
            }
            if let Some(m) = self.spec.memory_max
                && fs::write(g.join("memory.max"), m.to_string()).is_ok()
            {
                limits.push(format!("memory.max={m} (v2)"));
            }
            self.cgroups.push(g);
        }
        let v2_cpu = limits.iter().any(|l| l.starts_with("cpu"));
        let v2_mem = limits.iter().any(|l| l.starts_with("memory"));
        if let (Some(w), false, Some(root)) = (cpu_weight, v2_cpu, v1_root("cpu")) {
            let g = root.join("prism").join(name);
            fs::create_dir_all(&g)?;
            // v1 shares: 1024 is the default, as v2's weight 100 is.
            let shares = (u64::from(w) * 1024 / 100).max(2);
            fs::write(g.join("cpu.shares"), shares.to_string())?;
            limits.push(format!("cpu.shares={shares} (v1)"));
            self.cgroups.push(g);
        }
        if let (Some(m), false, Some(root)) = (self.spec.memory_max, v2_mem, v1_root("memory")) {
            let g = root.join("prism").join(name);
            fs::create_dir_all(&g)?;
            fs::write(g.join("memory.limit_in_bytes"), m.to_string())?;
            limits.push(format!("memory.limit_in_bytes={m} (v1)"));
            self.cgroups.push(g);
        }
        self.limits = if limits.is_empty() {
            "none requested".into()
        } else {
            limits.join(", ")
        };
        Ok(())
    }

    /// The CPU and memory limits in force, and through which cgroup version.
    pub fn limits(&self) -> &str {
        &self.limits
    }

    pub fn namespace(&self) -> &str {
        &self.spec.name
    }

    /// Starts `argv` inside the container, in its cgroups, with its output
    /// appended to `log` if given.
    pub fn spawn(&mut self, argv: &[String], log: Option<&Path>) -> io::Result<u32> {
        let (prog, args) = argv
            .split_first()
            .ok_or_else(|| io::Error::other("empty command"))?;
        let procs: Vec<fs::File> = self
            .cgroups
            .iter()
            .map(|g| {
                fs::OpenOptions::new()
                    .write(true)
                    .open(g.join("cgroup.procs"))
            })
            .collect::<io::Result<_>>()?;
        let fds: Vec<i32> = procs.iter().map(|f| f.as_raw_fd()).collect();
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", &self.spec.name, prog])
            .args(args)
            .stdin(Stdio::null());
        if let Some(log) = log {
            let f = fs::OpenOptions::new().create(true).append(true).open(log)?;
            cmd.stdout(f.try_clone()?).stderr(f);
        }
        // SAFETY: the closure only calls write(2) on descriptors opened
        // before the fork and prctl(2), both async-signal-safe.
        unsafe {
            cmd.pre_exec(move || {
                for fd in &fds {
                    // "0" moves the writing process: the child, before exec.
                    libc::write(*fd, b"0".as_ptr().cast(), 1);
                }
                // The router dies with its node, however the node dies
                // (`kill -9` included). The signal follows the death of the
                // forking *thread*, so every router is forked by the
                // spawner thread, which lives as long as the process.
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let child = spawn_from_long_lived_thread(cmd).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("container `{}`: {prog}: {e}", self.spec.name),
            )
        })?;
        let pid = child.id();
        self.children.push(child);
        Ok(pid)
    }

    /// Processes started by [`Container::spawn`] that have exited, with status.
    pub fn exited(&mut self) -> Vec<(u32, std::process::ExitStatus)> {
        self.children
            .iter_mut()
            .filter_map(|c| c.try_wait().ok().flatten().map(|s| (c.id(), s)))
            .collect()
    }

    /// Stops the processes and removes namespace, links and cgroups.
    pub fn remove(mut self) -> io::Result<()> {
        let r = self.remove_inner();
        self.children.clear();
        r
    }

    fn remove_quietly(&mut self) {
        let _ = self.remove_inner();
    }

    fn remove_inner(&mut self) -> io::Result<()> {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
        for g in &self.cgroups {
            kill_cgroup(g);
        }
        let mut first_err = None;
        if netns::list_namespaces()?.contains(&self.spec.name)
            && let Err(e) = netns::delete_namespace(&self.spec.name)
        {
            first_err.get_or_insert(e);
        }
        for l in &self.spec.links {
            if let Err(e) = netns::delete_link(&l.host) {
                first_err.get_or_insert(e);
            }
        }
        for g in self.cgroups.drain(..) {
            remove_cgroup_dir(&g);
        }
        first_err.map_or(Ok(()), Err)
    }
}

fn kill_cgroup(g: &Path) {
    if fs::write(g.join("cgroup.kill"), "1").is_ok() {
        return;
    }
    if let Ok(p) = fs::read_to_string(g.join("cgroup.procs")) {
        for pid in p.split_whitespace().filter_map(|x| x.parse::<i32>().ok()) {
            // SAFETY: kill(2); a stale pid fails with ESRCH.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

fn remove_cgroup_dir(g: &Path) {
    // A cgroup can be removed once its last process is reaped.
    for _ in 0..50 {
        if fs::remove_dir(g).is_ok() || !g.exists() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// What [`cleanup`] removed.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct CleanupReport {
    pub namespaces: Vec<String>,
    pub links: Vec<String>,
    pub cgroups: Vec<String>,
}

impl CleanupReport {
    pub fn is_empty(&self) -> bool {
        self.namespaces.is_empty() && self.links.is_empty() && self.cgroups.is_empty()
    }
}

/// Which names a [`cleanup`] may take: a container's (its namespace and
/// cgroup) and a root-namespace link's.
pub struct Owned<'a> {
    pub container: &'a dyn Fn(&str) -> bool,
    pub link: &'a dyn Fn(&str) -> bool,
}

impl std::fmt::Debug for Owned<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Owned").finish_non_exhaustive()
    }
}

/// Removes every namespace, root-namespace link and Prism cgroup whose name
/// starts with a prefix, with the processes inside. For names no other
/// owner's can start with (a test's, the demo's hosts): a node's names are
/// cleaned by exact form with [`cleanup_owned`].
pub fn cleanup(ns_prefix: &str, link_prefix: &str) -> io::Result<CleanupReport> {
    cleanup_owned(Owned {
        container: &|n| n.starts_with(ns_prefix),
        link: &|n| n.starts_with(link_prefix),
    })
}

/// Removes every namespace, root-namespace link and Prism cgroup `owned`
/// takes, with the processes inside: what a killed Prism left behind.
/// Safe to run twice; the second run finds nothing.
pub fn cleanup_owned(owned: Owned<'_>) -> io::Result<CleanupReport> {
    let mut rep = CleanupReport::default();
    let mut groups: Vec<PathBuf> = Vec::new();
    let roots = cgroup2_root()
        .into_iter()
        .chain(v1_root("cpu"))
        .chain(v1_root("memory"));
    for root in roots {
        if let Ok(d) = fs::read_dir(root.join("prism")) {
            groups.extend(
                d.filter_map(|e| e.ok())
                    .filter(|e| e.path().is_dir())
                    .filter(|e| (owned.container)(&e.file_name().to_string_lossy()))
                    .map(|e| e.path()),
            );
        }
    }
    for g in &groups {
        kill_cgroup(g);
    }
    for ns in netns::list_namespaces()? {
        if (owned.container)(&ns) {
            netns::delete_namespace(&ns)?;
            rep.namespaces.push(ns);
        }
    }
    for l in netns::links_with_prefix("") {
        if (owned.link)(&l) {
            netns::delete_link(&l)?;
            rep.links.push(l);
        }
    }
    for g in groups {
        remove_cgroup_dir(&g);
        rep.cgroups.push(g.display().to_string());
    }
    Ok(rep)
}

type SpawnRequest = (Command, std::sync::mpsc::Sender<io::Result<Child>>);

/// Forks `cmd` from a thread that never ends, so that a child's
/// `PR_SET_PDEATHSIG` fires when the process dies and not when some
/// short-lived thread (an API request's) does.
fn spawn_from_long_lived_thread(cmd: Command) -> io::Result<Child> {
    type Spawner = Option<std::sync::Mutex<std::sync::mpsc::Sender<SpawnRequest>>>;
    static SPAWNER: std::sync::OnceLock<Spawner> = std::sync::OnceLock::new();
    let tx = SPAWNER.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<SpawnRequest>();
        std::thread::Builder::new()
            .name("prism-spawner".into())
            .spawn(move || {
                for (mut cmd, reply) in rx {
                    let _ = reply.send(cmd.spawn());
                }
            })
            .ok()
            .map(|_| std::sync::Mutex::new(tx))
    });
    let tx = tx
        .as_ref()
        .ok_or_else(|| io::Error::other("no thread could be started to spawn routers"))?;
    let (reply, answer) = std::sync::mpsc::channel();
    tx.lock()
        .map_err(|_| io::Error::other("the spawner's lock is poisoned"))?
        .send((cmd, reply))
        .map_err(|_| io::Error::other("the spawner thread has stopped"))?;
    answer
        .recv()
        .map_err(|_| io::Error::other("the spawner thread has stopped"))?
}
