//! `prism demo --controller --portal`: the controller demo left running
//! for a person with a browser. Its bookings keep carrying traffic (real
//! frames from each host a, at a rate of their own, one network idle), the
//! portal's address, the lab CA and two logins are printed, and everything
//! stops, is released and removed on Ctrl-C or SIGTERM.

use crate::demo::controller_traffic::{host_a_frame, host_ns};
use anyhow::Result;
use prism_controller::Booking;
use prism_io::afpacket::PacketPort;
use prism_io::netns;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Frames a second each booking carries, in booking order: the last one
/// idle, so the portal shows a flat graph beside moving ones.
pub const RATES: [u64; 4] = [1000, 400, 200, 0];
const FRAME_LEN: usize = 300;

/// Sends `pps` frames a second of `vlan` from host a of node `i` until
/// `stop` (frames to UDP port 7000, which host b does not read).
fn keep_sending(i: usize, vlan: u16, pps: u64, stop: Arc<AtomicBool>) -> Result<()> {
    let mut tx = netns::in_namespace(&host_ns(i, 0), || PacketPort::open_tx("eth0"))?;
    let frame = host_a_frame(vlan, 7000, FRAME_LEN);
    let start = Instant::now();
    let mut sent = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let due = start.elapsed().as_micros() as u64 * pps / 1_000_000;
        while sent < due {
            sent += tx.send_batch(std::iter::once(frame.as_slice())).max(1) as u64;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(())
}

/// What a person needs to open the portal.
pub struct Login<'a> {
    pub url: &'a str,
    pub ca: &'a Path,
    pub password: &'a str,
}

impl std::fmt::Debug for Login<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Login")
            .field("url", &self.url)
            .field("ca", &self.ca)
            .finish_non_exhaustive()
    }
}

/// Keeps `bookings` (each with its node's number) carrying traffic, says
/// how to reach the portal, and returns on Ctrl-C or SIGTERM with the
/// traffic stopped.
pub async fn serve_until_stopped(
    bookings: &[(Booking, usize)],
    login: Login<'_>,
    say: &dyn Fn(&str),
) -> Result<()> {
    let stop = Arc::new(AtomicBool::new(false));
    let mut senders = Vec::new();
    for ((b, node), pps) in bookings.iter().zip(RATES) {
        let vlan = b.vlan.unwrap_or(0) as u16;
        say(&format!(
            "  {} ({}, {}) carries {pps} frames a second",
            b.name,
            b.tier.map_or("", |t| t.as_str()),
            b.node.as_deref().unwrap_or("?")
        ));
        if pps > 0 {
            let (node, stop) = (*node, stop.clone());
            senders.push(std::thread::spawn(move || {
                keep_sending(node, vlan, pps, stop)
            }));
        }
    }
    // Printed whatever `quiet` says: the whole point of this mode.
    println!("portal: {}/", login.url);
    println!(
        "portal: log in as alice (project demo) or admin, password {}",
        login.password
    );
    println!(
        "portal: the controller's certificate is the lab CA's: {} (import it, or accept the browser's warning)",
        login.ca.display()
    );
    println!("portal: Ctrl-C stops the demo, releases the bookings and removes everything");
    wait_for_stop().await?;
    stop.store(true, Ordering::Relaxed);
    for s in senders {
        if let Ok(Err(e)) = s.join() {
            say(&format!("  a sender failed: {e:#}"));
        }
    }
    say("  stopping: traffic stopped");
    Ok(())
}

async fn wait_for_stop() -> Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    tokio::select! {
        r = tokio::signal::ctrl_c() => r?,
        _ = term.recv() => {}
    }
    Ok(())
}
