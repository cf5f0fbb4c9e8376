//! A client's saved session (`prism ctl login`): the controller, the
//! token and its project, kept in a file only its owner can read.

use crate::client::{AddressError, ClientError, ControllerClient};
use crate::identity::LoginRequest;
use serde::{Deserialize, Serialize};
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// What `prism ctl login` keeps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub controller: String,
    /// The CA file the controller's certificate was checked against at
    /// login (`--ca`), used again by every later command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca: Option<PathBuf>,
    pub token: String,
    #[serde(default)]
    pub project: Option<String>,
    pub expires_ms: i64,
}

/// The controller a command speaks to, the CA it checks it against and
/// the token it sends.
#[derive(Debug, Clone, PartialEq)]
pub struct Where {
    pub controller: String,
    pub ca: Option<PathBuf>,
    pub token: Option<String>,
}

impl Where {
    /// The controller given, else `$PRISM_CONTROLLER`, else the session's,
    /// else `default`; the CA given, else `$PRISM_CA`, else the session's
    /// when it is that controller's; the token `$PRISM_TOKEN`, else the
    /// session's.
    pub fn resolve(
        controller: Option<&str>,
        ca: Option<&Path>,
        default: &str,
        session: Option<&Session>,
    ) -> Self {
        let controller = controller
            .map(str::to_string)
            .or_else(|| std::env::var("PRISM_CONTROLLER").ok())
            .or_else(|| session.map(|s| s.controller.clone()))
            .unwrap_or_else(|| default.into());
        let ca = ca
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os("PRISM_CA").map(PathBuf::from))
            .or_else(|| {
                let s = session?;
                (s.controller == controller).then(|| s.ca.clone()).flatten()
            });
        let token = std::env::var("PRISM_TOKEN")
            .ok()
            .or_else(|| session.map(|s| s.token.clone()));
        Self {
            controller,
            ca,
            token,
        }
    }
}

/// Why `prism ctl login` did not leave a session.
#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    #[error(transparent)]
    Refused(#[from] ClientError),
    #[error(transparent)]
    Address(#[from] AddressError),
    #[error("saving the session in {}: {source}", path.display())]
    Save {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Logs in at `controller` (checked against `ca` when it is `https://`)
/// and saves the session (the token, its project and expiry), readable by
/// its owner only.
/// [`login`], and what to tell the user: where, as whom, in which
/// project, and where the token is kept.
pub async fn login_said(
    controller: &str,
    ca: Option<&Path>,
    r: &LoginRequest,
) -> Result<String, LoginError> {
    let s = login(controller, ca, r).await?;
    let project = s.project.map(|p| format!(" (project {p})"));
    Ok(format!(
        "logged in to {controller} as {}{}; token saved in {}",
        r.user,
        project.unwrap_or_default(),
        path().display()
    ))
}

pub async fn login(
    controller: &str,
    ca: Option<&Path>,
    r: &LoginRequest,
) -> Result<Session, LoginError> {
    let t = ControllerClient::connect(controller, None, ca)?
        .login(r)
        .await?;
    let s = Session {
        controller: controller.to_string(),
        ca: ca.map(Path::to_path_buf),
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
