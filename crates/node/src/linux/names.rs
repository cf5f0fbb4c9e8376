//! Names and addresses the node gives what it creates: the gateway MAC of
//! a software network's interfaces, its containers and their links, the
//! bridges of the multi-receiver path, and the ports a router's container
//! links to; and which names an instance owns.
//!
//! Ownership is by a name's whole form, not its prefix: the default
//! instance's containers are `prism-c<net>[b]` and instance `q`'s
//! `prism-cq<net>[b]`, so "starts with `prism-c`" would take `q`'s too.
//! An instance's part is letters and a network's number digits, so each
//! name parses to one owner.

use super::options::NodeOptions;
use prism_netdoc::RouterConfig;

/// The MAC address of a software network's interface on port `port`: the
/// gateway address its hosts send to.
pub fn gateway_mac(net: u16, port: u16) -> [u8; 6] {
    [
        0x02,
        0x50,
        (net >> 8) as u8,
        net as u8,
        (port >> 8) as u8,
        port as u8,
    ]
}

/// The container of network `net`. A network whose router is replaced gets
/// its new container beside the old one, under the other `variant`, so that
/// traffic moves over before the old one goes.
pub fn container_name(opts: &NodeOptions, net: u16, variant: bool) -> String {
    format!("{}{net}{}", opts.ns_prefix, if variant { "b" } else { "" })
}

/// The root-namespace end of network `net`'s link for `port` (at most
/// 4 + 5 + 1 + 5 bytes: within the 15 of an interface name).
pub fn host_link(opts: &NodeOptions, net: u16, port: u16, variant: bool) -> String {
    format!(
        "{}{net}{}{port}",
        opts.link_prefix,
        if variant { 'q' } else { 'p' }
    )
}

/// Whether `name` is one of [`container_name`]'s for `opts` (a namespace,
/// a cgroup, or a router file's stem).
pub fn owns_container(opts: &NodeOptions, name: &str) -> bool {
    name.strip_prefix(opts.ns_prefix.as_str())
        .map(|rest| rest.strip_suffix('b').unwrap_or(rest))
        .is_some_and(is_number)
}

/// Whether `name` is one of [`host_link`]'s or [`bridge_name`]'s for `opts`.
pub fn owns_link(opts: &NodeOptions, name: &str) -> bool {
    let Some(rest) = name.strip_prefix(opts.link_prefix.as_str()) else {
        return false;
    };
    if let Some(port) = rest.strip_prefix("br") {
        return is_number(port);
    }
    rest.split_once(['p', 'q'])
        .is_some_and(|(net, port)| is_number(net) && is_number(port))
}

/// Whether `file` (a name in the state directory) is a router's file
/// (`<container>.toml`, `.log`, `.ready`, …) of `opts`.
pub fn owns_file(opts: &NodeOptions, file: &str) -> bool {
    file.split_once('.')
        .is_some_and(|(stem, _)| owns_container(opts, stem))
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.len() <= 5 && s.bytes().all(|b| b.is_ascii_digit())
}

/// The bridge of port `port`'s multi-receiver path.
pub fn bridge_name(opts: &NodeOptions, port: u16) -> String {
    format!("{}br{port}", opts.link_prefix)
}

/// The ports a software network's container is linked to: those its
/// actions send to and those its router has addresses on. A frame of the
/// network entering on another port finds no link and is dropped as
/// `io/no-link`. With no output port at all
/// (a user command's own routing), every port.
pub fn used_ports(spec: &prism_pipeline::NetworkSpec, cfg: &RouterConfig, ports: u16) -> Vec<u16> {
    let mut v: Vec<u16> = spec
        .forwarding
        .actions()
        .iter()
        .filter_map(|a| a.out_port)
        .chain(cfg.addresses.iter().map(|(p, _)| *p))
        .filter(|p| *p < ports)
        .collect();
    v.sort_unstable();
    v.dedup();
    if v.is_empty() {
        v = (0..ports).collect();
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linux::options::instance_options;

    /// Instances whose letters look like the names' own parts: `b` (a
    /// variant), `p` and `q` (a link's side), `br` (a bridge).
    const INSTANCES: [Option<&str>; 6] = [
        None,
        Some("q"),
        Some("b"),
        Some("p"),
        Some("br"),
        Some("cq"),
    ];

    fn names_of(opts: &NodeOptions) -> (Vec<String>, Vec<String>) {
        let mut c = Vec::new();
        let mut l = Vec::new();
        for net in [0, 3, 17, 65535] {
            for variant in [false, true] {
                c.push(container_name(opts, net, variant));
                for port in [0, 1, 12] {
                    l.push(host_link(opts, net, port, variant));
                }
            }
        }
        l.extend([0, 7].map(|p| bridge_name(opts, p)));
        (c, l)
    }

    #[test]
    fn every_name_has_exactly_one_owner() {
        for owner in INSTANCES {
            let (containers, links) = names_of(&instance_options(owner));
            for i in INSTANCES {
                let o = instance_options(i);
                for c in &containers {
                    assert_eq!(owns_container(&o, c), i == owner, "{c} for {i:?}");
                    assert_eq!(owns_file(&o, &format!("{c}.toml")), i == owner);
                }
                for l in &links {
                    assert!(l.len() <= 15, "{l}");
                    assert_eq!(owns_link(&o, l), i == owner, "{l} for {i:?}");
                }
            }
        }
    }

    #[test]
    fn other_names_are_nobodys() {
        let o = instance_options(None);
        for n in [
            "prism-c",
            "prism-cx",
            "prism-c1x",
            "prism-c1bb",
            "prism-demo-c1",
            "prism-c123456",
        ] {
            assert!(!owns_container(&o, n), "{n}");
        }
        for n in [
            "pc", "pc1", "pc1p", "pcp1", "pcbr", "pc1p2x", "pdc1p0", "pth0a", "pc1r2",
        ] {
            assert!(!owns_link(&o, n), "{n}");
        }
        for n in ["desired.json", "instance.lock", "prism-c1", "api.sock"] {
            assert!(!owns_file(&o, n), "{n}");
        }
    }
}
