//! Table 2's traffic: `iperf3` inside the processing nodes, reached by
//! ssh as a researcher reaches them, each pair both ways at once
//! (`--bidir`: the paper's "from/to" node 1); the rate each receiving
//! container takes in is read from its own interface's counters (every
//! frame of the experiment it received, Ethernet header included: what
//! the rate limit charges), sampled each second of a window after the
//! start; iperf3's own figure (payload only) beside it.

use crate::processing::machine::Pair;
use anyhow::{Context, Result, bail};
use prism_controller::Booking;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The demo's window, s from the clients' start (after their ssh
/// sessions and TCP's slow start); iperf3 runs a second past its end.
pub const WINDOW: (u64, u64) = (2, 7);
/// A UDP datagram's payload for a 1,000-byte frame (Ethernet 14, IPv4
/// 20, UDP 8), as the WAN demo's Table 2 sends.
const UDP_PAYLOAD: usize = 958;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Udp,
    Tcp,
}

/// One direction of a pair: what its receiver took in, MB/s.
#[derive(Debug, Clone, Default)]
pub struct Rate {
    /// Over the window, frames counted at the receiving interface.
    pub mbytes: f64,
    /// What the sender's interface sent over the same window.
    pub sent_mbytes: f64,
    /// The window's slowest and fastest second.
    pub min: f64,
    pub max: f64,
    /// iperf3's receiver, payload only, over its whole run.
    pub iperf_mbytes: f64,
    /// TCP: the segments its sender sent again (iperf3's count).
    pub retransmits: u64,
}

/// A pair's two directions.
#[derive(Debug, Clone, Default)]
pub struct Cell {
    /// From node 1 (to the pair's node on node 2 or 3) and to it.
    pub from: Rate,
    pub to: Rate,
}

/// One of Table 2's columns.
#[derive(Debug, Clone)]
pub struct Column {
    pub kind: Kind,
    /// With the bookings' rate limits (`rl`).
    pub limited: bool,
    /// UDP's offered rate each way per pair, Mbit/s (TCP: as fast as it can).
    pub offered_mbps: Vec<f64>,
    pub cells: Vec<Cell>,
}

/// How the demo reaches the processing nodes: ssh (its known-hosts
/// files' directory and the researcher's key) and, for their counters,
/// the mount namespace of each node (`node_pids[i - 1]`: node `i`), where
/// its containers' network namespaces are named.
pub struct Ssh<'a> {
    pub dir: &'a Path,
    pub key: &'a Path,
    pub node_pids: &'a [u32],
}

impl Ssh<'_> {
    fn command(&self, b: &Booking, cmd: &str) -> Result<Command> {
        let args = [
            "-o".into(),
            "BatchMode=yes".into(),
            "-o".into(),
            "ConnectTimeout=10".into(),
            cmd.to_string(),
        ];
        let mut c = prism_controller_api::ssh::command(b, self.dir, Some(self.key), &args)?;
        c.stdin(Stdio::null());
        Ok(c)
    }

    /// `b`'s node's pid and `b`'s network namespace there (its
    /// container's, named for it).
    fn netns_of(&self, b: &Booking) -> Result<(u32, String)> {
        let i: usize = (b.node.as_deref())
            .and_then(|n| n.strip_prefix("node")?.parse().ok())
            .with_context(|| format!("{} is on no demo node", b.name))?;
        Ok((self.node_pids[i - 1], format!("pp-{}", b.id)))
    }

    /// Runs `cmd` on `b`; its output.
    pub fn run(&self, b: &Booking, cmd: &str) -> Result<String> {
        let out = self.command(b, cmd)?.output()?;
        if !out.status.success() {
            bail!(
                "ssh {} `{cmd}`: {}",
                b.name,
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// An iperf3 server in each pair's second node.
pub fn start_servers(ssh: &Ssh, pairs: &[Pair]) -> Result<()> {
    for p in pairs {
        ssh.run(&p.b, "iperf3 -s -D")?;
    }
    Ok(())
}

/// Runs one column: every pair at once, both ways; UDP offering
/// `offered_mbps[k]` each way.
pub fn column(
    ssh: &Ssh,
    pairs: &[Pair],
    (kind, limited): (Kind, bool),
    offered_mbps: &[f64],
    window: (u64, u64),
) -> Result<Column> {
    let mut clients: Vec<Child> = Vec::new();
    for (p, mbps) in pairs.iter().zip(offered_mbps) {
        let run_s = window.1 + 1;
        let mut cmd = format!("iperf3 -c {} -t {run_s} --bidir -J", p.b_address);
        if kind == Kind::Udp {
            cmd += &format!(" -u -b {}k -l {UDP_PAYLOAD}", (mbps * 1e3).round());
        }
        let c = ssh.command(&p.a, &cmd)?.stdout(Stdio::piped()).spawn();
        clients.push(c.context("starting ssh")?);
    }
    let receivers: Vec<[(u32, String); 2]> = (pairs.iter())
        .map(|p| Ok([ssh.netns_of(&p.b)?, ssh.netns_of(&p.a)?]))
        .collect::<Result<_>>()?;
    let sampled = sample(&receivers, window);
    let mut cells = Vec::new();
    for (k, c) in clients.into_iter().enumerate() {
        let out = c.wait_with_output()?;
        let json: serde_json::Value = serde_json::from_slice(&out.stdout)
            .with_context(|| format!("iperf3 in {}: no report", pairs[k].a.name))?;
        if let Some(e) = json.get("error") {
            bail!("iperf3 in {}: {e}", pairs[k].a.name);
        }
        let samples = sampled.as_ref().map_err(|e| anyhow::anyhow!("{e:#}"))?;
        let [from, to] = [0, 1].map(|d| Rate {
            iperf_mbytes: iperf_rate(&json, kind, d == 1),
            retransmits: retransmits(&json, d == 1),
            ..rate(&samples[k][d], &samples[k][1 - d])
        });
        cells.push(Cell { from, to });
    }
    Ok(Column {
        kind,
        limited,
        offered_mbps: offered_mbps.to_vec(),
        cells,
    })
}

/// `(seconds since the start, bytes received, bytes sent)` samples of
/// each pair's receivers' `eth0` (`b`, then `a`), one a second through
/// the window.
type Samples = Vec<[Vec<(f64, u64, u64)>; 2]>;

fn sample(receivers: &[[(u32, String); 2]], window: (u64, u64)) -> Result<Samples> {
    let start = Instant::now();
    let mut out: Samples = receivers.iter().map(|_| [vec![], vec![]]).collect();
    for s in window.0..=window.1 {
        let due = Duration::from_secs(s);
        std::thread::sleep(due.saturating_sub(start.elapsed()));
        for (k, pair) in receivers.iter().enumerate() {
            for d in 0..2 {
                let (rx, tx) = counters(pair[d].0, &pair[d].1)?;
                out[k][d].push((start.elapsed().as_secs_f64(), rx, tx));
            }
        }
    }
    Ok(out)
}

/// Bytes `eth0` of namespace `ns` (of node `pid`'s mount namespace) has
/// received and sent.
fn counters(pid: u32, ns: &str) -> Result<(u64, u64)> {
    let out = Command::new("nsenter")
        .args(["-t", &pid.to_string(), "-m", "ip", "-n", ns])
        .args(["-s", "-j", "link", "show", "eth0"])
        .output()?;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).with_context(|| {
        format!(
            "ip -s link in {ns}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let read = |way: &str| {
        v[0]["stats64"][way]["bytes"]
            .as_u64()
            .with_context(|| format!("no {way} counter for eth0 in {ns}"))
    };
    Ok((read("rx")?, read("tx")?))
}

/// The window's rate received by `at` and its slowest and fastest
/// second, with what `from` sent meanwhile, MB/s.
fn rate(at: &[(f64, u64, u64)], from: &[(f64, u64, u64)]) -> Rate {
    let per = |a: (f64, u64), b: (f64, u64)| (b.1 - a.1) as f64 / (b.0 - a.0) / 1e6;
    let rx = |s: &(f64, u64, u64)| (s.0, s.1);
    let seconds: Vec<f64> = at.windows(2).map(|w| per(rx(&w[0]), rx(&w[1]))).collect();
    let (first, last) = (&from[0], &from[from.len() - 1]);
    Rate {
        mbytes: per(rx(&at[0]), rx(&at[at.len() - 1])),
        sent_mbytes: per((first.0, first.2), (last.0, last.2)),
        min: seconds.iter().copied().fold(f64::INFINITY, f64::min),
        max: seconds.iter().copied().fold(0.0, f64::max),
        iperf_mbytes: 0.0,
        retransmits: 0,
    }
}

/// What iperf3's TCP sender sent again: the client's (`reverse` false:
/// from node 1) or the server's.
fn retransmits(json: &serde_json::Value, reverse: bool) -> u64 {
    let sum = if reverse {
        "sum_sent_bidir_reverse"
    } else {
        "sum_sent"
    };
    json["end"][sum]["retransmits"].as_u64().unwrap_or(0)
}

/// iperf3's receiver's rate, MB/s: the server's (`reverse` false: from
/// node 1) or the client's (`reverse`: to node 1); UDP less what it lost.
fn iperf_rate(json: &serde_json::Value, kind: Kind, reverse: bool) -> f64 {
    let end = &json["end"];
    let bps = match (kind, reverse) {
        (Kind::Tcp, false) => end["sum_received"]["bits_per_second"].as_f64(),
        (Kind::Tcp, true) => end["sum_received_bidir_reverse"]["bits_per_second"].as_f64(),
        (Kind::Udp, r) => {
            let s = if r {
                &end["sum_bidir_reverse"]
            } else {
                &end["sum"]
            };
            let lost = s["lost_percent"].as_f64().unwrap_or(0.0);
            s["bits_per_second"]
                .as_f64()
                .map(|b| b * (1.0 - lost / 100.0))
        }
    };
    bps.unwrap_or(0.0) / 8e6
}
