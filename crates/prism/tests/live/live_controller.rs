//! The controller with two real nodes, each `prism node` in its own network
//! namespace (`prism demo --controller`): bookings placed on both, traffic
//! through each hardware and software network counted at the receiving
//! host, other VLANs kept out, the usage report, and nothing left after the
//! releases. Needs root; without it says so and passes, unless
//! PRISM_REQUIRE_ROOT=1.

use prism_testbed::controller_demo::{FRAMES, run};

#[test]
fn bookings_on_two_nodes_forward_only_their_vlans_and_leave_nothing() {
    if !crate::common::root_or_skip("live_controller") {
        return;
    }
    let _g = crate::common::SERIAL
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let o = run(
        std::path::Path::new(env!("CARGO_BIN_EXE_prism")),
        true,
        false,
    )
    .unwrap();
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
