//! What the controller demo and the WAN demo share: their names (the
//! namespaces and links a run makes, found again to remove them or to say
//! they were left), their `prism node` processes started and stopped
//! gently, and the secret a run makes.

use anyhow::{Context, Result};
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
        c.args(["netns", "exec", self.ns])
            .arg(self.prism)
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
