//! A node's image store: one OCI image layout holding every image the
//! node has pulled from the storage service or saved from a processing
//! node, each tagged by its manifest's digest (`sha256-<hex>`). Blobs are
//! content-addressed: one is taken in only once its bytes hash to its
//! name and its length is the one asked, so an image is pulled once per
//! node and a blob altered in the storage service is refused, never run.
//! Transfers go through `curl` to the URLs the controller signed (the
//! node holds no storage key).

use sha2::{Digest, Sha256};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The media type of the manifests umoci writes.
pub const MANIFEST_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";

/// A blob by its digest (`sha256:<64 hex>`) and length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blob {
    pub digest: String,
    pub size: u64,
}

/// The hex of `sha256:<64 lowercase hex>`, or an error naming it.
pub fn hex_of(digest: &str) -> io::Result<&str> {
    match digest.strip_prefix("sha256:") {
        Some(h) if h.len() == 64 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) => {
            Ok(h)
        }
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("`{digest}` is not a digest (sha256: and 64 lowercase hex digits)"),
        )),
    }
}

/// The tag an image of manifest `digest` has in a store.
pub fn tag_of(digest: &str) -> io::Result<String> {
    Ok(format!("sha256-{}", hex_of(digest)?))
}

/// Where blob `digest` lives in layout `layout`.
pub fn blob_path(layout: &Path, digest: &str) -> io::Result<PathBuf> {
    Ok(layout.join("blobs/sha256").join(hex_of(digest)?))
}

/// Makes `store` an empty image layout if it is not one yet.
pub fn open(store: &Path) -> io::Result<()> {
    std::fs::create_dir_all(store.join("blobs/sha256"))?;
    if !store.join("oci-layout").exists() {
        write_atomic(store, "oci-layout", br#"{"imageLayoutVersion":"1.0.0"}"#)?;
    }
    if !store.join("index.json").exists() {
        write_atomic(
            store,
            "index.json",
            br#"{"schemaVersion":2,"manifests":[]}"#,
        )?;
    }
    Ok(())
}

fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> io::Result<()> {
    let partial = dir.join(format!("{name}.partial"));
    let mut f = std::fs::File::create(&partial)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    std::fs::rename(&partial, dir.join(name))
}

/// Checks that file `path` is blob `b`: its length, then its SHA-256.
pub fn verify(path: &Path, b: &Blob) -> io::Result<()> {
    let len = std::fs::metadata(path)?.len();
    if len != b.size {
        return Err(io::Error::other(format!(
            "blob {}: {len} bytes where {} were expected",
            b.digest, b.size
        )));
    }
    let mut h = Sha256::new();
    io::copy(&mut std::fs::File::open(path)?, &mut h)?;
    let got = format!("sha256:{:x}", h.finalize());
    if got != b.digest {
        return Err(io::Error::other(format!(
            "blob {}: its bytes hash to {got} (digest mismatch: refused)",
            b.digest
        )));
    }
    Ok(())
}

/// How a transfer reaches its server: `ca`, the PEM file the server is
/// checked against (else the system's roots); `stall`, how long it may
/// move nothing (a server that accepts and never answers, or stops
/// half-way) before it is given up, so that a hung peer never holds the
/// node.
#[derive(Debug, Clone, Copy)]
pub struct Transfer<'a> {
    pub ca: Option<&'a Path>,
    pub stall: std::time::Duration,
}

/// Fetches blob `b` into `store` from `url` unless it is there, checked
/// before it is taken in (a refused one leaves nothing).
pub fn fetch(store: &Path, b: &Blob, url: &str, t: Transfer<'_>) -> io::Result<bool> {
    let done = blob_path(store, &b.digest)?;
    if done.exists() {
        return Ok(false);
    }
    let partial = done.with_extension("partial");
    let _ = std::fs::remove_file(&partial);
    let out = curl(
        &[
            "--max-filesize".as_ref(),
            b.size.max(1).to_string().as_ref(),
            "--output".as_ref(),
            partial.as_os_str(),
        ],
        url,
        t,
    )
    .and_then(|()| verify(&partial, b));
    match out {
        Ok(()) => std::fs::rename(&partial, &done).map(|()| true),
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            Err(e)
        }
    }
}

/// Uploads blob `digest` of `store` to `url` (a signed PUT).
pub fn push(store: &Path, digest: &str, url: &str, t: Transfer<'_>) -> io::Result<u64> {
    let path = blob_path(store, digest)?;
    let len = std::fs::metadata(&path)
        .map_err(|e| io::Error::new(e.kind(), format!("blob {digest}: {e}")))?
        .len();
    curl(&["--upload-file".as_ref(), path.as_os_str()], url, t)?;
    Ok(len)
}

/// Runs curl on `url` with `args`; the URL goes through its standard
/// input (a signed URL is a credential: no other user sees it in `ps`).
fn curl(args: &[&std::ffi::OsStr], url: &str, t: Transfer<'_>) -> io::Result<()> {
    if url.contains(['"', '\\', '\n']) {
        return Err(io::Error::other("a URL with a quote, backslash or newline"));
    }
    let mut c = Command::new("curl");
    let stall = t.stall.as_secs().max(1).to_string();
    c.args(["--fail", "--silent", "--show-error"])
        .args([
            "--connect-timeout",
            &stall,
            "--speed-limit",
            "1",
            "--speed-time",
            &stall,
        ])
        .args(["--config", "-"])
        .args(args);
    if let Some(ca) = t.ca {
        c.arg("--cacert").arg(ca);
    }
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| io::Error::new(e.kind(), format!("curl: {e}")))?;
    let mut stdin = child.stdin.take().expect("piped");
    writeln!(stdin, "url = \"{url}\"")?;
    drop(stdin);
    let out = child.wait_with_output()?;
    match out.status.success() {
        true => Ok(()),
        false => Err(io::Error::other(format!(
            "{}: {}",
            url.split('?').next().unwrap_or(url),
            String::from_utf8_lossy(&out.stderr).trim()
        ))),
    }
}

/// The config and layers manifest `digest` of `layout` names.
pub fn manifest_blobs(layout: &Path, digest: &str) -> io::Result<Vec<Blob>> {
    let bytes = std::fs::read(blob_path(layout, digest)?)?;
    let v: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| io::Error::other(format!("manifest {digest}: {e}")))?;
    let config = std::iter::once(&v["config"]);
    let layers = v["layers"].as_array().into_iter().flatten();
    config
        .chain(layers)
        .map(|d| match (d["digest"].as_str(), d["size"].as_u64()) {
            (Some(digest), Some(size)) => Ok(Blob {
                digest: digest.to_string(),
                size,
            }),
            _ => Err(io::Error::other(format!(
                "manifest {digest}: a descriptor without digest or size"
            ))),
        })
        .collect()
}

/// Tags manifest `m` of `store` as `tag` (one tag, one manifest).
pub fn set_tag(store: &Path, tag: &str, m: &Blob) -> io::Result<()> {
    let mut index = read_index(store)?;
    let list = index["manifests"]
        .as_array_mut()
        .ok_or_else(|| io::Error::other("index.json without manifests"))?;
    list.retain(|e| e["annotations"]["org.opencontainers.image.ref.name"] != tag);
    list.push(serde_json::json!({
        "mediaType": MANIFEST_TYPE,
        "digest": m.digest,
        "size": m.size,
        "annotations": {"org.opencontainers.image.ref.name": tag},
    }));
    let bytes = serde_json::to_vec(&index).map_err(io::Error::other)?;
    write_atomic(store, "index.json", &bytes)
}

fn read_index(store: &Path) -> io::Result<serde_json::Value> {
    let bytes = std::fs::read(store.join("index.json"))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| io::Error::other(format!("{}/index.json: {e}", store.display())))
}

/// The manifest tagged `tag` in `layout`.
pub fn tagged(layout: &Path, tag: &str) -> io::Result<Blob> {
    let index = read_index(layout)?;
    (index["manifests"].as_array().into_iter().flatten())
        .find(|m| m["annotations"]["org.opencontainers.image.ref.name"] == tag)
        .and_then(|m| {
            Some(Blob {
                digest: m["digest"].as_str()?.to_string(),
                size: m["size"].as_u64()?,
            })
        })
        .ok_or_else(|| io::Error::other(format!("{} has no tag `{tag}`", layout.display())))
}

/// Brings image `layout:tag` into `store` (its blobs linked, or copied
/// across file systems) under its digest's tag: its manifest.
pub fn import(store: &Path, layout: &Path, tag: &str) -> io::Result<Blob> {
    open(store)?;
    let m = tagged(layout, tag)?;
    let mut all = manifest_blobs(layout, &m.digest)?;
    all.push(m.clone());
    for b in &all {
        let to = blob_path(store, &b.digest)?;
        if !to.exists() {
            let from = blob_path(layout, &b.digest)?;
            let partial = to.with_extension("partial");
            let _ = std::fs::remove_file(&partial);
            if std::fs::hard_link(&from, &partial).is_err() {
                std::fs::copy(&from, &partial)?;
            }
            verify(&partial, b)?;
            std::fs::rename(&partial, &to)?;
        }
    }
    set_tag(store, &tag_of(&m.digest)?, &m)?;
    Ok(m)
}
