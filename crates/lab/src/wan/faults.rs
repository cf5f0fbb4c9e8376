//! A fault under traffic in the WAN demo (docs/wan.md): node 3 of a network
//! spanning three nodes is killed (SIGKILL: no goodbye) and started again
//! while host 1 sends to host 2 through the same network. Measured at the
//! receiving hosts: what nodes 1 and 2 carried between them meanwhile (the
//! issue: the other parts lose nothing), how long until the controller had
//! given node 3 its part back, and that traffic to host 3 then arrives
//! whole.

use crate::wan::traffic::{Carried, FRAMES, flow, node_client};
use anyhow::{Result, bail};
use prism_controller::{Booking, node_network_name};
use std::process::Child;
use std::time::{Duration, Instant};

/// What the restart measured.
#[derive(Debug, Default, Clone)]
pub struct Restart {
    /// Host 1 to host 2 while node 3 went down and came back: sent,
    /// received on the network's VLAN.
    pub during: (u64, u64),
    /// From the kill until node 3 held its part again, ms.
    pub back_ms: f64,
    /// Host 1 to host 3 afterwards: sent, received.
    pub after: (u64, u64),
}

impl Restart {
    /// The demo's line for it.
    pub fn line(&self) -> String {
        format!(
            "  node3 killed and started again under traffic: node1 → node2 meanwhile {} of {} received; node3 had its part back {:.0} ms after the kill; node1 → node3 then {} of {}",
            self.during.1, self.during.0, self.back_ms, self.after.1, self.after.0
        )
    }
}

/// Kills node 3 (`node`, logging to `log`, replaced by what `restart`
/// starts) under traffic through `span` and waits for its part to come
/// back.
pub(crate) async fn restart_node3(
    (span, secret): (&Booking, &str),
    (node, log): (&mut Child, &std::path::Path),
    restart: impl FnOnce() -> Result<Child>,
) -> Result<Restart> {
    let vlan = span.vlan.unwrap_or(0) as u16;
    let sending = tokio::task::spawn_blocking(move || {
        // Three flows' worth, so the kill and the start fall inside.
        let mut total = (0, 0);
        for port in [7101, 7102, 7103] {
            let (got, _) = flow(1, 2, vlan, Carried::Udp(port))?;
            total = (total.0 + FRAMES, total.1 + got);
        }
        anyhow::Ok(total)
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let killed = Instant::now();
    let restarted = node
        .kill()
        .and_then(|()| node.wait())
        .map_err(anyhow::Error::from)
        .and_then(|_| restart());
    match restarted {
        Ok(child) => *node = child,
        Err(e) => {
            let _ = sending.await;
            return Err(e.context("restarting node 3"));
        }
    }
    let name = node_network_name(&span.id);
    let back_ms = loop {
        let held = node_client(3, secret).list_networks().await;
        if held.is_ok_and(|n| n.iter().any(|n| n.name == name)) {
            break killed.elapsed().as_secs_f64() * 1e3;
        }
        if killed.elapsed() > Duration::from_secs(30) {
            bail!(
                "node 3 did not get its part of {} back within 30 s; {}",
                span.name,
                node_state(node, log)
            );
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let during = sending.await??;
    // The part's slot loads its module for the profile's (modelled) time.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = tokio::task::spawn_blocking(move || flow(1, 3, vlan, Carried::Udp(7104))).await??;
    Ok(Restart {
        during,
        back_ms,
        after: (FRAMES, after.0),
    })
}

/// Whether restarted node 3 still runs, and the end of its log: what a
/// failure needs to be found.
fn node_state(node: &mut Child, log: &std::path::Path) -> String {
    let status = match node.try_wait() {
        Ok(Some(s)) => format!("node 3 exited ({s})"),
        Ok(None) => "node 3 runs".to_string(),
        Err(e) => format!("node 3's state unknown ({e})"),
    };
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let tail: Vec<&str> = text.lines().rev().take(20).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    format!(
        "{status}; the end of {}:\n{}",
        log.display(),
        tail.join("\n")
    )
}

/// What moving node 2's part between tiers under traffic measured, each
/// (sent, received on the network's VLAN at the receiving host).
#[derive(Debug, Default, Clone)]
pub struct TierMove {
    /// Host 1 to host 3 (another part) while node 2's part moved to the
    /// software tier.
    pub other: (u64, u64),
    /// How long the node took to answer the move, ms.
    pub move_ms: f64,
    /// Host 1 to host 2 with the part in software, then back in hardware.
    pub in_software: (u64, u64),
    pub back: (u64, u64),
}

impl TierMove {
    /// The demo's line for it.
    pub fn line(&self) -> String {
        format!(
            "  node2's part of span3 moved to software under traffic ({:.0} ms): node1 → node3 meanwhile {} of {}; node1 → node2 in software {} of {}; back in hardware {} of {}",
            self.move_ms,
            self.other.1,
            self.other.0,
            self.in_software.1,
            self.in_software.0,
            self.back.1,
            self.back.0
        )
    }
}

/// Moves node 2's part of `span` to the software tier through its node
/// API (an operator's move) while host 1 sends to host 3, then back.
pub(crate) async fn move_node2_part(span: &Booking, secret: &str) -> Result<TierMove> {
    use prism_node_api::{Tier, TierBody};
    let vlan = span.vlan.unwrap_or(0) as u16;
    let name = node_network_name(&span.id);
    let three_flows = move |to: usize, first: u16| {
        tokio::task::spawn_blocking(move || {
            let mut total = (0, 0);
            for port in first..first + 3 {
                let (got, _) = flow(1, to, vlan, Carried::Udp(port))?;
                total = (total.0 + FRAMES, total.1 + got);
            }
            anyhow::Ok(total)
        })
    };
    // One receiving host at a time: two rings filling beside a container
    // starting were more than this two-core machine carries under load.
    let to3 = three_flows(3, 7201);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let node2 = node_client(2, secret);
    let started = Instant::now();
    let software = TierBody {
        tier: Tier::Software,
    };
    let moved = node2.set_tier(&name, &software).await;
    let move_ms = started.elapsed().as_secs_f64() * 1e3;
    if let Err(e) = moved {
        let _ = to3.await;
        bail!("moving node 2's part to software: {e}");
    }
    let tier = |views: Vec<prism_node_api::NetworkView>| {
        views.into_iter().find(|n| n.name == name).map(|n| n.tier)
    };
    if tier(node2.list_networks().await?) != Some(Tier::Software) {
        bail!("node 2's part is not in the software tier after the move");
    }
    // The flow ends before the move's check can fail: none is left
    // sending while the demo cleans up.
    let other = to3.await??;
    let in_software =
        tokio::task::spawn_blocking(move || flow(1, 2, vlan, Carried::Udp(7221))).await??;
    let hardware = TierBody {
        tier: Tier::Hardware,
    };
    node2.set_tier(&name, &hardware).await?;
    if tier(node2.list_networks().await?) != Some(Tier::Hardware) {
        bail!("node 2's part is not back in the hardware tier");
    }
    // The slot loads its module for the profile's (modelled) time.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let back = tokio::task::spawn_blocking(move || flow(1, 2, vlan, Carried::Udp(7222))).await??;
    Ok(TierMove {
        other,
        move_ms,
        in_software: (FRAMES, in_software.0),
        back: (FRAMES, back.0),
    })
}
