//! The controller with two real nodes, each `prism node` in its own network
//! namespace (`prism demo --controller`): bookings placed on both, traffic
//! through each hardware and software network counted at the receiving
//! host, other VLANs kept out, the usage report, and nothing left after the
//! releases. Needs root; without it says so and passes, unless
//! PRISM_REQUIRE_ROOT=1.

use prism_lab::demo::controller::{FRAMES, run};

#[test]
fn bookings_on_two_nodes_forward_only_their_vlans_and_leave_nothing() {
    if !crate::common::root_or_skip("live_controller") {
        return;
    }
    let _g = crate::common::SERIAL
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    // Node 2 cut off from the controller for 6 s under traffic, and at
    // least until the controller saw it down (the soak cuts for 60).
    let o = run(
        std::path::Path::new(env!("CARGO_BIN_EXE_prism")),
        true,
        false,
        Some(6),
    )
    .unwrap();
    // The controller's client certificate revoked: refused by both nodes
    // within a heartbeat or two.
    assert!(o.revoked_answered.is_empty(), "{:?}", o.revoked_answered);
    assert!(o.revoked_refused_ms < 6_000, "{} ms", o.revoked_refused_ms);
    let c = o.cut.clone().unwrap();
    assert_eq!(c.got, c.sent, "the cut node stopped forwarding: {c:?}");
    assert!(
        c.down_after_ms < 9_000,
        "the controller saw the cut node down late: {c:?}"
    );
    assert_eq!(
        c.placed_on, "node1",
        "a booking during the cut went to the cut node: {c:?}"
    );
    assert!(c.release_pending && c.release_ms < 1_000, "{c:?}");
    assert_eq!(
        c.on_node, c.booked,
        "after the cut, the node holds its bookings exactly: {c:?}"
    );
    assert!(!c.booked.is_empty(), "{c:?}");
    assert_eq!(o.flows.len(), 4);
    let nodes: std::collections::BTreeSet<&str> = o.flows.iter().map(|f| f.2.as_str()).collect();
    assert_eq!(nodes.len(), 2, "placed on both nodes: {:?}", o.flows);
    for (name, tier, node, vlan, sent, got) in &o.flows {
        assert_eq!(*sent, FRAMES);
        // A software router's socket may drop a few at its start; the
        // hardware tier nothing.
        let min = if tier == "hardware" {
            FRAMES
        } else {
            FRAMES * 99 / 100
        };
        assert!(
            *got >= min && *got <= FRAMES,
            "{name} ({tier} on {node}, VLAN {vlan}): {got} of {sent}; drops: {:?}",
            o.drops
        );
    }
    assert_eq!(o.leaked, 0, "frames of other VLANs reached a host");
    assert!(
        o.usage_csv.contains("demo,alice,hardware,2,"),
        "{}",
        o.usage_csv
    );
    assert!(
        o.usage_csv.contains("demo,alice,software,2,"),
        "{}",
        o.usage_csv
    );
    assert!(o.left_on_nodes.is_empty(), "{:?}", o.left_on_nodes);
    // The nodes hold no shared credential: only the controller's client
    // certificate gets an answer.
    assert!(
        o.answered_strangers.is_empty(),
        "{:?}",
        o.answered_strangers
    );
    assert!(o.leftovers.is_empty(), "{:?}", o.leftovers);
}
