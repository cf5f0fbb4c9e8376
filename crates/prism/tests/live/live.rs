//! End-to-end tests of the live node in network namespaces: the live
//! demo's isolation check and cleanup, removal of what a killed node left,
//! changes under traffic, pinned workers (ping, iperf3 and TTL through
//! each tier are in the quiet lane, `tests/quiet/live_forwarding.rs`). Need root; without it they say so and pass, unless
//! PRISM_REQUIRE_ROOT=1 (scripts/test sets it when run as root, as in CI).

use crate::common::*;
use std::process::{Command, Stdio};
use std::time::Duration;
use std::time::Instant;

#[test]
fn a_killed_node_leaves_nothing_the_next_start_or_cleanup_cannot_remove() {
    if !root_or_skip("stale containers") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _t = Topology::build();
    let mut node = start_node("stale");
    assert!(!swrouters().is_empty(), "no prism router to watch");
    node.0.kill().unwrap();
    node.0.wait().unwrap();
    // Its routers die with it (PR_SET_PDEATHSIG), not reparented to init.
    let deadline = Instant::now() + Duration::from_secs(2);
    while !swrouters().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        swrouters().is_empty(),
        "routers outlived their node: {:?}",
        swrouters()
    );
    let ns = ok(&["ip", "netns", "list"]);
    assert!(ns.contains("prism-c1"), "no containers to find: {ns}");
    // A new start removes them and runs.
    let node = start_node("stale2");
    let c = stop_node(node);
    assert!(c["rx_packets"].as_u64().unwrap() > 0);
    // Kill again, then `prism cleanup`.
    let mut node = start_node("stale3");
    node.0.kill().unwrap();
    node.0.wait().unwrap();
    // Another instance's cleanup leaves the default instance's things.
    let out = ok(&[PRISM, "cleanup", "--instance", "zz"]);
    assert!(out.contains("0 objects removed"), "{out}");
    assert!(ok(&["ip", "netns", "list"]).contains("prism-c1"));
    let out = ok(&[PRISM, "cleanup"]);
    assert!(out.contains("removed namespace prism-c1"), "{out}");
    assert_eq!(own_node_namespaces(), Vec::<String>::new());
    assert!(!ok(&["ip", "-o", "link"]).contains(" pc1p"));
    // Nothing of this instance is left to remove (a demo's node may be
    // between a kill and its restart beside these tests).
    let out = ok(&[PRISM, "cleanup"]);
    let ours = |l: &&str| l.contains("/run/prism/") || l.contains("prism-c1") || l.contains(" pc1");
    let removed: Vec<&str> = out.lines().filter(|l| l.starts_with("removed")).collect();
    assert!(!removed.iter().any(ours), "{out}");
}

/// The pids of the default instance's running `prism swrouter` processes
/// (their configuration in its state directory; a demo's nodes may run
/// routers of their own beside these tests).
fn swrouters() -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read(e.path().join("cmdline")).is_ok_and(|c| {
                let c = String::from_utf8_lossy(&c);
                c.contains("swrouter\0--config\0/run/prism/")
            })
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// A second node, or `prism cleanup`, while a node runs: refused, or
/// leaves it alone; the running node's software networks keep forwarding.
#[test]
fn a_running_nodes_containers_are_its_own() {
    if !root_or_skip("instance lock") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _t = Topology::build();
    let node = start_node("owner");
    let other = temp_file("other.toml", &scenario());
    let o = sh(&[
        PRISM,
        "node",
        "--config",
        &other,
        "--api",
        "/run/prism/other.sock",
        "--seconds",
        "2",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "a second node started: {err}");
    assert!(err.contains("held by a running instance"), "{err}");
    let out = ok(&[PRISM, "cleanup"]);
    assert!(
        out.contains("left alone") && !out.contains("prism-c1"),
        "{out}"
    );
    assert!(ok(&["ip", "netns", "list"]).contains("prism-c1"));
    for ns in ["pte1a", "pte2a"] {
        assert!(pings(ns, 3), "{ns} lost its network to a second node");
    }
    stop_node(node);
    // Its lock went with it: now cleanup has nothing to leave alone.
    let out = ok(&[PRISM, "cleanup"]);
    assert!(!out.contains(DEFAULT_LOCK), "{out}");
}

/// Nodes of other instances beside a live one: the default
/// instance's names (`prism-c1`) begin as instance `q`'s do (`prism-cq1`),
/// and cleanup once took them by that prefix. Neither `prism cleanup` nor
/// a node starting may touch a live instance's things, whichever is which;
/// a dead instance's are cleaned whatever its name.
#[test]
fn cleanup_and_starting_nodes_leave_every_live_instance_alone() {
    if !root_or_skip("instances") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _t = Topology::build_n(4);
    let q_api = ["--instance", "q", "--api", "/run/prism-q/api.sock"];
    // A hardware network on hosts 3, for the node started beside.
    let beside = ports_toml_from(3, 4) + &network_toml(3, "hw3", "hardware");
    for live_q in [true, false] {
        let (live_args, other_args): (&[&str], &[&str]) = if live_q {
            (&q_api, &["--seconds", "2"])
        } else {
            (
                &[],
                &[
                    "--seconds",
                    "2",
                    "--instance",
                    "q",
                    "--api",
                    "/run/prism-q/api.sock",
                ],
            )
        };
        let live = start_node_with("live-instance", &scenario(), live_args);
        wait_for_ping("pte1a", 10);
        wait_for_ping("pte2a", 10);
        let mine = if live_q { "prism-cq1" } else { "prism-c1" };
        let out = ok(&[PRISM, "cleanup"]);
        assert!(out.contains("left alone") && !out.contains(mine), "{out}");
        let o = sh(&[
            &[
                PRISM,
                "node",
                "--fresh",
                "--config",
                &temp_file("beside.toml", &beside),
            ],
            other_args,
        ]
        .concat());
        assert!(
            o.status.success(),
            "the node beside: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(ok(&["ip", "netns", "list"]).contains(mine), "{mine} gone");
        for ns in ["pte1a", "pte2a"] {
            assert!(
                pings(ns, 3),
                "{ns} lost its network (live instance q: {live_q})"
            );
        }
        stop_node(live);
    }
    // A killed `q` node's things are found and removed by `prism cleanup`.
    let mut dead = start_node_with("dead-instance", &scenario(), &q_api);
    wait_for_ping("pte2a", 10);
    dead.0.kill().unwrap();
    dead.0.wait().unwrap();
    let out = ok(&[PRISM, "cleanup"]);
    assert!(out.contains("removed namespace prism-cq1"), "{out}");
    assert_eq!(own_node_namespaces(), Vec::<String>::new());
}

/// What the API changed survives a `kill -9`: the node started again on
/// the same scenario restores it (and `--fresh` forgets it).
#[test]
fn a_node_killed_and_started_again_restores_what_the_api_changed() {
    if !root_or_skip("restore") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _t = Topology::build();
    let text = scenario();
    let mut node = start_node_with("restore", &text, &[]);
    wait_for_api(15);
    wait_for_ping("pte1a", 10);
    ctl_ok(&["tier", "hw", "software"]);
    ctl_ok(&["remove", "swp"]);
    ctl_ok(&["rate-limit", "swk", "50Mbit"]);
    node.0.kill().unwrap();
    node.0.wait().unwrap();

    let t0 = Instant::now();
    let node = start_node_args("restore2", &text, &[]);
    wait_for_ping("pte0a", 20);
    eprintln!(
        "kill -9, start again: the restored networks forward after {:.2} s",
        t0.elapsed().as_secs_f64()
    );
    assert!(ctl_ok(&["show", "hw"]).contains("\"tier\": \"software\""));
    assert!(ctl_ok(&["show", "swk"]).contains("\"rate_bps\": 50000000"));
    assert!(!ctl_ok(&["networks"]).contains("\"swp\""));
    assert!(pings("pte1a", 2), "swk does not forward after the restart");
    assert!(!pings("pte2a", 1), "swp came back");
    stop_node(node);

    let node = start_node_with("restore3", &text, &[]);
    wait_for_ping("pte2a", 20);
    assert!(ctl_ok(&["show", "hw"]).contains("\"tier\": \"hardware\""));
    stop_node(node);
}

#[test]
fn live_demo_isolates_networks_and_cleans_up() {
    if !root_or_skip("live demo") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let o = sh(&[PRISM, "demo", "--seconds", "2"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out.contains("isolation: every host received only its own network's traffic"),
        "{out}"
    );
    assert!(
        out.contains("cleanup: no namespace, link or container left"),
        "{out}"
    );
    assert_eq!(out.matches("ping ok").count(), 5, "{out}");
}

#[test]
fn api_changes_apply_under_traffic_without_restart() {
    if !root_or_skip("node API") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _t = Topology::build();
    let node = start_node("api");
    let list = ctl(&["networks"]);
    assert!(
        list.status.success(),
        "{}",
        String::from_utf8_lossy(&list.stderr)
    );
    assert!(String::from_utf8_lossy(&list.stdout).contains("\"hw\""));
    // Traffic through `hw` for the whole test.
    let flood = Command::new("ip")
        .args([
            "netns", "exec", "pte0a", "ping", "-i", "0.01", "-w", "6", "10.0.2.2",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    // Withdraw the route to host b: pings stop getting through.
    let routes = std::env::temp_dir().join("prism-api-routes.json");
    let back = format!(
        r#"{{"route":[{{"prefix":"10.0.1.0/24","action":{{"port":"0-a","decrement_ttl":true,"set_src_mac":"{}","set_dst_mac":"{}"}}}}]}}"#,
        gw_mac(0, 0),
        host_mac(0, 0)
    );
    std::fs::write(&routes, &back).unwrap();
    let o = ctl(&["routes", "hw", routes.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        !in_ns(
            "pte0a",
            &["ping", "-c", "2", "-i", "0.2", "-W", "1", "10.0.2.2"]
        )
        .status
        .success()
    );
    // Put it back: pings get through again, without a restart.
    let both = back.replace(
        "}]}",
        &format!(
            r#"}},{{"prefix":"10.0.2.0/24","action":{{"port":"0-b","decrement_ttl":true,"set_src_mac":"{}","set_dst_mac":"{}"}}}}]}}"#,
            gw_mac(0, 1),
            host_mac(0, 1)
        ),
    );
    std::fs::write(&routes, &both).unwrap();
    assert!(
        ctl(&["routes", "hw", routes.to_str().unwrap()])
            .status
            .success()
    );
    assert!(
        in_ns(
            "pte0a",
            &["ping", "-c", "2", "-i", "0.2", "-W", "1", "10.0.2.2"]
        )
        .status
        .success()
    );
    // A bad change is refused whole, with the field named.
    std::fs::write(
        &routes,
        r#"{"route":[{"prefix":"10.0.2.0/24","action":{"port":9}}]}"#,
    )
    .unwrap();
    let o = ctl(&["routes", "hw", routes.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("route[0].action.port"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        in_ns("pte0a", &["ping", "-c", "1", "-W", "1", "10.0.2.2"])
            .status
            .success()
    );
    // Rate limit a software network and check it took.
    let o = ctl(&["rate-limit", "swk", "5Mbit"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("5000000"));
    let j = iperf3("pte1a", "pte1b", &["-u", "-b", "20M"], "swk");
    let got = j["end"]["sum"]["bits_per_second"].as_f64().unwrap()
        * (1.0 - j["end"]["sum"]["lost_percent"].as_f64().unwrap() / 100.0);
    assert!(got < 7e6, "5 Mbit/s limit let {got} bit/s through");
    let flood = flood.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&flood.stdout);
    assert!(text.contains("received"), "{text}");
    let c = stop_node(node);
    assert!(
        network(&c, "swk")["drops"]
            .to_string()
            .contains("output/rate-limited")
    );
    assert!(
        network(&c, "hw")["drops"]
            .to_string()
            .contains("matching/no-route")
    );
}

#[test]
fn two_pinned_workers_forward_through_both_tiers() {
    if !root_or_skip("two workers") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let _t = Topology::build();
    // Ports are dealt to the workers in turn, so each network's two ports
    // (and its container's links) belong to different workers: every frame
    // crosses from one worker's AF_XDP socket to the other's interface.
    let node = start_node_with("two", &scenario(), &["--workers", "2", "--cores", "0,1"]);
    wait_for_api(10);
    for (k, (name, _)) in NETS.iter().enumerate() {
        let (a, b) = (format!("pte{k}a"), format!("pte{k}b"));
        wait_for_ping(&a, 5);
        let j = iperf3(&a, &b, &[], name);
        let bps = j["end"]["sum_received"]["bits_per_second"]
            .as_f64()
            .unwrap();
        eprintln!("two workers, {name}: TCP {:.1} Mbit/s", bps / 1e6);
        assert!(
            bps > 10e6,
            "TCP through `{name}` with two workers: {bps} bit/s"
        );
    }
    let ports = ctl_ok(&["ports"]);
    let v: serde_json::Value = serde_json::from_str(&ports).unwrap();
    let workers: std::collections::BTreeSet<u64> = v
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["rx"] == true)
        .map(|p| p["worker"].as_u64().unwrap())
        .collect();
    assert_eq!(
        workers.len(),
        2,
        "receive sockets on one worker only: {ports}"
    );
    let c = stop_node(node);
    assert!(network(&c, "swp")["from_software"].as_u64().unwrap() > 1000);
}
