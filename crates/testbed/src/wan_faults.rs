//! A fault under traffic in the WAN demo (docs/wan.md): node 3 of a network
//! spanning three nodes is killed (SIGKILL: no goodbye) and started again
//! while host 1 sends to host 2 through the same network. Measured at the
//! receiving hosts: what nodes 1 and 2 carried between them meanwhile (the
//! issue: the other parts lose nothing), how long until the controller had
//! given node 3 its part back, and that traffic to host 3 then arrives
//! whole.

use crate::wan_traffic::{Carried, FRAMES, flow, node_client};
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

/// Kills node 3 (`node`, replaced by what `restart` starts) under
/// traffic through `span` and waits for its part to come back.
pub(crate) async fn restart_node3(
    span: &Booking,
    secret: &str,
    node: &mut Child,
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
    node.kill()?;
    node.wait()?;
    *node = restart()?;
    let name = node_network_name(&span.id);
    let back_ms = loop {
        let held = node_client(3, secret).list_networks().await;
        if held.is_ok_and(|n| n.iter().any(|n| n.name == name)) {
            break killed.elapsed().as_secs_f64() * 1e3;
        }
        if killed.elapsed() > Duration::from_secs(30) {
            bail!(
                "node 3 did not get its part of {} back within 30 s",
                span.name
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
