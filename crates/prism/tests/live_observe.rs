//! Seeing into a running node from outside: a real Prometheus (Debian's
//! package) scrapes the node's `/metrics` over TCP with the control plane's
//! credential, and a counter is read back through Prometheus's own HTTP API;
//! a scrape with the wrong credential is refused (`up` = 0). Need root;
//! without it they say so and pass, unless PRISM_REQUIRE_ROOT=1.

mod common;

use common::*;
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
