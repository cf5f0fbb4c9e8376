//! `prism bench-controller`: the controller's throughput targets, measured
//! on a database of its own, with no node (so the figures are the
//! controller's and its database's): bookings per second (allocate +
//! release over the HTTP API), read latency with 10,000 active leases, and
//! a reaper pass over 10,000 expired leases.

use anyhow::Result;
use prism_controller::prelude::*;
use prism_controller::{
    BookingRequest, Controller, ControllerClient, GenericOp, LoginRequest, ManualClock,
    ProjectRequest, ResourceType, ServiceLevel, Settings, UserRequest,
};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct BenchControllerArgs {
    /// An SQLite file (default: a new one in /tmp) or a postgres:// URL
    /// (an empty database).
    #[arg(long)]
    pub db: Option<String>,
    /// Allocate + release pairs to time.
    #[arg(long, default_value_t = 2000)]
    pub pairs: usize,
    /// Active leases for the read and reaper figures.
    #[arg(long, default_value_t = 10_000)]
    pub leases: usize,
    /// Concurrent clients.
    #[arg(long, default_value_t = 4)]
    pub clients: usize,
    /// Over HTTPS (a lab CA made for the run), as a deployment would.
    #[arg(long)]
    pub tls: bool,
    /// Controller replicas serving the API side by side, each with its
    /// own pool (PostgreSQL only: SQLite serves one process); the clients
    /// are spread over them.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=16))]
    pub replicas: u16,
    /// A connection per request instead of keep-alive connections.
    #[arg(long)]
    pub no_keep_alive: bool,
    /// Also time the web portal's bookings page in headless Chromium with
    /// the leases made (bench/portal/page_load.py; needs the Playwright
    /// environment in $PRISM_PORTAL_PYTHON and $PRISM_CHROMIUM, which
    /// scripts/ensure-sdk.sh makes).
    #[arg(long)]
    pub portal: bool,
    /// Projects the clients book in (client `c` in project `c % N`): one
    /// project's bookings run one at a time (its quota), different
    /// projects' side by side.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub projects: u16,
}

/// Every bench user's password.
const PASSWORD: &str = "bench password 123";

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

/// The `probe` resource type: no node behind it.
pub fn probe_type() -> ResourceType {
    ResourceType {
        name: "probe".into(),
        description: "a bench resource with no node".into(),
        schema: serde_json::json!({"type": "object", "properties": {"size": {"type": "integer"}}}),
        operations: vec![GenericOp::Get, GenericOp::Release],
        builtin: false,
    }
}

/// A booking `name` of the `probe` resource type (no node behind it): the
/// controller's own work, and its database's, alone.
pub fn probe(name: String) -> BookingRequest {
    BookingRequest {
        name,
        resource_type: "probe".into(),
        spec: serde_json::json!({"size": 1}),
        bandwidth_mbps: 0,
        lease_s: Some(3600),
        provision: false,
        parts: Vec::new(),
        nat: false,
    }
}

pub fn run(a: &BenchControllerArgs) -> Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(bench(a))
}

async fn bench(a: &BenchControllerArgs) -> Result<()> {
    let dir = std::env::temp_dir().join(format!("prism-bench-ctl-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let db =
        a.db.clone()
            .unwrap_or_else(|| dir.join("controller.db").display().to_string());
    let clock = ManualClock::new(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_millis() as i64,
    );
    let settings = Settings {
        rate_per_s: 1e9,
        rate_burst: 1e9,
        // The replicas share the server's connections as a deployment
        // would (`prism controller serve --db-connections`).
        db_connections: prism_controller::DB_CONNECTIONS.div_ceil(u32::from(a.replicas)),
        ..Settings::default()
    };
    let ctl = Controller::open_with_clock(&db, settings, Arc::new(clock.clone())).await?;
    println!(
        "prism bench-controller: {} ({:?}); no node: bookings of a registered resource type",
        prism_controller::redact(&db),
        ctl.engine()
    );
    let tls_dir = a.tls.then_some(dir.as_path());
    let (user, user_token, ca, url) = set_up(&ctl, tls_dir, a.projects).await?;
    let users = replicas(
        a,
        (&db, &ctl, &clock),
        tls_dir,
        (&user, &user_token, ca.as_deref()),
    )
    .await?;
    let pairs = (a.pairs / a.clients) * a.clients;
    let s = book_and_release(a, &users).await?;
    say_bookings(a, pairs, s, ctl.db_connections());
    let who = ctl.authenticate(Some(user_token.as_str())).await?;
    let s = book_and_release_in_library(a, &ctl, &who).await?;
    println!(
        "  bookings: {pairs} allocate + release pairs in {s:.2} s = {:.0} bookings/s (the library, no HTTP)",
        pairs as f64 / s
    );
    reads(a, &users).await?;
    if a.portal {
        portal_page(&url, ca.as_deref()).await?;
    }
    // The reaper over all of them at once.
    clock.advance_ms(3_600_000 + 1);
    let t = Instant::now();
    let n = ctl.reap().await?;
    println!(
        "  reaper: {n} expired leases released and accounted in {:.0} ms (one pass)",
        t.elapsed().as_secs_f64() * 1e3
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// The clients of the run: `user` on this controller, and on each other
/// replica opened on database `db` and served; kept alive unless told.
async fn replicas(
    a: &BenchControllerArgs,
    (db, ctl, clock): (&str, &Controller, &ManualClock),
    tls_dir: Option<&std::path::Path>,
    (user, token, ca): (&ControllerClient, &str, Option<&std::path::Path>),
) -> Result<Vec<ControllerClient>> {
    let mut users = vec![user.clone()];
    for r in 1..a.replicas {
        let replica =
            Controller::open_with_clock(db, ctl.settings().clone(), Arc::new(clock.clone()))
                .await
                .map_err(|e| anyhow::anyhow!("replica {}: {e}", r + 1))?;
        let url = serve(&replica, tls_dir).await?;
        users.push(ControllerClient::connect(
            &url,
            Some(token.to_string()),
            ca,
        )?);
    }
    if !a.no_keep_alive {
        users = users
            .iter()
            .map(ControllerClient::keeping_connections)
            .collect();
    }
    Ok(users)
}

/// The bookings-per-second line of the HTTP run.
fn say_bookings(a: &BenchControllerArgs, pairs: usize, s: f64, connections: u32) {
    println!(
        "  bookings: {pairs} allocate + release pairs in {s:.2} s = {:.0} bookings/s ({} clients over {}{}, {} replica(s) of {} database connection(s), {} project(s))",
        pairs as f64 / s,
        a.clients,
        if a.tls { "HTTPS" } else { "HTTP" },
        if a.no_keep_alive {
            ", a connection per request"
        } else {
            " with keep-alive"
        },
        a.replicas,
        connections,
        a.projects
    );
}

/// `ctl`'s API served on a free port (over TLS with the lab CA in
/// `tls_dir`, made by the first call): its address.
async fn serve(ctl: &Controller, tls_dir: Option<&Path>) -> Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    let (tls, url) = match tls_dir {
        Some(dir) => {
            let dir = dir.join("tls");
            let ca = match prism_http::LabCa::open(&dir)? {
                Some(ca) => ca,
                None => prism_http::LabCa::create(&dir, &["localhost".into()], 1)?,
            };
            let tls = prism_http::tls::server_config(&ca.server_cert, &ca.server_key)?;
            (Some(tls), format!("https://localhost:{port}"))
        }
        None => (None, format!("127.0.0.1:{port}")),
    };
    let limits = prism_http::Limits::default();
    tokio::spawn(prism_controller::api::serve_with(
        ctl.clone(),
        listener,
        tls,
        limits,
    ));
    Ok(url)
}

/// The API served (see [`serve`]), a project `p` on a service level with
/// no lease limit, a resource type with no node, and its user's client,
/// token, and the CA to trust.
async fn set_up(
    ctl: &Controller,
    tls_dir: Option<&Path>,
    projects: u16,
) -> Result<(ControllerClient, String, Option<std::path::PathBuf>, String)> {
    let pw = PASSWORD;
    ctl.bootstrap_admin("admin", pw).await?;
    let url = serve(ctl, tls_dir).await?;
    let ca = tls_dir.map(|d| d.join("tls").join("ca.pem"));
    let anon = ControllerClient::connect(&url, None, ca.as_deref())?;
    let login = |u: &str| LoginRequest {
        user: u.into(),
        password: pw.into(),
        project: None,
        ttl_s: Some(86_400),
    };
    let admin = anon.with_token(Some(anon.login(&login("admin")).await?.token));
    let mut level = ServiceLevel::standard();
    level.name = "bench".into();
    level.max_lease_hours = 1 << 40;
    admin.put_service_level(&level).await?;
    admin
        .create_user(&UserRequest {
            name: "u".into(),
            password: pw.into(),
            admin: false,
        })
        .await?;
    for k in 0..projects {
        admin
            .create_project(&ProjectRequest {
                name: project(k as usize, projects),
                service_level: "bench".into(),
                owner: "u".into(),
            })
            .await?;
    }
    admin.register_type(&probe_type()).await?;
    let token = anon.login(&login("u")).await?.token;
    Ok((anon.with_token(Some(token.clone())), token, ca, url))
}

/// The portal's bookings page timed in Chromium, logged in as the bench's
/// user, in project p0 (which holds the leases when there is one project).
async fn portal_page(url: &str, ca: Option<&Path>) -> Result<()> {
    let (Ok(python), Ok(chromium)) = (
        std::env::var("PRISM_PORTAL_PYTHON"),
        std::env::var("PRISM_CHROMIUM"),
    ) else {
        anyhow::bail!(
            "--portal needs PRISM_PORTAL_PYTHON and PRISM_CHROMIUM (source scripts/ensure-sdk.sh)"
        );
    };
    if ca.is_some() {
        anyhow::bail!("--portal times the page over plain HTTP on loopback: drop --tls");
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/portal/page_load.py");
    let url = if url.contains("://") {
        url.to_string()
    } else {
        format!("http://{url}")
    };
    // On a blocking thread: the controller keeps serving meanwhile.
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(python)
            .arg(script)
            .env("PRISM_PORTAL_URL", url)
            .env("PRISM_CHROMIUM", chromium)
            .env("PRISM_USER", "u")
            .env("PRISM_PASSWORD", PASSWORD)
            .env("PRISM_PROJECT", "p0")
            .output()
    })
    .await??;
    if !out.status.success() {
        anyhow::bail!(
            "the portal's page timing failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    print!("{}", String::from_utf8_lossy(&out.stdout));
    Ok(())
}

/// Client `c`'s project of `n`.
fn project(c: usize, n: u16) -> String {
    format!("p{}", c % usize::from(n))
}

/// Seconds for allocate + release pairs over HTTP, `clients` at a time,
/// client `c` on replica `c % replicas`.
async fn book_and_release(a: &BenchControllerArgs, users: &[ControllerClient]) -> Result<f64> {
    let t = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..a.clients {
        let user = users[c % users.len()].clone();
        let (n, p) = (a.pairs / a.clients, project(c, a.projects));
        tasks.push(tokio::spawn(async move {
            for i in 0..n {
                let b = user.book(&p, &probe(format!("c{c}-{i}"))).await?;
                user.release(&p, &b.id).await?;
            }
            anyhow::Ok(())
        }));
    }
    for t in tasks {
        t.await??;
    }
    Ok(t.elapsed().as_secs_f64())
}

/// The same in the library, without HTTP.
async fn book_and_release_in_library(
    a: &BenchControllerArgs,
    ctl: &Controller,
    who: &prism_controller::Principal,
) -> Result<f64> {
    let t = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..a.clients {
        let (ctl, who) = (ctl.clone(), who.clone());
        let (n, p) = (a.pairs / a.clients, project(c, a.projects));
        tasks.push(tokio::spawn(async move {
            for i in 0..n {
                let b = ctl.allocate(&who, &p, probe(format!("d{c}-{i}"))).await?;
                ctl.release(&who, &p, &b.id).await?;
            }
            anyhow::Ok(())
        }));
    }
    for t in tasks {
        t.await??;
    }
    Ok(t.elapsed().as_secs_f64())
}

/// Reads with `leases` active (made by the clients at once): one
/// booking, and a page of 100, by one client with nothing else running.
async fn reads(a: &BenchControllerArgs, users: &[ControllerClient]) -> Result<()> {
    let t = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..a.clients {
        let user = users[c % users.len()].clone();
        let range = (c * a.leases / a.clients)..((c + 1) * a.leases / a.clients);
        let p = project(c, a.projects);
        tasks.push(tokio::spawn(async move {
            let mut ids = Vec::new();
            for i in range {
                ids.push(user.book(&p, &probe(format!("l{i}"))).await?.id);
            }
            anyhow::Ok((p, ids))
        }));
    }
    // Read in project p0 (a page is a project's), with every lease of
    // every project active.
    let mut ids = Vec::new();
    for t in tasks {
        let (p, made) = t.await??;
        if p == "p0" {
            ids.extend(made);
        }
    }
    let user = &users[0];
    println!(
        "  {} active leases made in {:.1} s",
        a.leases,
        t.elapsed().as_secs_f64()
    );
    if ids.is_empty() {
        println!(
            "  reads: none of the leases is the first project's (more --leases than --projects)"
        );
        return Ok(());
    }
    let mut one = Vec::new();
    let mut page = Vec::new();
    for i in 0..2000 {
        let t = Instant::now();
        user.booking("p0", &ids[(i * 7919) % ids.len()]).await?;
        one.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        user.bookings("p0", false, None).await?;
        page.push(t.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "  reads with {} active leases: one booking p50 {:.2} ms p99 {:.2} ms; a page of 100 p50 {:.2} ms p99 {:.2} ms",
        a.leases,
        pct(&mut one, 0.5),
        pct(&mut one, 0.99),
        pct(&mut page, 0.5),
        pct(&mut page, 0.99)
    );
    Ok(())
}
