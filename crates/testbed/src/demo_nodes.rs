//! What the controller demo and the WAN demo share: their names (the
//! namespaces and links a run makes, found again to remove them or to say
//! they were left), their `prism node` processes stopped gently, and the
//! secret a run makes.

use anyhow::Result;
use prism_io::netns;
use std::process::Child;
use std::time::{Duration, Instant};

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

/// 128 random bits as hex: the control plane's credential and, from it,
/// the demo's password.
pub(crate) fn random_hex() -> Result<String> {
    use std::io::Read;
    let mut b = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut b)?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}
