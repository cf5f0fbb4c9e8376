//! A data plane built from the one before (only the chunks holding a
//! changed network built again, `Dataplane::next`) reads, after every
//! change, exactly as one built whole from the same networks: the same
//! network, record, hops and routes for every id, the same counts of
//! rule tables. Hundreds of random adds, removals, replacements and tier
//! moves over 200 networks of four kinds (four chunks), past several
//! builds of the arenas.

use crate::arenas::{hop, routes};
use prism_pipeline::fast::dataplane::{CHUNK, Dataplane};
use prism_pipeline::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Network `i`, of one of four kinds: routed by destination (its table in
/// the arenas) or by source (its own), a rule set with only a default,
/// hardware or software, rate-limited or not.
fn spec(i: u32, rng: &mut SmallRng) -> NetworkSpec {
    let routes = routes(i, rng);
    let forwarding = match rng.random_range(0..4) {
        0 => ForwardingSpec::Source(routes),
        1 => ForwardingSpec::Rules {
            rules: Vec::new(),
            default: Some(hop(rng.random())),
        },
        _ => ForwardingSpec::Destination(routes),
    };
    NetworkSpec {
        name: format!("n{i}"),
        tier: if rng.random_bool(0.2) {
            Tier::Software
        } else {
            Tier::Hardware
        },
        mapping: vec![],
        forwarding,
        rate_limit: rng
            .random_bool(0.3)
            .then_some((rng.random_range(1..1000) * 1_000_000, 15_000)),
        software_channel: None,
        quantum: 1514,
        tunnels: Vec::new(),
        program: None,
    }
}

/// `dp` against a data plane built whole from its networks.
fn same_as_whole(s: &Substrate, dp: &Dataplane, rng: &mut SmallRng) {
    let config = s.hardware().config();
    let whole = Dataplane::new(
        dp.generation,
        dp.ports,
        dp.mapping.clone(),
        dp.default_network,
        dp.network_slots().map(|n| n.cloned()).collect(),
        |n| n.slot.map_or(0, |slot| config[slot].ready_ns),
        None,
    );
    assert_eq!(dp.has_rule_tables(), whole.has_rule_tables());
    assert_eq!(dp.has_bridges(), whole.has_bridges());
    for id in 0..dp.len() as u16 {
        let (n, w) = (dp.network(id), whole.network(id));
        assert_eq!(
            n.map(|n| n as *const _),
            w.map(|w| w as *const _),
            "network {id}"
        );
        let (Some(f), Some(g)) = (dp.fast(id), whole.fast(id)) else {
            assert!(
                dp.fast(id).is_none() && whole.fast(id).is_none(),
                "record {id}"
            );
            continue;
        };
        let g_of = |f: &prism_pipeline::fast::dataplane::NetFast| {
            (f.tier, f.software_channel, f.dark_until_ns, f.bridge)
        };
        assert_eq!(g_of(f.fast), g_of(g.fast), "record {id}");
        let actions = n.unwrap().actions.len() as u32;
        for a in 0..=actions {
            assert_eq!(f.hop(a), g.hop(a), "network {id}, hop {a}");
        }
        assert_eq!(f.destination.is_some(), g.destination.is_some(), "{id}");
        if let (Some(t), Some(u)) = (
            dp.destination_table(id, f.fast),
            whole.destination_table(id, g.fast),
        ) {
            for _ in 0..16 {
                let addr = (10 << 24) | (u32::from(id) << 16) | (rng.random::<u32>() & 0xffff);
                assert_eq!(dp.route(t, addr), whole.route(u, addr), "{id} {addr:#x}");
            }
        }
    }
}

#[test]
fn a_data_plane_built_from_the_last_reads_as_one_built_whole() {
    let mut rng = SmallRng::seed_from_u64(31);
    let n = 200u32;
    let mut s = Substrate::new(fixtures::many_networks_profile(256), 2);
    s.batch(|s| {
        for i in 0..n {
            s.add_network(spec(i, &mut rng)).unwrap();
        }
    });
    assert!(n as usize > 3 * CHUNK, "several chunks");
    let mut rebuilds = 0;
    for step in 0..800 {
        let i = rng.random_range(0..n);
        let name = format!("n{i}");
        let before = s.handle().load_full();
        match (s.id(&name).is_some(), rng.random_range(0..10)) {
            (true, 0) => s.remove_network(&name).unwrap(),
            (true, 1) => {
                let tier = s.spec(&name).unwrap().tier;
                let other = [Tier::Software, Tier::Hardware][usize::from(tier == Tier::Software)];
                s.set_tier(&name, other).unwrap();
            }
            (true, _) => s.replace_network(spec(i, &mut rng)).unwrap(),
            (false, _) => {
                s.add_network(spec(i, &mut rng)).unwrap();
            }
        }
        let dp = s.handle().load_full();
        // Only the changed network's chunk is new, but when the arenas'
        // overlay filled and everything was built again.
        let new = dp.changed_since(&before).count();
        if dp.arena_entries().1 < before.arena_entries().1 {
            rebuilds += 1;
        } else {
            assert!(new <= CHUNK, "step {step}: {new} ids rebuilt");
        }
        if step % 4 == 0 || step > 780 {
            same_as_whole(&s, &dp, &mut rng);
        }
    }
    assert!(rebuilds >= 2, "{rebuilds} full builds: that path untried");
}

/// Frames out of port 1 for network `of`, and for every other network,
/// after one pass of `frames` through `p` at `now`.
fn pass(p: &mut Pipeline, frames: &[Vec<u8>], of: u16, now: u64) -> (usize, usize) {
    let (mut batch, mut out) = (Vec::new(), Vec::new());
    let (mut mine, mut others) = (0, 0);
    for chunk in frames.chunks(32) {
        batch.extend(chunk.iter().map(|f| p.pool.packet(f, 0, now).unwrap()));
        p.process(&mut batch, now);
        p.transmit(1, usize::MAX, &mut out);
        mine += out.iter().filter(|f| f.network == of).count();
        others += out.iter().filter(|f| f.network != of).count();
        p.pool.recycle_all(&mut out);
    }
    (mine, others)
}

/// A worker adopting a data plane reconfigures the output of the networks
/// whose chunk changed, and only those: a rate set on one network of the
/// third chunk polices its next pass at once, the 199 others (in chunks
/// shared with the generation before) pass whole, and the rate lifted
/// passes it whole again.
#[test]
fn a_worker_polices_at_a_rate_set_under_it() {
    let (n, of) = (200u16, 150u16);
    let mut s = fixtures::prefix_networks(n, 16);
    let frames = fixtures::prefix_traffic(n, 4 * usize::from(n), 64);
    let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
    let all = 4 * usize::from(n - 1);
    assert_eq!(pass(&mut p, &frames, of, 0), (4, all));
    let name = format!("net{of}");
    let mut spec = s.spec(&name).unwrap().clone();
    // 8 kbit/s with a bucket of 100 bytes: one 64-byte frame, not four.
    spec.rate_limit = Some((8_000, 100));
    s.replace_network(spec.clone()).unwrap();
    assert_eq!(pass(&mut p, &frames, of, 1), (1, all));
    spec.rate_limit = None;
    s.replace_network(spec).unwrap();
    assert_eq!(pass(&mut p, &frames, of, 2), (4, all));
}
