//! Debian's `runc`, driven by its command line (the OCI runtime's
//! interface): run a bundle detached, ask its state, run a command inside,
//! and delete it with everything it holds (processes, cgroups, mounts).
//!
//! Its state lives under a root of Prism's own (`--root`), so that `runc
//! list` there names only Prism's containers, and a node restarted after
//! `kill -9` finds the ones it started.

use serde::Deserialize;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A runc with its state under `root`.
#[derive(Debug, Clone)]
pub struct Runc {
    root: PathBuf,
    program: PathBuf,
}

/// What `runc state` says of a container.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct State {
    pub id: String,
    /// `created`, `running`, `paused` or `stopped`.
    pub status: String,
    /// The first process's pid on the host (0 once stopped).
    #[serde(default)]
    pub pid: u32,
    pub bundle: PathBuf,
}

fn failed(what: &str, out: &Output) -> io::Error {
    io::Error::other(format!(
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    ))
}

impl Runc {
    /// The runc on `PATH` (or `/usr/sbin/runc`), its state under `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        let program = ["/usr/sbin/runc", "/usr/bin/runc"]
            .iter()
            .map(PathBuf::from)
            .find(|p| p.exists())
            .unwrap_or_else(|| PathBuf::from("runc"));
        Self {
            root: root.into(),
            program,
        }
    }

    /// Whether the runtime can be run at all.
    pub fn available(&self) -> bool {
        Command::new(&self.program)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        c.arg("--root").arg(&self.root);
        c
    }

    fn run(&self, what: &str, args: &[&str]) -> io::Result<Output> {
        let out = self.command().args(args).stdin(Stdio::null()).output()?;
        if out.status.success() {
            Ok(out)
        } else {
            Err(failed(what, &out))
        }
    }

    /// Creates container `id` from the bundle at `bundle` (its
    /// `config.json` and root file system): its namespaces and cgroups are
    /// made and its first process waits, so that the node can give it its
    /// network before [`Runc::start`]. Returns the waiting process's pid.
    /// The process's output goes to `log` (appended).
    pub fn create(&self, id: &str, bundle: &Path, log: &Path) -> io::Result<u32> {
        let out = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)?;
        let status = self
            .command()
            .args(["create", "--bundle"])
            .arg(bundle)
            .arg(id)
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out)
            .status()?;
        if !status.success() {
            let tail = std::fs::read_to_string(log).unwrap_or_default();
            let tail: Vec<&str> = tail.lines().rev().take(3).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            return Err(io::Error::other(format!(
                "runc create {id}: {status}: {}",
                tail.join(" / ")
            )));
        }
        match self.state(id)? {
            Some(s) if s.pid > 0 => Ok(s.pid),
            s => Err(io::Error::other(format!("runc create {id}: then {s:?}"))),
        }
    }

    /// Runs the first process of created container `id`.
    pub fn start(&self, id: &str) -> io::Result<()> {
        self.run(&format!("runc start {id}"), &["start", id])
            .map(drop)
    }

    /// Freezes every process of container `id` (its cgroup's freezer).
    pub fn pause(&self, id: &str) -> io::Result<()> {
        self.run(&format!("runc pause {id}"), &["pause", id])
            .map(drop)
    }

    /// Thaws container `id` after [`Runc::pause`].
    pub fn resume(&self, id: &str) -> io::Result<()> {
        self.run(&format!("runc resume {id}"), &["resume", id])
            .map(drop)
    }

    /// The container's state, or `None` if runc knows no container `id`.
    pub fn state(&self, id: &str) -> io::Result<Option<State>> {
        let out = self.command().args(["state", id]).output()?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            if err.contains("does not exist") {
                return Ok(None);
            }
            return Err(failed(&format!("runc state {id}"), &out));
        }
        serde_json::from_slice(&out.stdout)
            .map(Some)
            .map_err(|e| io::Error::other(format!("runc state {id}: {e}")))
    }

    /// The containers under this root.
    pub fn list(&self) -> io::Result<Vec<String>> {
        let out = self.run("runc list", &["list", "--quiet"])?;
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect())
    }

    /// Runs `args` inside container `id` (as its root, confined as its
    /// first process is) and returns what it printed and its status,
    /// whatever the status.
    pub fn exec(&self, id: &str, args: &[&str]) -> io::Result<Output> {
        self.command()
            .args(["exec", id])
            .args(args)
            .stdin(Stdio::null())
            .output()
    }

    /// Kills every process of container `id` and removes its state and
    /// cgroups. A container runc does not know is no error.
    pub fn delete(&self, id: &str) -> io::Result<()> {
        let out = self.command().args(["delete", "--force", id]).output()?;
        let err = String::from_utf8_lossy(&out.stderr);
        if out.status.success() || err.contains("does not exist") {
            Ok(())
        } else {
            Err(failed(&format!("runc delete {id}"), &out))
        }
    }
}
