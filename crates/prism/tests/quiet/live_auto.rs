//! `tier = "auto"` on a live node: network `x` is declared at 1 Mbit/s
//! and the software tier's share is 2 Mbit/s, so paper 000's heuristic
//! starts it in software. At 5,000 frames/s (2.4 Mbit/s measured) the node
//! moves it to hardware; back at 500 frames/s (0.24 Mbit/s) it returns to
//! software. Each move is in the node's event log with its reason, and the
//! receiving host misses no frame through either move.

use crate::common::root_or_skip;
use prism_lab::{bench::migrate, demo::hosts};
use prism_node::Node;
use prism_pipeline::Tier;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

fn tier(node: &Node) -> Tier {
    let c = node.control.lock().unwrap();
    c.substrate.spec("x").unwrap().tier
}

/// Runs `pps` until `x` is in `want` (at most `limit`); returns the frames
/// lost at the receiving host and how long it took. A loss prints the lost
/// frames' numbers and what the node and the hosts' interfaces counted.
fn until_tier(node: &Node, pps: f64, want: Tier, limit: Duration) -> (u64, Duration) {
    let ((sent, took), seen) = migrate::with_traffic(&[pps], |next| {
        let t = Instant::now();
        while tier(node) != want && t.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(50));
        }
        // A second on the new tier, in the count.
        std::thread::sleep(Duration::from_secs(1));
        (next[0].load(Ordering::Relaxed), t.elapsed())
    })
    .unwrap();
    let lost = migrate::lost(&seen[0], 0, sent).0;
    if lost > 0 {
        eprintln!(
            "lost {lost} of {sent} (numbers {:?}; sender refused {} times); the node: {:#?} {:#?}",
            migrate::lost_ranges(&seen[0], sent),
            migrate::RESENT.load(Ordering::Relaxed),
            node.counters(),
            node.port_stats()
        );
    }
    (lost, took)
}

#[test]
fn an_automatic_network_moves_with_its_measured_rate_and_loses_nothing() {
    if !root_or_skip("automatic placement") {
        return;
    }
    let _g = crate::common::SERIAL
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    hosts::remove_hosts();
    let run = (|| -> anyhow::Result<_> {
        hosts::make_hosts(1)?;
        let text = hosts::scenario_text_for(&[("x", "auto", "destination", "prism")])
            .replace(
                "tier = \"auto\"",
                "tier = \"auto\"\nbandwidth = \"1Mbit\"",
            )
            .replace(
                "device = \"alveo-u280\"\n",
                "device = \"alveo-u280\"\n[placement]\npolicy = \"paper\"\nsoftware_bandwidth = \"2Mbit\"\n",
            );
        let sc = prism_compile::load("auto.toml", &text)?;
        let opts = prism_node::NodeOptions {
            router_exe: Some(crate::common::PRISM.into()),
            ..hosts::demo_options()
        };
        let node = hosts::start_node_with(sc, Default::default(), &opts)?;
        std::thread::sleep(Duration::from_millis(500));
        let start = tier(&node);
        let up = until_tier(&node, 5_000.0, Tier::Hardware, Duration::from_secs(15));
        let up_tier = tier(&node);
        let down = until_tier(&node, 500.0, Tier::Software, Duration::from_secs(20));
        let down_tier = tier(&node);
        let events = node.control.lock().unwrap().events_since(0);
        Ok((start, up, up_tier, down, down_tier, events))
    })();
    hosts::remove_hosts();
    let (start, up, up_tier, down, down_tier, events) = run.unwrap();
    eprintln!(
        "up {up:?}, down {down:?}; bursts the sender's interface refused (sent again): {}; {events:#?}",
        migrate::RESENT.load(Ordering::Relaxed)
    );
    assert_eq!(start, Tier::Software, "software first");
    assert_eq!(up_tier, Tier::Hardware, "not moved up in {:?}", up.1);
    assert_eq!(down_tier, Tier::Software, "not moved down in {:?}", down.1);
    assert_eq!((up.0, down.0), (0, 0), "frames lost through the moves");
    let moves: Vec<_> = events
        .iter()
        .filter(|e| e.kind == prism_node_api::EventKind::AutoMove)
        .collect();
    assert_eq!(moves.len(), 2, "{moves:#?}");
    assert!(moves[0].message.contains("moved to hardware automatically"));
    assert!(moves[1].message.contains("its hardware slot is freed"));
}
