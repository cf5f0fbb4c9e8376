//! The controller over TLS, as an operator sets it up and a user meets it:
//! `bootstrap --tls-name` makes a lab CA (its fingerprint
//! checked by openssl), `serve` speaks HTTPS with it, `prism ctl` and curl
//! verify it by default and accept the CA given; plain HTTP to the TLS
//! port, garbage and half-open connections do not stop it answering; a
//! network address without a certificate is refused unless said.

use crate::common::{PASSWORD, free_port};
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn prism(args: &[&str], config: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prism"))
        .args(args)
        .env("PRISM_CONFIG_DIR", config)
        .env("PRISM_PASSWORD", PASSWORD)
        .env_remove("PRISM_TOKEN")
        .env_remove("PRISM_CONTROLLER")
        .env_remove("PRISM_CA")
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

struct Served(std::process::Child);
impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(db: &str, listen: &str, extra: &[&str]) -> Served {
    let child = Command::new(env!("CARGO_BIN_EXE_prism"))
        .args(["controller", "serve", "--db", db, "--listen", listen])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while std::net::TcpStream::connect(listen).is_err() {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "no controller on {listen}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    Served(child)
}

fn fresh_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("prism-tls-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_lab_ca_served_over_https_and_checked_by_every_client() {
    let dir = fresh_dir("lab");
    let db = dir.join("controller.db").display().to_string();
    let tls = dir.join("tls");
    let tls_dir = tls.to_str().unwrap();
    let o = prism(
        &[
            "controller",
            "bootstrap",
            "--db",
            &db,
            "--tls-name",
            "localhost",
            "--tls-dir",
            tls_dir,
        ],
        &dir,
    );
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    // The fingerprint printed is the one openssl computes.
    let ssl = Command::new("openssl")
        .args(["x509", "-noout", "-fingerprint", "-sha256", "-in"])
        .arg(tls.join("ca.pem"))
        .output()
        .expect("openssl (Debian's openssl package)");
    let ssl = String::from_utf8_lossy(&ssl.stdout);
    let fp = ssl.trim().rsplit('=').next().unwrap();
    assert!(fp.len() == 95 && out.contains(fp), "{out} vs openssl {ssl}");
    for key in ["ca.key", "controller.key"] {
        let mode = std::fs::metadata(tls.join(key))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{key}");
    }

    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let s3_port = free_port();
    let s3_listen = format!("127.0.0.1:{s3_port}");
    let objects = dir.join("objects").display().to_string();
    let key_file = dir.join("storage.key").display().to_string();
    let storage = [
        "--storage-listen",
        &s3_listen,
        "--storage",
        &objects,
        "--storage-key-file",
        &key_file,
    ];
    let _c = serve(
        &db,
        &listen,
        &[&["--tls-dir", tls_dir][..], &storage].concat(),
    );
    let url = format!("https://localhost:{port}");
    let ca = tls.join("ca.pem");
    let ca = ca.to_str().unwrap();

    // Without the CA: the system's roots do not know it.
    let o = prism(&["ctl", "--controller", &url, "login", "admin"], &dir);
    assert!(
        !o.status.success() && text(&o).contains("did not prove who it is"),
        "{}",
        text(&o)
    );
    assert!(!dir.join("session.json").exists());
    // Under a name the certificate does not carry.
    let by_address = format!("https://127.0.0.1:{port}");
    let o = prism(
        &[
            "ctl",
            "--controller",
            &by_address,
            "--ca",
            ca,
            "login",
            "admin",
        ],
        &dir,
    );
    assert!(
        !o.status.success() && text(&o).contains("not valid for name"),
        "{}",
        text(&o)
    );
    // With it: the session keeps the CA for the next commands.
    let o = prism(
        &["ctl", "--controller", &url, "--ca", ca, "login", "admin"],
        &dir,
    );
    assert!(o.status.success(), "{}", text(&o));
    let o = prism(&["ctl", "whoami"], &dir);
    assert!(
        o.status.success() && text(&o).contains("\"admin\""),
        "{}",
        text(&o)
    );

    // An independent client: curl checks the chain and the name.
    let curl = |extra: &[&str]| {
        Command::new("curl")
            .args([
                "-sS",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code}",
                "--max-time",
                "5",
            ])
            .args(extra)
            .arg(format!("{url}/v1/whoami"))
            .output()
            .expect("curl")
    };
    let o = curl(&["--cacert", ca]);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "401", "{}", text(&o));
    let o = curl(&[]);
    assert!(
        !o.status.success(),
        "curl trusted an unknown CA: {}",
        text(&o)
    );

    storage_over_https(&dir, ca, s3_port);

    // Plain HTTP, garbage and half-open connections on the TLS port: each
    // refused or left waiting alone; the API keeps answering others.
    let plain = "GET /v1/whoami HTTP/1.1\r\nHost: localhost\r\n\r\n";
    let mut s = std::net::TcpStream::connect(&listen).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(plain.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    assert!(
        !String::from_utf8_lossy(&answer).contains("HTTP/1.1 401"),
        "plain HTTP served"
    );
    let mut g = std::net::TcpStream::connect(&listen).unwrap();
    g.write_all(&[0x16, 0x03, 0x01, 0xff, 0xff, 1, 2, 3])
        .unwrap();
    let idle: Vec<_> = (0..200)
        .map(|_| std::net::TcpStream::connect(&listen).unwrap())
        .collect();
    let t = Instant::now();
    let o = curl(&["--cacert", ca]);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "401", "{}", text(&o));
    assert!(
        t.elapsed() < Duration::from_secs(3),
        "{:?} with 200 half-open",
        t.elapsed()
    );
    drop(idle);

    // The refused handshakes are in the audit log (one entry per period).
    let t = Instant::now();
    let audited = loop {
        let o = prism(&["ctl", "audit"], &dir);
        let log = text(&o);
        if log.contains("\"TLS\"") || t.elapsed() > Duration::from_secs(10) {
            break log;
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    assert!(
        audited.contains("tls:127.0.0.1") && audited.contains("handshake refused"),
        "{audited}"
    );
}

#[test]
fn a_network_address_needs_a_certificate_or_plain_http_said() {
    let dir = fresh_dir("plain");
    let db = dir.join("controller.db").display().to_string();
    let empty = dir.join("no-ca");
    let listen = format!("0.0.0.0:{}", free_port());
    let o = Command::new(env!("CARGO_BIN_EXE_prism"))
        .args([
            "controller",
            "serve",
            "--db",
            &db,
            "--listen",
            &listen,
            "--tls-dir",
        ])
        .arg(&empty)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "served plain HTTP on {listen}: {err}");
    assert!(
        err.contains("is not loopback and there is no certificate"),
        "{err}"
    );
    // Said: served, and the log says what it means.
    let mut c = serve(
        &db,
        &listen.replace("0.0.0.0", "127.0.0.1"),
        &["--plain-http"],
    );
    c.0.kill().unwrap();
    let mut log = String::new();
    c.0.stderr.take().unwrap().read_to_string(&mut log).unwrap();
    assert!(log.contains("plain HTTP (loopback only)"), "{log}");
    let mut c = serve(
        &db,
        &listen,
        &["--plain-http", "--tls-dir", empty.to_str().unwrap()],
    );
    c.0.kill().unwrap();
    let mut log = String::new();
    c.0.stderr.take().unwrap().read_to_string(&mut log).unwrap();
    assert!(log.contains("PLAIN HTTP on a network address"), "{log}");
}

/// The storage endpoint speaks TLS with the API's certificate: curl, an
/// independent SigV4 client, puts and gets an object with a key made by
/// `prism ctl storage key`, and trusts no endpoint without the CA.
fn storage_over_https(dir: &Path, ca: &str, port: u16) {
    let ok = |args: &[&str]| {
        let o = prism(args, dir);
        assert!(o.status.success(), "{}", text(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    ok(&["ctl", "project-add", "exp", "--owner", "admin"]);
    let k: serde_json::Value =
        serde_json::from_str(&ok(&["ctl", "--project", "exp", "storage", "key"])).unwrap();
    let user = format!(
        "{}:{}",
        k["access_key"].as_str().unwrap(),
        k["secret_key"].as_str().unwrap()
    );
    let url = format!("https://localhost:{port}/exp/hello.txt");
    let file = dir.join("hello.txt");
    std::fs::write(&file, "over https\n").unwrap();
    let curl = |extra: &[&str]| {
        // S3 wants the payload's hash said; curl 7.88 does not say it.
        let sig = [
            "--aws-sigv4",
            "aws:amz:us-east-1:s3",
            "--user",
            &user,
            "-H",
            "x-amz-content-sha256: UNSIGNED-PAYLOAD",
        ];
        Command::new("curl")
            .args(["-sS", "--max-time", "5"])
            .args(sig)
            .args(extra)
            .arg(&url)
            .output()
            .expect("curl")
    };
    let put = curl(&["--cacert", ca, "-T", file.to_str().unwrap()]);
    assert!(
        put.status.success() && put.stdout.is_empty(),
        "{}",
        text(&put)
    );
    let got = curl(&["--cacert", ca]);
    assert_eq!(
        String::from_utf8_lossy(&got.stdout),
        "over https\n",
        "{}",
        text(&got)
    );
    let untrusted = curl(&[]);
    assert!(
        !untrusted.status.success(),
        "curl trusted an unknown CA: {}",
        text(&untrusted)
    );
}
