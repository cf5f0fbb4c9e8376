//! The WAN demo's machine: three node namespaces whose WAN ports share a
//! bridge, a management link each, and the nodes started in them.

use super::*;

pub(super) fn ours(ns: &str) -> bool {
    ns.starts_with(NODE_NS)
        || ns.starts_with(HOST_NS)
        || ns == OUTSIDER_NS
        || INSTANCES
            .iter()
            .any(|i| ns.starts_with(&format!("prism-c{i}")))
}

/// The demo's namespaces and links (the WAN bridge among them).
pub(super) static NAMES: Names = Names {
    namespace: ours,
    link_prefixes: &[MGMT, WAN_LINK],
};

/// What is left of the demo: namespaces and links.
pub fn leftovers() -> Vec<String> {
    NAMES.leftovers()
}

/// The bridge takes a frame's outer VLAN tag (an S-tag too) into the
/// packet's metadata on receipt, and a veth carries it there to its peer:
/// a node reading its WAN port by AF_XDP would get the frame without it.
/// A wide-area Ethernet delivers tags in the frame: the bridge's ports
/// put them back on transmit.
pub(super) fn keep_tags_in_frames(link: &str) -> Result<()> {
    netns::run(
        "ethtool",
        &[
            "-K",
            link,
            "tx-vlan-offload",
            "off",
            "tx-vlan-stag-hw-insert",
            "off",
        ],
    )?;
    Ok(())
}

/// The namespaces, links and the WAN bridge.
pub(super) fn build_topology() -> Result<()> {
    netns::ip(&["link", "add", WAN_BRIDGE, "type", "bridge"])?;
    netns::ip(&["link", "set", WAN_BRIDGE, "up"])?;
    for i in 1..=NODES {
        let n = node_ns(i);
        netns::create_namespace(&n)?;
        management_link(&n, &format!("{MGMT}{i}"), 253, i)?;
        let w = format!("{WAN_LINK}{i}");
        netns::create_veth(&w, None, "wan0", Some(&n))?;
        netns::ip(&["link", "set", &w, "master", WAN_BRIDGE, "up"])?;
        keep_tags_in_frames(&w)?;
        netns::ip_in(
            Some(&n),
            &[
                "link",
                "set",
                "wan0",
                "address",
                &netns::format_mac(wan_mac(i)),
            ],
        )?;
        let h = host_ns(i);
        netns::create_namespace(&h)?;
        netns::create_veth("eth0", Some(&h), "lan", Some(&n))?;
        netns::ip_in(
            Some(&h),
            &[
                "link",
                "set",
                "eth0",
                "address",
                &netns::format_mac(host_mac(i)),
            ],
        )?;
    }
    netns::create_namespace(OUTSIDER_NS)?;
    let x = format!("{WAN_LINK}x");
    netns::create_veth(&x, None, "eth0", Some(OUTSIDER_NS))?;
    netns::ip(&["link", "set", &x, "master", WAN_BRIDGE, "up"])?;
    keep_tags_in_frames(&x)?;
    Ok(())
}

/// Starts node `i` (ports `lan` and `wan`, the latter its WAN port); it
/// registers itself with the controller at `controller`.
pub(super) fn start_node(
    prism: &Path,
    i: usize,
    cred: &Path,
    controller: &str,
    key: &Path,
) -> Result<Child> {
    let scenario = format!(
        "# prism demo --wan: a node with a LAN port and a WAN port; the controller books its networks.\n\
         device = \"alveo-u280\"\n\n[[port]]\nname = \"lan\"\ninterface = \"lan\"\n\n\
         [[port]]\nname = \"wan\"\ninterface = \"wan0\"\n\
         wan = {{ address = \"{}\", mac = \"{}\", next_hop = \"{}\", public = \"203.0.113.{}/29\", \
         public_macs = \"02:0b:00:00:0{}:00/44\" }}\n",
        wan_address(i),
        netns::format_mac(wan_mac(i)),
        netns::format_mac(crate::wan::gateway::INTERNET_MAC),
        64 + 8 * i,
        i
    );
    let node = DemoNode {
        prism,
        dir: Path::new(STATE_DIR),
        i,
        ns: &node_ns(i),
        instance: INSTANCES[i - 1],
        controller,
        key,
        cgroups: false,
    };
    let listen = format!("10.253.{i}.2:7700");
    node.spawn(
        &scenario,
        &[
            "--api-listen".as_ref(),
            listen.as_ref(),
            "--api-credential-file".as_ref(),
            cred.as_os_str(),
        ],
        false,
    )
}
