//! Three `prism controller serve` processes on one PostgreSQL, reached over
//! TLS (`sslmode=require`):
//! bookings go to all three at once (of a registered type with no node,
//! and one in ten a network provisioned on a fake node: a node call per
//! change, so a few only); the replica leading the background work is
//! killed (SIGKILL) under that load; another leads within five seconds,
//! every booking a client was told of exists exactly once, and the node
//! ends holding exactly the provisioned bookings' networks, each once.
//! Needs a PostgreSQL server (`PRISM_POSTGRES_URL`, which `scripts/test`
//! starts as root): skipped without one, failed in CI.

use crate::common::{PASSWORD, free_port, login};
use prism_controller::{BookingRequest, NodeRequest};
use prism_controller::{ControllerClient, ProjectRequest, ServiceLevel, UserRequest};
use prism_lab::bench::controller::{probe, probe_type};
use prism_testkit::fake_node::{FakeNode, SECRET};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

struct Replica {
    child: Child,
    addr: String,
    /// When this replica's log said it leads the background work.
    leads: mpsc::Receiver<Instant>,
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn replica(db: &str, cred: &std::path::Path) -> Replica {
    let addr = format!("127.0.0.1:{}", free_port());
    let mut child = Command::new(env!("CARGO_BIN_EXE_prism"))
        .args(["controller", "serve", "--db", db, "--listen", &addr])
        .arg("--node-credential-file")
        .arg(cred)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, leads) = mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            if line.contains("leads the background work") {
                let _ = tx.send(Instant::now());
            }
        }
    });
    Replica { child, addr, leads }
}

/// A project `p` of user `u` on a level with room for a thousand
/// networks, node `n1` (served at `node_addr`) and a resource type with
/// no node.
async fn set_up(admin: &ControllerClient, node_addr: String) {
    let mut level = ServiceLevel::standard();
    level.name = "wide".into();
    level.max_lease_hours = 1 << 40;
    level.max_sw_networks = 10_000;
    level.max_bandwidth_mbps = 100_000;
    admin.put_service_level(&level).await.unwrap();
    let u = UserRequest {
        name: "u".into(),
        password: PASSWORD.into(),
        admin: false,
    };
    admin.create_user(&u).await.unwrap();
    let p = ProjectRequest {
        name: "p".into(),
        service_level: "wide".into(),
        owner: "u".into(),
    };
    admin.create_project(&p).await.unwrap();
    let n = NodeRequest {
        name: "n1".into(),
        address: node_addr,
        hw_mbps: 10_000,
        sw_mbps: 100_000,
    };
    admin.register_node(&n).await.unwrap();
    admin.register_type(&probe_type()).await.unwrap();
}

/// A software network `name` of 1 Mbit/s, provisioned at once.
fn network(name: String) -> BookingRequest {
    let spec = prism_testkit::fake_node::software_spec();
    BookingRequest {
        provision: true,
        ..BookingRequest::network(name, spec, 1)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_leader_is_replaced_and_no_acknowledged_booking_is_lost() {
    let url = std::env::var("PRISM_POSTGRES_URL").ok();
    if !prism_testkit::gates::prerequisite(
        "controller_replicas",
        "a PostgreSQL server (PRISM_POSTGRES_URL)",
        url.is_some(),
        "PRISM_REQUIRE_ROOT",
    ) {
        return;
    }
    let url = url.unwrap();
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    let name = format!("prism_replicas_{}_{stamp}", std::process::id());
    let psql = |sql: &str| {
        let o = Command::new("psql")
            .args([&url, "-q", "-c", sql])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    psql(&format!("CREATE DATABASE {name}"));
    // Over TLS to the database too (Debian's server has it on).
    let db = format!("{}/{name}?sslmode=require", url.rsplit_once('/').unwrap().0);
    crate::common::bootstrap(&db);
    let cred = std::env::temp_dir().join(format!("{name}.credential"));
    std::fs::write(&cred, SECRET).unwrap();
    let node = FakeNode::new(&["a", "b"], 4);
    let node_addr = node.serve();
    let mut replicas: Vec<Replica> = (0..3).map(|_| replica(&db, &cred)).collect();
    set_up(&login(&replicas[0].addr, "admin").await, node_addr).await;

    // Which replica leads: the one whose log says so.
    let t = Instant::now();
    let leader = loop {
        if let Some(i) = replicas.iter().position(|r| r.leads.try_recv().is_ok()) {
            break i;
        }
        assert!(t.elapsed() < Duration::from_secs(20), "no replica leads");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    // One leader: a second of renewals later, no other replica has led.
    tokio::time::sleep(Duration::from_secs(1)).await;
    for (i, r) in replicas.iter().enumerate() {
        assert!(
            i == leader || r.leads.try_recv().is_err(),
            "replicas {leader} and {i} both led"
        );
    }
    // Load on all three: each acknowledged booking is recorded.
    let mut load = Vec::new();
    for (k, r) in replicas.iter().enumerate() {
        let c = login(&r.addr, "u").await;
        load.push(tokio::spawn(async move {
            let mut told = Vec::new();
            for i in 0..300 {
                let name = format!("r{k}-{i}");
                let r = if i % 10 == 0 {
                    network(name)
                } else {
                    probe(name)
                };
                match c.book("p", &r).await {
                    Ok(b) => told.push(b.id),
                    // The killed replica's client: refused connections.
                    Err(e) if e.status().is_none() => break,
                    Err(e) => panic!("booking r{k}-{i}: {e}"),
                }
            }
            told
        }));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    replicas[leader].child.kill().unwrap();
    let killed = Instant::now();
    let _ = replicas[leader].child.wait();
    let mut told = Vec::new();
    for l in load {
        told.extend(l.await.unwrap());
    }
    let next = loop {
        if let Some((i, at)) = replicas
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != leader)
            .find_map(|(i, r)| r.leads.try_recv().ok().map(|at| (i, at)))
        {
            break (i, at - killed);
        }
        assert!(
            killed.elapsed() < Duration::from_secs(10),
            "no replica took over"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    eprintln!(
        "replica {} leads {:.2} s after the leader's kill; {} bookings acknowledged",
        next.0,
        next.1.as_secs_f64(),
        told.len()
    );
    assert!(next.1 < Duration::from_secs(5), "{:?}", next.1);
    let survivor = login(&replicas[next.0].addr, "u").await;
    let all = survivor.all_bookings("p", true).await.unwrap();
    for id in &told {
        assert_eq!(
            all.iter().filter(|b| &b.id == id).count(),
            1,
            "booking {id}"
        );
    }
    let mut names: Vec<&str> = all.iter().map(|b| b.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), all.len(), "a booking made twice");
    assert!(told.len() >= 600, "{} acknowledged", told.len());
    // The node converges to the provisioned bookings' networks, each once,
    // none left over from the killed replica's half-done work.
    let mut want: Vec<String> = all
        .iter()
        .filter(|b| b.allocation_state == prism_controller::AllocationState::Provisioned)
        .filter_map(|b| b.node_network.clone())
        .collect();
    want.sort_unstable();
    // Every network a client was told of is provisioned, on the node.
    for id in &told {
        let b = all.iter().find(|b| &b.id == id).unwrap();
        if b.resource_type == "network" {
            let on = b.node_network.as_ref();
            assert!(
                on.is_some_and(|n| want.contains(n)),
                "{} not provisioned",
                b.name
            );
        }
    }
    let t = Instant::now();
    while node.names() != want && t.elapsed() < Duration::from_secs(15) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let held = node.names();
    let missing: Vec<_> = want.iter().filter(|n| !held.contains(n)).collect();
    let extra: Vec<_> = held.iter().filter(|n| !want.contains(n)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:?}, extra {extra:?}"
    );
    let _ = std::fs::remove_file(&cred);
    replicas.clear();
    // Best effort: an autovacuum worker on it (the server's, not ours to
    // end) makes a drop refuse; the name is this run's alone.
    let _ = Command::new("psql")
        .args([
            &url,
            "-q",
            "-c",
            &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        ])
        .output();
}
