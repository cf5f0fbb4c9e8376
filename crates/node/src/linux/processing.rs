//! Processing nodes on Linux: each a `runc` container from an OCI image
//! (confined by `prism_io::oci`), its network namespace given one veth per
//! interface, whose root-namespace end the workers serve as a host on its
//! VLAN behind its port (`super::hosts`).
//!
//! A processing node outlives the node's process: its container, network
//! namespace and links carry names the node's start-up cleanup does not
//! own, and the desired state is saved (`processing.json`, 0600) beside
//! the networks'. A node restarted after `kill -9` reads it, finds each
//! container in runc's state and keeps it (its links served again), or
//! restarts one that stopped; runc refuses a second container of a name.
//! `prism cleanup` of a dead instance removes them all.

use crate::control::processing::Held;
use crate::runtime::RuntimeError;
use prism_io::netns;
use prism_io::oci::{self, Confinement, ContainerConfig, runc::Runc};
use prism_node_api::{ApiError, InterfaceDoc, ProcessingDoc, ProcessingState};
use std::path::{Path, PathBuf};

mod converge;
pub mod images;
pub mod ssh;
pub use converge::Processing;

/// Root-namespace ends of processing nodes' links start with this (and
/// the instance's letters).
pub const LINK_PREFIX: &str = "pn";
/// The first id of the processing nodes' user-namespace range: above
/// every id a Debian system gives its users. One range for all of them,
/// as Docker's `userns-remap` has: an image is then unpacked once per
/// node and shared read-only beneath every container's own layer (a
/// range per container, Podman's `--userns=auto`, costs an unpack per
/// booking: 6.5 s for the base image here). Root inside is still no one
/// on the node, and containers see nothing of each other (their own pid,
/// mount and network namespaces).
pub const ID_BASE: u32 = 1 << 20;

/// A started processing node: what its removal and the workers need.
#[derive(Debug)]
pub struct Running {
    pub doc: ProcessingDoc,
    /// Per interface: the root-namespace link, its port's index, its MAC.
    pub links: Vec<(String, u16, [u8; 6])>,
    /// Its ssh door through the node, and its host keys.
    pub door: Option<ssh::SshDoor>,
    pub host_keys: Vec<String>,
}

/// Where a node's processing nodes live and what they are called.
#[derive(Debug, Clone)]
pub struct ProcessingPlaces {
    pub runc: Runc,
    /// Bundles and logs, on disk (a root file system is no place for the
    /// node's tmpfs): `/var/lib/prism[-<instance>]/processing/`.
    pub dir: PathBuf,
    /// The saved desired state, beside the networks' (it goes with them
    /// at a reboot): `<state_dir>/processing.json`.
    state_file: PathBuf,
    /// The images a document names without a path (`base`):
    /// `/var/lib/prism[-<instance>]/images/`, each an OCI image layout.
    pub images: PathBuf,
    /// `pn` and the instance's letters.
    pub link_prefix: String,
    /// The node's ports, by index.
    pub ports: Vec<String>,
    /// Where ssh doors listen (`None`: none).
    pub door_ip: Option<std::net::IpAddr>,
}

/// Whether this host can run processing nodes: runc, umoci, Debian's
/// static tini and its seccomp profile.
pub fn tools_present() -> bool {
    let on_path = |p: &str| {
        std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(p).exists()))
    };
    Runc::new("/nonexistent").available()
        && on_path("umoci")
        && Path::new(oci::TINI).exists()
        && Path::new(oci::seccomp::DEBIAN_PROFILE).exists()
}

/// Interface `k`'s MAC of processing node `name` (see [`ProcessingPlaces::mac`]).
pub fn interface_mac(name: &str, k: usize) -> [u8; 6] {
    ProcessingPlaces::mac(name, k)
}

/// FNV-1a of `s`: names a node's links and MACs stably across restarts.
fn fnv(s: &str) -> u32 {
    s.bytes().fold(0x811c_9dc5, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

impl ProcessingPlaces {
    pub fn new(state_dir: &Path, instance_letters: &str, ports: Vec<String>) -> Self {
        let data = match instance_letters {
            "" => PathBuf::from("/var/lib/prism"),
            i => PathBuf::from(format!("/var/lib/prism-{i}")),
        };
        Self {
            runc: Runc::new(state_dir.join("runc")),
            dir: data.join("processing"),
            images: data.join("images"),
            state_file: state_dir.join("processing.json"),
            link_prefix: format!("{LINK_PREFIX}{instance_letters}"),
            ports,
            door_ip: None,
        }
    }

    /// Interface `k`'s root-namespace link of node `name` (at most 13 bytes).
    pub fn link(&self, name: &str, k: usize) -> String {
        format!("{}{:08x}{k}", self.link_prefix, fnv(name))
    }

    /// Interface `k`'s MAC: locally administered, stable for the name.
    pub fn mac(name: &str, k: usize) -> [u8; 6] {
        prism_node_api::processing_mac(name, k)
    }

    fn bundle(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// The links and ports of `doc`, refused if it names a port the node lacks.
    pub fn links_of(&self, doc: &ProcessingDoc) -> Result<Vec<(String, u16, [u8; 6])>, ApiError> {
        (doc.interfaces.iter().enumerate())
            .map(|(k, l)| {
                let port = self
                    .ports
                    .iter()
                    .position(|p| *p == l.port)
                    .ok_or_else(|| {
                        ApiError::invalid(format!("this node has no port `{}`", l.port))
                            .with_field(format!("interfaces[{k}].port"))
                    })?;
                Ok((
                    self.link(&doc.name, k),
                    port as u16,
                    Self::mac(&doc.name, k),
                ))
            })
            .collect()
    }

    /// Starts `doc` as a container (nothing of it left on error).
    pub fn start(&self, doc: &ProcessingDoc) -> Result<Running, RuntimeError> {
        let links = self
            .links_of(doc)
            .map_err(|e| RuntimeError::failed(e.message))?;
        let mut r = Running {
            doc: doc.clone(),
            links,
            door: None,
            host_keys: Vec::new(),
        };
        match self.build(&r) {
            Ok(()) => {
                self.open_door(&mut r);
                Ok(r)
            }
            Err(e) => {
                self.remove(&r);
                Err(RuntimeError::failed(format!(
                    "processing node `{}`: {e}",
                    doc.name
                )))
            }
        }
    }

    fn build(&self, r: &Running) -> std::io::Result<()> {
        let doc = &r.doc;
        let bundle = self.bundle(&doc.name);
        let _ = self.runc.delete(&doc.name);
        let _ = oci::image::unmount_overlay(&bundle);
        let _ = std::fs::remove_dir_all(&bundle);
        make_passable(&self.dir)?;
        let (layout, tag) = self.resolve(&doc.image)?;
        let lower = oci::image::unpack_cached(&layout, &tag, &self.unpacked(), ID_BASE)?;
        make_passable(&bundle)?;
        oci::image::mount_overlay(&lower, &bundle, ID_BASE)?;
        let rootfs = bundle.join("rootfs");
        let keep = self.dir.join(format!("{}.ssh", doc.name));
        ssh::install_host_key(&rootfs, &keep, &doc.name, ID_BASE)?;
        ssh::authorize(&rootfs, &doc.authorized_keys, ID_BASE)?;
        let args = match &doc.command {
            Some(c) => c.clone(),
            None => image_args(&lower)?,
        };
        let config = ContainerConfig {
            hostname: doc.name.clone(),
            rootfs: bundle.join("rootfs"),
            args,
            env: vec!["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin".into()],
            init: Some(oci::TINI.into()),
            limits: Confinement {
                id_base: ID_BASE,
                cpus: doc.cpus,
                memory: doc.memory_mib << 20,
                pids: doc.pids,
                cgroup: format!("/prism-processing/{}", doc.name),
                net_admin: doc.interfaces.iter().any(|l| l.dhcp),
            },
        };
        let profile = Path::new(oci::seccomp::DEBIAN_PROFILE);
        let seccomp = oci::seccomp::load(profile, &oci::kept_caps(config.limits.net_admin))
            .map_err(std::io::Error::other)?;
        let spec = oci::runtime_spec(&config, seccomp).map_err(std::io::Error::other)?;
        oci::save_spec(&bundle, &spec)?;
        let log = self.dir.join(format!("{}.log", doc.name));
        let pid = self.runc.create(&doc.name, &bundle, &log)?;
        delete_namespace_if_there(&doc.name)?;
        netns::attach_namespace(&doc.name, pid)?;
        self.wire(r)?;
        self.runc.start(&doc.name)
    }

    /// Gives the container's namespace its interfaces: veths, MACs,
    /// addresses, the default route.
    fn wire(&self, r: &Running) -> std::io::Result<()> {
        let ns = r.doc.name.as_str();
        for (k, (l, (host, _, mac))) in r.doc.interfaces.iter().zip(&r.links).enumerate() {
            let inner = format!("eth{k}");
            netns::delete_link(host)?;
            netns::create_veth(host, None, &inner, Some(ns))?;
            // The worker reads frames as a wire carries them: a TCP
            // sender's 64 KB super-segments, their checksums left to
            // "hardware", would reach it whole.
            netns::wire_frames_only(None, host)?;
            netns::wire_frames_only(Some(ns), &inner)?;
            netns::ip_in(
                Some(ns),
                &["link", "set", &inner, "address", &netns::format_mac(*mac)],
            )?;
            // A DHCP client inside takes its addresses and route instead.
            for a in l.addresses.iter().filter(|_| !l.dhcp) {
                netns::ip_in(Some(ns), &["addr", "add", a, "dev", &inner])?;
            }
            netns::ip_in(Some(ns), &["link", "set", &inner, "up"])?;
            if let Some(mbps) = l.rate_mbps {
                shape(ns, &inner, mbps)?;
            }
            plug(ns, k, host, l)?;
            if let Some(g) = l.gateway.as_ref().filter(|_| !l.dhcp) {
                netns::ip_in(
                    Some(ns),
                    &["route", "add", "default", "via", g, "dev", &inner],
                )?;
            }
        }
        netns::ip_in(Some(ns), &["link", "set", "lo", "up"]).map(drop)
    }

    /// Reads `r`'s host keys and opens its ssh door (an image with sshd,
    /// a node on TCP); a door that cannot open leaves it without one.
    pub fn open_door(&self, r: &mut Running) {
        r.host_keys = ssh::host_keys(&self.bundle(&r.doc.name).join("rootfs"));
        if let (Some(ip), false) = (self.door_ip, r.host_keys.is_empty()) {
            r.door = ssh::SshDoor::open(ip, &r.doc.name).ok();
        }
    }

    /// Whether `r`'s container runs with every link in place.
    pub fn intact(&self, name: &str, links: &[(String, u16, [u8; 6])]) -> bool {
        let runs = matches!(self.runc.state(name), Ok(Some(s)) if s.status == "running");
        runs && links.iter().all(|(l, _, _)| netns::link_exists(l))
    }

    /// Removes `r`'s container (its processes, cgroups and mounts), its
    /// namespace, links and bundle. Best effort: each piece is tried.
    pub fn remove(&self, r: &Running) -> Vec<String> {
        self.remove_named(&r.doc.name, r.links.iter().map(|(l, _, _)| l.as_str()))
    }

    pub fn remove_named<'a>(
        &self,
        name: &str,
        links: impl Iterator<Item = &'a str>,
    ) -> Vec<String> {
        let mut errors = Vec::new();
        let mut note = |what: &str, r: std::io::Result<()>| {
            if let Err(e) = r {
                errors.push(format!("{name}: {what}: {e}"));
            }
        };
        note("runc delete", self.runc.delete(name));
        note("namespace", delete_namespace_if_there(name));
        for l in links {
            note("link", netns::delete_link(l));
        }
        let _ = std::fs::remove_file(self.dir.join(format!("{name}.log")));
        let _ = std::fs::remove_dir_all(self.dir.join(format!("{name}.ssh")));
        note(
            "root file system",
            oci::image::unmount_overlay(&self.bundle(name)),
        );
        note("bundle", remove_dir_if_there(&self.bundle(name)));
        errors
    }

    /// Removes every container under this node's runc root and every link
    /// with its prefix (`prism cleanup` of a dead instance): what was
    /// removed.
    pub fn remove_all(&self) -> Vec<String> {
        let mut gone = Vec::new();
        for id in self.runc.list().unwrap_or_default() {
            self.remove_named(&id, std::iter::empty());
            gone.push(format!("processing node {id}"));
        }
        for l in netns::links_with_prefix(&self.link_prefix) {
            if netns::delete_link(&l).is_ok() {
                gone.push(format!("link {l}"));
            }
        }
        let _ = std::fs::remove_file(&self.state_file);
        gone.extend(self.remove_all_but_caches());
        gone
    }

    /// Everything in the processing directory but the image store (its
    /// blobs compressed, each named for its digest and written whole or
    /// not at all) and the node's own images unpacked (those of its image
    /// directory, `base`): the next node on this host takes them up rather
    /// than unpacking again (a booking's first seconds). Other unpacked
    /// images (pulled or saved ones, a few hundred MB each) go, and so
    /// does a half-unpacked one.
    fn remove_all_but_caches(&self) -> Vec<String> {
        let (store, unpacked) = (self.store(), self.unpacked());
        let mut gone = Vec::new();
        let entries = |d: &Path| -> Vec<PathBuf> {
            let list = std::fs::read_dir(d).into_iter().flatten().flatten();
            list.map(|e| e.path()).collect()
        };
        for p in entries(&self.dir) {
            if p == store || p == unpacked {
                continue;
            }
            let (removed, kind) = match p.is_dir() {
                true => (remove_dir_if_there(&p), "directory"),
                false => (std::fs::remove_file(&p), "file"),
            };
            if removed.is_ok() {
                gone.push(format!("{kind} {}", p.display()));
            }
        }
        let own = oci::image::layout_digests(&entries(&self.images));
        let kept = |p: &Path| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            let digest = name
                .rsplit_once('-')
                .map_or("", |(d, _)| d)
                .replacen('-', ":", 1);
            p.extension().is_none() && own.contains(&digest)
        };
        for p in entries(&unpacked) {
            if !kept(&p) && remove_dir_if_there(&p).is_ok() {
                gone.push(format!("directory {}", p.display()));
            }
        }
        gone
    }

    /// Saves the state held (0600), for a restarted node.
    pub fn save(&self, held: &Held) -> std::io::Result<()> {
        let state = ProcessingState {
            generation: held.generation,
            scope: held.scope.clone(),
            nodes: held.docs.values().cloned().collect(),
        };
        let json = serde_json::to_vec_pretty(&state).map_err(std::io::Error::other)?;
        crate::saved::write_private(&self.state_file, &json)
    }

    /// The state a previous run saved, if any.
    pub fn load(&self) -> std::io::Result<Option<ProcessingState>> {
        match std::fs::read(self.state_file.clone()) {
            Ok(b) => serde_json::from_slice(&b)
                .map(Some)
                .map_err(std::io::Error::other),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// Interface `k` (`eth{k}`) of container `ns`, its root-namespace link
/// `host`, plugged in or out as `l` has it (the link up or down: the
/// container sees its carrier), its gateway's MAC set if given.
pub(crate) fn plug(ns: &str, k: usize, host: &str, l: &InterfaceDoc) -> std::io::Result<()> {
    let state = if l.unplugged { "down" } else { "up" };
    netns::ip_in(None, &["link", "set", host, state])?;
    if let (Some(g), Some(m)) = (&l.gateway, &l.gateway_mac) {
        let inner = format!("eth{k}");
        let neigh = [
            "neigh",
            "replace",
            g,
            "lladdr",
            m,
            "nud",
            "permanent",
            "dev",
            &inner,
        ];
        netns::ip_in(Some(ns), &neigh)?;
    }
    Ok(())
}

/// Shapes what `inner` (in namespace `ns`) sends to `mbps`: a token
/// bucket that queues (up to 50 ms) rather than drops, so that a TCP
/// sender slows to the rate instead of losing segments to the network's
/// policer. It counts the 4 bytes of VLAN tag the node pushes, which the
/// policer charges, and bursts half the policer's depth (5 ms of the
/// rate, `prism_compile::default_burst` is 10): what it lets out the
/// policer passes, and a late timer costs it no tokens. Out of the container root's reach: it holds no `CAP_NET_ADMIN`
/// (a DHCP node does, and could lift it: the policer still holds then).
fn shape(ns: &str, inner: &str, mbps: u32) -> std::io::Result<()> {
    let rate = format!("{mbps}mbit");
    let burst = (u64::from(mbps) * 1_000_000 / 8 / 50).max(3028).to_string();
    let tc = [
        "netns", "exec", ns, "tc", "qdisc", "replace", "dev", inner, "root", "tbf", "rate", &rate,
        "burst", &burst, "latency", "50ms", "overhead", "4",
    ];
    netns::run("ip", &tc).map(drop)
}

/// The command the image's own configuration runs (umoci's `config.json`).
fn image_args(bundle: &Path) -> std::io::Result<Vec<String>> {
    let args = oci::bundle_args(bundle)?;
    if args.is_empty() {
        return Err(std::io::Error::other(
            "the image names no command: give one",
        ));
    }
    Ok(args)
}

fn delete_namespace_if_there(name: &str) -> std::io::Result<()> {
    match Path::new("/run/netns").join(name).exists() {
        true => netns::delete_namespace(name),
        false => Ok(()),
    }
}

/// Makes `dir` (and its parent) with mode 0711: a container's mapped
/// root passes through to its root file system, and lists nothing.
fn make_passable(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir)?;
    for d in [dir.parent(), Some(dir)].into_iter().flatten() {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o711))?;
    }
    Ok(())
}

fn remove_dir_if_there(p: &Path) -> std::io::Result<()> {
    match std::fs::remove_dir_all(p) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fit_interfaces_and_stay_put_across_restarts() {
        let p = ProcessingPlaces::new(Path::new("/run/prism-ab"), "ab", vec!["p0".into()]);
        let l = p.link("pp-0123456789abcdef0123456789abcdef", 7);
        assert!(l.len() <= 15 && l.starts_with("pnab"), "{l}");
        assert_eq!(l, p.link("pp-0123456789abcdef0123456789abcdef", 7));
        assert_ne!(p.link("pp-a", 0), p.link("pp-b", 0));
        let m = ProcessingPlaces::mac("pp-a", 1);
        assert_eq!((m[0] & 1, m[0] & 2, m[5]), (0, 2, 1), "unicast, local");
    }

    #[test]
    fn a_dead_nodes_cleanup_keeps_its_image_store_and_its_own_images_unpacked() {
        let root = std::env::temp_dir().join(format!("prism-places-{}", std::process::id()));
        let mut p = ProcessingPlaces::new(&root.join("run"), "zz", Vec::new());
        (p.dir, p.images) = (root.join("processing"), root.join("images"));
        let index = r#"{"manifests": [{"digest": "sha256:aa"}]}"#;
        let layout = p.images.join("base");
        std::fs::create_dir_all(&layout).unwrap();
        std::fs::write(layout.join("index.json"), index).unwrap();
        let unpacked = p.unpacked();
        let dirs = [
            "sha256-aa-100000",
            "sha256-aa-100000.partial",
            "sha256-bb-100000",
        ];
        for d in dirs
            .iter()
            .map(|d| unpacked.join(d))
            .chain([p.store(), p.dir.join("pp-x")])
        {
            std::fs::create_dir_all(d.join("rootfs")).unwrap();
        }
        std::fs::write(p.dir.join("storage-ca.pem"), "pem").unwrap();
        let gone = p.remove_all_but_caches();
        let left: Vec<String> = (std::fs::read_dir(&p.dir).unwrap().flatten())
            .chain(std::fs::read_dir(&unpacked).unwrap().flatten())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        let _ = std::fs::remove_dir_all(&root);
        let mut left = left;
        left.sort();
        assert_eq!(left, ["images", "sha256-aa-100000", "store"], "{gone:?}");
        assert_eq!(gone.len(), 4, "{gone:?}");
    }
}
