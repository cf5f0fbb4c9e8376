//! What each crate links, as cargo resolves it for `cargo build -p CRATE`
//! (`cargo tree`), not as its manifest reads: the layers of
//! docs/architecture.md hold in the graph that is built.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The packages `cargo build -p pkg` links (normal dependencies, at every
/// depth; `depth` 1: its own), by name.
fn linked(pkg: &str, depth: Option<u32>) -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut args = vec![
        "tree".to_string(),
        "--offline".into(),
        "-p".into(),
        pkg.into(),
        "-e".into(),
        "normal".into(),
        "--prefix".into(),
        "none".into(),
        "--format".into(),
        "{p}".into(),
    ];
    if let Some(d) = depth {
        args.extend(["--depth".into(), d.to_string()]);
    }
    let out = Command::new(env!("CARGO"))
        .args(&args)
        .current_dir(&root)
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p {pkg}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != pkg)
        .map(str::to_string)
        .collect()
}

/// The network document builds with its layer only (packets' addresses,
/// the tiers' names): no pipeline, no table, no server, no database, no
/// crypto (a client of the API, or a tool that checks spec files, needs
/// only it).
#[test]
fn the_document_links_no_pipeline_server_or_crypto() {
    let got = linked("prism-netdoc", None);
    let banned = [
        "prism-pipeline",
        "prism-tables",
        "axum",
        "sqlx",
        "ring",
        "rustls",
        "tokio",
    ];
    let found: Vec<&str> = banned.into_iter().filter(|b| got.contains(*b)).collect();
    assert!(found.is_empty(), "prism-netdoc links {found:?}");
    assert!(got.contains("prism-wire"), "{got:?}");
}

/// The node API (its bodies, trait, spec and client) links no pipeline:
/// a client of a node builds without the data plane; the node converts
/// its counters and traces into the API's own (`prism_node::api_views`).
#[test]
fn the_node_api_links_no_pipeline() {
    let got = linked("prism-node-api", None);
    for banned in ["prism-pipeline", "prism-tables", "prism-compile", "sqlx"] {
        assert!(!got.contains(banned), "prism-node-api links {banned}");
    }
}

/// What uses `dep` directly in `cargo build -p pkg`'s graph.
fn users_of(pkg: &str, dep: &str) -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(env!("CARGO"))
        .args(["tree", "--offline", "-p", pkg, "-e", "normal", "-i", dep])
        .args(["--depth", "1", "--prefix", "none", "--format", "{p}"])
        .current_dir(&root)
        .output()
        .expect("cargo tree runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != dep)
        .map(str::to_string)
        .collect()
}

/// A client of either API builds without the data plane, a web server, a
/// database or a certificate maker; *ring* only as rustls's provider (the
/// client's HTTPS).
#[test]
fn the_api_clients_link_no_pipeline_server_or_database() {
    for pkg in ["prism-controller-api", "prism-node-api"] {
        let got = linked(pkg, None);
        for banned in [
            "prism-pipeline",
            "prism-tables",
            "axum",
            "sqlx",
            "rcgen",
            "argon2",
        ] {
            assert!(!got.contains(banned), "{pkg} links {banned}");
        }
        let ring: Vec<String> = users_of(pkg, "ring")
            .into_iter()
            .filter(|u| !u.starts_with("rustls"))
            .collect();
        assert!(ring.is_empty(), "{pkg}: ring used by {ring:?}");
    }
}

/// The workspace's layers, ground first (docs/architecture.md): a crate
/// may use its own layer's and earlier layers' crates, never a later one's.
const LAYERS: &[&[&str]] = &[
    &[
        "prism-netdoc",
        "prism-wire",
        "prism-http",
        "prism-placement",
        "prism-storage",
        "prism-program",
    ],
    &["prism-tables"],
    &["prism-pipeline", "prism-compile", "prism-io"],
    &["prism-node-api", "prism-controller-api"],
    &["prism-node", "prism-testkit"],
    &["prism-controller"],
    &["prism-lab", "prism-peers"],
    &["prism"],
];

fn layer_of(name: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&name))
}

#[test]
fn no_crate_uses_a_later_layer() {
    let mut wrong = Vec::new();
    for (i, layer) in LAYERS.iter().enumerate() {
        for pkg in *layer {
            for dep in linked(pkg, Some(1)) {
                if layer_of(&dep).is_some_and(|j| j > i) {
                    wrong.push(format!("{pkg} (layer {i}) uses {dep}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every workspace crate is in a layer.
#[test]
fn every_crate_has_a_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut missing = Vec::new();
    for e in std::fs::read_dir(root).unwrap().flatten() {
        let manifest = e.path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        let name = text
            .lines()
            .find_map(|l| l.strip_prefix("name = \""))
            .map(|n| n.trim_end_matches('"').to_string())
            .unwrap_or_default();
        if layer_of(&name).is_none() {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "crates in no layer: {missing:?}");
}

/// docs/architecture.md's table says what each crate uses: its last column
/// lists the Prism crates each links directly, as `cargo tree` finds them.
#[test]
fn the_architecture_doc_names_each_crates_dependencies() {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/architecture.md");
    let text = std::fs::read_to_string(&doc).unwrap();
    let mut wrong = Vec::new();
    let mut seen = 0;
    for line in text.lines().filter(|l| l.starts_with("| `prism")) {
        let cells: Vec<&str> = line.split(" | ").collect();
        let Some(pkg) = cells[0].trim_start_matches("| ").split('`').nth(1) else {
            continue;
        };
        let said: BTreeSet<String> = cells
            .last()
            .unwrap()
            .trim_end_matches(" |")
            .split(", ")
            .map(str::trim)
            .filter(|d| !d.is_empty() && *d != "—")
            .map(|d| format!("prism-{d}"))
            .collect();
        let linked: BTreeSet<String> = linked(pkg, Some(1))
            .into_iter()
            .filter(|d| layer_of(d).is_some())
            .collect();
        if said != linked {
            wrong.push(format!(
                "{pkg}: the doc says {said:?}, cargo links {linked:?}"
            ));
        }
        seen += 1;
    }
    assert!(seen >= 15, "only {seen} crates in the table");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
