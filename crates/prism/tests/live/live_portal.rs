//! `prism demo --controller --portal` as a person would use it: the demo
//! left running with real frames through real nodes, the portal opened in
//! Debian's headless Chromium (`portal_demo.py`, Playwright) at the address
//! and with the login the demo printed, then Ctrl-C to the demo's process
//! group as a terminal sends it: everything released and removed. Needs
//! root and the Playwright environment (`scripts/ensure-sdk.sh`).

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Kills the demo's process group if the test ends early.
struct Demo(Child);

impl Drop for Demo {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            interrupt(&self.0);
            let _ = self.0.wait();
        }
    }
}

/// Ctrl-C, as a terminal sends it: to the whole process group.
fn interrupt(child: &Child) {
    let _ = Command::new("kill")
        .args(["-INT", "--", &format!("-{}", child.id())])
        .status();
}

#[test]
fn the_portal_shows_the_demos_real_traffic_and_ctrl_c_leaves_nothing() {
    if !crate::common::root_or_skip("live_portal") {
        return;
    }
    let gate = prism_testkit::gates::sdk_program;
    let (Some(python), Some(chromium)) = (
        gate("live_portal", "PRISM_PORTAL_PYTHON"),
        gate("live_portal", "PRISM_CHROMIUM"),
    ) else {
        return;
    };
    let _g = crate::common::SERIAL
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let mut demo = Demo(
        Command::new(env!("CARGO_BIN_EXE_prism"))
            .args(["demo", "--controller", "--portal"])
            .process_group(0)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    );
    let mut lines = BufReader::new(demo.0.stdout.take().unwrap()).lines();
    let (mut url, mut password, mut said) = (String::new(), String::new(), String::new());
    let start = Instant::now();
    for line in lines.by_ref() {
        let line = line.unwrap();
        said.push_str(&line);
        said.push('\n');
        if let Some(u) = line.strip_prefix("portal: https://") {
            url = format!("https://{u}");
        }
        if let Some((_, p)) = line.split_once(", password ") {
            password = p.trim().to_string();
        }
        if line.starts_with("portal: Ctrl-C") {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "{said}");
    }
    assert!(
        !url.is_empty() && !password.is_empty(),
        "no address or login printed:\n{said}"
    );
    let ca = std::path::Path::new(prism_lab::demo::controller::STATE_DIR).join("tls/ca.pem");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/live/portal_demo.py");
    let shots = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/portal-shots");
    let _ = std::fs::create_dir_all(&shots);
    let out = Command::new(python)
        .arg(script)
        .env("PRISM_PORTAL_URL", &url)
        .env("PRISM_PASSWORD", &password)
        .env("PRISM_CA", &ca)
        .env("PRISM_CHROMIUM", chromium)
        .env("PRISM_SHOTS", &shots)
        .output()
        .unwrap();
    let browser = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success() && browser.contains("every check passed"),
        "{browser}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    interrupt(&demo.0);
    for line in lines {
        said.push_str(&line.unwrap());
        said.push('\n');
    }
    let status = demo.0.wait().unwrap();
    assert!(status.success(), "the demo failed after Ctrl-C:\n{said}");
    assert!(
        said.contains("released the leases: 0 networks left on the nodes"),
        "{said}"
    );
    assert!(said.contains("cleanup: nothing left"), "{said}");
}
