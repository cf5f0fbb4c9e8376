//! What the controller demo and the WAN demo share: their names (the
//! namespaces and links a run makes, found again to remove them or to say
//! they were left), their `prism node` processes started and stopped
//! gently, and the secret a run makes.

use anyhow::{Context, Result, bail};
use prism_controller::{
    Controller, ControllerClient, LoginRequest, ProjectRequest, Settings, UserRequest,
};
use prism_io::netns;
use std::ffi::OsStr;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A demo's node `i`: `prism node` in namespace `ns` as instance
/// `instance`, its scenario `scenario` written to `dir/node{i}.toml`, its
/// API on `dir/node{i}.sock` and on TCP as `api` says, registering itself
/// with `controller` as `node{i}` with the key in file `key`; its log in
/// `dir/node{i}.log`.
pub(crate) struct DemoNode<'a> {
    pub prism: &'a Path,
    pub dir: &'a Path,
    pub i: usize,
    pub ns: &'a str,
    pub instance: &'a str,
    pub controller: &'a str,
    pub key: &'a Path,
    /// Runs containers (processing nodes): sees the machine's cgroups.
    pub cgroups: bool,
}

/// A node in a namespace that runs containers: `ip netns exec` mounts
/// the namespace's own sysfs over /sys in a mount namespace of the
/// node's own (the node reads its interfaces there), which hides the
/// cgroup hierarchies runc needs. This machine's are mounted again there
/// (a v1 hierarchy mounted with the same controllers is the same
/// hierarchy), then the node runs (`$0 "$@"`).
fn cgroup_mounts() -> Result<String> {
    let info = std::fs::read_to_string("/proc/self/mountinfo")?;
    let mut script = String::from("set -e; ");
    for line in info.lines() {
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let at = left.split(' ').nth(4).unwrap_or_default();
        let mut r = right.split(' ');
        let (fstype, opts) = (r.next().unwrap_or_default(), r.nth(1).unwrap_or_default());
        if !at.starts_with("/sys/fs/cgroup") {
            continue;
        }
        let opts: Vec<&str> = opts.split(',').filter(|o| *o != "rw").collect();
        let opts = if opts.is_empty() {
            String::new()
        } else {
            format!("-o {} ", opts.join(","))
        };
        match fstype {
            "tmpfs" => script += &format!("mount -t tmpfs -o mode=755 tmpfs {at}; "),
            "cgroup" | "cgroup2" => {
                script += &format!("mkdir -p {at}; mount -t {fstype} {opts}{fstype} {at}; ")
            }
            _ => {}
        }
    }
    Ok(script + r#"exec "$0" "$@""#)
}

impl DemoNode<'_> {
    /// Starts it; `own_group`: in a process group of its own, so that a
    /// terminal's Ctrl-C reaches the demo, which releases the bookings
    /// through the nodes before it stops them.
    pub fn spawn(&self, scenario: &str, api: &[&OsStr], own_group: bool) -> Result<Child> {
        let i = self.i;
        let config = self.dir.join(format!("node{i}.toml"));
        std::fs::write(&config, scenario)?;
        let log = std::fs::File::create(self.dir.join(format!("node{i}.log")))?;
        let mut c = Command::new("ip");
        c.args(["netns", "exec", self.ns]);
        if self.cgroups {
            c.args(["sh", "-c", &cgroup_mounts()?]);
        }
        c.arg(self.prism)
            .args(["node", "--fresh", "--instance", self.instance, "--config"])
            .arg(&config)
            .arg("--api")
            .arg(self.dir.join(format!("node{i}.sock")))
            .args(api)
            .args(["--controller", self.controller])
            .args(["--node-name", &format!("node{i}")])
            .arg("--controller-key-file")
            .arg(self.key)
            .stdout(Stdio::null())
            .stderr(log);
        if own_group {
            c.process_group(0);
        }
        c.spawn()
            .with_context(|| format!("starting {}", self.prism.display()))
    }
}

/// A demo's names.
pub(crate) struct Names {
    /// Whether a namespace is the demo's.
    pub namespace: fn(&str) -> bool,
    /// Its links (in the root namespace) start with one of these.
    pub link_prefixes: &'static [&'static str],
}

impl Names {
    /// The demo's namespaces and links that exist now.
    pub fn leftovers(&self) -> Vec<String> {
        let mut v: Vec<String> = netns::list_namespaces()
            .unwrap_or_default()
            .into_iter()
            .filter(|ns| (self.namespace)(ns))
            .collect();
        for p in self.link_prefixes {
            v.extend(netns::links_with_prefix(p));
        }
        v
    }

    /// Removes them all.
    pub fn remove_all(&self) {
        for ns in netns::list_namespaces().unwrap_or_default() {
            if (self.namespace)(&ns) {
                let _ = netns::delete_namespace(&ns);
            }
        }
        for p in self.link_prefixes {
            for l in netns::links_with_prefix(p) {
                let _ = netns::delete_link(&l);
            }
        }
    }
}

/// A run's node processes and names: dropped, the nodes get SIGTERM (they
/// remove their containers) and 10 s to exit, then everything named is
/// removed.
pub(crate) struct Topology {
    pub nodes: Vec<Child>,
    pub names: &'static Names,
}

impl Drop for Topology {
    fn drop(&mut self) {
        for c in &mut self.nodes {
            // SAFETY: kill(2) on our child's pid: SIGTERM lets it clean up.
            unsafe { libc::kill(c.id() as i32, libc::SIGTERM) };
        }
        for c in &mut self.nodes {
            let t = Instant::now();
            while t.elapsed() < Duration::from_secs(10) {
                if let Ok(Some(_)) = c.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
        self.names.remove_all();
    }
}

/// Node `i`'s management link in a demo: `link` on this machine at
/// 10.`net`.`i`.1, `mgmt` in namespace `ns` at 10.`net`.`i`.2, and the
/// route to the demo's other management addresses (the controller listens
/// on one of them only, not on every address of this machine).
pub(crate) fn management_link(ns: &str, link: &str, net: u8, i: usize) -> Result<()> {
    netns::create_veth(link, None, "mgmt", Some(ns))?;
    netns::ip(&["addr", "add", &format!("10.{net}.{i}.1/24"), "dev", link])?;
    let inside = format!("10.{net}.{i}.2/24");
    netns::ip_in(Some(ns), &["addr", "add", &inside, "dev", "mgmt"])?;
    let (all, via) = (format!("10.{net}.0.0/16"), format!("10.{net}.{i}.1"));
    netns::ip_in(Some(ns), &["route", "add", &all, "via", &via])?;
    Ok(())
}

/// 128 random bits as hex: the control plane's credential and, from it,
/// the demo's password.
pub(crate) fn random_hex() -> Result<String> {
    use std::io::Read;
    let mut b = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut b)?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// The password of a demo's administrator and researcher.
pub(crate) fn demo_password(secret: &str) -> String {
    format!("demo-{secret}")
}

/// A demo's controller listening on `ip` (a port of its choosing), its
/// admin, and a user `alice` owning `project` on a testbed service level.
pub(crate) async fn demo_controller(
    dir: &Path,
    secret: &str,
    (ip, project): (&str, &str),
    say: &dyn Fn(&str),
) -> Result<(Controller, ControllerClient, ControllerClient, String)> {
    let db = dir.join("controller.db").display().to_string();
    let ctl = Controller::open(
        &db,
        Settings {
            node_secret: Some(secret.into()),
            ..Settings::default()
        },
    )
    .await?;
    let password = demo_password(secret);
    ctl.bootstrap_admin("admin", &password).await?;
    let listener = tokio::net::TcpListener::bind(format!("{ip}:0")).await?;
    let addr = listener.local_addr()?.to_string();
    tokio::spawn(prism_controller::api::serve(ctl.clone(), listener));
    say(&format!("  controller on {addr}, database {db}"));
    let anon = ControllerClient::new(&addr, None);
    let login = |user: &str, project: Option<&str>| LoginRequest {
        user: user.into(),
        password: password.clone(),
        project: project.map(str::to_string),
        ttl_s: None,
    };
    let admin = anon.with_token(Some(anon.login(&login("admin", None)).await?.token));
    let user = UserRequest {
        name: "alice".into(),
        password: password.clone(),
        admin: false,
    };
    admin.create_user(&user).await?;
    // A testbed service level: more hardware networks than `standard`'s
    // four (a spanning network counts once, whatever its parts).
    let mut level = prism_controller::ServiceLevel::standard();
    level.name = "testbed".into();
    level.max_hw_networks = 16;
    level.max_bandwidth_mbps = level.max_bandwidth_mbps.max(10_000);
    admin.put_service_level(&level).await?;
    let request = ProjectRequest {
        name: project.into(),
        service_level: "testbed".into(),
        owner: "alice".into(),
    };
    admin.create_project(&request).await?;
    let alice = anon.with_token(Some(
        anon.login(&login("alice", Some(project))).await?.token,
    ));
    Ok((ctl, admin, alice, addr))
}

/// Starts a demo's `count` nodes with `start(i, key file)`, each with a
/// node key of its own in `dir`, and waits until each has registered
/// with its WAN port.
pub(crate) async fn start_registered(
    admin: &ControllerClient,
    (dir, count): (&Path, usize),
    start: impl Fn(usize, &Path) -> Result<Child>,
    topo: &mut Topology,
    say: &dyn Fn(&str),
) -> Result<()> {
    for i in 1..=count {
        let key = admin.create_node_key(&format!("node{i}")).await?;
        let file = dir.join(format!("node{i}.key"));
        std::fs::write(&file, key.key.unwrap_or_default())?;
        std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
        topo.nodes.push(start(i, &file)?);
    }
    let t = Instant::now();
    loop {
        let nodes = admin.list_nodes().await?;
        if nodes.len() == count && nodes.iter().all(|n| n.up && n.wan.is_some()) {
            for n in nodes {
                let w = n.wan.unwrap_or_else(|| unreachable!());
                say(&format!(
                    "  {} registered: WAN port {} at {} ({})",
                    n.name, w.port, w.address, w.mac
                ));
            }
            return Ok(());
        }
        if t.elapsed() > Duration::from_secs(20) {
            bail!(
                "{} of {count} nodes registered within 20 s (see {}/node*.log)",
                nodes.len(),
                dir.display()
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A demo run's state directory made afresh, with a new control-plane
/// secret in it: the secret.
pub(crate) fn fresh_state(dir: &Path) -> Result<String> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)?;
    let secret = random_hex()?;
    std::fs::write(dir.join("control-plane.secret"), &secret)?;
    Ok(secret)
}

/// The runtime a demo drives its controller and nodes' calls on.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?)
}
