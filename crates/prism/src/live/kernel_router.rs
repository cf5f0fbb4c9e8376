//! The `kernel` software router: a network's table as Linux routes and
//! policy-routing rules inside its container.
//!
//! - destination routing: one route per prefix, `dev eth<port>` (the kernel
//!   resolves next hops by ARP and decrements the TTL itself);
//! - source routing: per prefix, a table with a default route and an
//!   `ip rule from <prefix>`; longer prefixes get earlier rule priorities so
//!   that the longest source prefix wins, as in Prism's source LPM;
//! - flow (source+destination) routing: `ip rule from <src> to <dst>`;
//! - `drop` actions become blackhole routes.
//!
//! Rule tables, IPIP, VLAN and payload services have no kernel equivalent
//! here (no IPIP or VRF module): such a network needs `kind = "prism"`.

use crate::router_config::RouterConfig;
use prism_pipeline::{Action, ForwardingSpec, IpipOp, NetworkSpec, VlanOp};
use prism_tables::Ipv4Prefix;

/// Name of the container's interface for substrate port `port`.
pub fn inner_ifname(port: u16) -> String {
    format!("eth{port}")
}

fn target(a: &Action, net: &str) -> Result<Vec<String>, String> {
    if a.ipip != IpipOp::None || a.vlan != VlanOp::None || a.service.is_some() {
        return Err(format!(
            "network `{net}`: the kernel router cannot apply IPIP, VLAN or service actions; use `router = {{ kind = \"prism\" }}`"
        ));
    }
    if a.drop {
        return Ok(vec!["blackhole".into()]);
    }
    match a.out_port {
        Some(p) => Ok(vec!["dev".into(), inner_ifname(p)]),
        None => Err(format!(
            "network `{net}`: a kernel-router route needs an output port"
        )),
    }
}

fn route(prefix: Ipv4Prefix, target: &[String], table: Option<u32>) -> Vec<String> {
    let mut v: Vec<String> = vec!["route".into(), "replace".into()];
    let (kind, rest) = match target.first().map(String::as_str) {
        Some("blackhole") => (Some("blackhole".to_string()), &target[1..]),
        _ => (None, target),
    };
    v.extend(kind);
    v.push(prefix.to_string());
    v.extend(rest.iter().cloned());
    if let Some(t) = table {
        v.extend(["table".into(), t.to_string()]);
    }
    v
}

/// The `ip` argument lists that configure `spec` in its container, after
/// the interface addresses of `cfg` are set.
pub fn commands(spec: &NetworkSpec, _cfg: &RouterConfig) -> Result<Vec<Vec<String>>, String> {
    let net = &spec.name;
    let mut out = Vec::new();
    let any = Ipv4Prefix::new(0, 0);
    match &spec.forwarding {
        ForwardingSpec::Destination(routes) => {
            for (p, a) in routes {
                out.push(route(*p, &target(a, net)?, None));
            }
        }
        ForwardingSpec::Source(routes) => {
            let mut sorted: Vec<_> = routes.iter().collect();
            sorted.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
            for (i, (p, a)) in sorted.into_iter().enumerate() {
                let table = 100 + i as u32;
                out.push(route(any, &target(a, net)?, Some(table)));
                out.push(rule(&["from", &p.to_string()], i, table));
            }
        }
        ForwardingSpec::Flow(routes) => {
            let mut sorted: Vec<_> = routes.iter().collect();
            sorted.sort_by_key(|(s, d, _)| {
                std::cmp::Reverse(u16::from(s.len()) + u16::from(d.len()))
            });
            for (i, (s, d, a)) in sorted.into_iter().enumerate() {
                let table = 100 + i as u32;
                out.push(route(any, &target(a, net)?, Some(table)));
                out.push(rule(
                    &["from", &s.to_string(), "to", &d.to_string()],
                    i,
                    table,
                ));
            }
        }
        ForwardingSpec::Rules { .. } => {
            return Err(format!(
                "network `{net}`: rule tables have no kernel-router form here; use `router = {{ kind = \"prism\" }}`"
            ));
        }
    }
    Ok(out)
}

fn rule(sel: &[&str], i: usize, table: u32) -> Vec<String> {
    let mut v: Vec<String> = vec!["rule".into(), "add".into()];
    v.extend(sel.iter().map(|s| s.to_string()));
    v.extend([
        "table".into(),
        table.to_string(),
        "pref".into(),
        (1000 + i).to_string(),
    ]);
    v
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
        let c = commands(
            &spec(ForwardingSpec::Destination(vec![
                (p("10.0.2.0/24"), to(1)),
                (p("10.9.0.0/16"), drop),
            ])),
            &RouterConfig::default(),
        )
        .unwrap();
        assert_eq!(c[0].join(" "), "route replace 10.0.2.0/24 dev eth1");
        assert_eq!(c[1].join(" "), "route replace blackhole 10.9.0.0/16");
    }

    #[test]
    fn source_rules_put_longer_prefixes_first() {
        let c = commands(
            &spec(ForwardingSpec::Source(vec![
                (p("10.0.0.0/8"), to(0)),
                (p("10.1.0.0/16"), to(1)),
            ])),
            &RouterConfig::default(),
        )
        .unwrap();
        let j: Vec<String> = c.iter().map(|v| v.join(" ")).collect();
        assert_eq!(j[0], "route replace 0.0.0.0/0 dev eth1 table 100");
        assert_eq!(j[1], "rule add from 10.1.0.0/16 table 100 pref 1000");
        assert_eq!(j[3], "rule add from 10.0.0.0/8 table 101 pref 1001");
    }

    #[test]
    fn ipip_needs_the_prism_router() {
        let a = Action {
            out_port: Some(0),
            ipip: IpipOp::Decap,
            ..Action::default()
        };
        let e = commands(
            &spec(ForwardingSpec::Destination(vec![(p("10.0.0.0/8"), a)])),
            &RouterConfig::default(),
        );
        assert!(e.unwrap_err().contains("kind = \"prism\""));
    }
}
