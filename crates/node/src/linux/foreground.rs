//! `prism node` in the foreground: the node's events and counters printed
//! every second until it is stopped (or its time is up), then each port's
//! losses and the final counters.

use super::serve::NodeServer;
use anyhow::Result;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Reports `server` on stderr (events, losses) and stdout (counters: a
/// table, or JSON lines with `json`) until `stop` or `seconds`, then shuts
/// it down and prints its final counters.
pub fn report_until(
    server: NodeServer,
    stop: &AtomicBool,
    seconds: Option<u64>,
    json: bool,
) -> Result<()> {
    let started = Instant::now();
    let node = server.node();
    while !stop.load(Ordering::Relaxed)
        && seconds.is_none_or(|s| started.elapsed() < Duration::from_secs(s))
    {
        std::thread::sleep(Duration::from_secs(1));
        for e in node.take_events() {
            eprintln!("  {e}");
        }
        if let Some(c) = node.counters() {
            // A closed stdout stops the printing, not the node.
            let text = if json {
                format!("{}\n", serde_json::to_string(&c)?)
            } else {
                crate::report::table(&c)
            };
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        }
    }
    for p in node.port_stats() {
        if p.stats.rx_ring_drops > 0 || p.stats.tx_errors > 0 {
            eprintln!(
                "  {} ({}): {} frames lost on receive, {} refused on transmit",
                p.name, p.io, p.stats.rx_ring_drops, p.stats.tx_errors
            );
        }
    }
    if let Some(c) = server.shutdown()? {
        let _ = writeln!(std::io::stdout(), "{}", serde_json::to_string_pretty(&c)?);
    }
    Ok(())
}
