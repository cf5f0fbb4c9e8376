//! The wide area with three real nodes (`prism demo --wan`): a network
//! spanning the three, two spanning nodes 1 and 2 on the same inner
//! addresses, and a bridged one (Q-in-Q across the WAN) carrying a made-up
//! EtherType between nodes 1 and 2, and one in the software tier (each
//! part's router in its container) spanning nodes 2 and 3; frames between
//! every pair of hosts of each arrive whole at
//! the receiving host on their experiment's VLAN and on no other; an
//! outsider's tunnels and plain IPv4 on the WAN are dropped by name and
//! never delivered; two networks with NAT, each through its own node's
//! gateway, reach a real Linux "Internet" host (UDP echoed back, pings
//! answered by its kernel); a public address leased for a host inside
//! carries the Internet host's datagrams in and its answers out, and once
//! released carries nothing (dropped as `wan/not-leased`); node 3 killed
//! and started again under traffic costs nodes 1 and 2 nothing and gets
//! its part back from the controller; after the
//! releases nothing is left on the nodes or the machine. Needs root.

use prism_lab::wan::demo::{FRAMES, run};

#[test]
fn networks_span_three_nodes_and_stay_apart_across_the_wan() {
    if !crate::common::root_or_skip("live_wan") {
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
    assert_eq!(o.flows.len(), 14, "{:?}", o.flows);
    let pairs: std::collections::BTreeSet<(usize, usize)> = o
        .flows
        .iter()
        .filter(|f| f.experiment == "span3")
        .map(|f| (f.from, f.to))
        .collect();
    assert_eq!(pairs.len(), 6, "every ordered pair of the three nodes");
    let vlans: std::collections::BTreeSet<u16> = o.flows.iter().map(|f| f.vlan).collect();
    assert_eq!(vlans.len(), 5, "five experiments, five VLANs");
    let l2 = o.flows.iter().filter(|f| f.experiment == "l2").count();
    assert_eq!(l2, 2, "the bridged network, both ways, a made-up EtherType");
    let soft = o.flows.iter().filter(|f| f.experiment == "soft").count();
    assert_eq!(soft, 2, "the software-tier span, both ways");
    for f in &o.flows {
        assert_eq!(f.sent, FRAMES);
        assert_eq!(f.got, FRAMES, "lost across the WAN: {f:?}");
        assert_eq!(f.wrong_vlan, 0, "delivered to another experiment: {f:?}");
    }
    assert_eq!(o.latency.len(), 3, "{:?}", o.latency);
    for (path, p50, p99) in &o.latency {
        assert!(
            0.0 < *p50 && p50 <= p99,
            "{path}: p50 {p50} µs, p99 {p99} µs"
        );
    }
    assert_eq!(o.spoofed_delivered, 0);
    assert_eq!(o.spoof_drops, (o.spoofed / 2, o.spoofed / 2));
    let g = &o.gateway;
    assert_eq!(g.nat.len(), 2, "{g:?}");
    for (node, sources, sent, echoed) in &g.nat {
        let wan = format!("203.0.113.{}:", &node["node".len()..]);
        assert_eq!(sources.len(), 1, "{g:?}");
        assert!(
            sources[0].starts_with(&wan),
            "NATed to its node's address: {g:?}"
        );
        assert_eq!(echoed, sent, "{g:?}");
    }
    assert_eq!(g.pings.1, g.pings.0, "{g:?}");
    assert_eq!((g.public.1, g.public.2), (g.public.0, g.public.0), "{g:?}");
    assert_eq!(g.released.1, 0, "a released address carries nothing: {g:?}");
    assert!(g.released.2 >= g.released.0, "{g:?}");
    let m = &o.public_mac;
    assert_eq!(
        m.arp.1, m.arp.0,
        "the kernel's ARP answers reach the host: {m:?}"
    );
    assert_eq!(m.pings.1, m.pings.0, "{m:?}");
    assert_eq!(
        m.released.1, 0,
        "a released public MAC carries nothing: {m:?}"
    );
    assert!(m.released.2 >= m.released.0, "{m:?}");
    let m = &o.tier_move;
    assert_eq!(
        m.other.1, m.other.0,
        "node 1 → node 3 loses nothing while node 2's part changes tier: {m:?}"
    );
    assert_eq!(m.in_software.1, m.in_software.0, "{m:?}");
    assert_eq!(m.back.1, m.back.0, "{m:?}");
    let r = &o.restart;
    assert_eq!(
        r.during.1, r.during.0,
        "nodes 1 and 2 lose nothing while node 3 restarts: {r:?}"
    );
    assert_eq!(
        r.after.1, r.after.0,
        "node 3's part is back and whole: {r:?}"
    );
    assert!(o.left_on_nodes.is_empty(), "{:?}", o.left_on_nodes);
    assert!(o.leftovers.is_empty(), "{:?}", o.leftovers);
}
