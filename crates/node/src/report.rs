//! Counter reports: a table for people, JSON for programs.

use prism_pipeline::CounterSnapshot;
use std::fmt::Write;

/// A per-network counter table.
pub fn table(c: &CounterSnapshot) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<14} {:<9} {:>9} {:>11} {:>9} {:>11} {:>8} {:>8}  drops",
        "network", "tier", "rx pkts", "rx bytes", "tx pkts", "tx bytes", "to sw", "dropped"
    );
    for n in &c.networks {
        let drops: Vec<String> = n.drops.iter().map(|(r, k)| format!("{r}={k}")).collect();
        let _ = writeln!(
            s,
            "{:<14} {:<9} {:>9} {:>11} {:>9} {:>11} {:>8} {:>8}  {}",
            n.name,
            n.tier,
            n.counters.rx_packets,
            n.counters.rx_bytes,
            n.counters.tx_packets,
            n.counters.tx_bytes,
            n.counters.to_software,
            n.dropped,
            drops.join(" ")
        );
    }
    let unmapped: u64 = c.unmapped_drops.values().sum();
    let drops: Vec<String> = c
        .unmapped_drops
        .iter()
        .map(|(r, k)| format!("{r}={k}"))
        .collect();
    let _ = writeln!(
        s,
        "{:<14} {:<9} {:>9} {:>11} {:>9} {:>11} {:>8} {:>8}  {}",
        "(unmapped)",
        "-",
        "",
        "",
        "",
        "",
        "",
        unmapped,
        drops.join(" ")
    );
    let _ = writeln!(s, "received {} frames, {} bytes", c.rx_packets, c.rx_bytes);
    let st: Vec<String> = c
        .stages
        .iter()
        .map(|x| format!("{} {}/{}", x.stage, x.packets, x.dropped))
        .collect();
    let _ = writeln!(s, "stages (packets in/dropped): {}", st.join(", "));
    s
}
