//! Processing nodes' confinement: two containers run by Debian's `runc`
//! from a busybox OCI image (made here with `umoci`), each in a user
//! namespace, its own network namespace, cgroup limits, Debian's seccomp
//! profile and Docker's capabilities less `CAP_MKNOD`. From inside one, as
//! its root, the escapes a researcher might try: each refused or contained,
//! and the node and the other container untouched.

use crate::common::root_or_skip;
use prism_io::container::{Container, ContainerSpec, LinkSpec};
use prism_io::oci::{self, Confinement, ContainerConfig, runc::Runc};
use std::path::{Path, PathBuf};
use std::process::Command;

const APPLETS: [&str; 18] = [
    "sh", "ls", "cat", "ps", "mount", "sleep", "id", "ip", "ping", "nc", "insmod", "mknod", "head",
    "tr", "seq", "wc", "grep", "true",
];

/// A busybox image in a fresh OCI layout under `dir`: `dir/layout:busybox`.
pub(crate) fn busybox_image(dir: &Path) -> PathBuf {
    let layout = dir.join("layout");
    let b = dir.join("build");
    let run = |args: &[&str]| {
        let out = Command::new("umoci").args(args).output().unwrap();
        assert!(out.status.success(), "umoci {args:?}: {out:?}");
    };
    let image = format!("{}:busybox", layout.display());
    run(&["init", "--layout", layout.to_str().unwrap()]);
    run(&["new", "--image", &image]);
    run(&["unpack", "--image", &image, b.to_str().unwrap()]);
    let root = b.join("rootfs");
    for d in ["bin", "proc", "dev", "sys", "tmp", "etc", "mnt"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    std::fs::copy("/bin/busybox", root.join("bin/busybox")).unwrap();
    for a in APPLETS {
        std::os::unix::fs::symlink("busybox", root.join("bin").join(a)).unwrap();
    }
    run(&["repack", "--image", &image, b.to_str().unwrap()]);
    layout
}

/// One confined container: its network namespace (one link, `eth0`, with
/// `addr`) and its runc container running `sleep`.
struct Confined {
    id: String,
    net: Container,
}

impl Confined {
    fn start(runc: &Runc, dir: &Path, layout: &Path, k: u32, addr: &str) -> Self {
        let id = format!("pn-esc-{k}");
        let bundle = dir.join(&id);
        let id_base = (1 << 20) + k * oci::ID_RANGE;
        oci::image::unpack(layout, "busybox", &bundle, id_base).unwrap();
        let config = ContainerConfig {
            hostname: id.clone(),
            rootfs: bundle.join("rootfs"),
            args: vec!["/bin/sleep".into(), "1000".into()],
            env: Vec::new(),
            init: Some(oci::TINI.into()),
            limits: Confinement {
                id_base,
                cpus: 0.5,
                memory: 48 << 20,
                pids: 16,
                cgroup: format!("/prism-test/processing/{id}"),
                net_admin: false,
            },
        };
        let profile = Path::new(oci::seccomp::DEBIAN_PROFILE);
        let seccomp = oci::seccomp::load(profile, &oci::KEPT_CAPS).unwrap();
        let spec = oci::runtime_spec(&config, seccomp).unwrap();
        oci::save_spec(&bundle, &spec).unwrap();
        let log = dir.join(format!("{id}.log"));
        let pid = runc.create(&id, &bundle, &log).unwrap();
        let net = Container::create(ContainerSpec {
            name: id.clone(),
            links: vec![LinkSpec {
                host: format!("pnesc{k}"),
                inner: "eth0".into(),
                mac: None,
                addresses: vec![addr.into()],
            }],
            join_pid: Some(pid),
            ..Default::default()
        })
        .unwrap();
        runc.start(&id).unwrap();
        Self { id, net }
    }

    /// Runs `script` under the container's `sh` as its root: (status, output).
    fn sh(&self, runc: &Runc, script: &str) -> (Option<i32>, String) {
        let out = runc.exec(&self.id, &["/bin/sh", "-c", script]).unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code(), text)
    }

    fn pid(&self, runc: &Runc) -> u32 {
        let s = runc.state(&self.id).unwrap().expect("the container exists");
        assert_eq!(s.status, "running", "{s:?}");
        s.pid
    }
}

pub(crate) fn tools_present(test: &str) -> bool {
    let have = |p: &str| Path::new(p).exists();
    let present = [
        "/usr/sbin/runc",
        "/usr/bin/umoci",
        "/bin/busybox",
        oci::TINI,
    ]
    .iter()
    .all(|p| have(p))
        && have(oci::seccomp::DEBIAN_PROFILE);
    prism_testkit::gates::prerequisite(
        test,
        "runc, umoci, busybox-static, tini and containers-common (scripts/ensure-test-packages.sh)",
        present,
        "PRISM_REQUIRE_ROOT",
    )
}

/// Whether `pid` runs (a zombie waiting for a parent that is not the
/// test's does not).
fn alive(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .next();
    !matches!(state, None | Some("Z") | Some("X"))
}

/// The node's own IPv4 addresses (global scope: its management and
/// uplink addresses), and the loopback's.
fn host_addresses() -> Vec<String> {
    let out = Command::new("ip")
        .args(["-4", "-o", "addr", "show", "scope", "global"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let mut found: Vec<String> = text
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace().skip_while(|w| *w != "inet");
            w.nth(1)
                .and_then(|a| a.split('/').next())
                .map(str::to_string)
        })
        .collect();
    found.retain(|a| !a.starts_with("10.251."));
    found
}

fn host_ids(pid: u32) -> String {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find(|l| l.starts_with("Uid:"))
        .unwrap()
        .to_string()
}

fn v1_cgroup(controller: &str, id: &str) -> PathBuf {
    PathBuf::from("/sys/fs/cgroup")
        .join(controller)
        .join("prism-test/processing")
        .join(id)
}

#[test]
fn a_processing_nodes_root_cannot_leave_its_container() {
    if !root_or_skip("processing-node confinement") || !tools_present("processing confinement") {
        return;
    }
    let dir = prism_testkit::TempDir::new("processing-escape");
    // The mapped root must pass through to its root file system.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o711)).unwrap();
    let runc = Runc::new(dir.path().join("runc"));
    prism_io::container::cleanup("pn-esc-", "pnesc").unwrap();
    let layout = busybox_image(dir.path());
    let a = Confined::start(&runc, dir.path(), &layout, 0, "10.251.0.2/24");
    let b = Confined::start(&runc, dir.path(), &layout, 1, "10.251.0.3/24");
    let b_pid = b.pid(&runc);
    let result = std::panic::catch_unwind(|| escapes(&runc, &a, &b));
    for c in [&a, &b] {
        runc.delete(&c.id).unwrap();
    }
    let left = (runc.list().unwrap(), v1_cgroup("memory", &a.id).exists());
    for c in [a, b] {
        c.net.remove().unwrap();
    }
    result.unwrap();
    assert!(!alive(b_pid), "b's processes outlived it");
    assert_eq!(left, (Vec::new(), false), "containers or cgroups left");
    assert!(
        !Path::new("/run/netns/pn-esc-0").exists(),
        "a namespace left"
    );
}

fn escapes(runc: &Runc, a: &Confined, b: &Confined) {
    let (a_pid, b_pid) = (a.pid(runc), b.pid(runc));
    // Root inside is no one outside.
    let (_, me) = a.sh(runc, "id -u");
    assert_eq!(me.trim(), "0");
    let uid = host_ids(a_pid);
    assert!(uid.contains(&(1u32 << 20).to_string()), "host ids: {uid}");
    // The host's disks: no device to mount, none to make.
    let (code, out) = a.sh(runc, "ls /dev; mknod /tmp/disk b 8 0");
    assert_ne!(code, Some(0), "mknod of a disk succeeded: {out}");
    assert!(
        !out.contains("sda") && !out.contains("vda") && !out.contains("nvme"),
        "{out}"
    );
    // A kernel module: refused by the seccomp filter and the capabilities.
    let (code, out) = a.sh(runc, "head -c 4096 /dev/zero > /tmp/x.ko; insmod /tmp/x.ko");
    assert_ne!(code, Some(0), "insmod succeeded: {out}");
    assert!(out.contains("not permitted"), "insmod: {out}");
    // The node's processes: none seen.
    let (_, ps) = a.sh(runc, "ps -o comm");
    let seen: Vec<&str> = ps.lines().skip(1).map(str::trim).collect();
    let own = [".prism-init", "sleep", "sh", "ps"];
    assert!(
        seen.iter().all(|c| own.contains(c)),
        "processes seen inside: {seen:?}"
    );
    // Only its own interfaces, no way to the other container or the node.
    let (_, links) = a.sh(runc, "ip -o link");
    assert_eq!(links.lines().count(), 2, "interfaces inside: {links}");
    assert!(!links.contains("pnesc1"), "{links}");
    let (code, out) = a.sh(runc, "ping -c 1 -W 1 10.251.0.3");
    assert_ne!(code, Some(0), "reached the other container: {out}");
    for node in host_addresses() {
        let (code, out) = a.sh(
            runc,
            &format!("ping -c 1 -W 1 {node}; nc -w 1 {node} 22 </dev/null"),
        );
        assert_ne!(code, Some(0), "reached the node at {node}: {out}");
        assert!(out.contains("unreachable"), "{node}: {out}");
    }
    let (_, out) = a.sh(runc, "ls /run /var/run 2>&1");
    assert!(
        !out.contains("prism"),
        "the node's sockets are visible inside: {out}"
    );
    // A fork bomb stops at the pids limit.
    let (_, out) = a.sh(runc, "for i in $(seq 40); do sleep 2 & done; wait");
    let pids = std::fs::read_to_string(v1_cgroup("pids", &a.id).join("pids.max")).unwrap();
    assert_eq!(pids.trim(), "16");
    assert!(out.contains("fork"), "no fork was refused: {out}");
    let current =
        || std::fs::read_to_string(v1_cgroup("pids", &a.id).join("pids.current")).unwrap();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while current().trim().parse::<u32>().unwrap() > 2 && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let procs = std::fs::read_to_string(v1_cgroup("pids", &a.id).join("cgroup.procs")).unwrap();
    let stats: Vec<String> = procs
        .lines()
        .map(|p| std::fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default())
        .collect();
    assert!(
        current().trim().parse::<u32>().unwrap() <= 2,
        "the fork bomb.s children stayed: {stats:?}"
    );
    // Memory past the limit: the allocating process is killed, inside.
    let (code, out) = a.sh(
        runc,
        "x=$(head -c 100000000 /dev/zero | tr '\\0' a); echo survived",
    );
    assert!(
        !out.contains("survived") && code != Some(0),
        "{code:?}: {out}"
    );
    let mem = v1_cgroup("memory", &a.id);
    let read = |f: &str| std::fs::read_to_string(mem.join(f)).unwrap_or_default();
    let oom = read("memory.oom_control");
    assert!(
        oom.contains("oom_kill ") && !oom.contains("oom_kill 0"),
        "{oom}; limit {}, max usage {}, memsw failcnt {}",
        read("memory.limit_in_bytes"),
        read("memory.max_usage_in_bytes"),
        read("memory.memsw.failcnt")
    );
    // And then: a still runs, b never noticed, the node is as it was.
    assert_eq!(a.pid(runc), a_pid);
    assert_eq!(b.pid(runc), b_pid);
    let (code, out) = b.sh(runc, "id -u");
    assert_eq!((code, out.trim()), (Some(0), "0"));
}
