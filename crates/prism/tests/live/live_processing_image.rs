//! Images a researcher makes (VANI §2.2): a processing node booked from
//! the node's busybox image, a file written inside it, then `prism ctl
//! image save` (the node repacks its file system as one layer with
//! umoci and uploads the blobs the project's bucket lacks to URLs the
//! controller signed) and `image list`; a node that lacks the image
//! (its store emptied) pulls it from the storage service, checked blob by
//! blob, and the file is there; a blob altered in the bucket (same
//! length, other bytes) is refused at the next pull, the booking failed
//! and nothing of the blob kept.

use crate::common::*;
use crate::live_processing::tools_present;
use crate::live_processing_booked::{
    BusyboxLan, INSTANCE, book_processing, booking_state, free_port, prism, prism_ok, wait_until,
};
use prism_io::oci::runc::Runc;
use std::path::Path;
use std::process::Command;

const STORE: &str = "/var/lib/prism-pr/processing/store";

fn book(dir: &Path, name: &str, image: &str, address: &str) -> String {
    let v = book_processing(dir, name, (image, "lan"), address, &[]);
    v["id"].as_str().unwrap().to_string()
}

/// Waits for booking `id` to be ready (`true`) or failed (`false`).
fn settled(dir: &Path, id: &str) -> bool {
    let mut last = String::new();
    wait_until(dir, &format!("booking {id} ready or failed"), 60, || {
        last = booking_state(dir, id);
        last == "provisioned/ready" || last.ends_with("failed")
    });
    last == "provisioned/ready"
}

fn exec(id: &str, script: &str) -> String {
    let runc = Runc::new(format!("/run/prism-{INSTANCE}/runc"));
    let out = runc
        .exec(&format!("pp-{id}"), &["/bin/busybox", "sh", "-c", script])
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn an_image_saved_from_a_processing_node_is_pulled_checked_and_run_elsewhere() {
    if !root_or_skip("images saved and pulled") || !tools_present("images saved and pulled") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let storage = prism_testkit::TempDir::new("processing-image-storage");
    let (storage_at, objects, key_file) = (
        format!("127.0.0.1:{}", free_port()),
        storage.path().join("objects"),
        storage.path().join("storage.key"),
    );
    let extra = [
        "--storage-listen",
        &storage_at,
        "--storage",
        objects.to_str().unwrap(),
        "--storage-key-file",
        key_file.to_str().unwrap(),
    ];
    let bed = BusyboxLan::new("processing-image", &extra);
    let dir = bed.dir();
    let vm = book(dir, "vm", "busybox", "10.7.1.2/24");
    assert!(
        settled(dir, &vm),
        "{}",
        prism_ok(dir, &["ctl", "status", &vm])
    );
    exec(&vm, "echo made-here > /made-here");

    let saved: serde_json::Value =
        serde_json::from_str(&prism_ok(dir, &["ctl", "image", "save", "vm", "mine"])).unwrap();
    let digest = saved["digest"].as_str().unwrap().to_string();
    assert!(
        digest.starts_with("sha256:") && saved["layers"] == 2,
        "{saved:#}"
    );
    let list = prism_ok(dir, &["ctl", "image", "list"]);
    assert!(
        list.contains("\"use_as\": \"mine\"") && list.contains(&digest),
        "{list}"
    );
    let again = prism(dir, &["ctl", "image", "save", "vm", "mine"]);
    assert!(!again.status.success(), "a name taken: refused");

    // A node without it pulls it, every blob checked.
    std::fs::remove_dir_all(STORE).unwrap();
    let vm2 = book(dir, "vm2", "mine", "10.7.1.3/24");
    assert!(
        settled(dir, &vm2),
        "{}",
        prism_ok(dir, &["ctl", "status", &vm2])
    );
    assert_eq!(exec(&vm2, "cat /made-here"), "made-here");
    let log = std::fs::read_to_string(dir.join("node.log")).unwrap();
    assert!(log.contains("blobs pulled, each checked"), "{log}");

    // Its top layer altered in the bucket, same length: refused.
    let manifest = std::fs::read(store_blob(&digest)).unwrap();
    let manifest: serde_json::Value = serde_json::from_slice(&manifest).unwrap();
    let top = &manifest["layers"][1];
    let (layer, size) = (
        top["digest"].as_str().unwrap(),
        top["size"].as_u64().unwrap(),
    );
    let key = format!("prism-images/sha256/{}", &layer[7..]);
    let url: serde_json::Value =
        serde_json::from_str(&prism_ok(dir, &["ctl", "storage", "url", &key, "--put"])).unwrap();
    let garbage = dir.join("garbage");
    std::fs::write(&garbage, vec![b'x'; size as usize]).unwrap();
    let put = Command::new("curl")
        .args(["--fail", "--silent", "--show-error", "--upload-file"])
        .arg(&garbage)
        .arg(url["url"].as_str().unwrap())
        .output()
        .unwrap();
    assert!(put.status.success(), "{put:?}");
    std::fs::remove_dir_all(STORE).unwrap();
    let vm3 = book(dir, "vm3", "mine", "10.7.1.4/24");
    assert!(!settled(dir, &vm3), "an altered blob ran");
    let status = prism_ok(dir, &["ctl", "status", &vm3]);
    let log = std::fs::read_to_string(dir.join("node.log")).unwrap();
    assert!(
        status.contains("digest mismatch") || log.contains("digest mismatch"),
        "{status}\n{log}"
    );
    assert!(!store_blob(layer).exists(), "the altered blob was kept");
    let blobs = std::fs::read_dir(Path::new(STORE).join("blobs/sha256")).unwrap();
    for b in blobs {
        let name = b.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.ends_with(".partial"), "{name} left half");
    }
}

fn store_blob(digest: &str) -> std::path::PathBuf {
    Path::new(STORE).join("blobs/sha256").join(&digest[7..])
}
