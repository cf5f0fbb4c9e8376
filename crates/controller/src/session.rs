//! A client's saved session (`prism ctl login`): the controller, the
//! token and its project, kept in a file only its owner can read.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What `prism ctl login` keeps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub controller: String,
    pub token: String,
    #[serde(default)]
    pub project: Option<String>,
    pub expires_ms: i64,
}

/// `$PRISM_CONFIG_DIR/session.json`, else `~/.config/prism/session.json`.
pub fn path() -> PathBuf {
    if let Some(d) = std::env::var_os("PRISM_CONFIG_DIR") {
        return PathBuf::from(d).join("session.json");
    }
    let home = std::env::var_os("HOME").unwrap_or_else(|| "/root".into());
    PathBuf::from(home).join(".config/prism/session.json")
}

/// The saved session, if there is one that reads.
pub fn load() -> Option<Session> {
    serde_json::from_slice(&std::fs::read(path()).ok()?).ok()
}

/// Saves `s`, readable by its owner only.
pub fn save(s: &Session) -> std::io::Result<()> {
    let p = path();
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d)?;
    }
    let text = serde_json::to_string_pretty(s).map_err(std::io::Error::other)?;
    write_private(&p, &text)
}

/// Writes a secret to `path`, readable by its owner only (also when the
/// file was there before with another mode).
pub fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    f.write_all(text.as_bytes())
}
