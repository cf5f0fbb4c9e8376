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
