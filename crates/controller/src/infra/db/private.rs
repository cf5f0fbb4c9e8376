//! An SQLite database file kept private: it holds Argon2id hashes and
//! token digests, so it, its write-ahead log and its shared-memory index
//! are made mode 0600 (SQLite gives the `-wal` and `-shm` files the
//! database file's own mode when it creates them), and a database that
//! others can read is refused at start unless the operator says it may be
//! (`--allow-readable-db`).

use crate::error::{Error, Result};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The file an SQLite target names (a path, or an `sqlite:` URL with a
/// path), if it names one (not `:memory:`).
pub(crate) fn sqlite_file(target: &str) -> Option<PathBuf> {
    if target.starts_with("postgres://") || target.starts_with("postgresql://") {
        return None;
    }
    let path = match target.strip_prefix("sqlite:") {
        Some(rest) => {
            let rest = rest.strip_prefix("//").unwrap_or(rest);
            rest.split('?').next().unwrap_or("")
        }
        None => target,
    };
    (!path.is_empty() && !path.contains(":memory:")).then(|| PathBuf::from(path))
}

/// Makes directory `d` (and its parents) if missing, mode 0700 for those
/// it makes.
pub(crate) fn create_dir(d: &Path) -> Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(d)
        .map_err(|e| Error::internal(format!("creating {}: {e}", d.display())))
}

/// Creates `file` mode 0600 if it does not exist (before SQLite does, with
/// the process's umask); refuses it, its `-wal` or its `-shm` if another
/// user may read or write them, unless `allow_readable`.
pub(crate) fn prepare(file: &Path, allow_readable: bool) -> Result<()> {
    let made = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(file);
    match made {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(Error::internal(format!("creating {}: {e}", file.display()))),
    }
    if allow_readable {
        return Ok(());
    }
    for f in [
        file.to_path_buf(),
        suffixed(file, "-wal"),
        suffixed(file, "-shm"),
    ] {
        let mode = match std::fs::metadata(&f) {
            Ok(m) => m.permissions().mode() & 0o777,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::internal(format!("{}: {e}", f.display()))),
        };
        if mode & 0o077 != 0 {
            return Err(Error::invalid(format!(
                "{} is mode {mode:04o}: others may read the controller's password hashes and \
                 token digests; `chmod 600 {}*` (or start with --allow-readable-db)",
                f.display(),
                file.display()
            )));
        }
    }
    Ok(())
}

fn suffixed(file: &Path, suffix: &str) -> PathBuf {
    let mut s = file.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_an_sqlite_target_names() {
        let f = |t: &str| sqlite_file(t).map(|p| p.display().to_string());
        assert_eq!(f("/var/lib/p.db").as_deref(), Some("/var/lib/p.db"));
        assert_eq!(f("sqlite:///x/c.db?mode=rwc").as_deref(), Some("/x/c.db"));
        assert_eq!(f("sqlite:c.db").as_deref(), Some("c.db"));
        assert_eq!(f("sqlite::memory:"), None);
        assert_eq!(f("postgres://u@h/db"), None);
    }
}
