//! `control/change-at-N-networks`: one network's route changed on a node
//! holding N networks (10, 1,000, 10,000), from the substrate's call to the
//! new data plane published: what one API change costs the node once the
//! document is parsed. The networks are [`fixtures::prefix_networks`]
//! (hardware, each selected by its /24, 16 routes); a change rewrites one
//! route's next-hop MAC of network i, i cycling over all of them.
//!
//! What stays O(networks) per change, and is in this figure: a pointer
//! per chunk of 64 networks' records (the chunk of the changed network is
//! built again, the others shared: `prism_pipeline::fast::dataplane`), and the
//! hardware tier's slot table, copied to check a placement and scanned to
//! choose a slot (O(slots): this benchmark's modelled device has a slot
//! per network, 10,000; the real devices' profiles have at most 1,024).
//! The design-select table is built again only when mapping rules change
//! (not here), the WAN side only when tunnels do.

use super::{BenchArgs, Figure, data, measure, wanted};
use prism_io::datasets::read_filters;
use prism_pipeline::{ForwardingSpec, fixtures};
use prism_wire::EthernetAddress;
use std::hint::black_box;

/// `control/rule-change/fw1_10k`: one rule of a 9,416-rule table changed
/// (its action), the whole document handed over as the API hands it:
/// the rules that differ taken in place by the trees
/// (`prism_pipeline::control::recompile`), their rebuild every one change in 32
/// included, then the publication.
pub fn rule_change(args: &BenchArgs, push: &mut impl FnMut(Figure)) -> anyhow::Result<()> {
    let name = "control/rule-change/fw1_10k";
    if !wanted(args, name) {
        return Ok(());
    }
    let rules = read_filters(&data(args, "classbench/fw1_10k")?)?;
    let mut s = super::rules::substrate(&rules)?;
    let mut spec = s.spec("acl").cloned().expect("the network");
    let changes = 400u64;
    let mut k = 0usize;
    let mut change = move || {
        for _ in 0..changes {
            if let ForwardingSpec::Rules { rules, .. } = &mut spec.forwarding {
                let i = k % rules.len();
                k = k.wrapping_add(7919);
                let a = &mut rules[i].action;
                a.set_dst_mac = Some(EthernetAddress([2, 0, 0, 2, (k >> 8) as u8, k as u8]));
            }
            black_box(s.replace_network(spec.clone()).is_ok());
        }
    };
    push(measure(
        name,
        changes,
        if args.quick { 1 } else { 3 },
        "one rule's action changed, the whole document given: diff + in-place updates (rebuilds included) + publish",
        &mut change,
    ));
    Ok(())
}

pub fn run(args: &BenchArgs, push: &mut impl FnMut(Figure)) {
    for n in [10u16, 1_000, 10_000] {
        let name = format!("control/change-at-{n}-networks");
        if !wanted(args, &name) {
            continue;
        }
        let mut s = fixtures::prefix_networks(n, 16);
        let changes = 200u64;
        let mut k = 0u32;
        let mut change = move || {
            for _ in 0..changes {
                let i = k % u32::from(n);
                k = k.wrapping_add(7919);
                let name = format!("net{i}");
                let Some(mut spec) = s.spec(&name).cloned() else {
                    continue;
                };
                if let ForwardingSpec::Destination(routes) = &mut spec.forwarding
                    && let Some((_, a)) = routes.first_mut()
                {
                    a.set_dst_mac = Some(EthernetAddress([2, 0, 0, 1, (k >> 8) as u8, k as u8]));
                }
                black_box(s.replace_network(spec).is_ok());
            }
        };
        let reps = if args.quick { 1 } else { 5 };
        push(measure(
            &name,
            changes,
            reps,
            "one network's route changed: compile + place + publish (the ns column is per change)",
            &mut change,
        ));
    }
}
