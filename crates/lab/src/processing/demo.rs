//! The run: the machine, a controller, the two phases (without the rate
//! limits, then with them: each phase's networks and processing nodes
//! booked, measured and released), the table and its checks.

use crate::demo::nodes::{Topology, demo_controller, start_registered};
use crate::processing::machine::{self, NAMES, NODES, PROJECT, STATE_DIR};
use crate::processing::notebook::{self, Notebook};
use crate::processing::table2::{self, Column, Kind, Rate, Ssh};
use anyhow::{Context, Result, bail};
use prism_controller::{ControllerClient, SshKeyRequest};
use prism_io::netns;
use std::path::{Path, PathBuf};

/// Table 2's rate limits, MB/s.
pub const TABLE2_MBYTES: [f64; 5] = [12.5, 18.75, 25.0, 31.25, 31.25];
/// This machine's scale: a tenth (node 1's link 100 Mbit/s, 95 booked).
pub const SCALE: f64 = 0.04;
/// Without limits each pair offers UDP at half the link each way: five
/// offer 2.5 times what the link carries (the paper's nodes sent "as fast
/// as they can").
const OPEN_UDP_MBPS: f64 = 20.0;
/// With limits each offers half as much again as it booked.
const RL_OFFER: f64 = 1.5;
/// Without limits a network's booking is the link's whole rate: its own
/// limit never binds before the shared link does.
const OPEN_MBPS: i64 = machine::LINK_MBPS as i64;

/// How much of the demo to run.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Table 2's first `pairs` experiments (at most five; none: no table).
    pub pairs: usize,
    /// The window measured, s from the clients' start.
    pub window: (u64, u64),
    /// Only the columns with rate limits (the short version CI runs).
    pub limited_only: bool,
    /// A notebook run against the testbed after the table.
    pub notebook: Option<Notebook>,
}

impl Plan {
    /// Table 2 whole.
    pub const FULL: Plan = Plan {
        pairs: 5,
        window: table2::WINDOW,
        limited_only: false,
        notebook: None,
    };

    /// Only `notebook`, no table.
    pub fn notebook(notebook: Notebook) -> Plan {
        Plan {
            pairs: 0,
            notebook: Some(notebook),
            ..Plan::FULL
        }
    }
}

/// Table 2 (rl)'s bounds: UDP within 1% of its booking, TCP within 3%
/// (the paper's own TCP (rl) is 1.6–1.9% under).
pub const BOUNDS: (f64, f64) = (0.01, 0.03);

/// What the demo measured.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Each pair's target, MB/s (Table 2's, scaled).
    pub targets: Vec<f64>,
    /// UDP, UDP (rl), TCP, TCP (rl).
    pub columns: Vec<Column>,
    /// The processing nodes booked (their ids).
    pub booked: Vec<String>,
    /// Namespaces, links and containers' namespaces left after the run
    /// (and bookings the notebook left live).
    pub leftovers: Vec<String>,
    /// The executed notebook and its run's seconds.
    pub notebook: Option<(PathBuf, f64)>,
}

impl Outcome {
    fn column(&self, kind: Kind, limited: bool) -> Option<&Column> {
        (self.columns.iter()).find(|c| c.kind == kind && c.limited == limited)
    }

    /// Each limited direction's error beyond its bound (`udp`, `tcp`:
    /// the 0.01 and 0.03): what failed, as lines.
    pub fn misses(&self, (udp, tcp): (f64, f64)) -> Vec<String> {
        let mut out = Vec::new();
        for (kind, bound) in [(Kind::Udp, udp), (Kind::Tcp, tcp)] {
            let Some(c) = self.column(kind, true) else {
                out.push(format!("no {kind:?} (rl) column"));
                continue;
            };
            for (k, cell) in c.cells.iter().enumerate() {
                for (way, r) in [("from", &cell.from), ("to", &cell.to)] {
                    let err = r.mbytes / self.targets[k] - 1.0;
                    if err.abs() > bound {
                        out.push(format!(
                            "{kind:?} (rl) pair {k} {way} node 1: {:.3} MB/s for {:.3} ({:+.2}%)",
                            r.mbytes,
                            self.targets[k],
                            100.0 * err
                        ));
                    }
                }
            }
        }
        out
    }
}

/// `prism demo --processing`: runs it, prints the table, fails on a
/// miss; with `notebook`, runs only that notebook against the testbed.
pub fn main(prism: &Path, notebook: Option<&Path>) -> Result<()> {
    if !netns::have_privileges() {
        bail!("the processing demo needs root (namespaces, containers, a shaped link)");
    }
    let plan = notebook.map_or(Plan::FULL, |n| Plan::notebook(Notebook::new(n)));
    let o = run(prism, false, plan)?;
    if !o.leftovers.is_empty() {
        bail!("left behind: {}", o.leftovers.join(", "));
    }
    if let Some((executed, s)) = &o.notebook {
        println!(
            "  the notebook ran to its end in {s:.1} s; executed copy and plot in {}",
            executed.parent().unwrap_or(Path::new(".")).display()
        );
        return Ok(());
    }
    print!("{}", table(&o));
    let misses = o.misses(BOUNDS);
    if !misses.is_empty() {
        bail!("targets missed:\n  {}", misses.join("\n  "));
    }
    println!("  every limited rate within its bound (UDP 1%, TCP 3%); nothing left behind");
    Ok(())
}

/// Runs the demo; `prism` is the executable that runs the nodes.
pub fn run(prism: &Path, quiet: bool, plan: Plan) -> Result<Outcome> {
    let say = crate::demo::printer(quiet);
    if let Some(n) = &plan.notebook
        && !n.path.exists()
    {
        bail!("no notebook {}", n.path.display());
    }
    NAMES.remove_all();
    machine::cleanup_instances(prism);
    let dir = PathBuf::from(STATE_DIR);
    let secret = crate::demo::nodes::fresh_state(&dir)?;
    say(if plan.pairs == 0 {
        "prism demo --processing: a testbed of three nodes for a notebook ..."
    } else {
        "prism demo --processing: VANI Table 2 with processing nodes: five experiments across node 1's one WAN link ..."
    });
    machine::install_images()?;
    let mut topo = Topology {
        nodes: Vec::new(),
        names: &NAMES,
    };
    machine::build().context("building the namespaces")?;
    let rt = crate::demo::nodes::runtime()?;
    let out = rt.block_on(drive(prism, (&dir, &secret), plan, &mut topo, &say));
    drop(topo);
    machine::cleanup_instances(prism);
    let mut out = out?;
    let containers = netns::list_namespaces().unwrap_or_default();
    let ours = |n: &String| out.booked.iter().any(|id| *n == format!("pp-{id}"));
    let left: Vec<String> = containers.into_iter().filter(ours).collect();
    out.leftovers = NAMES.leftovers();
    out.leftovers.extend(left);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(out)
}

async fn drive(
    prism: &Path,
    (dir, secret): (&Path, &str),
    plan: Plan,
    topo: &mut Topology,
    say: &dyn Fn(&str),
) -> Result<Outcome> {
    let ip = machine::controller_ip();
    let (ctl, admin, alice, addr) = demo_controller(dir, secret, (&ip, PROJECT), say).await?;
    let _background = ctl.spawn_background();
    let start = |i, key: &Path| machine::start_node(prism, i, &addr, key);
    start_registered(&admin, (dir, NODES), start, topo, say).await?;
    say(&format!(
        "  node 1's link to the wide area shaped to {} Mbit/s each way (tc tbf: the paper's 1 GbE, scaled)",
        machine::LINK_MBPS
    ));
    let mut out = Outcome::default();
    if plan.pairs > 0 {
        let pids: Vec<u32> = topo.nodes.iter().map(|c| c.id()).collect();
        table2(&alice, (dir, &pids), &plan, &mut out, say).await?;
    }
    if let Some(nb) = &plan.notebook {
        let testbed = notebook::Testbed {
            url: format!("http://{addr}"),
            user: "alice".into(),
            password: crate::demo::nodes::demo_password(secret),
            project: PROJECT.into(),
            nodes: vec!["node1".into(), "node2".into()],
            processing_port: machine::PROCESSING_PORT.into(),
        };
        out.notebook = Some(run_notebook(nb, &testbed, &alice, &mut out, say).await?);
    }
    Ok(out)
}

/// Table 2's experiments: the phases of `plan`, measured into `out`.
async fn table2(
    alice: &ControllerClient,
    (dir, pids): (&Path, &[u32]),
    plan: &Plan,
    out: &mut Outcome,
    say: &dyn Fn(&str),
) -> Result<()> {
    let key = ssh_key(alice, dir).await?;
    out.targets = (TABLE2_MBYTES.iter().take(plan.pairs))
        .map(|m| m * SCALE)
        .collect();
    let targets = out.targets.clone();
    let reach = (dir, key.as_path(), pids, plan.window);
    if !plan.limited_only {
        let (open, udp) = (vec![OPEN_MBPS; plan.pairs], vec![OPEN_UDP_MBPS; plan.pairs]);
        phase(alice, reach, ("open", &open), &udp, out, say).await?;
    }
    let rl: Vec<i64> = targets.iter().map(|t| (t * 8.0).round() as i64).collect();
    let offered: Vec<f64> = targets.iter().map(|t| t * 8.0 * RL_OFFER).collect();
    phase(alice, reach, ("rl", &rl), &offered, out, say).await
}

/// Runs `nb` against the testbed; what it booked is added to
/// `out.booked` (its containers must be gone), and what it left live to
/// `out.leftovers`.
async fn run_notebook(
    nb: &Notebook,
    testbed: &notebook::Testbed,
    alice: &ControllerClient,
    out: &mut Outcome,
    say: &dyn Fn(&str),
) -> Result<(PathBuf, f64)> {
    say(&format!(
        "  running {} with {} (nbclient) ...",
        nb.path.display(),
        nb.python.display()
    ));
    let before = alice.all_bookings(PROJECT, true).await?;
    let ran = {
        let (nb, testbed) = (nb.clone(), testbed.clone());
        tokio::task::spawn_blocking(move || notebook::run(&nb, &testbed)).await?
    };
    let after = alice.all_bookings(PROJECT, true).await?;
    let new = after
        .iter()
        .filter(|b| !before.iter().any(|x| x.id == b.id));
    for b in new {
        out.booked.push(b.id.clone());
        if b.released_ms.is_none() {
            out.leftovers
                .push(format!("booking {} ({}), not released", b.name, b.id));
        }
    }
    ran
}

/// A key pair for the researcher, its public half registered.
async fn ssh_key(alice: &ControllerClient, dir: &Path) -> Result<PathBuf> {
    let key = dir.join("id_ed25519");
    netns::run(
        "ssh-keygen",
        &[
            "-q",
            "-t",
            "ed25519",
            "-N",
            "",
            "-f",
            &key.display().to_string(),
        ],
    )?;
    let public =
        SshKeyRequest::from_file("demo", &key.with_extension("pub")).map_err(anyhow::Error::msg)?;
    alice.add_ssh_key(&public).await?;
    Ok(key)
}

/// One phase: five networks at `mbps`, a pair of processing nodes on
/// each; UDP (offering `udp_mbps` each way) then TCP; released.
async fn phase(
    alice: &ControllerClient,
    (dir, key, pids, window): (&Path, &Path, &[u32], (u64, u64)),
    (tag, mbps): (&str, &[i64]),
    udp_mbps: &[f64],
    out: &mut Outcome,
    say: &dyn Fn(&str),
) -> Result<()> {
    let t = std::time::Instant::now();
    let pairs = machine::book_phase(alice, tag, mbps).await?;
    out.booked
        .extend(pairs.iter().flat_map(|p| [p.a.id.clone(), p.b.id.clone()]));
    say(&format!(
        "  {tag}: five networks at {mbps:?} Mbit/s and ten processing nodes booked, ready in {:.1} s",
        t.elapsed().as_secs_f64()
    ));
    let limited = tag == "rl";
    let (dir, key, udp) = (dir.to_path_buf(), key.to_path_buf(), udp_mbps.to_vec());
    let pids = pids.to_vec();
    let (pairs, columns) = tokio::task::spawn_blocking(move || {
        let ssh = Ssh {
            dir: &dir,
            key: &key,
            node_pids: &pids,
        };
        let run = || -> Result<Vec<Column>> {
            table2::start_servers(&ssh, &pairs)?;
            let u = table2::column(&ssh, &pairs, (Kind::Udp, limited), &udp, window)?;
            let t = table2::column(&ssh, &pairs, (Kind::Tcp, limited), &udp, window)?;
            Ok(vec![u, t])
        };
        let columns = run();
        (pairs, columns)
    })
    .await?;
    machine::release(alice, &pairs).await?;
    out.columns.extend(columns?);
    say(&format!("  {tag}: measured and released"));
    Ok(())
}

/// The table, as printed: MB/s received from node 1 / to node 1.
pub fn table(o: &Outcome) -> String {
    let mut s = format!(
        "  VANI Table 2 with processing nodes at {SCALE} scale, MB/s received from node 1 / to node 1\n  \
         (frames at the receiving container's interface over {}-{} s of an iperf3 run; TCP without limits: its slowest~fastest second)\n  \
         pair  target   UDP            UDP (rl)       TCP                      TCP (rl)\n",
        table2::WINDOW.0,
        table2::WINDOW.1,
    );
    let col = |kind, limited| o.column(kind, limited);
    let both = |c: Option<&table2::Cell>, f: &dyn Fn(&Rate) -> String| match c {
        Some(c) => format!("{}/{}", f(&c.from), f(&c.to)),
        None => "-".into(),
    };
    let mean = |r: &Rate| format!("{:.3}", r.mbytes);
    let range = |r: &Rate| format!("{:.2}~{:.2}", r.min, r.max);
    for (k, target) in o.targets.iter().enumerate() {
        let cell = |kind, limited| col(kind, limited).and_then(|c| c.cells.get(k));
        s += &format!(
            "  {k:>4}  {target:>6.3}   {:<13}  {:<13}  {:<23}  {}\n",
            both(cell(Kind::Udp, false), &mean),
            both(cell(Kind::Udp, true), &mean),
            both(cell(Kind::Tcp, false), &range),
            both(cell(Kind::Tcp, true), &mean),
        );
    }
    let sent = |r: &Rate| format!("{:.3}", r.sent_mbytes);
    let again = |r: &Rate| r.retransmits.to_string();
    let iperf = |r: &Rate| format!("{:.3}", r.iperf_mbytes);
    let (udp, udp_rl) = (col(Kind::Udp, false), col(Kind::Udp, true));
    let (tcp, tcp_rl) = (col(Kind::Tcp, false), col(Kind::Tcp, true));
    s += &detail(udp, "UDP sent (at the sender's interface)", &sent);
    s += &detail(udp_rl, "UDP (rl) sent", &sent);
    s += &detail(tcp, "TCP segments sent again (iperf3)", &again);
    s += &detail(tcp_rl, "TCP (rl) segments sent again", &again);
    s += &detail(tcp_rl, "TCP (rl) slowest~fastest second", &range);
    s += &detail(
        tcp_rl,
        "TCP (rl) at iperf3's receivers (payload, whole run)",
        &iperf,
    );
    s
}

/// A line under the table: `label`, then `f` of each pair's two ways.
fn detail(c: Option<&Column>, label: &str, f: &dyn Fn(&Rate) -> String) -> String {
    let Some(c) = c else {
        return String::new();
    };
    let v: Vec<String> = (c.cells.iter())
        .map(|c| format!("{}/{}", f(&c.from), f(&c.to)))
        .collect();
    format!("  {label}: {}\n", v.join(" "))
}
