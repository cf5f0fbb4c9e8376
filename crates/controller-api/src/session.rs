//! A client's saved session (`prism ctl login`): the controller, the
//! token and its project, kept in a file only its owner can read.

use crate::client::{ClientError, ControllerClient};
use crate::identity::LoginRequest;
use serde::{Deserialize, Serialize};
use std::io::BufRead;
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

/// Why `prism ctl login` did not leave a session.
#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    #[error(transparent)]
    Refused(#[from] ClientError),
    #[error("saving the session in {}: {source}", path.display())]
    Save {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Logs in at `controller` and saves the session (the token, its project
/// and expiry), readable by its owner only.
pub async fn login(controller: &str, r: &LoginRequest) -> Result<Session, LoginError> {
    let t = ControllerClient::new(controller, None).login(r).await?;
    let s = Session {
        controller: controller.to_string(),
        token: t.token,
        project: t.project,
        expires_ms: t.expires_ms,
    };
    save(&s).map_err(|source| LoginError::Save {
        path: path(),
        source,
    })?;
    Ok(s)
}

/// A secret from `$PRISM_PASSWORD` or one line of stdin: never from the
/// command line, where `ps` shows it.
pub fn read_secret() -> std::io::Result<String> {
    if let Ok(p) = std::env::var("PRISM_PASSWORD") {
        return Ok(p);
    }
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    let p = line.trim_end_matches(['\n', '\r']).to_string();
    if p.is_empty() {
        return Err(std::io::Error::other(
            "no password: give it on stdin (one line) or in $PRISM_PASSWORD",
        ));
    }
    Ok(p)
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
