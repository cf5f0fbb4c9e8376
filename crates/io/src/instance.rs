//! One node per state directory: an exclusive `flock` on
//! `<state dir>/instance.lock`, held for the life of the process. The
//! kernel releases it when the process ends however it ends (`kill -9`
//! included), so a lock that can be taken means whatever carries the
//! directory's names belongs to a dead instance and may be cleaned up.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub struct InstanceLock {
    file: File,
    path: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "{path} is held by a running instance (pid {pid}): a second node on the same state directory would remove its containers; stop it first, or give this one other names"
    )]
    Held { path: String, pid: String },
    #[error("{path}: {source}")]
    Io { path: String, source: io::Error },
}

impl InstanceLock {
    /// Takes the lock of `dir` (creating both), or says who holds it.
    pub fn acquire(dir: &Path) -> Result<Self, LockError> {
        let path = dir.join("instance.lock");
        let io_err = |source| LockError::Io {
            path: path.display().to_string(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(io_err)?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io_err)?;
        // SAFETY: `file` is an open descriptor for the whole call; flock
        // only reads its arguments.
        let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if r != 0 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
                let mut pid = String::new();
                let _ = file.read_to_string(&mut pid);
                return Err(LockError::Held {
                    path: path.display().to_string(),
                    pid: pid.trim().to_string(),
                });
            }
            return Err(io_err(e));
        }
        file.set_len(0).map_err(io_err)?;
        file.rewind().map_err(io_err)?;
        writeln!(file, "{}", std::process::id()).map_err(io_err)?;
        Ok(Self { file, path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for InstanceLock {
    fn drop(&mut self) {
        // Closing the descriptor releases the lock; an empty file says so.
        let _ = self.file.set_len(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_until_the_first_lets_go() {
        let dir = std::env::temp_dir().join(format!("prism-lock-{}", std::process::id()));
        let a = InstanceLock::acquire(&dir).unwrap();
        // flock locks belong to open file descriptions: a second open in
        // the same process conflicts just as another process would.
        match InstanceLock::acquire(&dir) {
            Err(LockError::Held { pid, .. }) => assert_eq!(pid, std::process::id().to_string()),
            other => panic!("{other:?}"),
        }
        drop(a);
        let b = InstanceLock::acquire(&dir).unwrap();
        drop(b);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
