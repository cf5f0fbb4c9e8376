//! Processing nodes' containers: an OCI runtime bundle (a root file system
//! and its `config.json`) run by a real OCI runtime, Debian's `runc`.
//!
//! What confines a researcher's root inside (docs/processing.md):
//! - a user namespace: root inside is [`Confinement::id_base`] outside, a
//!   range of 65,536 ids no other container and no host user holds;
//! - its own pid, mount, ipc, uts, cgroup and network namespaces, the
//!   last given only the interfaces of its bookings by the node, between
//!   `runc create` and `runc start`;
//! - cgroup limits on CPU (a quota of whole or partial CPUs), memory (the
//!   kernel's OOM killer inside the group past it, swap included) and pids;
//! - Docker's default capabilities less `CAP_MKNOD` ([`KEPT_CAPS`]), with
//!   no new privileges;
//! - a seccomp filter from a maintained profile ([`seccomp`]);
//! - the runtime spec's masked and read-only paths under `/proc`, and no
//!   `/sys` (the node's devices are none of its business).
//!
//! [`runtime_spec`] is pure (tested without root); [`runc`] runs it.

pub mod image;
pub mod runc;
pub mod seccomp;
pub mod store;

use oci_spec::runtime::{
    Capability, LinuxCapabilities, LinuxCpu, LinuxIdMapping, LinuxIdMappingBuilder, LinuxMemory,
    LinuxNamespace, LinuxNamespaceType, LinuxPids, LinuxResources, LinuxSeccomp, Process, Root,
    Spec,
};
use std::path::PathBuf;

/// How many user and group ids each container's namespace maps.
pub const ID_RANGE: u32 = 65_536;

/// The capabilities a processing node's root keeps (inside its user
/// namespace): Docker's defaults without `CAP_MKNOD`, which a user
/// namespace makes useless. sshd's privilege separation needs the set*id,
/// chown and chroot ones; ping and packet tools `CAP_NET_RAW` (on the
/// container's own interfaces only).
pub const KEPT_CAPS: [&str; 13] = [
    "CAP_AUDIT_WRITE",
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_FOWNER",
    "CAP_FSETID",
    "CAP_KILL",
    "CAP_NET_BIND_SERVICE",
    "CAP_NET_RAW",
    "CAP_SETFCAP",
    "CAP_SETGID",
    "CAP_SETPCAP",
    "CAP_SETUID",
    "CAP_SYS_CHROOT",
];

/// What a processing node may use, and where it lives.
#[derive(Debug, Clone, PartialEq)]
pub struct Confinement {
    /// The host id of root inside (uid and gid); [`ID_RANGE`] ids from it.
    pub id_base: u32,
    /// CPUs (a quota: 0.5 is half of one CPU's time).
    pub cpus: f64,
    /// Memory, bytes (swap included).
    pub memory: u64,
    /// Processes and threads at most.
    pub pids: u32,
    /// The cgroup path under each hierarchy (`/prism/processing/<id>`).
    pub cgroup: String,
    /// `CAP_NET_ADMIN` too, over its own network namespace only: a node
    /// whose DHCP client must set its own address and route.
    pub net_admin: bool,
}

/// The capabilities root inside keeps: [`KEPT_CAPS`], and
/// `CAP_NET_ADMIN` if `net_admin`.
pub fn kept_caps(net_admin: bool) -> Vec<&'static str> {
    let mut caps = KEPT_CAPS.to_vec();
    if net_admin {
        caps.push("CAP_NET_ADMIN");
    }
    caps
}

/// One processing node's container.
#[derive(Debug, Clone)]
pub struct ContainerConfig {
    pub hostname: String,
    /// The root file system (owned by the mapped ids).
    pub rootfs: PathBuf,
    /// The first process and its environment.
    pub args: Vec<String>,
    pub env: Vec<String>,
    /// A static init run as PID 1 with `args` as its child, bound read-only
    /// at [`INIT_AT`] ([`TINI`]): it reaps the orphans a researcher's
    /// programs leave (a PID 1 that does not would keep them as zombies,
    /// each holding one of the pids limit's slots) and passes signals on.
    pub init: Option<PathBuf>,
    pub limits: Confinement,
}

/// Debian's statically linked tini (package `tini`), as `docker --init`.
pub const TINI: &str = "/usr/bin/tini-static";

/// Where the init is bound inside.
pub const INIT_AT: &str = "/.prism-init";

/// Why a spec could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("the container's first process is empty")]
    NoProcess,
    #[error("cpus must be more than 0 and at most 1024, not {0}")]
    Cpus(f64),
    #[error("memory must be at least 16 MiB, not {0} bytes")]
    Memory(u64),
    #[error("pids must be at least 8, not {0}")]
    Pids(u32),
    #[error("capability {0}: {1}")]
    Capability(String, serde_json::Error),
}

/// The CPU period the quota is a share of (100 ms, the kernel's default).
const CPU_PERIOD_US: u64 = 100_000;

fn capabilities(net_admin: bool) -> Result<LinuxCapabilities, SpecError> {
    let set = kept_caps(net_admin)
        .iter()
        .map(|c| {
            serde_json::from_value::<Capability>(serde_json::Value::from(*c))
                .map_err(|e| SpecError::Capability(c.to_string(), e))
        })
        .collect::<Result<std::collections::HashSet<_>, _>>()?;
    let mut caps = LinuxCapabilities::default();
    caps.set_bounding(Some(set.clone()));
    caps.set_effective(Some(set.clone()));
    caps.set_permitted(Some(set));
    caps.set_inheritable(None);
    caps.set_ambient(None);
    Ok(caps)
}

fn resources(l: &Confinement) -> Result<LinuxResources, SpecError> {
    if !(l.cpus > 0.0 && l.cpus <= 1024.0) {
        return Err(SpecError::Cpus(l.cpus));
    }
    if l.memory < 16 << 20 {
        return Err(SpecError::Memory(l.memory));
    }
    if l.pids < 8 {
        return Err(SpecError::Pids(l.pids));
    }
    let mut cpu = LinuxCpu::default();
    cpu.set_period(Some(CPU_PERIOD_US));
    cpu.set_quota(Some((l.cpus * CPU_PERIOD_US as f64).round() as i64));
    let mut memory = LinuxMemory::default();
    memory.set_limit(Some(l.memory as i64));
    memory.set_swap(Some(l.memory as i64));
    let mut pids = LinuxPids::default();
    pids.set_limit(i64::from(l.pids));
    let mut r = LinuxResources::default();
    r.set_cpu(Some(cpu));
    r.set_memory(Some(memory));
    r.set_pids(Some(pids));
    Ok(r)
}

/// Every namespace new, the network one included: made in the container's
/// user namespace, so that `runc exec` can join it (a node-made one it
/// cannot join from inside the user namespace), and given its links by
/// the node between `runc create` and `runc start`.
fn namespaces() -> Vec<LinuxNamespace> {
    use LinuxNamespaceType::*;
    [Pid, Ipc, Uts, Mount, Cgroup, User, Network]
        .into_iter()
        .map(|typ| {
            let mut ns = LinuxNamespace::default();
            ns.set_typ(typ);
            ns
        })
        .collect()
}

fn id_map(base: u32) -> Vec<LinuxIdMapping> {
    let m = LinuxIdMappingBuilder::default()
        .container_id(0u32)
        .host_id(base)
        .size(ID_RANGE)
        .build()
        .expect("every field has a value");
    vec![m]
}

fn init_mount(init: &std::path::Path) -> oci_spec::runtime::Mount {
    let mut m = oci_spec::runtime::Mount::default();
    m.set_destination(PathBuf::from(INIT_AT));
    m.set_typ(Some("bind".into()));
    m.set_source(Some(init.to_path_buf()));
    let options = ["bind", "ro", "nosuid", "nodev"];
    m.set_options(Some(options.iter().map(|o| o.to_string()).collect()));
    m
}

/// The runtime spec of `c`, filtered by `seccomp`.
pub fn runtime_spec(c: &ContainerConfig, seccomp: LinuxSeccomp) -> Result<Spec, SpecError> {
    if c.args.is_empty() {
        return Err(SpecError::NoProcess);
    }
    let mut process = Process::default();
    let args = match &c.init {
        Some(_) => [INIT_AT.to_string(), "--".into()]
            .into_iter()
            .chain(c.args.iter().cloned())
            .collect(),
        None => c.args.clone(),
    };
    process.set_args(Some(args));
    let mut env = vec!["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin".into()];
    env.extend(c.env.iter().cloned());
    process.set_env(Some(env));
    process.set_terminal(Some(false));
    process.set_no_new_privileges(Some(true));
    process.set_capabilities(Some(capabilities(c.limits.net_admin)?));
    let mut root = Root::default();
    root.set_path(c.rootfs.clone());
    root.set_readonly(Some(false));
    let mut spec = Spec::default();
    // sysfs can be mounted only from the user namespace that owns the
    // network namespace, which is the node's (it made the links), and a
    // bind of the node's /sys would show the node's devices: no /sys.
    let mounts = spec.mounts().clone().unwrap_or_default();
    let keep = |m: &oci_spec::runtime::Mount| !m.destination().starts_with("/sys");
    let mut mounts: Vec<_> = mounts.into_iter().filter(keep).collect();
    if let Some(init) = &c.init {
        mounts.push(init_mount(init));
    }
    spec.set_mounts(Some(mounts));
    spec.set_process(Some(process));
    spec.set_root(Some(root));
    spec.set_hostname(Some(c.hostname.clone()));
    let linux = spec.linux_mut().get_or_insert_with(Default::default);
    linux.set_namespaces(Some(namespaces()));
    linux.set_uid_mappings(Some(id_map(c.limits.id_base)));
    linux.set_gid_mappings(Some(id_map(c.limits.id_base)));
    linux.set_resources(Some(resources(&c.limits)?));
    linux.set_cgroups_path(Some(PathBuf::from(&c.limits.cgroup)));
    linux.set_seccomp(Some(seccomp));
    Ok(spec)
}

/// Writes `spec` as the bundle's `config.json`, readable by root only.
pub fn save_spec(bundle: &std::path::Path, spec: &Spec) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(true)
        .mode(0o600)
        .open(bundle.join("config.json"))?;
    serde_json::to_writer_pretty(f, spec).map_err(std::io::Error::other)
}

/// The command a bundle's `config.json` runs (umoci writes the image's
/// own there).
pub fn bundle_args(bundle: &std::path::Path) -> std::io::Result<Vec<String>> {
    let spec = Spec::load(bundle.join("config.json")).map_err(std::io::Error::other)?;
    Ok((spec.process().as_ref())
        .and_then(|p| p.args().clone())
        .unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> ContainerConfig {
        ContainerConfig {
            hostname: "pn1".into(),
            rootfs: "/var/lib/prism/pn1/rootfs".into(),
            args: vec!["/usr/sbin/sshd".into(), "-D".into()],
            env: vec!["PRISM_BOOKING=7".into()],
            init: Some(TINI.into()),
            limits: Confinement {
                id_base: 1 << 20,
                cpus: 0.5,
                memory: 256 << 20,
                pids: 128,
                cgroup: "/prism/processing/pn1".into(),
                net_admin: false,
            },
        }
    }

    #[test]
    fn the_spec_confines_root_inside() {
        let spec = runtime_spec(&config(), LinuxSeccomp::default()).unwrap();
        let j = serde_json::to_value(&spec).unwrap();
        let l = &j["linux"];
        assert_eq!(l["uidMappings"][0]["hostID"], 1 << 20);
        assert_eq!(l["uidMappings"][0]["containerID"], 0);
        assert_eq!(l["gidMappings"][0]["size"], ID_RANGE);
        let ns: Vec<&str> = l["namespaces"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["type"].as_str().unwrap())
            .collect();
        assert_eq!(
            ns,
            ["pid", "ipc", "uts", "mount", "cgroup", "user", "network"]
        );
        assert!(l["namespaces"][6].get("path").is_none());
        assert_eq!(l["resources"]["cpu"]["quota"], 50_000);
        assert_eq!(l["resources"]["memory"]["limit"], 256 << 20);
        assert_eq!(l["resources"]["pids"]["limit"], 128);
        assert_eq!(l["cgroupsPath"], "/prism/processing/pn1");
        let p = &j["process"];
        assert_eq!(p["args"][0], INIT_AT);
        assert_eq!(p["args"][2], "/usr/sbin/sshd");
        let mounts = j["mounts"].as_array().unwrap();
        let init = mounts.iter().find(|m| m["destination"] == INIT_AT).unwrap();
        assert_eq!(init["source"], TINI);
        assert!(init["options"].as_array().unwrap().contains(&"ro".into()));
        assert_eq!(p["noNewPrivileges"], true);
        let bounding = p["capabilities"]["bounding"].as_array().unwrap();
        assert_eq!(bounding.len(), KEPT_CAPS.len());
        assert!(
            !bounding
                .iter()
                .any(|c| c == "CAP_SYS_ADMIN" || c == "CAP_MKNOD")
        );
        assert!(p["env"][1] == "PRISM_BOOKING=7");
        let mounts = j["mounts"].as_array().unwrap();
        assert!(mounts.iter().any(|m| m["destination"] == "/proc"));
        assert!(
            !mounts
                .iter()
                .any(|m| m["destination"].as_str().unwrap().starts_with("/sys"))
        );
        assert!(
            l["maskedPaths"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m == "/proc/kcore")
        );
    }

    #[test]
    fn limits_out_of_range_are_refused() {
        let mut c = config();
        c.limits.cpus = 0.0;
        assert!(matches!(
            runtime_spec(&c, LinuxSeccomp::default()),
            Err(SpecError::Cpus(_))
        ));
        let mut c = config();
        c.limits.memory = 1 << 20;
        assert!(matches!(
            runtime_spec(&c, LinuxSeccomp::default()),
            Err(SpecError::Memory(_))
        ));
        let mut c = config();
        c.args.clear();
        assert!(matches!(
            runtime_spec(&c, LinuxSeccomp::default()),
            Err(SpecError::NoProcess)
        ));
    }
}
