//! Action matching: the per-network forwarding decision.
//!
//! In: a packet's parsed headers and packed key, and its network's forwarding
//! table. Out: the index of an action result in the network's action table,
//! or a [`MatchDrop`].
//!
//! Modes (paper 003 §3.3, paper 001 §4.1):
//! - `Destination`: LPM on the destination address;
//! - `Source`: LPM on the source address;
//! - `Flow`: (source, destination) prefix pairs, destination first;
//! - `Rules`: a ternary rule table over the whole key, with a default rule
//!   (decision trees or tuple-space search as suits the rules, a batch
//!   looked up at once: [`rules_batch`]).
//!
//! Routing modes read the inner (virtual) addresses of an IPIP packet and the
//! outer ones otherwise, so a layer-3 virtual network routes on its own
//! address space. Rule tables see every key field, inner and outer.

use crate::fast::bridge::Bridge;
use crate::fast::reasons::MatchDrop;
use prism_tables::{FlowTable, Key, LpmTable, Match, RuleTable};
use prism_wire::PacketInfo;

/// A network's compiled forwarding table; values are action indices.
#[derive(Debug, Clone)]
pub enum Forwarding {
    Destination(LpmTable),
    Source(LpmTable),
    Flow(FlowTable),
    /// A ternary rule table ([`RuleTable`]): decision trees (HyperSplit,
    /// walked for a batch of keys at once by the pipeline) for rules on the
    /// five-tuple, tuple-space search for rules on other fields.
    Rules {
        table: RuleTable,
        default: Option<u32>,
    },
    /// A learning bridge ([`crate::fast::bridge`]): the pipeline decides with
    /// its learned table; [`decide`] knows the static entries only.
    Bridge(Box<Bridge>),
}

impl Forwarding {
    /// Entries the table holds (routes or rules), for capacity checks.
    pub fn entries(&self) -> usize {
        match self {
            Forwarding::Destination(t) | Forwarding::Source(t) => t.len(),
            Forwarding::Flow(t) => t.len(),
            Forwarding::Rules { table, .. } => table.len(),
            Forwarding::Bridge(b) => b.members() + b.statics(),
        }
    }
}

/// (source, destination) as routing reads them: the inner addresses of an
/// IPIP packet, the outer ones otherwise.
#[inline]
pub fn routed_addrs(info: &PacketInfo) -> (u32, u32) {
    let k = &info.key;
    if info.is_ipip() {
        (k.inner_src_ip, k.inner_dst_ip)
    } else {
        (k.src_ip, k.dst_ip)
    }
}

/// Chooses the action for one packet.
///
/// Destination routing, by far the most common mode, is inlined into the
/// batch loop; the other modes, and packets that are not IPv4, take a call.
#[inline(always)]
pub fn decide(f: &Forwarding, info: &PacketInfo, key: &Key) -> Result<u32, MatchDrop> {
    if let Forwarding::Destination(t) = f
        && info.is_ipv4()
    {
        return t.lookup(routed_addrs(info).1).ok_or(MatchDrop::NoRoute);
    }
    decide_other(f, info, key)
}

#[inline(never)]
fn decide_other(f: &Forwarding, info: &PacketInfo, key: &Key) -> Result<u32, MatchDrop> {
    let routed = match f {
        Forwarding::Rules { table, default } => return rule_action(table.lookup(key), *default),
        Forwarding::Bridge(b) => {
            let k = &info.key;
            return b.decide_static(crate::fast::bridge::mac_of(k.dst_mac), k.in_port);
        }
        _ if !info.is_ipv4() => return Err(MatchDrop::NotIpv4),
        Forwarding::Destination(t) => t.lookup(routed_addrs(info).1),
        Forwarding::Source(t) => t.lookup(routed_addrs(info).0),
        Forwarding::Flow(t) => {
            let (s, d) = routed_addrs(info);
            t.lookup(s, d)
        }
    };
    routed.ok_or(MatchDrop::NoRoute)
}

/// A rule table's answer: the winning rule's action, else the default.
#[inline]
pub fn rule_action(m: Option<Match>, default: Option<u32>) -> Result<u32, MatchDrop> {
    m.map(|m| m.action).or(default).ok_or(MatchDrop::NoRoute)
}

/// A network's rule table and its default action, for a batch's walk.
#[derive(Debug, Clone, Copy)]
pub struct Rules<'a> {
    pub table: &'a RuleTable,
    pub default: Option<u32>,
}

/// The rule table of `f`, if it is one: the pipeline looks its packets'
/// keys up a batch at a time ([`RuleTable::lookup_batch`]).
#[inline]
pub fn rules_batch(f: &Forwarding) -> Option<Rules<'_>> {
    match f {
        Forwarding::Rules { table, default } => Some(Rules {
            table,
            default: *default,
        }),
        _ => None,
    }
}
