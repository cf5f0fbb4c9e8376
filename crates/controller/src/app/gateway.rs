//! The gateway service in a booking's node document (docs/wan.md; paper
//! 002 §5.1): its outgoing NAT and its public addresses as `nat` and
//! `public` entries (the pipeline's gateway,
//! `crates/pipeline/src/wan/gateway.rs`) and, unless the booking routes
//! 0.0.0.0/0 itself, a default route out of the WAN port to the router
//! beyond it (the node's `next_hop`). The addresses' leases are
//! `crate::app::public`.

use crate::datastore::nodes::NodeWan;
use crate::datastore::public_addresses as store;
use crate::error::{Error, Result};
use crate::infra::db::Tx;
use crate::model::Booking;
use prism_netdoc::{ActionDoc, Addr, Mac, NetworkDoc, PortRef, RouteDoc, TunnelDoc};

/// Adds the gateway's part of booking `b`'s document on a node with WAN
/// side `wan`: its NAT, its public addresses `(public, internal)`, and a
/// default route out of the WAN port. Nothing when it has neither.
pub(crate) fn gateway_doc(
    doc: &mut NetworkDoc,
    b: &Booking,
    wan: Option<&NodeWan>,
    publics: &[(String, String)],
) -> Result<()> {
    let (macs, publics): (Vec<_>, Vec<_>) =
        publics.iter().cloned().partition(|(p, _)| p.contains(':'));
    crate::app::public_mac::mac_doc(doc, b, wan, &macs)?;
    if !b.nat && publics.is_empty() {
        return Ok(());
    }
    let no_gateway = || {
        Error::conflict("its node has no gateway: a WAN port with a router beyond it (`next_hop`)")
            .with_field("nat")
    };
    let wan = wan.ok_or_else(no_gateway)?;
    let next_hop = wan.next_hop.as_deref().ok_or_else(no_gateway)?;
    if doc.forwarding != prism_netdoc::ForwardingMode::Destination {
        return Err(
            Error::invalid("the gateway routes by destination: `destination` forwarding")
                .with_field("spec.forwarding"),
        );
    }
    let vlan_push = b.vlan.map(|v| v as u16);
    if b.nat {
        doc.tunnel.push(TunnelDoc {
            nat: true,
            vlan_push,
            ..TunnelDoc::default()
        });
    }
    for (public, internal) in &publics {
        let addr = |a: &str| {
            a.parse()
                .map(Addr)
                .map_err(|_| Error::internal("an address"))
        };
        doc.tunnel.push(TunnelDoc {
            public: Some(addr(public)?),
            internal: Some(addr(internal)?),
            vlan_push,
            ..TunnelDoc::default()
        });
    }
    default_route(doc, wan, next_hop)
}

/// The network's default route out of the node's WAN port to the router
/// beyond it, unless the network has one of its own.
fn default_route(doc: &mut NetworkDoc, wan: &NodeWan, next_hop: &str) -> Result<()> {
    let mac = |m: &str| {
        m.parse()
            .map(Mac)
            .map_err(|_| Error::internal(format!("a node's WAN MAC `{m}` is not one")))
    };
    let default: prism_netdoc::Prefix = serde_json::from_value(serde_json::json!("0.0.0.0/0"))
        .map_err(|e| Error::internal(e.to_string()))?;
    if !doc.route.iter().any(|r| r.prefix == Some(default)) {
        doc.route.push(RouteDoc {
            prefix: Some(default),
            src: None,
            dst: None,
            action: ActionDoc {
                port: Some(PortRef::Name(wan.port.clone())),
                decrement_ttl: true,
                vlan_pop: true,
                set_src_mac: Some(mac(&wan.mac)?),
                set_dst_mac: Some(mac(next_hop)?),
                ..ActionDoc::default()
            },
        });
    }
    Ok(())
}

/// Releases the public addresses of booking `id` (being released).
pub(crate) async fn release_publics_of(tx: &mut Tx, id: &str, now: i64) -> Result<()> {
    store::release_of_booking(tx, id, now).await
}
