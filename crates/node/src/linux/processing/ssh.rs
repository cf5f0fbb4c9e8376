//! A processing node's ssh door: a TCP port on the node's management
//! address whose connections the node carries to port 22 inside the
//! container's network namespace (the jump through the node that
//! `prism ctl ssh` takes), and the booking's own host key, made on the
//! node and never sent anywhere but its public half.

use prism_io::netns;
use std::io;
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// An open door; closed when dropped (its connections end with their peers).
#[derive(Debug)]
pub struct SshDoor {
    pub at: SocketAddr,
    stop: Arc<AtomicBool>,
}

impl Drop for SshDoor {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl SshDoor {
    /// Listens on `ip` (a port the kernel chooses) for namespace `ns`'s sshd.
    pub fn open(ip: IpAddr, ns: &str) -> io::Result<Self> {
        let listener = TcpListener::bind((ip, 0))?;
        listener.set_nonblocking(true)?;
        let at = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let (flag, ns) = (stop.clone(), ns.to_string());
        std::thread::Builder::new()
            .name(format!("ssh-{ns}"))
            .spawn(move || accept_until(listener, &ns, &flag))?;
        Ok(Self { at, stop })
    }
}

fn accept_until(listener: TcpListener, ns: &str, stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        match listener.accept() {
            Ok((client, _)) => {
                let ns = ns.to_string();
                let _ = std::thread::Builder::new()
                    .name(format!("ssh-{ns}"))
                    .spawn(move || carry(client, &ns));
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// Connects to the container's port 22 (from inside its namespace) and
/// copies both ways until either side closes.
fn carry(client: TcpStream, ns: &str) {
    let _ = client.set_nonblocking(false);
    let inner = netns::in_namespace(ns, || {
        let to: SocketAddr = ([127, 0, 0, 1], 22).into();
        TcpStream::connect_timeout(&to, Duration::from_secs(5))
    });
    let Ok(inner) = inner else {
        let _ = client.shutdown(Shutdown::Both);
        return;
    };
    let (Ok(mut c2), Ok(mut i2)) = (client.try_clone(), inner.try_clone()) else {
        return;
    };
    let up = std::thread::spawn(move || {
        let _ = io::copy(&mut c2, &mut i2);
        let _ = i2.shutdown(Shutdown::Write);
    });
    let (mut c, mut i) = (client, inner);
    let _ = io::copy(&mut i, &mut c);
    let _ = c.shutdown(Shutdown::Write);
    let _ = up.join();
}

/// Gives root file system `rootfs` (an image with `/etc/ssh`) the
/// booking's ed25519 host key, owned by the container's root (`id_base`
/// on the node): made once in `keep` (the node's, 0700), so that it
/// stays the booking's through restarts; none for an image without sshd.
pub fn install_host_key(rootfs: &Path, keep: &Path, name: &str, id_base: u32) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = rootfs.join("etc/ssh");
    if !dir.is_dir() {
        return Ok(());
    }
    let made = keep.join("ssh_host_ed25519_key");
    if !made.exists() {
        let _ = std::fs::remove_dir_all(keep);
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(keep)?;
        let out = std::process::Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "", "-C", name, "-f"])
            .arg(&made)
            .output()?;
        if !out.status.success() {
            return Err(io::Error::other(format!(
                "ssh-keygen: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
    }
    for f in ["ssh_host_ed25519_key", "ssh_host_ed25519_key.pub"] {
        let to = dir.join(f);
        let _ = std::fs::remove_file(&to);
        std::fs::copy(keep.join(f), &to)?;
        std::os::unix::fs::chown(&to, Some(id_base), Some(id_base))?;
    }
    Ok(())
}

/// The public host keys in `rootfs` (`ssh-ed25519 AAAA…`).
pub fn host_keys(rootfs: &Path) -> Vec<String> {
    let pub_key = rootfs.join("etc/ssh/ssh_host_ed25519_key.pub");
    std::fs::read_to_string(pub_key)
        .map(|k| {
            let mut w = k.split_whitespace();
            match (w.next(), w.next()) {
                (Some(t), Some(b)) => vec![format!("{t} {b}")],
                _ => Vec::new(),
            }
        })
        .unwrap_or_default()
}

/// Writes `keys` as root's `authorized_keys` in `rootfs`, owned by the
/// container's root.
pub fn authorize(rootfs: &Path, keys: &[String], id_base: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if keys.is_empty() {
        return Ok(());
    }
    let dir = rootfs.join("root/.ssh");
    std::fs::create_dir_all(&dir)?;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
    let file = dir.join("authorized_keys");
    std::fs::write(&file, keys.join("\n") + "\n")?;
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))?;
    for p in [&dir, &file] {
        std::os::unix::fs::chown(p, Some(id_base), Some(id_base))?;
    }
    Ok(())
}
