//! The node's desired state on disk: every network's document as the API
//! last accepted it, with the scenario the node started from, in
//! `<state dir>/desired.json`, replaced atomically (write, then rename) at
//! every change, each unchanged document's JSON reused ([`Fragments`]). A
//! node started again on the same, unchanged scenario restores those
//! networks instead of the scenario's: a restart, or a `kill -9`, loses
//! nothing the API was told. When the controller of the
//! control plane exists, it is the source of truth and this is its cache.

use prism_netdoc::NetworkDoc;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::{BTreeMap, HashMap};
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

/// Writes `text` (a [`SavedState`] as JSON) so that a reader sees the old
/// state or the new one, whole.
pub fn store(state_dir: &Path, text: &[u8]) -> std::io::Result<()> {
    write_private(&path(state_dir), text)
}

/// Writes `text` to `p` whole or not at all (a file beside it, synced,
/// then renamed over it), readable by root only: a network's document
/// may hold its cipher's key.
pub fn write_private(p: &Path, text: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let tmp = p.with_extension("json.new");
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)?;
    f.write_all(text)?;
    f.sync_all()?;
    std::fs::rename(&tmp, p)
}

/// Each network's document as last written, with its JSON: a state is
/// written with only the documents that changed serialised again
/// (serialising every one at every change was most of what a change cost a
/// node of 1,024 networks).
#[derive(Debug, Default)]
pub struct Fragments(HashMap<String, (NetworkDoc, Box<RawValue>)>);

/// [`SavedState`] as written: each document's JSON as kept.
#[derive(Serialize)]
struct Written<'a> {
    generation: u64,
    desired_generation: u64,
    scenario_text: &'a str,
    networks: Vec<&'a RawValue>,
}

impl Fragments {
    /// A [`SavedState`] of `docs` as JSON, as `serde_json` writes it.
    pub fn render(
        &mut self,
        generation: u64,
        desired_generation: u64,
        scenario_text: &str,
        docs: &BTreeMap<String, NetworkDoc>,
    ) -> Result<Vec<u8>, serde_json::Error> {
        self.0.retain(|name, _| docs.contains_key(name));
        for (name, doc) in docs {
            if self.0.get(name).is_none_or(|(was, _)| was != doc) {
                let json = serde_json::value::to_raw_value(doc)?;
                self.0.insert(name.clone(), (doc.clone(), json));
            }
        }
        let networks = docs.keys().map(|name| &*self.0[name].1).collect();
        let written = Written {
            generation,
            desired_generation,
            scenario_text,
            networks,
        };
        let mut out = serde_json::to_vec(&written)?;
        out.push(b'\n');
        Ok(out)
    }
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
        let mut fragments = Fragments::default();
        let by_name = |s: &SavedState| -> BTreeMap<String, NetworkDoc> {
            s.networks
                .iter()
                .map(|d| (d.name.clone(), d.clone()))
                .collect()
        };
        let render = |f: &mut Fragments, s: &SavedState| {
            f.render(
                s.generation,
                s.desired_generation,
                &s.scenario_text,
                &by_name(s),
            )
            .unwrap()
        };
        store(&dir, &render(&mut fragments, &s)).unwrap();
        assert_eq!(load(&dir), Ok(Some(s)));
        std::fs::write(path(&dir), b"{\"generation\": 1}").unwrap();
        assert!(load(&dir).unwrap_err().contains("desired.json"));
        forget(&dir).unwrap();
        forget(&dir).unwrap();
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// What the fragments write is what `serde_json` writes for the whole
    /// state, after documents change, go and come: a fragment kept for a
    /// document that changed would differ.
    #[test]
    fn fragments_write_what_serde_writes_as_documents_change() {
        let doc = |name: &str, kind: &str| -> NetworkDoc {
            let text = format!(
                r#"{{"name": "{name}", "tier": "software", "forwarding": "source", "router": {{"kind": "{kind}"}}}}"#
            );
            prism_netdoc::from_json(text.as_bytes()).unwrap()
        };
        let mut fragments = Fragments::default();
        let mut docs: BTreeMap<String, NetworkDoc> = ["a", "b", "c"]
            .iter()
            .map(|n| (n.to_string(), doc(n, "kernel")))
            .collect();
        for step in 0..3 {
            match step {
                1 => {
                    docs.insert("b".into(), doc("b", "prism"));
                    docs.remove("a");
                }
                2 => {
                    docs.insert("a".into(), doc("a", "prism"));
                }
                _ => {}
            }
            let text = fragments.render(step, 9, "x = \"y\"\n", &docs).unwrap();
            let whole = SavedState {
                generation: step,
                desired_generation: 9,
                scenario_text: "x = \"y\"\n".into(),
                networks: docs.values().cloned().collect(),
            };
            let want = serde_json::to_string(&whole).unwrap() + "\n";
            assert_eq!(String::from_utf8(text).unwrap(), want, "step {step}");
        }
    }
}
