//! A network's specification compiled into the tables and action table
//! the fast path reads.
//!
//! In: a [`NetworkSpec`]. Out: its [`Network`] (not yet placed in a slot),
//! or the table's refusal. Actions are interned: a table holds indices
//! into the network's action table, one entry per distinct action.

use crate::control::spec::{ForwardingSpec, NetworkSpec, SubstrateError};
use crate::fast::action::{Action, Hop};
use crate::fast::dataplane::{NetProgram, Network, SHARED_CHANNEL};
use crate::fast::matching::Forwarding;
use prism_tables::{FlowRule, FlowTable, LpmTable, Rule, RuleTable};
use std::collections::HashMap;

/// Compiles a specification into tables and an action table.
pub fn compile(spec: &NetworkSpec) -> Result<Network, SubstrateError> {
    let mut actions: Vec<Action> = Vec::new();
    let mut index: HashMap<Action, u32> = HashMap::new();
    let mut intern = |a: &Action| -> u32 {
        *index.entry(*a).or_insert_with(|| {
            actions.push(*a);
            (actions.len() - 1) as u32
        })
    };
    let table_err = |source| SubstrateError::Table {
        network: spec.name.clone(),
        source,
    };
    let forwarding = match &spec.forwarding {
        ForwardingSpec::Destination(routes) | ForwardingSpec::Source(routes) => {
            let mut t = LpmTable::for_routes(routes.len());
            for (p, a) in routes {
                t.insert(*p, intern(a)).map_err(table_err)?;
            }
            if matches!(spec.forwarding, ForwardingSpec::Destination(_)) {
                Forwarding::Destination(t)
            } else {
                Forwarding::Source(t)
            }
        }
        ForwardingSpec::Flow(routes) => {
            let rules: Vec<FlowRule> = routes
                .iter()
                .map(|(s, d, a)| FlowRule {
                    src: *s,
                    dst: *d,
                    value: intern(a),
                })
                .collect();
            Forwarding::Flow(FlowTable::build(&rules).map_err(table_err)?)
        }
        ForwardingSpec::Rules { rules, default } => {
            let table = rules
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    Rule::new(i as u32, r.priority, r.fields, intern(&r.action))
                        .with_ports(r.src_port, r.dst_port)
                })
                .collect();
            Forwarding::Rules {
                table: RuleTable::build(table),
                default: default.as_ref().map(&mut intern),
            }
        }
        ForwardingSpec::Bridge(b) => {
            let members: Vec<u32> = b.members.iter().map(&mut intern).collect();
            Forwarding::Bridge(Box::new(crate::fast::bridge::Bridge::new(b, &members)))
        }
    };
    Ok(assemble(spec, forwarding, actions))
}

/// `spec`'s compiled network of `forwarding` and its `actions` (with
/// their hop forms), not yet placed.
pub(crate) fn assemble(
    spec: &NetworkSpec,
    forwarding: Forwarding,
    actions: Vec<Action>,
) -> Network {
    Network {
        name: spec.name.clone(),
        tier: spec.tier,
        forwarding,
        hops: actions.iter().map(Hop::of).collect(),
        actions,
        software_channel: spec.software_channel.unwrap_or(SHARED_CHANNEL),
        quantum: spec.quantum,
        rate_limit: spec.rate_limit,
        slot: None,
        program: program_for(spec, None),
    }
}

/// `spec`'s program as its network runs it: the one `before` ran (its maps
/// and all) when the spec names the same object and budget, else made anew.
pub(crate) fn program_for(spec: &NetworkSpec, before: Option<&Network>) -> Option<NetProgram> {
    let p = spec.program.as_ref()?;
    let kept = before
        .and_then(|n| n.program.as_ref())
        .filter(|o| o.digest == p.digest && o.program.budget == p.budget);
    Some(NetProgram {
        digest: p.digest.clone(),
        program: kept.map_or_else(|| p.image.instantiate(p.budget), |o| o.program.clone()),
        ports: ports_of(spec),
    })
}

/// The ports `spec`'s own tables may send a frame out of.
fn ports_of(spec: &NetworkSpec) -> Vec<u16> {
    let mut ports: Vec<u16> = spec
        .forwarding
        .actions()
        .iter()
        .filter_map(|a| a.out_port)
        .collect();
    ports.sort_unstable();
    ports.dedup();
    ports
}
