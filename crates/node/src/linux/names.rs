//! Names and addresses the node gives what it creates: the gateway MAC of
//! a software network's interfaces, the bridges of the multi-receiver
//! path, and the ports a router's container links to.

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
