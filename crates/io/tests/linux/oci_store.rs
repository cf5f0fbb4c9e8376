//! The node's image store: blobs taken in only when their bytes hash to
//! their names (fetched with curl, here from `file://` URLs), and a
//! container's root file system saved by umoci as one layer over its
//! image, without the booking's keys (root, umoci and the Debian base
//! image: each missing says so, and fails under PRISM_REQUIRE_ROOT).

use prism_io::oci::{image, store};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::process::Command;

const BASE: &str = "/var/lib/prism/images/base";
const ID_BASE: u32 = 1 << 20;

fn blob_of(bytes: &[u8]) -> store::Blob {
    store::Blob {
        digest: format!("sha256:{:x}", Sha256::digest(bytes)),
        size: bytes.len() as u64,
    }
}

fn file_url(p: &Path) -> String {
    format!("file://{}", p.display())
}

const T: store::Transfer<'static> = store::Transfer {
    ca: None,
    stall: std::time::Duration::from_secs(2),
};

#[test]
fn a_blob_is_taken_in_only_when_its_bytes_hash_to_its_name() {
    let tmp = prism_testkit::TempDir::new("oci-store");
    let at = tmp.path().join("store");
    store::open(&at).unwrap();
    let src = tmp.path().join("layer");
    std::fs::write(&src, b"the layer's bytes").unwrap();
    let good = blob_of(b"the layer's bytes");
    assert!(store::fetch(&at, &good, &file_url(&src), T).unwrap());
    assert!(
        !store::fetch(&at, &good, "file:///nonexistent", T).unwrap(),
        "a blob held is not fetched again"
    );
    // Another blob's name, the same length: refused, nothing kept.
    let liar = blob_of(b"the LAYER's bytes");
    let e = store::fetch(&at, &liar, &file_url(&src), T).unwrap_err();
    assert!(e.to_string().contains("digest mismatch"), "{e}");
    // Longer than said (a truncated upload's image): refused too.
    let short = store::Blob {
        size: good.size + 10,
        digest: liar.digest.clone(),
    };
    let e = store::fetch(&at, &short, &file_url(&src), T).unwrap_err();
    assert!(e.to_string().contains("bytes where"), "{e}");
    let left: Vec<_> = std::fs::read_dir(at.join("blobs/sha256"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, vec![store::hex_of(&good.digest).unwrap()], "{left:?}");
    // A name that is no digest is refused before any I/O.
    let bad = store::Blob {
        digest: "sha256:../../etc/passwd".into(),
        size: 1,
    };
    assert!(store::fetch(&at, &bad, &file_url(&src), T).is_err());
}

#[test]
fn a_server_that_hangs_is_given_up_and_leaves_nothing() {
    let tmp = prism_testkit::TempDir::new("oci-store-hang");
    let at = tmp.path().join("store");
    store::open(&at).unwrap();
    // Accepts, reads the request, never answers.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/blob", listener.local_addr().unwrap());
    let held = std::thread::spawn(move || {
        let (mut c, _) = listener.accept().unwrap();
        let mut buf = [0u8; 1024];
        let _ = std::io::Read::read(&mut c, &mut buf);
        std::thread::sleep(std::time::Duration::from_secs(6));
    });
    let started = std::time::Instant::now();
    let e = store::fetch(&at, &blob_of(b"never sent"), &url, T).unwrap_err();
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(5), "{took:?}: {e}");
    let left = std::fs::read_dir(at.join("blobs/sha256")).unwrap().count();
    assert_eq!(left, 0, "nothing kept of it");
    held.join().unwrap();
}

fn layer_files(store_dir: &Path, layer: &store::Blob) -> String {
    let out = Command::new("tar")
        .arg("-tzf")
        .arg(store::blob_path(store_dir, &layer.digest).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_root_file_system_saved_is_one_layer_over_its_image_without_the_bookings_keys() {
    if !prism_testkit::root("saving an image") {
        return;
    }
    let present = Path::new(BASE).join("index.json").exists();
    let what = "umoci and the Debian base image (scripts/build-base-image, run by CI's setup)";
    if !prism_testkit::gates::prerequisite("saving an image", what, present, "PRISM_REQUIRE_ROOT") {
        return;
    }
    let tmp = prism_testkit::TempDir::new("oci-save");
    std::fs::set_permissions(
        tmp.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o711),
    )
    .unwrap();
    let at = tmp.path().join("store");
    let base = store::import(&at, Path::new(BASE), "latest").unwrap();
    let lower = image::unpack_cached(
        &at,
        &store::tag_of(&base.digest).unwrap(),
        &tmp.path().join("cache"),
        ID_BASE,
    )
    .unwrap();
    let bundle = tmp.path().join("c1");
    image::mount_overlay(&lower, &bundle, ID_BASE).unwrap();
    let root = bundle.join("rootfs");
    for (f, text) in [
        ("root/made-here", "hello"),
        ("etc/ssh/ssh_host_ed25519_key", "secret"),
        ("root/.ssh/authorized_keys", "ssh-ed25519 AAAA"),
    ] {
        std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
        std::fs::write(root.join(f), text).unwrap();
        std::os::unix::fs::chown(root.join(f), Some(ID_BASE), Some(ID_BASE)).unwrap();
    }
    let saved = image::save(
        &at,
        &lower,
        &root,
        &tmp.path().join("work"),
        &["/etc/ssh/ssh_host_ed25519_key", "/root/.ssh"],
    );
    let _ = image::unmount_overlay(&bundle);
    let saved = saved.unwrap();
    let under = store::manifest_blobs(&at, &base.digest).unwrap();
    let over = store::manifest_blobs(&at, &saved.digest).unwrap();
    assert_eq!(over.len(), under.len() + 1, "one layer more: {over:?}");
    assert_eq!(
        over[1..under.len()],
        under[1..],
        "the base's layers, as they were"
    );
    let files = layer_files(&at, over.last().unwrap());
    assert!(
        files
            .lines()
            .any(|l| l.trim_end_matches('/') == "root/made-here"),
        "{files}"
    );
    assert!(!files.contains("ssh_host_ed25519_key"), "{files}");
    assert!(!files.contains("authorized_keys"), "{files}");
    // What the store holds is what its names say.
    for b in over.iter().chain([&saved]) {
        store::verify(&store::blob_path(&at, &b.digest).unwrap(), b).unwrap();
    }
}
