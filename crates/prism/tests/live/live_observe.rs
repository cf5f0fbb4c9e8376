//! Seeing into a running node from outside: a real Prometheus (Debian's
//! package) scrapes the node's `/metrics` over TCP with the control plane's
//! credential, and a counter is read back through Prometheus's own HTTP API;
//! a scrape with the wrong credential is refused (`up` = 0). Need root;
//! without it they say so and pass, unless PRISM_REQUIRE_ROOT=1.

use crate::common::*;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Asks Prometheus at `web` for `query`; the first sample's value, if any.
fn prom_value(web: &str, query: &str) -> Option<f64> {
    let out = sh(&[
        "curl",
        "-sf",
        &format!("http://{web}/api/v1/query"),
        "--data-urlencode",
        &format!("query={query}"),
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    v["data"]["result"][0]["value"][1].as_str()?.parse().ok()
}

/// Polls `query` until `ok(value)`, for up to `secs`.
fn prom_wait(web: &str, query: &str, secs: u64, ok: impl Fn(f64) -> bool) -> f64 {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let v = prom_value(web, query);
        if let Some(v) = v
            && ok(v)
        {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "Prometheus: `{query}` is {v:?} after {secs} s"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[test]
fn prometheus_scrapes_the_nodes_metrics_with_the_credential() {
    if !root_or_skip("Prometheus scrape") {
        return;
    }
    assert!(
        sh(&["sh", "-c", "command -v prometheus"]).status.success(),
        "prometheus is not installed (scripts/test installs Debian's package)"
    );
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _t = Topology::build_n(1);
    let secret = "9a8b7c6d5e4f30211203948576afbecd";
    let cred = temp_file("metrics-cred", secret);
    let wrong = temp_file("metrics-wrong", &secret.replace('9', "8"));
    let node = start_node_with(
        "metrics",
        &(ports_toml(1) + &network_toml(0, "hw", "hardware")),
        &[
            "--api-listen",
            "127.0.0.1:17721",
            "--api-credential-file",
            &cred,
        ],
    );
    wait_for_ping("pte0a", 10);

    let dir = std::env::temp_dir().join("prism-live-test-prometheus");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = format!(
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n\
         - job_name: prism\n  authorization:\n    credentials_file: {cred}\n  static_configs:\n  - targets: ['127.0.0.1:17721']\n\
         - job_name: prism-wrong\n  authorization:\n    credentials_file: {wrong}\n  static_configs:\n  - targets: ['127.0.0.1:17721']\n"
    );
    let config_file = dir.join("prometheus.yml");
    std::fs::write(&config_file, config).unwrap();
    let web = "127.0.0.1:17790";
    let _prom = Killed(
        Command::new("prometheus")
            .arg(format!("--config.file={}", config_file.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address={web}"))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("log")).unwrap())
            .spawn()
            .unwrap(),
    );
    prom_wait(web, "up{job=\"prism\"}", 30, |v| v == 1.0);
    assert!(pings("pte0a", 5));
    // 5 echo requests in on port 0-a, 5 replies in on port 0-b at least.
    let rx = prom_wait(
        web,
        "prism_network_packets_total{network=\"hw\",direction=\"rx\"}",
        20,
        |v| v >= 10.0,
    );
    assert!(rx < 1000.0, "{rx}");
    prom_wait(web, "prism_network_hardware{network=\"hw\"}", 5, |v| {
        v == 1.0
    });
    prom_wait(web, "prism_hardware_slots{state=\"total\"}", 5, |v| v > 0.0);
    // The wrong credential: the scrape fails.
    prom_wait(web, "up{job=\"prism-wrong\"}", 10, |v| v == 0.0);
    stop_node(node);
}

/// `prism ctl` against a node: trace and capture of network `hw` while
/// host a pings host b through it.
#[test]
fn trace_and_capture_show_a_networks_packets_and_tshark_reads_them() {
    if !root_or_skip("trace and capture") {
        return;
    }
    assert!(
        sh(&["sh", "-c", "command -v tshark"]).status.success(),
        "tshark is not installed (scripts/test installs Debian's package)"
    );
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _t = Topology::build_n(2);
    let text =
        ports_toml(2) + &network_toml(0, "hw", "hardware") + &network_toml(1, "other", "hardware");
    let node = start_node_with("observe", &text, &[]);
    wait_for_ping("pte0a", 10);
    wait_for_ping("pte1a", 10);

    // Trace: three echo requests, each stage's decision.
    let ping = |n: &str| {
        Command::new("ip")
            .args([
                "netns", "exec", n, "ping", "-c", "5", "-i", "0.2", "10.0.2.2",
            ])
            .stdout(Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut p = (ping("pte0a"), ping("pte1a"));
    let out = ctl_ok(&["trace", "hw", "-c", "3", "--timeout", "5"]);
    eprintln!("{out}");
    let blocks: Vec<&str> = out.split("packet ").filter(|b| !b.is_empty()).collect();
    assert_eq!(blocks.len(), 3, "{out}");
    for b in &blocks {
        for want in [
            "network `hw`",
            "parse",
            "mapping",
            "rule",
            "matching",
            "action",
            "ttl-1",
            "out port",
        ] {
            assert!(b.contains(want), "no `{want}` in:\n{b}");
        }
        assert!(!b.contains("`other`"), "{b}");
    }
    let _ = (p.0.wait(), p.1.wait());

    // Capture: 5 pings = 20 frames (request and reply, in and out).
    let file = std::env::temp_dir().join("prism-live-test-capture.pcapng");
    let _ = std::fs::remove_file(&file);
    p = (ping("pte0a"), ping("pte1a"));
    ctl_ok(&[
        "capture",
        "hw",
        "-c",
        "20",
        "-w",
        file.to_str().unwrap(),
        "--timeout",
        "8",
    ]);
    let _ = (p.0.wait(), p.1.wait());
    let out = ok(&[
        "tshark",
        "-r",
        file.to_str().unwrap(),
        "-T",
        "fields",
        "-E",
        "separator=,",
        "-e",
        "frame.interface_name",
        "-e",
        "frame.packet_flags_direction",
        "-e",
        "icmp.type",
        "-e",
        "ip.ttl",
        "-e",
        "ip.dst",
    ]);
    let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split(',').collect()).collect();
    // The direction comes as the masked flags field, `0x00000001`.
    let dir = |d: &str| u32::from_str_radix(d.trim_start_matches("0x"), 16).ok();
    let count = |iface: &str, d: u32, icmp: &str, ttl: &str| {
        rows.iter()
            .filter(|r| {
                r.len() == 5 && r[0] == iface && dir(r[1]) == Some(d) && r[2] == icmp && r[3] == ttl
            })
            .count()
    };
    // In (1) on 0-a at TTL 64, out (2) of 0-b at 63 (the hardware router's hop).
    let req = (count("0-a", 1, "8", "64"), count("0-b", 2, "8", "63"));
    let rep = (count("0-b", 1, "0", "64"), count("0-a", 2, "0", "63"));
    assert!(
        req.0 >= 4 && req.1 >= 4 && rep.0 >= 4 && rep.1 >= 4,
        "{req:?} {rep:?}:\n{out}"
    );
    assert!(
        !out.contains("1-a") && !out.contains("1-b"),
        "another network's frames:\n{out}"
    );
    stop_node(node);
}
