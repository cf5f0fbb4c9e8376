//! The destination tables in the data plane's shared arenas (a base kept
//! between generations and an overlay of the tables changed since, built
//! again in one when the overlay fills) answer, after every change, as the
//! networks' routes say: checked against a longest-prefix scan of each
//! network's specification over hundreds of random changes (adds,
//! removals, route changes), past several rebuilds.

use prism_pipeline::fast::dataplane::OVERLAY_MAX;
use prism_pipeline::*;
use prism_tables::Ipv4Prefix;
use prism_wire::EthernetAddress;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// A plain hop out of port 1 to MAC 02:00:00:00:00:`mac`.
pub(crate) fn hop(mac: u8) -> Action {
    Action {
        out_port: Some(1),
        set_dst_mac: Some(EthernetAddress([2, 0, 0, 0, 0, mac])),
        ..Action::default()
    }
}

/// Network `i`'s routes: prefixes around 10.i.0.0/16, random lengths
/// (some longer than 24, so tables have second levels), random hops.
pub(crate) fn routes(i: u32, rng: &mut SmallRng) -> Vec<(Ipv4Prefix, Action)> {
    (0..rng.random_range(1..24))
        .map(|_| {
            let addr = (10 << 24) | (i << 16) | (rng.random::<u32>() & 0xffff);
            let p = Ipv4Prefix::new(addr, rng.random_range(16..=30));
            (p, hop(rng.random()))
        })
        .collect()
}

fn spec(i: u32, rng: &mut SmallRng) -> NetworkSpec {
    let routes = routes(i, rng);
    NetworkSpec {
        name: format!("n{i}"),
        tier: Tier::Hardware,
        mapping: vec![],
        forwarding: ForwardingSpec::Destination(routes),
        rate_limit: None,
        software_channel: None,
        quantum: 1514,
        tunnels: Vec::new(),
        program: None,
    }
}

/// The hop the routes of `s` give `addr`: the longest prefix, the last
/// one given among equals (a route given twice keeps its later action).
fn expected(s: &NetworkSpec, addr: u32) -> Option<Action> {
    let ForwardingSpec::Destination(routes) = &s.forwarding else {
        return None;
    };
    let mut best: Option<(u8, Action)> = None;
    for (p, a) in routes {
        if p.contains(addr) && best.is_none_or(|(l, _)| p.len() >= l) {
            best = Some((p.len(), *a));
        }
    }
    best.map(|b| b.1)
}

fn check(s: &Substrate, rng: &mut SmallRng, ids: &[u32]) {
    let dp = s.handle().load_full();
    for &i in ids {
        let Some(spec) = s.spec(&format!("n{i}")) else {
            continue;
        };
        let id = dp.network_id(&spec.name).unwrap();
        let f = dp.fast(id).unwrap();
        let table = dp.destination_table(id, f.fast).unwrap();
        for _ in 0..64 {
            let addr = (10 << 24) | (i << 16) | (rng.random::<u32>() & 0xffff);
            let got = dp
                .route(table, addr)
                .ok()
                .map(|a| dp.network(id).unwrap().actions[a as usize]);
            assert_eq!(
                got,
                expected(spec, addr),
                "network {i}, address {addr:#x}, generation {}",
                dp.generation
            );
        }
    }
}

#[test]
fn tables_answer_as_their_routes_through_changes_and_rebuilds() {
    let mut rng = SmallRng::seed_from_u64(5);
    let mut s = Substrate::new(fixtures::many_networks_profile(64), 2);
    let n = 48u32;
    for i in 0..n {
        s.add_network(spec(i, &mut rng)).unwrap();
    }
    // A table is a few thousand entries (a /16 skipped, second levels for
    // the longer routes): a few hundred changes fill the overlay again
    // and again.
    let mut rebuilds = 0;
    let mut overlay = 0;
    for step in 0..600 {
        let i = rng.random_range(0..n);
        let name = format!("n{i}");
        match (s.id(&name).is_some(), rng.random_range(0..8)) {
            (true, 0) => s.remove_network(&name).unwrap(),
            (true, _) => s.replace_network(spec(i, &mut rng)).unwrap(),
            (false, _) => {
                s.add_network(spec(i, &mut rng)).unwrap();
            }
        }
        let (_, now) = s.handle().load().arena_entries();
        assert!(now <= OVERLAY_MAX);
        rebuilds += usize::from(now < overlay);
        overlay = now;
        let others = [i, rng.random_range(0..n), rng.random_range(0..n)];
        check(&s, &mut rng, &others);
        if step % 100 == 99 {
            check(&s, &mut rng, &(0..n).collect::<Vec<_>>());
        }
    }
    assert!(
        rebuilds >= 3,
        "{rebuilds} rebuilds: the overlay never filled"
    );
}
