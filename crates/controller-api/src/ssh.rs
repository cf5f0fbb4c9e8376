//! `prism ctl ssh BOOKING`: OpenSSH's client pointed at a processing
//! node's door through its node, checking the booking's own host keys
//! (from the API) on the first connection: no key is trusted on first
//! use, and a node that answers with another key is refused.

use crate::bookings::Booking;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What is wrong with going in.
#[derive(Debug, thiserror::Error)]
pub enum SshError {
    #[error(
        "booking {0} has no ssh door (not a processing node, not ready, or its image runs no sshd)"
    )]
    NoDoor(String),
    #[error("booking {0}'s node reported no host key: its first connection could not be checked")]
    NoHostKey(String),
    #[error("writing {path}: {source}")]
    KnownHosts {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Client(Box<crate::ClientError>),
    #[error("running ssh (apt install openssh-client): {0}")]
    Run(std::io::Error),
}

impl From<crate::ClientError> for SshError {
    fn from(e: crate::ClientError) -> Self {
        Self::Client(Box::new(e))
    }
}

/// The `known_hosts` line of `b`'s door: `[host]:port KEY`.
pub fn known_hosts(b: &Booking) -> Result<String, SshError> {
    let at = b
        .ssh
        .as_deref()
        .ok_or_else(|| SshError::NoDoor(b.name.clone()))?;
    if b.host_keys.is_empty() {
        return Err(SshError::NoHostKey(b.name.clone()));
    }
    let (host, port) = at.rsplit_once(':').unwrap_or((at, "22"));
    let name = format!("[{host}]:{port}");
    Ok(b.host_keys
        .iter()
        .map(|k| format!("{name} {k}\n"))
        .collect())
}

/// OpenSSH's `ssh` as root to `b`, its known hosts written to
/// `dir/known_hosts-<booking id>` (0600), `identity` as its key if given,
/// then `args` (options, a command).
pub fn command(
    b: &Booking,
    dir: &Path,
    identity: Option<&Path>,
    args: &[String],
) -> Result<Command, SshError> {
    let line = known_hosts(b)?;
    let at = b.ssh.as_deref().unwrap_or_default();
    let (host, port) = at.rsplit_once(':').unwrap_or((at, "22"));
    let file = dir.join(format!("known_hosts-{}", b.id));
    crate::session::write_private(&file, &line).map_err(|source| SshError::KnownHosts {
        path: file.clone(),
        source,
    })?;
    let mut c = Command::new("ssh");
    c.arg("-o")
        .arg(format!("UserKnownHostsFile={}", file.display()))
        .args([
            "-o",
            "StrictHostKeyChecking=yes",
            "-o",
            "GlobalKnownHostsFile=/dev/null",
        ])
        .args(["-p", port]);
    if let Some(i) = identity {
        c.arg("-i").arg(i).args(["-o", "IdentitiesOnly=yes"]);
    }
    c.arg(format!("root@{host}")).args(args);
    Ok(c)
}

/// Runs `ssh` to project `project`'s live booking `key` (its id or
/// name), its known hosts kept beside the session file; ssh's status.
pub async fn run(
    c: &crate::ControllerClient,
    project: &str,
    key: &str,
    identity: Option<&Path>,
    args: &[String],
) -> Result<i32, SshError> {
    let b = c.live_booking(project, key).await?;
    let dir = crate::session::path().with_file_name("known_hosts");
    std::fs::create_dir_all(&dir).map_err(|source| SshError::KnownHosts {
        path: dir.clone(),
        source,
    })?;
    let status = command(&b, &dir, identity, args)?
        .status()
        .map_err(SshError::Run)?;
    Ok(status.code().unwrap_or(255))
}
