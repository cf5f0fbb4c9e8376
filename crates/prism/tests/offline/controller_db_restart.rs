//! PostgreSQL restarted under a booking load on three `prism controller
//! serve` replicas (a cluster of the test's own, `initdb` from Debian's
//! packages, so no other test's database goes down with it): every booking
//! a client was told of exists exactly once, each replica books again
//! once the server is back (its pool's broken connections replaced), and
//! the background work resumes (the reaper ends holds made after the
//! restart). Needs PostgreSQL's programs and root (to run the server as
//! `postgres`): skipped without them, failed in CI.

use crate::common::{PASSWORD, free_port, login};
use prism_controller::{ControllerClient, ProjectRequest, ServiceLevel, UserRequest};
use prism_lab::bench::controller::{probe, probe_type};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A PostgreSQL cluster in a directory of its own, on its own port,
/// trusting local connections; stopped and removed when dropped.
struct Cluster {
    dir: PathBuf,
    bin: PathBuf,
    port: u16,
}

/// Debian's PostgreSQL programs (`/usr/lib/postgresql/N/bin`), if any.
fn pg_bin() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|b| b.join("initdb").exists())
        .collect();
    found.sort();
    found.pop()
}

fn as_postgres(bin: &Path, tool: &str, args: &[&str]) {
    let o = Command::new("runuser")
        .args(["-u", "postgres", "--"])
        .arg(bin.join(tool))
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{tool} {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

impl Cluster {
    fn start(bin: PathBuf) -> Self {
        let port = free_port();
        let dir = std::env::temp_dir().join(format!("prism-pg-{}-{port}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let d = dir.display().to_string();
        Command::new("chown")
            .args(["postgres:postgres", &d])
            .status()
            .unwrap();
        let data = format!("{d}/data");
        as_postgres(
            &bin,
            "initdb",
            &["-D", &data, "--auth=trust", "-U", "prism", "-E", "UTF8"],
        );
        let c = Self { dir, bin, port };
        c.ctl(&["start"]);
        c
    }

    fn ctl(&self, what: &[&str]) {
        let d = self.dir.display().to_string();
        let (data, log) = (format!("{d}/data"), format!("{d}/log"));
        let opts = format!("-p {} -k {d} -c listen_addresses=127.0.0.1", self.port);
        let mut args = vec!["-D", &data, "-o", &opts, "-l", &log, "-w", "-m", "fast"];
        args.extend_from_slice(what);
        as_postgres(&self.bin, "pg_ctl", &args);
    }

    fn url(&self, db: &str) -> String {
        format!(
            "postgres://prism@127.0.0.1:{}/{db}?sslmode=disable",
            self.port
        )
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let d = self.dir.display().to_string();
        let _ = Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(self.bin.join("pg_ctl"))
            .args(["-D", &format!("{d}/data"), "-m", "immediate", "stop"])
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

struct Replica(Child, String);

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn replica(db: &str) -> Replica {
    let addr = format!("127.0.0.1:{}", free_port());
    let child = Command::new(env!("CARGO_BIN_EXE_prism"))
        .args([
            "controller",
            "serve",
            "--db",
            db,
            "--listen",
            &addr,
            "--hold",
            "3",
        ])
        .args(["--db-connections", "3"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    Replica(child, addr)
}

async fn set_up(admin: &ControllerClient) {
    let mut level = ServiceLevel::standard();
    level.name = "wide".into();
    level.max_lease_hours = 1 << 40;
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
    admin.register_type(&probe_type()).await.unwrap();
}

/// Books until `until`, whatever fails meanwhile: the ids acknowledged.
async fn load(c: ControllerClient, k: usize, until: Instant) -> Vec<String> {
    let (mut told, mut i) = (Vec::new(), 0);
    while Instant::now() < until {
        i += 1;
        if let Ok(b) = c.book("p", &probe(format!("r{k}-{i}"))).await {
            told.push(b.id);
        } else {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    told
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgresql_restarted_under_load_loses_no_booking_and_the_replicas_resume() {
    if !prism_testkit::gates::root("controller_db_restart") {
        return;
    }
    let bin = pg_bin();
    if !prism_testkit::gates::prerequisite(
        "controller_db_restart",
        "PostgreSQL's programs (/usr/lib/postgresql/N/bin)",
        bin.is_some(),
        "PRISM_REQUIRE_ROOT",
    ) {
        return;
    }
    let cluster = Cluster::start(bin.unwrap());
    let o = Command::new("psql")
        .args([
            &cluster.url("postgres"),
            "-q",
            "-c",
            "CREATE DATABASE booking",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let db = cluster.url("booking");
    crate::common::bootstrap(&db);
    let replicas: Vec<Replica> = (0..3).map(|_| replica(&db)).collect();
    set_up(&login(&replicas[0].1, "admin").await).await;
    let mut clients = Vec::new();
    for r in &replicas {
        clients.push(login(&r.1, "u").await);
    }
    let until = Instant::now() + Duration::from_secs(6);
    let tasks: Vec<_> = (clients.iter().cloned().enumerate())
        .map(|(k, c)| tokio::spawn(load(c, k, until)))
        .collect();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let t = Instant::now();
    cluster.ctl(&["restart"]);
    eprintln!(
        "PostgreSQL restarted in {:.2} s under load",
        t.elapsed().as_secs_f64()
    );
    let mut told = Vec::new();
    for task in tasks {
        told.extend(task.await.unwrap());
    }
    // Each replica books again (its pool's broken connections replaced).
    let mut after = Vec::new();
    for (k, c) in clients.iter().enumerate() {
        let t = Instant::now();
        loop {
            match c.book("p", &probe(format!("after-{k}"))).await {
                Ok(b) => break after.push(b.id),
                Err(e) => assert!(t.elapsed() < Duration::from_secs(10), "replica {k}: {e}"),
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let all = clients[0].all_bookings("p", true).await.unwrap();
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
    assert!(told.len() >= 100, "{} acknowledged", told.len());
    // The background work resumed: the holds made after the restart end
    // (3 s) by the reaper of whichever replica leads now.
    let t = Instant::now();
    loop {
        let all = clients[1].all_bookings("p", true).await.unwrap();
        let live = all
            .iter()
            .filter(|b| after.contains(&b.id))
            .filter(|b| b.allocation_state != prism_controller::AllocationState::Unallocated)
            .count();
        if live == 0 {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(15),
            "{live} holds not reaped"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    eprintln!(
        "{} bookings acknowledged across the restart, each once; the reaper resumed",
        told.len()
    );
}
