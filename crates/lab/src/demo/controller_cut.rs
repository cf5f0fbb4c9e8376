//! The controller demo's cut (`prism demo --controller --cut SECONDS`, the
//! live test's and the soak's): node 2's management link is dropped in its
//! namespace for SECONDS while a flow crosses one of its networks. What
//! must hold: the node goes on forwarding (every frame counted at the
//! receiving host), the controller marks it down (its heartbeats stop), a
//! booking made meanwhile is placed on the other node, a release of one of
//! its bookings is answered at once with its convergence pending, and once
//! the link is back the node converges: exactly the networks booked on
//! it, each once.

use crate::demo::controller_traffic::{node_ns, send_and_count};
use anyhow::{Context, Result, bail};
use prism_controller::{Booking, BookingRequest, ControllerClient};
use prism_io::netns;
use prism_node_api::{Endpoint, NodeClient};
use std::path::Path;
use std::time::{Duration, Instant};

/// The node cut off.
const CUT: usize = 2;

/// What the cut showed.
#[derive(Debug, Default, Clone)]
pub struct CutOutcome {
    pub seconds: u64,
    /// Frames sent across the cut node's hardware network, and received.
    pub sent: u64,
    pub got: u64,
    /// How long after the cut the controller showed the node down (ms).
    pub down_after_ms: u128,
    /// Where a booking made during the cut was placed.
    pub placed_on: String,
    /// Whether the release made during the cut was answered with its
    /// convergence pending, and how long it took (ms).
    pub release_pending: bool,
    pub release_ms: u128,
    /// How long after the link came back the node held exactly its
    /// bookings (ms).
    pub converged_after_ms: u128,
    /// The controller's networks on the cut node afterwards, and those the
    /// controller books there.
    pub on_node: Vec<String>,
    pub booked: Vec<String>,
}

fn link(up: bool) -> Result<()> {
    let state = if up { "up" } else { "down" };
    netns::ip_in(Some(&node_ns(CUT)), &["link", "set", "mgmt", state])
        .with_context(|| format!("setting node {CUT}'s management link {state}"))?;
    Ok(())
}

/// Runs the cut; `bookings` are the demo's (with their nodes); the
/// released one is taken out of them. `dir` holds the nodes' sockets.
pub async fn run(
    seconds: u64,
    dir: &Path,
    (admin, alice): (&ControllerClient, &ControllerClient),
    bookings: &mut Vec<(Booking, usize)>,
    say: &dyn Fn(&str),
) -> Result<CutOutcome> {
    let mut out = CutOutcome {
        seconds,
        ..CutOutcome::default()
    };
    let on_cut = |tier: &str| {
        bookings
            .iter()
            .position(|(b, n)| *n == CUT && b.tier.is_some_and(|t| t.as_str() == tier))
    };
    let hw = on_cut("hardware").context("no hardware booking on the node to cut")?;
    let vlan = bookings[hw].0.vlan.unwrap_or(0) as u16;
    out.sent = 2000 * (seconds + 3);
    let frames = out.sent;
    let flow = tokio::task::spawn_blocking(move || send_and_count(CUT, vlan, 7000, frames));
    tokio::time::sleep(Duration::from_secs(1)).await;
    link(false)?;
    let cut_at = Instant::now();
    say(&format!(
        "  cut: node{CUT}'s management link down for {seconds} s, a flow across it"
    ));
    out.down_after_ms = wait_until(admin, false, Duration::from_secs(seconds.max(15))).await?;
    let extra = alice
        .book("demo", &BookingRequest::network("during-cut", soft(), 1))
        .await?;
    out.placed_on = extra.node.clone().unwrap_or_default();
    if let Some(sw) = on_cut("software") {
        let (b, _) = bookings.remove(sw);
        let t = Instant::now();
        let r = alice.release("demo", &b.id).await?;
        (out.release_ms, out.release_pending) = (t.elapsed().as_millis(), r.converging);
    }
    tokio::time::sleep(Duration::from_secs(seconds).saturating_sub(cut_at.elapsed())).await;
    link(true)?;
    let healed = Instant::now();
    wait_until(admin, true, Duration::from_secs(20)).await?;
    (out.on_node, out.booked) = exactly_booked(dir, alice, healed).await?;
    out.converged_after_ms = healed.elapsed().as_millis();
    out.got = flow.await??;
    alice.release("demo", &extra.id).await?;
    say(&format!(
        "  cut: down after {} ms; a booking meanwhile placed on {}; a release answered in {} ms \
         (convergence pending: {}); back and converged {} ms after the link; {} of {} frames \
         crossed it",
        out.down_after_ms,
        out.placed_on,
        out.release_ms,
        out.release_pending,
        out.converged_after_ms,
        out.got,
        out.sent
    ));
    Ok(out)
}

/// A software network of the demo.
fn soft() -> serde_json::Value {
    serde_json::json!({"tier": "software", "forwarding": "destination",
        "route": [{"prefix": "10.0.2.0/24", "action": {"port": "b", "decrement_ttl": true}}]})
}

/// Waits until the controller shows the cut node `up` (or down): how long
/// it took (ms).
async fn wait_until(admin: &ControllerClient, up: bool, limit: Duration) -> Result<u128> {
    let t = Instant::now();
    loop {
        let nodes = admin.list_nodes().await?;
        let name = format!("node{CUT}");
        if nodes.iter().any(|n| n.name == name && n.up == up) {
            return Ok(t.elapsed().as_millis());
        }
        if t.elapsed() > limit {
            bail!(
                "node{CUT} not shown {} within {limit:?}",
                if up { "up" } else { "down" }
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits (20 s at most from `since`) until the cut node holds exactly the
/// controller's networks booked on it: (what it holds, what is booked).
async fn exactly_booked(
    dir: &Path,
    alice: &ControllerClient,
    since: Instant,
) -> Result<(Vec<String>, Vec<String>)> {
    let node = NodeClient::new(Endpoint::Unix(dir.join(format!("node{CUT}.sock"))));
    loop {
        let mut held: Vec<String> = node
            .list_networks()
            .await?
            .into_iter()
            .map(|n| n.name)
            .filter(|n| n.starts_with(prism_controller::NODE_PREFIX))
            .collect();
        held.sort();
        let mut booked: Vec<String> = alice
            .all_bookings("demo", false)
            .await?
            .into_iter()
            .filter(|b| b.node.as_deref() == Some(&format!("node{CUT}")))
            .filter_map(|b| b.node_network)
            .collect();
        booked.sort();
        if held == booked || since.elapsed() > Duration::from_secs(20) {
            return Ok((held, booked));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
