//! Processing nodes booked as a researcher would, with `prism ctl` only:
//! `prism controller serve` and `prism node --processing-port` (real
//! processes, the node registering itself), a network booked, then two
//! processing nodes attached to it on two subnets (`--type processing
//! --image busybox --attach lan --address … --gateway …`), which ping
//! each other through the network's hardware slot once ready; released,
//! they leave no container on the node. The image is a busybox OCI
//! layout in the node's image directory, with its own command.

use crate::common::*;
use crate::live_processing::{busybox_image, tools_present};
use prism_io::oci::runc::Runc;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub(crate) const INSTANCE: &str = "pr";
pub(crate) const PORT_LINK: &str = "ptpr";
pub(crate) const IMAGES: &str = "/var/lib/prism-pr/images";
const PASSWORD: &str = "processing-test-password";

pub(crate) struct Procs(Vec<Child>, PathBuf);
impl Drop for Procs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = Command::new("kill")
                .args(["-INT", &c.id().to_string()])
                .status();
            let deadline = Instant::now() + Duration::from_secs(5);
            while matches!(c.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = Command::new(PRISM)
            .args(["cleanup", "--instance", INSTANCE])
            .output();
        let _ = prism_io::netns::delete_link(PORT_LINK);
        let _ = std::fs::remove_dir_all("/var/lib/prism-pr");
        let _ = &self.1;
    }
}

/// `prism` with `args` as the researcher's (or administrator's) shell
/// would run it: HOME in `dir` (the session file), the password given.
pub(crate) fn prism(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(PRISM)
        .args(args)
        .env("HOME", dir.join("home"))
        .env("PRISM_PASSWORD", PASSWORD)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

pub(crate) fn prism_ok(dir: &Path, args: &[&str]) -> String {
    let o = prism(dir, args);
    assert!(
        o.status.success(),
        "prism {}: {}{}",
        args.join(" "),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn spawn(dir: &Path, log: &str, args: &[&str]) -> Child {
    Command::new(PRISM)
        .args(args)
        .env("HOME", dir.join("home"))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join(log)).unwrap())
        .spawn()
        .unwrap()
}

/// Waits until `ok` holds, or fails with `what` and the logs in `dir`.
pub(crate) fn wait_until(dir: &Path, what: &str, secs: u64, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !ok() {
        if Instant::now() > deadline {
            let log = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_default();
            panic!(
                "{what} within {secs} s\ncontroller: {}\nnode: {}",
                log("controller.log"),
                log("node.log")
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The controller and the node, the administrator's setup, and alice
/// logged in to project `exp`.
pub(crate) fn testbed(dir: &Path) -> Procs {
    testbed_with(dir, &[])
}

/// As [`testbed`], the controller also given `extra` (its storage service).
pub(crate) fn testbed_with(dir: &Path, extra: &[&str]) -> Procs {
    let scenario = format!(
        "device = \"alveo-u280\"\n[[port]]\nname = \"proc\"\ninterface = \"{PORT_LINK}\"\n"
    );
    testbed_nodes(dir, extra, &[("n1", INSTANCE, scenario)])
}

/// The controller (given `extra`), the administrator's setup, each of
/// `nodes` (name, instance, scenario TOML; processing behind its port
/// `proc`) registered and up, and alice logged in to project `exp`.
pub(crate) fn testbed_nodes(dir: &Path, extra: &[&str], nodes: &[(&str, &str, String)]) -> Procs {
    let at = format!("127.0.0.1:{}", free_port());
    let db = dir.join("controller.db");
    let db = db.to_str().unwrap();
    let cred = dir.join("credential");
    std::fs::write(&cred, "0123456789abcdef0123456789abcdef0123456789abcdef\n").unwrap();
    prism_ok(
        dir,
        &[
            "controller",
            "bootstrap",
            "--db",
            db,
            "--argon2",
            "1024,1,1",
        ],
    );
    let cred_s = cred.to_str().unwrap();
    let mut procs = Procs(Vec::new(), dir.to_path_buf());
    let serve = [
        "controller",
        "serve",
        "--db",
        db,
        "--listen",
        &at,
        "--node-credential-file",
        cred_s,
    ];
    procs
        .0
        .push(spawn(dir, "controller.log", &[&serve[..], extra].concat()));
    wait_until(dir, "the controller answers", 20, || {
        prism(dir, &["ctl", "--controller", &at, "login", "admin"])
            .status
            .success()
    });
    prism_ok(dir, &["ctl", "user-add", "alice"]);
    prism_ok(dir, &["ctl", "project-add", "exp", "--owner", "alice"]);
    for node in nodes {
        procs.0.push(start_node(dir, node, &at));
    }
    prism_ok(
        dir,
        &[
            "ctl",
            "--controller",
            &at,
            "--project",
            "exp",
            "login",
            "alice",
        ],
    );
    procs
}

/// Node `name` of `instance` with `scenario`, registered with the
/// controller at `at` (the administrator logged in): up when this returns.
fn start_node(dir: &Path, (name, instance, scenario): &(&str, &str, String), at: &str) -> Child {
    let key = dir.join(format!("{name}.key"));
    let key = key.to_str().unwrap();
    prism_ok(dir, &["ctl", "node-key", name, "--out", key]);
    let file = dir.join(format!("{name}.toml"));
    std::fs::write(&file, scenario).unwrap();
    let log = if *name == "n1" {
        "node.log".to_string()
    } else {
        format!("{name}.log")
    };
    let sock = dir.join(format!("{name}.sock")).display().to_string();
    let cred = dir.join("credential").display().to_string();
    let api_at = format!("127.0.0.1:{}", free_port());
    let args = [
        "node",
        "--fresh",
        "--instance",
        instance,
        "--config",
        file.to_str().unwrap(),
        "--api",
        &sock,
        "--api-listen",
        &api_at,
        "--api-credential-file",
        &cred,
        "--controller",
        at,
        "--controller-key-file",
        key,
        "--node-name",
        name,
        "--processing-port",
        "proc",
    ];
    let child = spawn(dir, &log, &args);
    wait_until(dir, &format!("node {name} registered and up"), 30, || {
        let out = prism(dir, &["ctl", "nodes"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        v.as_array()
            .is_some_and(|n| n.iter().any(|n| n["name"] == *name && n["up"] == true))
    });
    child
}

/// A test's testbed: the instance prepared, the busybox image installed,
/// the controller (given `extra`) and the node up, alice logged in, and a
/// hardware network `lan` (destination routing, 10 Mbit/s) booked.
/// Dropped, the processes go before the directory.
pub(crate) struct BusyboxLan {
    _procs: Procs,
    tmp: prism_testkit::TempDir,
}

impl BusyboxLan {
    pub(crate) fn new(tag: &str, extra: &[&str]) -> Self {
        let tmp = prepare(tag);
        let dir = tmp.path();
        install_busybox(dir);
        let procs = testbed_with(dir, extra);
        let spec = dir.join("lan.toml");
        std::fs::write(&spec, "tier = \"hardware\"\nforwarding = \"destination\"\n").unwrap();
        let lan = ["ctl", "book", "lan", "--spec", spec.to_str().unwrap()];
        prism_ok(dir, &[&lan[..], &["--bandwidth", "10"]].concat());
        Self { _procs: procs, tmp }
    }

    pub(crate) fn dir(&self) -> &Path {
        self.tmp.path()
    }
}

/// A clean instance, the processing port's veth, and a directory for the
/// test (passable by containers' roots) with a HOME in it.
pub(crate) fn prepare(tag: &str) -> prism_testkit::TempDir {
    drop(
        Command::new(PRISM)
            .args(["cleanup", "--instance", INSTANCE])
            .output(),
    );
    prism_io::netns::delete_link(PORT_LINK).unwrap();
    prism_io::netns::create_veth(PORT_LINK, None, "ptprk", None).unwrap();
    ok(&["ip", "link", "set", "ptprk", "up"]);
    let tmp = prism_testkit::TempDir::new(tag);
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o711)).unwrap();
    std::fs::create_dir_all(tmp.path().join("home")).unwrap();
    tmp
}

pub(crate) fn booking_state(dir: &Path, id: &str) -> String {
    let v: serde_json::Value =
        serde_json::from_str(&prism_ok(dir, &["ctl", "status", id])).unwrap();
    format!("{}/{}", v["allocation_state"], v["operational_state"]).replace('"', "")
}

fn book_vm(dir: &Path, name: &str, net: u8) -> String {
    let (address, gateway) = (format!("10.7.{net}.2/24"), format!("10.7.{net}.1"));
    let v = book_processing(
        dir,
        name,
        ("busybox", "lan"),
        &address,
        &["--gateway", &gateway],
    );
    assert_eq!(v["type"], "processing", "{v:#}");
    assert_eq!(v["node"], "n1", "{v:#}");
    v["id"].as_str().unwrap().to_string()
}

/// Books processing node `name` from `image` on `network` at `address`
/// (half a CPU, 64 MiB) with flags `more` (`--gateway`, `--dhcp`): the
/// booking.
pub(crate) fn book_processing(
    dir: &Path,
    name: &str,
    (image, network): (&str, &str),
    address: &str,
    more: &[&str],
) -> serde_json::Value {
    let args = [
        "ctl",
        "book",
        name,
        "--type",
        "processing",
        "--image",
        image,
        "--attach",
        network,
        "--address",
        address,
        "--cpus",
        "0.5",
        "--memory",
        "64",
    ];
    serde_json::from_str(&prism_ok(dir, &[&args[..], more].concat())).unwrap()
}

/// A busybox image that sleeps, as `busybox` in the node's image
/// directory.
pub(crate) fn install_busybox(dir: &Path) {
    let layout = busybox_image(dir);
    let image = format!("{}:busybox", layout.display());
    let cmd = [
        "config",
        "--image",
        &image,
        "--config.cmd",
        "/bin/sleep",
        "--config.cmd",
        "100000",
    ];
    assert!(Command::new("umoci").args(cmd).status().unwrap().success());
    let tag = ["tag", "--image", &image, "latest"];
    assert!(Command::new("umoci").args(tag).status().unwrap().success());
    std::fs::create_dir_all(IMAGES).unwrap();
    ok(&[
        "cp",
        "-a",
        layout.to_str().unwrap(),
        &format!("{IMAGES}/busybox"),
    ]);
}

#[test]
fn processing_nodes_booked_with_prism_ctl_reach_each_other_and_go_with_their_release() {
    if !root_or_skip("processing nodes booked") || !tools_present("processing nodes booked") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tmp = prepare("processing-booked");
    let dir = tmp.path();
    install_busybox(dir);
    let _procs = testbed(dir);

    let spec = dir.join("lan.toml");
    std::fs::write(&spec, "tier = \"hardware\"\nforwarding = \"destination\"\n").unwrap();
    let net = prism_ok(
        dir,
        &[
            "ctl",
            "book",
            "lan",
            "--spec",
            spec.to_str().unwrap(),
            "--bandwidth",
            "100",
        ],
    );
    let net: serde_json::Value = serde_json::from_str(&net).unwrap();
    let a = book_vm(dir, "vm-a", 1);
    let b = book_vm(dir, "vm-b", 2);
    for id in [&a, &b] {
        let what = format!("processing node {id} ready");
        wait_until(dir, &what, 30, || {
            let s = booking_state(dir, id);
            if s.ends_with("failed") {
                panic!("{}", prism_ok(dir, &["ctl", "status", id]));
            }
            s == "provisioned/ready"
        });
    }
    let runc = Runc::new(format!("/run/prism-{INSTANCE}/runc"));
    let (pa, pb) = (format!("pp-{a}"), format!("pp-{b}"));
    let mut ids = runc.list().unwrap();
    ids.sort();
    let mut want = vec![pa.clone(), pb.clone()];
    want.sort();
    assert_eq!(ids, want);
    let out = runc
        .exec(
            &pa,
            &["/bin/ping", "-c", "3", "-i", "0.2", "-W", "2", "10.7.2.2"],
        )
        .unwrap();
    assert!(
        out.status.success(),
        "vm-a could not reach vm-b through `lan` (VLAN {}): {}{}",
        net["vlan"],
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // Released: each container goes with its booking.
    prism_ok(dir, &["ctl", "release", &a]);
    wait_until(dir, "vm-a's container removed", 20, || {
        runc.list().unwrap() == [pb.clone()]
    });
    prism_ok(dir, &["ctl", "release", &b]);
    // The container goes first, then its namespace and links.
    let links = || prism_io::netns::links_with_prefix(&format!("pn{INSTANCE}"));
    wait_until(dir, "every container and link removed", 20, || {
        runc.list().unwrap().is_empty() && links().is_empty()
    });
}
