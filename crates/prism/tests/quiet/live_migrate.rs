//! A network moves hardware -> software -> hardware -> software -> hardware
//! under 20,000 numbered frames per second, with each software router, and
//! the receiving host misses none of them during the switches; its
//! neighbour in hardware misses none at all. (Before the workers handed
//! closed sockets back to the control thread, every move back to hardware
//! lost about 40 ms of traffic on both networks: 800 frames at this rate.)
//! 20k, not the 50k the benchmark also passes at: with both cores busy
//! (another job on a CI machine) the software tier itself cannot carry
//! 50k on 2 vCPUs, and the test would measure the machine, not the switch. The same measurement at
//! 10k/50k/100k is `prism bench-live --migrate`.

use crate::common::root_or_skip;
use prism_lab::{bench::migrate, demo::hosts};
use prism_node::Node;
use std::time::Duration;

#[test]
fn moves_between_tiers_lose_no_frame_at_20k_pps() {
    if !root_or_skip("migration under load") {
        return;
    }
    let _g = crate::common::SERIAL
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    for router in ["prism", "kernel"] {
        hosts::remove_hosts();
        let run = (|| {
            hosts::make_hosts(2)?;
            let opts = prism_node::NodeOptions {
                router_exe: Some(crate::common::PRISM.into()),
                reconfig_strategy: Default::default(),
                ..hosts::demo_options()
            };
            let sc = migrate::scenario(router)?;
            let node = hosts::start_node_with(sc, Default::default(), &opts)?;
            std::thread::sleep(Duration::from_millis(500));
            let r = migrate::measure(&node, router, 20_000.0, 4, Duration::from_secs(1));
            std::thread::sleep(Duration::from_millis(300));
            r.map(|r| (r, migrate::where_lost(&node)))
        })();
        hosts::remove_hosts();
        let (run, seen) = run.unwrap();
        eprintln!("{router}: {run:?}\n{seen}");
        assert!(
            run.sent > 80_000,
            "{router}: the sender fell short: {run:?}"
        );
        assert_eq!(run.flips.len(), 4, "{router}");
        for (i, f) in run.flips.iter().enumerate() {
            assert_eq!(
                f.lost, 0,
                "{router}: move {i} to {} lost frames: {f:?}; {seen}",
                f.to
            );
            assert_eq!(
                f.steady_lost, 0,
                "{router}: the neighbour lost frames in move {i}: {f:?}"
            );
        }
    }
}

/// The CI soak: 15 s of traffic through three networks while one's routes
/// change 100 times a second and another moves between the tiers every
/// 3 s: the networks not moved lose no frame, memory stays within 5%, no
/// descriptor leaks. The long ones are commands: `scripts/soak` (a minute,
/// a move every 10 s, as this test was until the CI went under ten
/// minutes) and `prism bench-live --soak 600`.
#[test]
fn fifteen_seconds_under_churn_lose_nothing_and_leak_nothing() {
    if !root_or_skip("soak") {
        return;
    }
    let (r, seen) = on_soak_node(|node| {
        let r = prism_lab::bench::soak::soak(node, 15.0, 10_000.0, 3.0)?;
        anyhow::Ok((r, migrate::where_lost(node)))
    })
    .unwrap();
    eprintln!("{r:?}\n{seen}");
    assert!(r.route_changes >= 1_450 && r.moves >= 4, "{r:?}");
    assert!(
        r.sent.iter().all(|&s| s > 125_000),
        "the senders fell short: {r:?}"
    );
    r.check().unwrap_or_else(|e| panic!("{e}: {r:?}; {seen}"));
}

/// A sender held up for 150 ms at 10,000 frames/s catches up with 1,500
/// frames at once (the soak's senders do so after any pause of their
/// process; one CI soak lost 518 frames on `sw` so). A software network
/// must carry such a burst whole. Two faults lost it: rings of 512 slots
/// on the container's links (988 of every 1,500 lost), and an AF_XDP send
/// that stopped at the kernel's first EAGAIN, so that the router sent 32
/// frames per wake-up and the tail of a burst came out 0.5 s late.
#[test]
fn a_software_router_takes_a_1500_frame_burst() {
    if !root_or_skip("burst") {
        return;
    }
    let (out, seen) = on_soak_node(|node| {
        let mut out = Vec::new();
        for (k, name) in [(0, "hw"), (1, "sw")] {
            for _ in 0..3 {
                out.push((name, migrate::burst(k, 1_500)?));
            }
        }
        anyhow::Ok((out, migrate::where_lost(node)))
    })
    .unwrap();
    eprintln!("(network, (refused by the sender's interface, lost)): {out:?}\n{seen}");
    for (name, (refused, lost)) in out {
        assert_eq!(refused, 0, "{name}: the sending host refused frames");
        assert_eq!(lost, 0, "{name}: a 1,500-frame burst lost frames; {seen}");
    }
}

/// Runs `f` on a node of the soak's three networks over three test hosts
/// (Prism's own software router), one test at a time, the hosts removed
/// after.
fn on_soak_node<T>(f: impl FnOnce(&Node) -> anyhow::Result<T>) -> anyhow::Result<T> {
    let _g = crate::common::SERIAL
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    hosts::remove_hosts();
    let run = (|| {
        hosts::make_hosts(3)?;
        let opts = prism_node::NodeOptions {
            router_exe: Some(crate::common::PRISM.into()),
            reconfig_strategy: Default::default(),
            ..hosts::demo_options()
        };
        let node = hosts::start_node_with(
            prism_lab::bench::soak::scenario()?,
            Default::default(),
            &opts,
        )?;
        std::thread::sleep(Duration::from_millis(500));
        f(&node)
    })();
    hosts::remove_hosts();
    run
}
