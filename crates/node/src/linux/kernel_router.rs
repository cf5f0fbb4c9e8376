//! The `kernel` software router: a network's table as Linux routes and
//! policy-routing rules inside its container, replaced atomically.
//!
//! - destination routing: one route per prefix, `dev eth<port>` (the kernel
//!   resolves next hops by ARP and decrements the TTL itself);
//! - source routing: per prefix, a table with a default route and an
//!   `ip rule from <prefix>`; longer prefixes get earlier rule priorities so
//!   that the longest source prefix wins, as in Prism's source LPM;
//! - flow (source+destination) routing: `ip rule from <src> to <dst>`;
//! - `drop` actions become blackhole routes.
//!
//! **Generations.** A table is installed as a generation: its rules at
//! priorities `base..base+9996` (tables numbered the same), then three
//! rules that end it: `lookup 200` (the [`DAEMON_TABLE`], where a routing
//! daemon in the container puts its routes), `iif lo lookup main` (the
//! router's own traffic, such as a daemon's sessions, uses the connected
//! routes), and `blackhole`. So forwarding follows the network's table and
//! the daemon's, exactly: a prefix that is in neither is dropped, as the
//! hardware tier drops it, even if the router has an address on it. One
//! head rule, `pref 100` or `101`, `goto`s the active generation's base.
//! A change installs the next generation beside the active one, then
//! swaps the head rule: adding a head at the lower priority, or deleting the
//! old head when the new one sits behind it, is a single kernel operation,
//! so every packet is routed by the old table or the new one, never a mix.
//! Then the old generation is removed.
//!
//! IPIP networks: the substrate terminates the tunnel at the container
//! boundary (`prism_pipeline::software::boundary`), so the kernel routes the inner
//! packets and the tunnel actions are applied outside. VLAN actions, payload
//! services and rule tables have no kernel form here: such a network needs
//! `kind = "prism"`.

use prism_netdoc::RouterConfig;
use prism_pipeline::{Action, ForwardingSpec, NetworkSpec, VlanOp};
use prism_tables::Ipv4Prefix;

/// Name of the container's interface for substrate port `port`.
pub fn inner_ifname(port: u16) -> String {
    format!("eth{port}")
}

/// Rules (and tables) a generation may hold besides its three terminators.
pub const MAX_RULES: usize = 9997;

/// The routing table a daemon in the container exports its routes to
/// (BIRD: `protocol kernel { kernel table 200; ... }`; FRR: `table 200`).
pub const DAEMON_TABLE: u32 = 200;

/// An installed generation: what to remove when it is replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generation {
    pub number: u32,
    /// Rule priorities, terminators included.
    pub prefs: Vec<u32>,
    pub tables: Vec<u32>,
}

fn base(generation: u32) -> u32 {
    10_000 * (1 + generation % 2)
}

fn head(generation: u32) -> u32 {
    100 + generation % 2
}

fn target(a: &Action, net: &str) -> Result<String, String> {
    if a.vlan != VlanOp::None || a.payload.is_some() {
        return Err(format!(
            "network `{net}`: the kernel router cannot apply VLAN or service actions; use `router = {{ kind = \"prism\" }}`"
        ));
    }
    if a.drop {
        return Ok("blackhole".into());
    }
    match a.out_port {
        Some(p) => Ok(format!("dev {}", inner_ifname(p))),
        None => Err(format!(
            "network `{net}`: a kernel-router route needs an output port"
        )),
    }
}

fn route(prefix: Ipv4Prefix, target: &str, table: u32) -> String {
    match target.strip_prefix("blackhole") {
        Some(_) => format!("route replace blackhole {prefix} table {table}"),
        None => format!("route replace {prefix} {target} table {table}"),
    }
}

/// The `ip -batch` lines that install `spec` as generation `number`,
/// inactive until [`activate`].
pub fn install(
    spec: &NetworkSpec,
    _cfg: &RouterConfig,
    number: u32,
) -> Result<(Vec<String>, Generation), String> {
    let net = &spec.name;
    let b = base(number);
    let mut lines = Vec::new();
    let n = forwarding_lines(spec, b, &mut lines)?;
    if n as usize > MAX_RULES {
        return Err(format!(
            "network `{net}`: {n} source or flow routes; the kernel router takes at most {MAX_RULES}"
        ));
    }
    let mut g = Generation {
        number,
        prefs: (b..b + n).collect(),
        tables: (b..b + n).collect(),
    };
    lines.push(format!("rule add lookup {DAEMON_TABLE} pref {}", b + 9997));
    lines.push(format!("rule add iif lo lookup main pref {}", b + 9998));
    lines.push(format!("rule add blackhole pref {}", b + 9999));
    g.prefs.extend([b + 9997, b + 9998, b + 9999]);
    Ok((lines, g))
}

/// The routes of `spec`'s forwarding in tables from `b` up and the rules
/// that select them, most specific first, into `lines`: how many tables.
fn forwarding_lines(spec: &NetworkSpec, b: u32, lines: &mut Vec<String>) -> Result<u32, String> {
    let net = &spec.name;
    let any = Ipv4Prefix::new(0, 0);
    let rule = |lines: &mut Vec<String>, sel: String, i: u32| {
        lines.push(format!("rule add {sel}table {} pref {}", b + i, b + i));
    };
    match &spec.forwarding {
        ForwardingSpec::Destination(routes) => {
            for (p, a) in routes {
                lines.push(route(*p, &target(a, net)?, b));
            }
            rule(lines, String::new(), 0);
            Ok(1)
        }
        ForwardingSpec::Source(routes) => {
            let mut sorted: Vec<_> = routes.iter().collect();
            sorted.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
            for (i, (p, a)) in (0..).zip(&sorted) {
                lines.push(route(any, &target(a, net)?, b + i));
                rule(lines, format!("from {p} "), i);
            }
            Ok(sorted.len() as u32)
        }
        ForwardingSpec::Flow(routes) => {
            let mut sorted: Vec<_> = routes.iter().collect();
            sorted.sort_by_key(|(s, d, _)| {
                std::cmp::Reverse(u16::from(s.len()) + u16::from(d.len()))
            });
            for (i, (s, d, a)) in (0..).zip(&sorted) {
                lines.push(route(any, &target(a, net)?, b + i));
                rule(lines, format!("from {s} to {d} "), i);
            }
            Ok(sorted.len() as u32)
        }
        ForwardingSpec::Bridge(_) => Err(format!(
            "network `{net}`: a bridge forwards in the hardware tier only"
        )),
        ForwardingSpec::Rules { .. } => Err(format!(
            "network `{net}`: rule tables have no kernel-router form here; use `router = {{ kind = \"prism\" }}`"
        )),
    }
}

/// Lines that make `new` the active generation in place of `old`, then
/// remove `old`. The switch itself is the first or the second line.
pub fn activate(new: &Generation, old: Option<&Generation>) -> Vec<String> {
    let mut lines = vec![format!(
        "rule add goto {} pref {}",
        base(new.number),
        head(new.number)
    )];
    if let Some(o) = old {
        lines.push(format!("rule del pref {}", head(o.number)));
        lines.extend(o.prefs.iter().map(|p| format!("rule del pref {p}")));
        lines.extend(o.tables.iter().map(|t| format!("route flush table {t}")));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use prism_pipeline::Tier;

    fn spec(f: ForwardingSpec) -> NetworkSpec {
        NetworkSpec {
            name: "n".into(),
            tier: Tier::Software,
            mapping: vec![],
            forwarding: f,
            rate_limit: None,
            software_channel: None,
            quantum: 1514,
            tunnels: Vec::new(),
            program: None,
        }
    }
    fn to(port: u16) -> Action {
        Action {
            out_port: Some(port),
            ..Action::default()
        }
    }
    fn p(s: &str) -> Ipv4Prefix {
        s.parse().unwrap()
    }

    #[test]
    fn destination_routes_and_blackholes() {
        let drop = Action {
            drop: true,
            ..Action::default()
        };
        let (l, g) = install(
            &spec(ForwardingSpec::Destination(vec![
                (p("10.0.2.0/24"), to(1)),
                (p("10.9.0.0/16"), drop),
            ])),
            &RouterConfig::default(),
            0,
        )
        .unwrap();
        assert_eq!(
            l,
            vec![
                "route replace 10.0.2.0/24 dev eth1 table 10000",
                "route replace blackhole 10.9.0.0/16 table 10000",
                "rule add table 10000 pref 10000",
                "rule add lookup 200 pref 19997",
                "rule add iif lo lookup main pref 19998",
                "rule add blackhole pref 19999",
            ]
        );
        assert_eq!(g.prefs, vec![10000, 19997, 19998, 19999]);
    }

    #[test]
    fn source_rules_put_longer_prefixes_first() {
        let (l, _) = install(
            &spec(ForwardingSpec::Source(vec![
                (p("10.0.0.0/8"), to(0)),
                (p("10.1.0.0/16"), to(1)),
            ])),
            &RouterConfig::default(),
            1,
        )
        .unwrap();
        assert_eq!(l[0], "route replace 0.0.0.0/0 dev eth1 table 20000");
        assert_eq!(l[1], "rule add from 10.1.0.0/16 table 20000 pref 20000");
        assert_eq!(l[3], "rule add from 10.0.0.0/8 table 20001 pref 20001");
    }

    #[test]
    fn generations_alternate_and_the_switch_comes_first() {
        let s = spec(ForwardingSpec::Destination(vec![(p("10.0.2.0/24"), to(1))]));
        let (_, g0) = install(&s, &RouterConfig::default(), 0).unwrap();
        let (_, g1) = install(&s, &RouterConfig::default(), 1).unwrap();
        assert!(g0.prefs.iter().all(|p| !g1.prefs.contains(p)), "overlap");
        assert_eq!(activate(&g0, None), vec!["rule add goto 10000 pref 100"]);
        let a = activate(&g1, Some(&g0));
        // Generation 1's head sits behind generation 0's: deleting pref 100 switches.
        assert_eq!(a[0], "rule add goto 20000 pref 101");
        assert_eq!(a[1], "rule del pref 100");
        assert!(a.contains(&"route flush table 10000".to_string()));
        let (_, g2) = install(&s, &RouterConfig::default(), 2).unwrap();
        // Generation 2's head comes first: adding it switches.
        assert_eq!(activate(&g2, Some(&g1))[0], "rule add goto 10000 pref 100");
    }

    #[test]
    fn vlan_and_rules_need_the_prism_router_but_ipip_does_not() {
        let vlan = Action {
            out_port: Some(0),
            vlan: VlanOp::Pop,
            ..Action::default()
        };
        let e = install(
            &spec(ForwardingSpec::Destination(vec![(p("10.0.0.0/8"), vlan)])),
            &RouterConfig::default(),
            0,
        );
        assert!(e.unwrap_err().contains("kind = \"prism\""));
        let ipip = Action {
            out_port: Some(0),
            ipip: prism_pipeline::IpipOp::Decap,
            ..Action::default()
        };
        assert!(
            install(
                &spec(ForwardingSpec::Destination(vec![(p("10.0.0.0/8"), ipip)])),
                &RouterConfig::default(),
                0,
            )
            .is_ok()
        );
    }
}
