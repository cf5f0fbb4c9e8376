//! OCI images (image-layout directories) unpacked into runtime bundles
//! with Debian's `umoci`, every file's owner shifted into the container's
//! id range so that root inside owns its root file system and no host user
//! does.

use std::io;
use std::path::Path;
use std::process::{Command, Stdio};

/// Unpacks `layout:tag` into `bundle` (which must not exist): its
/// `rootfs/` owned by ids from `id_base`, and umoci's own `config.json`
/// (replaced by the caller's). Every directory above `bundle` must let
/// others pass (mode `o+x`).
pub fn unpack(layout: &Path, tag: &str, bundle: &Path, id_base: u32) -> io::Result<()> {
    let map = format!("0:{id_base}:{}", super::ID_RANGE);
    let out = Command::new("umoci")
        .arg("unpack")
        .arg("--uid-map")
        .arg(&map)
        .arg("--gid-map")
        .arg(&map)
        .arg("--image")
        .arg(format!("{}:{tag}", layout.display()))
        .arg(bundle)
        .stdin(Stdio::null())
        .output()?;
    if out.status.success() {
        // umoci makes the bundle 0700; the mapped root must pass through
        // it to mount its root file system (and only that: 0711).
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(bundle, std::fs::Permissions::from_mode(0o711))
    } else {
        let _ = std::fs::remove_dir_all(bundle);
        Err(io::Error::other(format!(
            "umoci unpack {}:{tag}: {}",
            layout.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

/// The manifest digest (`sha256:…`) tag `tag` names in image layout
/// `layout` (its `index.json`).
pub fn manifest_digest(layout: &Path, tag: &str) -> io::Result<String> {
    let index = std::fs::read(layout.join("index.json"))
        .map_err(|e| io::Error::new(e.kind(), format!("{}/index.json: {e}", layout.display())))?;
    let v: serde_json::Value = serde_json::from_slice(&index).map_err(io::Error::other)?;
    (v["manifests"].as_array().into_iter().flatten())
        .find(|m| m["annotations"]["org.opencontainers.image.ref.name"] == tag)
        .and_then(|m| m["digest"].as_str())
        .map(str::to_string)
        .ok_or_else(|| io::Error::other(format!("{} has no tag `{tag}`", layout.display())))
}

/// Every manifest digest the index of each of `layouts` names (a
/// layout without a readable index names none).
pub fn layout_digests(layouts: &[std::path::PathBuf]) -> Vec<String> {
    let mut out = Vec::new();
    for l in layouts {
        let Ok(index) = std::fs::read(l.join("index.json")) else {
            continue;
        };
        let v: serde_json::Value = serde_json::from_slice(&index).unwrap_or_default();
        let named = (v["manifests"].as_array().into_iter().flatten())
            .filter_map(|m| m["digest"].as_str().map(str::to_string));
        out.extend(named);
    }
    out
}

/// `layout:tag` unpacked once into `cache` (per manifest digest and id
/// range), read-only beneath each container's own writable layer: the
/// unpacked bundle (`rootfs/`, umoci's `config.json`). An unpack cut
/// short leaves nothing that is taken for done.
pub fn unpack_cached(
    layout: &Path,
    tag: &str,
    cache: &Path,
    id_base: u32,
) -> io::Result<std::path::PathBuf> {
    let digest = manifest_digest(layout, tag)?;
    let name = format!("{}-{id_base}", digest.replace(':', "-"));
    let done = cache.join(&name);
    if done.join("config.json").exists() {
        return Ok(done);
    }
    std::fs::create_dir_all(cache)?;
    let partial = cache.join(format!("{name}.partial"));
    let _ = std::fs::remove_dir_all(&partial);
    unpack(layout, tag, &partial, id_base)?;
    std::fs::rename(&partial, &done)?;
    Ok(done)
}

/// Mounts `lower/rootfs` (read-only, shared) under `bundle/upper` (the
/// container's own writes, owned by its root `id_base`) at
/// `bundle/rootfs` (overlayfs).
pub fn mount_overlay(lower: &Path, bundle: &Path, id_base: u32) -> io::Result<()> {
    let (upper, work, root) = (
        bundle.join("upper"),
        bundle.join("work"),
        bundle.join("rootfs"),
    );
    for d in [&upper, &work, &root] {
        std::fs::create_dir_all(d)?;
    }
    // The upper layer's root takes the lower root's mode and owner.
    std::os::unix::fs::chown(&upper, Some(id_base), Some(id_base))?;
    let options = format!(
        "lowerdir={},upperdir={},workdir={}",
        lower.join("rootfs").display(),
        upper.display(),
        work.display()
    );
    let out = Command::new("mount")
        .args(["-t", "overlay", "overlay", "-o", &options])
        .arg(&root)
        .output()?;
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "mount overlay at {}: {}",
            root.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(())
}

/// Unmounts `bundle/rootfs` if it is mounted (lazily: a process still
/// inside lets go of it when it ends).
pub fn unmount_overlay(bundle: &Path) -> io::Result<()> {
    let root = bundle.join("rootfs");
    let mounted = std::fs::read_to_string("/proc/self/mountinfo")
        .unwrap_or_default()
        .lines()
        .any(|l| l.split_whitespace().nth(4) == Some(&*root.to_string_lossy()));
    if !mounted {
        return Ok(());
    }
    let out = Command::new("umount").arg("-l").arg(&root).output()?;
    match out.status.success() {
        true => Ok(()),
        false => Err(io::Error::other(format!(
            "umount {}: {}",
            root.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))),
    }
}

/// Saves what a running container's root file system (`rootfs`, its
/// overlay as the node sees it) adds to its image as a new image in
/// `store`, one layer above it: umoci repacks `lower` (the cached unpack
/// the container runs on, its image already in `store`) against that
/// root, in a bundle made in `work`. Paths under `masks` are left out
/// (the booking's host keys and authorized keys are no part of an
/// image). The new image's manifest.
pub fn save(
    store: &Path,
    lower: &Path,
    rootfs: &Path,
    work: &Path,
    masks: &[&str],
) -> io::Result<super::store::Blob> {
    let _ = unmount(&work.join("rootfs"));
    let _ = std::fs::remove_dir_all(work);
    std::fs::create_dir_all(work.join("rootfs"))?;
    for e in std::fs::read_dir(lower)? {
        let name = e?.file_name();
        let n = name.to_string_lossy();
        if n == "umoci.json" || n.ends_with(".mtree") {
            std::fs::copy(lower.join(&name), work.join(&name))?;
        }
    }
    let bound = Command::new("mount")
        .args(["--bind", "-o", "ro"])
        .arg(rootfs)
        .arg(work.join("rootfs"))
        .output()?;
    if !bound.status.success() {
        return Err(io::Error::other(format!(
            "mount --bind {}: {}",
            rootfs.display(),
            String::from_utf8_lossy(&bound.stderr).trim()
        )));
    }
    let made = repack(store, work, masks);
    let _ = unmount(&work.join("rootfs"));
    let _ = std::fs::remove_dir_all(work);
    made
}

fn repack(store: &Path, work: &Path, masks: &[&str]) -> io::Result<super::store::Blob> {
    let tag = "saving";
    let mut c = Command::new("umoci");
    c.arg("repack")
        .arg("--image")
        .arg(format!("{}:{tag}", store.display()))
        .args(["--history.created_by", "prism ctl image save"]);
    for m in masks {
        c.args(["--mask-path", m]);
    }
    let out = c.arg(work).stdin(Stdio::null()).output()?;
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "umoci repack: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let m = super::store::tagged(store, tag)?;
    super::store::set_tag(store, &super::store::tag_of(&m.digest)?, &m)?;
    Ok(m)
}

fn unmount(at: &Path) -> io::Result<()> {
    let out = Command::new("umount").arg(at).output()?;
    match out.status.success() {
        true => Ok(()),
        false => Err(io::Error::other(
            String::from_utf8_lossy(&out.stderr).to_string(),
        )),
    }
}
