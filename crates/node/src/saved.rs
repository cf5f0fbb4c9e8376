//! The node's desired state on disk: every network's document as the API
//! last accepted it, with the scenario the node started from, in
//! `<state dir>/desired.json`, replaced atomically (write, then rename) at
//! every change. A node started again on the same, unchanged scenario
//! restores those networks instead of the scenario's: a restart, or a
//! `kill -9`, loses nothing the API was told. When the controller of the
//! control plane exists, it is the source of truth and this is its cache.

use prism_netdoc::NetworkDoc;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedState {
    /// Of the desired state: one more for every change applied.
    pub generation: u64,
    /// The control plane's generation last accepted (`PUT /v1/desired`).
    #[serde(default)]
    pub desired_generation: u64,
    /// The scenario file's text the node started from.
    pub scenario_text: String,
    pub networks: Vec<NetworkDoc>,
}

pub fn path(state_dir: &Path) -> PathBuf {
    state_dir.join("desired.json")
}

/// [`SavedState`] as written: the documents borrowed, not copied (a node
/// of 1,024 networks copied them all for every change it saved).
#[derive(Debug, Serialize)]
pub struct SavedStateRef<'a> {
    pub generation: u64,
    pub desired_generation: u64,
    pub scenario_text: &'a str,
    pub networks: Vec<&'a NetworkDoc>,
}

/// Writes `s` so that a reader sees the old state or the new one, whole.
pub fn store(state_dir: &Path, s: &SavedStateRef<'_>) -> std::io::Result<()> {
    let p = path(state_dir);
    let tmp = p.with_extension("json.new");
    let text = serde_json::to_vec_pretty(s).map_err(std::io::Error::other)?;
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&text)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, &p)
}

/// The saved state, if there is one (`Err` names the file if it does not read).
pub fn load(state_dir: &Path) -> Result<Option<SavedState>, String> {
    let p = path(state_dir);
    match std::fs::read(&p) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", p.display())),
        Ok(bytes) => prism_netdoc::from_json(&bytes)
            .map(Some)
            .map_err(|e| format!("{}: {e}", p.display())),
    }
}

/// Forgets the saved state (a node started with `--fresh`).
pub fn forget(state_dir: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path(state_dir)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_state_reads_back_whole() {
        let dir = std::env::temp_dir().join(format!("prism-saved-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(load(&dir), Ok(None));
        let doc: NetworkDoc = prism_netdoc::from_json(
            br#"{"name": "n", "tier": "software", "forwarding": "source", "router": {"kind": "kernel"}}"#,
        )
        .unwrap();
        let s = SavedState {
            generation: 7,
            desired_generation: 3,
            scenario_text: "[[port]]\nname = \"a\"\n".into(),
            networks: vec![doc],
        };
        let written = SavedStateRef {
            generation: s.generation,
            desired_generation: s.desired_generation,
            scenario_text: &s.scenario_text,
            networks: s.networks.iter().collect(),
        };
        store(&dir, &written).unwrap();
        assert_eq!(load(&dir), Ok(Some(s)));
        std::fs::write(path(&dir), b"{\"generation\": 1}").unwrap();
        assert!(load(&dir).unwrap_err().contains("desired.json"));
        forget(&dir).unwrap();
        forget(&dir).unwrap();
        std::fs::remove_dir_all(dir).unwrap();
    }
}
