//! Public MACs through the controller (docs/wan.md; paper 002 §2.2, Fig. 8:
//! "where the WAN carries no Q-in-Q, public MACs redirect to an internal
//! MAC and VLAN"): the public-address lease of a host named by its MAC.
//!
//! A public MAC is leased, listed, renewed, released, quota'd and counted
//! as a public address is (`crate::app::gateway`; one quota,
//! `max_public_addresses`, for both kinds; a `public-mac` line in the usage
//! report), from the node's pool of MACs (`wan.public_macs`), for a host
//! of a bridge network booked on one node. What the node gets: in the
//! booking's document, a `public_mac` entry per lease and the WAN port as
//! an untagged member of the bridge (the pipeline's `public_mac` renames
//! what leaves and what comes in).

use crate::datastore::nodes::NodeWan;
use crate::error::{Error, Result};
use crate::model::Booking;
use prism_netdoc::{BridgePortDoc, Mac, MacBlock, NetworkDoc, PortRef, TunnelDoc};
use std::net::Ipv4Addr;

/// A host a public address stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Host {
    /// A routed network's host: a public IPv4 address.
    Ipv4(Ipv4Addr),
    /// A bridge network's host: a public MAC.
    Mac(prism_wire::EthernetAddress),
}

impl Host {
    /// Reads `internal`, and checks that booking `b` can have such a host.
    pub(crate) fn of(internal: &str, b: &Booking) -> Result<Host> {
        let bridge = crate::app::span::is_bridge(&b.spec);
        if let Ok(a) = internal.parse::<Ipv4Addr>() {
            if bridge {
                return Err(Error::invalid(
                    "a bridge network's host is named by its MAC (a public MAC)",
                )
                .with_field("internal"));
            }
            return Ok(Host::Ipv4(a));
        }
        let mac: prism_wire::EthernetAddress = internal.parse().map_err(|_| {
            Error::invalid("an IPv4 address (a public address) or a MAC (a public MAC)")
                .with_field("internal")
        })?;
        if mac.0[0] & 1 != 0 {
            return Err(Error::invalid("a host's MAC is unicast").with_field("internal"));
        }
        if !bridge || !b.parts.is_empty() {
            return Err(Error::invalid(
                "public MACs are for a bridge network on one node (`forwarding = \"bridge\"`, no parts)",
            )
            .with_field("booking"));
        }
        Ok(Host::Mac(mac))
    }

    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Host::Ipv4(_) => "ipv4",
            Host::Mac(_) => "mac",
        }
    }

    pub(crate) fn text(&self) -> String {
        match self {
            Host::Ipv4(a) => a.to_string(),
            Host::Mac(m) => m.to_string(),
        }
    }
}

/// The first MAC of `pool` not in `held`.
pub(crate) fn free_mac(pool: MacBlock, held: &[String]) -> Option<String> {
    (0..pool.size().min(1 << 20))
        .filter_map(|i| pool.nth(i))
        .map(|m| prism_wire::EthernetAddress(m).to_string())
        .find(|m| !held.iter().any(|h| h == m))
}

/// Adds booking `b`'s public MACs `(public, internal)` to its document:
/// an entry for each, and the node's WAN port as an untagged member.
pub(crate) fn mac_doc(
    doc: &mut NetworkDoc,
    b: &Booking,
    wan: Option<&NodeWan>,
    macs: &[(String, String)],
) -> Result<()> {
    if macs.is_empty() {
        return Ok(());
    }
    let wan = wan.ok_or_else(|| Error::conflict("its node has no WAN port").with_field("node"))?;
    let bridge = doc.bridge.get_or_insert_with(Default::default);
    let wan_port = PortRef::Name(wan.port.clone());
    if !bridge.port.iter().any(|p| p.port == wan_port) {
        bridge.port.push(BridgePortDoc {
            port: wan_port,
            s_tag: None,
            untagged: true,
        });
    }
    let mac = |m: &str| {
        m.parse()
            .map(Mac)
            .map_err(|_| Error::internal(format!("`{m}` is not a MAC")))
    };
    for (public, internal) in macs {
        doc.tunnel.push(TunnelDoc {
            public_mac: Some(mac(public)?),
            internal_mac: Some(mac(internal)?),
            vlan_push: b.vlan.map(|v| v as u16),
            ..TunnelDoc::default()
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_gives_its_first_free_mac() {
        let pool: MacBlock = "02:0b:00:00:00:00/47".parse().unwrap();
        assert_eq!(free_mac(pool, &[]).as_deref(), Some("02:0b:00:00:00:00"));
        let held = ["02:0b:00:00:00:00".to_string()];
        assert_eq!(free_mac(pool, &held).as_deref(), Some("02:0b:00:00:00:01"));
        let held = [held[0].clone(), "02:0b:00:00:00:01".to_string()];
        assert_eq!(free_mac(pool, &held), None);
    }
}
