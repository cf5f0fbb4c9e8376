//! Faults on a live node: its state directory full (a small tmpfs over
//! it): a change is refused (`storage_full`, nothing changed), the
//! networks it holds go on forwarding, and a node killed then started
//! again has what it was last told, not the refused change.

use crate::common::*;
use std::process::Command;

/// A tmpfs of `kib` KiB over `dir`, unmounted when dropped.
struct Tmpfs(&'static str);

impl Tmpfs {
    fn over(dir: &'static str, kib: u32) -> Self {
        let _ = Command::new("umount").arg(dir).status();
        std::fs::create_dir_all(dir).unwrap();
        ok(&[
            "mount",
            "-t",
            "tmpfs",
            "-o",
            &format!("size={kib}k,mode=0700"),
            "tmpfs",
            dir,
        ]);
        Self(dir)
    }

    /// Fills it with a file grown until the disk refuses more.
    fn fill(&self) -> std::path::PathBuf {
        use std::io::Write;
        let p = std::path::Path::new(self.0).join("filler");
        let mut f = std::fs::File::create(&p).unwrap();
        while f.write_all(&[0u8; 4096]).is_ok() {}
        p
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0).status();
    }
}

/// The rate limit `prism ctl networks` shows for network `name`.
fn rate_of(socket: &str, name: &str) -> Option<u64> {
    let out = ok(&[PRISM, "ctl", "--socket", socket, "networks"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let n = v.as_array()?.iter().find(|n| n["name"] == name)?;
    n["rate_bps"].as_u64()
}

#[test]
fn a_full_state_directory_refuses_changes_while_the_networks_go_on() {
    if !root_or_skip("full state directory") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _t = Topology::build();
    const DIR: &str = "/run/prism-fs";
    let disk = Tmpfs::over(DIR, 1024);
    let socket = "/run/prism-fs/node.sock";
    let args = ["--instance", "fs", "--api", socket];
    let mut fresh = vec!["--fresh"];
    fresh.extend(args);
    let node = start_node_args("full", &scenario(), &fresh);
    // The data plane forwards before the API listens: wait for both.
    wait_for_api_at(socket, 20);
    wait_for_ping("pte0a", 10);
    wait_for_ping("pte1a", 10);
    // A change saved while there is room.
    ok(&[
        PRISM,
        "ctl",
        "--socket",
        socket,
        "rate-limit",
        "hw",
        "50Mbit",
    ]);
    assert_eq!(rate_of(socket, "hw"), Some(50_000_000));
    let filler = disk.fill();
    let o = sh(&[
        PRISM,
        "ctl",
        "--socket",
        socket,
        "rate-limit",
        "hw",
        "10Mbit",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success(),
        "a change with no room to save it was taken"
    );
    assert!(err.contains("no room to save"), "{err}");
    assert_eq!(rate_of(socket, "hw"), Some(50_000_000), "nothing changed");
    // The data plane goes on: every ping through hardware and software.
    assert!(pings("pte0a", 5), "the hardware network stopped forwarding");
    assert!(pings("pte1a", 5), "the software network stopped forwarding");
    // Killed and started again (the disk still full): what it was last
    // told, not the refused change.
    let mut node = node;
    node.0.kill().unwrap();
    node.0.wait().unwrap();
    let node = start_node_args("full", &scenario(), &args);
    wait_for_api_at(socket, 20);
    wait_for_ping("pte0a", 10);
    assert_eq!(
        rate_of(socket, "hw"),
        Some(50_000_000),
        "the saved state restored"
    );
    std::fs::remove_file(filler).unwrap();
    // Room again: changes are taken.
    ok(&[
        PRISM,
        "ctl",
        "--socket",
        socket,
        "rate-limit",
        "hw",
        "10Mbit",
    ]);
    assert_eq!(rate_of(socket, "hw"), Some(10_000_000));
    stop_node(node);
}
