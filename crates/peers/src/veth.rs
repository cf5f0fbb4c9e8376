//! Forwarding over veth between network namespaces: Linux forwarding in a
//! router namespace, Open vSwitch's userspace datapath (`netdev`) with
//! AF_XDP ports and with AF_PACKET ports, and Prism's hardware and software
//! tiers, each on its own pair of test hosts, the same traffic through each
//! (`prism bench-live`'s generator: UDP frames from host a's `sendmmsg`
//! loop, counted at host b).
//!
//! Open vSwitch runs as its own ovsdb-server and ovs-vswitchd under a
//! private run directory, with one netdev bridge per port kind and two
//! OpenFlow rules doing what the other routers do (destination prefix →
//! rewrite both MACs, decrement the TTL, output). Its PMD threads poll all
//! the time, so between its measurements ovs-vswitchd is stopped (SIGSTOP);
//! Prism's workers and Linux are idle when no traffic comes.
//!
//! No cycles per packet here: the work is spread over several threads and
//! the kernel's softirqs on both cores, with the generator and the sink
//! among them, and without hardware counters there is no way to charge it
//! to the forwarder alone (the machine is simply busy for the whole window,
//! so "busy cycles per frame" would only restate the rate).

use crate::{PeersArgs, Row};
use anyhow::{Context, Result, bail};
use prism_compile as scenario;
use prism_io::netns;
use prism_io::sys::{self, Signal};
use prism_lab::bench::live::{Target, blast, kernel_baseline};
use prism_lab::demo::hosts::{self as demo, HOST_PREFIX, LINK_PREFIX, host_mac, make_host};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The Prism networks of this workload: (name, tier, mode, router).
const NETS: [(&str, &str, &str, &str); 3] = [
    ("hw", "hardware", "destination", ""),
    ("sw-prism", "software", "destination", "prism"),
    ("sw-kernel", "software", "destination", "kernel"),
];

/// A private Open vSwitch: ovsdb-server and ovs-vswitchd.
struct Ovs {
    dir: PathBuf,
}

fn pid_in(path: &Path) -> Option<u32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

impl Ovs {
    fn run(&self, prog: &str, args: &[&str]) -> Result<String> {
        let out = Command::new(prog)
            .args(args)
            .env("OVS_RUNDIR", &self.dir)
            .env("OVS_DBDIR", &self.dir)
            .env("OVS_LOGDIR", &self.dir)
            .output()
            .with_context(|| format!("running {prog} (Debian package openvswitch-switch)"))?;
        if !out.status.success() {
            bail!(
                "`{prog} {}` failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn vsctl(&self, args: &[&str]) -> Result<String> {
        let db = format!("--db=unix:{}/db.sock", self.dir.display());
        let mut v = vec![db.as_str()];
        v.extend_from_slice(args);
        self.run("ovs-vsctl", &v)
    }

    fn start() -> Result<Self> {
        let dir = std::env::temp_dir().join("prism-peers-ovs");
        Self::kill_in(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        let o = Self { dir };
        let d = o.dir.display().to_string();
        o.run(
            "ovsdb-tool",
            &[
                "create",
                &format!("{d}/conf.db"),
                "/usr/share/openvswitch/vswitch.ovsschema",
            ],
        )?;
        o.run(
            "ovsdb-server",
            &[
                &format!("{d}/conf.db"),
                &format!("--remote=punix:{d}/db.sock"),
                &format!("--pidfile={d}/ovsdb.pid"),
                &format!("--log-file={d}/ovsdb.log"),
                &format!("--unixctl={d}/ovsdb.ctl"),
                "--detach",
            ],
        )?;
        o.vsctl(&["--no-wait", "init"])?;
        o.run(
            "ovs-vswitchd",
            &[
                &format!("unix:{d}/db.sock"),
                &format!("--pidfile={d}/vswitchd.pid"),
                &format!("--log-file={d}/vswitchd.log"),
                &format!("--unixctl={d}/vswitchd.ctl"),
                "--detach",
            ],
        )?;
        Ok(o)
    }

    /// A netdev bridge between host links `a` and `b` (`kind`: `afxdp` or
    /// `system`, the latter AF_PACKET sockets), routing 10.0.2.0/24 to `b`
    /// and 10.0.1.0/24 to `a` as the other routers do.
    fn bridge(&self, br: &str, kind: &str, a: &str, b: &str, k: usize) -> Result<()> {
        self.vsctl(&[
            "add-br",
            br,
            "--",
            "set",
            "bridge",
            br,
            "datapath_type=netdev",
            "fail_mode=secure",
        ])?;
        for l in [a, b] {
            let mut args = vec!["add-port", br, l, "--", "set", "interface", l];
            let t = format!("type={kind}");
            args.push(&t);
            if kind == "afxdp" {
                args.push("options:xdp-mode=native");
            }
            self.vsctl(&args)?;
        }
        let mac = |m: [u8; 6]| netns::format_mac(m);
        for (to, (port, net)) in [(a, "10.0.1.0/24"), (b, "10.0.2.0/24")].iter().enumerate() {
            let flow = format!(
                "ip,nw_dst={net},actions=mod_dl_src:{},mod_dl_dst:{},dec_ttl,output:{port}",
                mac(ovs_gw(k, to)),
                mac(host_mac(k, to))
            );
            self.run("ovs-ofctl", &["add-flow", br, &flow])?;
        }
        Ok(())
    }

    fn vswitchd(&self) -> Option<u32> {
        pid_in(&self.dir.join("vswitchd.pid"))
    }

    fn signal(&self, sig: Signal) {
        if let Some(p) = self.vswitchd() {
            let _ = sys::signal(p, sig);
        }
    }

    fn kill_in(dir: &Path) {
        for f in ["vswitchd.pid", "ovsdb.pid"] {
            if let Some(p) = pid_in(&dir.join(f)) {
                // A stale pid fails harmlessly.
                let _ = sys::signal(p, Signal::Continue);
                let _ = sys::signal(p, Signal::Kill);
            }
        }
    }
}

impl Drop for Ovs {
    fn drop(&mut self) {
        self.signal(Signal::Continue);
        Self::kill_in(&self.dir);
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The gateway MAC the OVS hosts of pair `k` send to.
fn ovs_gw(k: usize, side: usize) -> [u8; 6] {
    [0x02, 0x70, 0, k as u8, 0, side as u8]
}

/// Host pair `k` named `tag` for an Open vSwitch bridge.
fn ovs_hosts(tag: &str, k: usize) -> Result<(Target, String, String)> {
    let (la, lb) = (
        format!("{LINK_PREFIX}{tag}a"),
        format!("{LINK_PREFIX}{tag}b"),
    );
    for (side, l) in [&la, &lb].iter().enumerate() {
        let ns = format!("{HOST_PREFIX}{tag}{}", ["a", "b"][side]);
        make_host(&ns, l, side, host_mac(k, side), ovs_gw(k, side))?;
    }
    Ok((
        Target {
            label: "",
            a: format!("{HOST_PREFIX}{tag}a"),
            b: format!("{HOST_PREFIX}{tag}b"),
            src: host_mac(k, 0),
            gw: ovs_gw(k, 0),
        },
        la,
        lb,
    ))
}

pub fn run(args: &PeersArgs) -> Result<Vec<Row>> {
    demo::remove_hosts();
    let r = (|| -> Result<Vec<Row>> {
        let text = demo::scenario_text_for(&NETS);
        let sc = scenario::load("bench-peers (veth)", &text)?;
        demo::make_hosts(NETS.len())?;
        let node = demo::start_node(sc, Default::default())?;
        let ovs = Ovs::start()?;
        let (xdp, xa, xb) = ovs_hosts("ov", 7)?;
        ovs.bridge("pdhbrx", "afxdp", &xa, &xb, 7)?;
        let (pkt, pa, pb) = ovs_hosts("op", 8)?;
        ovs.bridge("pdhbrp", "system", &pa, &pb, 8)?;
        let prism = |k: usize| Target::demo_host("", k);
        // (label, target, is Open vSwitch)
        let targets: Vec<(&str, Target, bool)> = vec![
            ("Prism hardware tier", prism(0), false),
            ("Prism software tier, prism router", prism(1), false),
            ("Prism software tier, kernel router", prism(2), false),
            (
                "Linux forwarding (router namespace)",
                kernel_baseline()?,
                false,
            ),
            ("OVS userspace datapath, AF_XDP ports", xdp, true),
            ("OVS userspace datapath, AF_PACKET ports", pkt, true),
        ];
        println!(
            "  veth: {}",
            node.notes
                .iter()
                .find(|n| n.starts_with("receiving on"))
                .map_or("", String::as_str)
        );
        ovs.signal(Signal::Stop);
        let rows = measure(args, &targets, &ovs)?;
        drop(ovs);
        drop(node);
        Ok(rows)
    })();
    demo::remove_hosts();
    r
}

/// Each target's rate at each size, in turn for `rounds` rounds (Open
/// vSwitch's threads stopped while another target runs), as rows against
/// the peers: every Prism tier against Linux forwarding, the hardware tier
/// against Open vSwitch too.
fn measure(args: &PeersArgs, targets: &[(&str, Target, bool)], ovs: &Ovs) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for &size in &args.sizes {
        println!("  veth, {size} B: six targets in turn ...");
        let mut res: Vec<Vec<f64>> = vec![Vec::new(); targets.len()];
        for _ in 0..args.rounds {
            for (i, (_, t, is_ovs)) in targets.iter().enumerate() {
                if *is_ovs {
                    ovs.signal(Signal::Continue);
                    std::thread::sleep(Duration::from_millis(200));
                }
                let m = blast(t, size, args.seconds, None).map(|r| r.0);
                if *is_ovs {
                    ovs.signal(Signal::Stop);
                }
                res[i].push(m?);
            }
        }
        for pi in [3usize, 4, 5] {
            for ti in [0usize, 1, 2] {
                // The software tiers against Linux forwarding only.
                if ti > 0 && pi != 3 {
                    continue;
                }
                rows.push(
                    Row::rate(
                        format!("veth, {size} B: {}", targets[ti].0),
                        targets[pi].0,
                        &res[pi],
                        &res[ti],
                    )
                    .machine_wide(),
                );
            }
        }
    }
    Ok(rows)
}
