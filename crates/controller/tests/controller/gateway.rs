//! The gateway service through the controller (docs/wan.md) against fake
//! nodes: a NAT booking goes to a node with a gateway and its document
//! there gets NAT and a default route to the router beyond; public
//! addresses are leased from the node's pool, one lease per address, and
//! reach the node's document; every refusal (no gateway, the pool
//! exhausted, the quota, the host twice, another project's booking, a
//! user's own `tunnel`) changes nothing; releases, a booking's release and
//! the reaper take them back; the usage report counts their hours.

use crate::common::{Harness, network};
use prism_controller::{ErrorCode, PublicAddressRequest, STANDARD};
use prism_netdoc::NetworkDoc;
use serde_json::json;

fn lease(booking: &str, internal: &str) -> PublicAddressRequest {
    PublicAddressRequest {
        booking: booking.into(),
        internal: internal.into(),
        node: None,
        lease_s: None,
    }
}

fn gateway_entries(doc: &NetworkDoc) -> (bool, Vec<(String, String)>) {
    let nat = doc.tunnel.iter().any(|t| t.nat);
    let publics = doc
        .tunnel
        .iter()
        .filter_map(|t| Some((t.public?.0.to_string(), t.internal?.0.to_string())))
        .collect();
    (nat, publics)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_nat_booking_lands_on_a_gateway_and_gets_nat_and_a_default_route() {
    let h = Harness::start().await;
    h.node("plain", 8, 1000).await;
    let owner = h.user("owner").await;
    h.project("p", "owner", STANDARD).await;
    let mut r = network("out", "software", 10, true);
    r.nat = true;
    let e = owner.book("p", &r).await.unwrap_err();
    assert_eq!(e.api().unwrap().code, ErrorCode::NoCapacity, "{e}");
    assert!(e.to_string().contains("gateway"), "{e}");
    let g = h.gateway_node("gw", "198.51.100.0/29").await;
    let b = owner.book("p", &r).await.unwrap();
    assert_eq!(b.node.as_deref(), Some("gw"));
    assert!(b.nat);
    let doc = g.doc(b.node_network.as_deref().unwrap()).unwrap();
    assert_eq!(gateway_entries(&doc), (true, vec![]));
    let t = doc.tunnel.iter().find(|t| t.nat).unwrap();
    assert_eq!(t.vlan_push, b.vlan.map(|v| v as u16), "back on its VLAN");
    let default = doc.route.last().unwrap();
    assert_eq!(default.prefix.unwrap().0.to_string(), "0.0.0.0/0");
    let a = &default.action;
    assert_eq!(a.set_dst_mac.unwrap().0.to_string(), "02:0e:00:00:00:01");
    assert!(a.vlan_pop && a.decrement_ttl);
    // A booking may not claim frames from the wide area itself.
    let mut own = network("claims", "software", 1, true);
    own.spec["tunnel"] = json!([{"src": "203.0.113.9", "dst": "203.0.113.1"}]);
    let e = owner.book("p", &own).await.unwrap_err();
    assert_eq!(e.api().unwrap().field.as_deref(), Some("spec.tunnel"));
}

#[tokio::test(flavor = "multi_thread")]
async fn public_addresses_are_leased_refused_released_and_counted() {
    let h = Harness::start().await;
    let g = h.gateway_node("gw", "198.51.100.0/30").await;
    let owner = h.user("owner").await;
    let other = h.user("other").await;
    h.project("p", "owner", STANDARD).await;
    h.project("q", "other", STANDARD).await;
    let b = owner
        .book("p", &network("web", "software", 10, true))
        .await
        .unwrap();
    let name = b.node_network.clone().unwrap();
    let a = owner
        .lease_public("p", &lease(&b.id, "10.0.0.5"))
        .await
        .unwrap();
    assert_eq!(
        (a.address.as_str(), a.node.as_str()),
        ("198.51.100.1", "gw")
    );
    assert!(a.expires_ms <= b.expires_ms, "never past its booking");
    let doc = g.doc(&name).unwrap();
    assert_eq!(
        gateway_entries(&doc),
        (false, vec![("198.51.100.1".into(), "10.0.0.5".into())])
    );
    // Refusals, each changing nothing.
    let code = |e: prism_controller::ClientError| e.api().unwrap().code;
    let e = owner
        .lease_public("p", &lease(&b.id, "10.0.0.5"))
        .await
        .unwrap_err();
    assert_eq!(code(e), ErrorCode::Conflict, "the host has one");
    let e = owner
        .lease_public("p", &lease(&b.id, "nonsense"))
        .await
        .unwrap_err();
    assert_eq!(e.api().unwrap().field.as_deref(), Some("internal"));
    let e = other
        .lease_public("q", &lease(&b.id, "10.0.0.6"))
        .await
        .unwrap_err();
    assert_eq!(code(e), ErrorCode::NotFound, "another project's booking");
    owner
        .lease_public("p", &lease(&b.id, "10.0.0.6"))
        .await
        .unwrap();
    let e = owner
        .lease_public("p", &lease(&b.id, "10.0.0.7"))
        .await
        .unwrap_err();
    assert!(
        e.to_string().contains("198.51.100.0/30"),
        "the pool named: {e}"
    );
    assert_eq!(code(e), ErrorCode::NoCapacity);
    assert_eq!(owner.public_addresses("p", false).await.unwrap().len(), 2);
    assert_eq!(owner.quota("p").await.unwrap().public_addresses.used, 2);
    // Release one: off the node, free again.
    owner.release_public("p", "198.51.100.1").await.unwrap();
    let doc = g.doc(&name).unwrap();
    assert_eq!(gateway_entries(&doc).1.len(), 1);
    let again = owner
        .lease_public("p", &lease(&b.id, "10.0.0.7"))
        .await
        .unwrap();
    assert_eq!(
        again.address, "198.51.100.1",
        "released addresses are reused"
    );
    // The reaper: a lease past its end.
    let mut short = lease(&b.id, "10.0.0.8");
    short.lease_s = Some(60);
    owner.release_public("p", "198.51.100.2").await.unwrap();
    owner.lease_public("p", &short).await.unwrap();
    h.clock.advance_ms(61_000);
    h.ctl.reap().await.unwrap();
    let held = owner.public_addresses("p", false).await.unwrap();
    assert_eq!(held.len(), 1, "{held:?}");
    // The booking's release takes the rest; the record stays.
    owner.release("p", &b.id).await.unwrap();
    assert!(owner.public_addresses("p", false).await.unwrap().is_empty());
    let all = owner.public_addresses("p", true).await.unwrap();
    assert_eq!(all.len(), 4);
    assert!(all.iter().all(|a| a.released_ms.is_some()));
    let u = owner.usage("p", 0, i64::MAX).await.unwrap();
    let line = u.lines.iter().find(|l| l.tier == "public-address").unwrap();
    assert_eq!(line.bookings, 4);
    assert!(line.resource_hours > 0.0);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_quota_bounds_a_project_s_public_addresses() {
    let h = Harness::start().await;
    h.gateway_node("gw", "198.51.100.0/24").await;
    let owner = h.user("owner").await;
    let mut level = prism_controller::ServiceLevel::standard();
    level.name = "one".into();
    level.max_public_addresses = 1;
    h.admin.put_service_level(&level).await.unwrap();
    h.project("p", "owner", "one").await;
    let b = owner
        .book("p", &network("web", "software", 10, true))
        .await
        .unwrap();
    owner
        .lease_public("p", &lease(&b.id, "10.0.0.5"))
        .await
        .unwrap();
    let e = owner
        .lease_public("p", &lease(&b.id, "10.0.0.6"))
        .await
        .unwrap_err();
    let body = e.api().unwrap();
    assert_eq!(body.code, ErrorCode::QuotaExceeded, "{e}");
    assert_eq!(body.quota.as_ref().unwrap().resource, "public_addresses");
    assert_eq!(owner.public_addresses("p", false).await.unwrap().len(), 1);
}

fn public_macs(doc: &NetworkDoc) -> Vec<(String, String, Option<u16>)> {
    doc.tunnel
        .iter()
        .filter_map(|t| {
            let (p, i) = (t.public_mac?.0.to_string(), t.internal_mac?.0.to_string());
            Some((p, i, t.vlan_push))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn public_macs_stand_for_a_bridge_network_s_hosts() {
    let h = Harness::start().await;
    let g = h.public_mac_node("gw", "02:0b:00:00:00:00/47").await;
    let owner = h.user("owner").await;
    h.project("p", "owner", STANDARD).await;
    let mut r = network("l2", "hardware", 10, true);
    r.spec = json!({"tier": "hardware", "forwarding": "bridge",
                    "bridge": {"port": [{"port": "a"}, {"port": "b"}]}});
    let b = owner.book("p", &r).await.unwrap();
    let name = b.node_network.clone().unwrap();
    let doc = g.doc(&name).unwrap();
    assert_eq!(
        doc.bridge.as_ref().unwrap().port.len(),
        2,
        "no WAN member yet"
    );
    let m = owner
        .lease_public("p", &lease(&b.id, "02:00:00:00:00:01"))
        .await
        .unwrap();
    assert_eq!(
        (m.address.as_str(), m.kind.as_str()),
        ("02:0b:00:00:00:00", "mac")
    );
    let doc = g.doc(&name).unwrap();
    let vlan = b.vlan.map(|v| v as u16);
    assert_eq!(
        public_macs(&doc),
        vec![("02:0b:00:00:00:00".into(), "02:00:00:00:00:01".into(), vlan)]
    );
    let wan = doc.bridge.as_ref().unwrap().port.last().unwrap().clone();
    assert_eq!(wan.port, prism_netdoc::PortRef::Name("c".into()));
    assert!(wan.untagged && wan.s_tag.is_none(), "{wan:?}");
    let ports = ["a", "b", "c"].map(String::from);
    let spec = prism_compile::compile(&doc, &ports).unwrap().spec;
    assert!(
        matches!(
            spec.tunnels[..],
            [prism_pipeline::TunnelSpec::PublicMac { .. }]
        ),
        "what the node compiles: {:?}",
        spec.tunnels
    );
    // Refusals, each changing nothing.
    let field = |e: prism_controller::ClientError| e.api().unwrap().field.clone();
    let e = owner
        .lease_public("p", &lease(&b.id, "10.0.0.5"))
        .await
        .unwrap_err();
    assert_eq!(
        field(e).as_deref(),
        Some("internal"),
        "an IPv4 host in a bridge"
    );
    let e = owner
        .lease_public("p", &lease(&b.id, "01:00:5e:00:00:01"))
        .await
        .unwrap_err();
    assert_eq!(field(e).as_deref(), Some("internal"), "a group MAC");
    let e = owner
        .lease_public("p", &lease(&b.id, "02:00:00:00:00:01"))
        .await
        .unwrap_err();
    assert_eq!(
        e.api().unwrap().code,
        ErrorCode::Conflict,
        "the host has one"
    );
    owner
        .lease_public("p", &lease(&b.id, "02:00:00:00:00:02"))
        .await
        .unwrap();
    let e = owner
        .lease_public("p", &lease(&b.id, "02:00:00:00:00:03"))
        .await
        .unwrap_err();
    assert_eq!(e.api().unwrap().code, ErrorCode::NoCapacity);
    assert!(e.to_string().contains("02:0b:00:00:00:00/47"), "{e}");
    // A routed booking's host is not named by a MAC.
    let routed = owner
        .book("p", &network("r", "software", 10, true))
        .await
        .unwrap();
    let e = owner
        .lease_public("p", &lease(&routed.id, "02:00:00:00:00:09"))
        .await
        .unwrap_err();
    assert_eq!(field(e).as_deref(), Some("booking"));
    assert_eq!(owner.quota("p").await.unwrap().public_addresses.used, 2);
    // Released: off the node; the usage report counts public-MAC hours.
    owner
        .release_public("p", "02:0b:00:00:00:00")
        .await
        .unwrap();
    assert_eq!(public_macs(&g.doc(&name).unwrap()).len(), 1);
    h.clock.advance_ms(3_600_000);
    let u = owner.usage("p", 0, i64::MAX).await.unwrap();
    let line = u.lines.iter().find(|l| l.tier == "public-mac").unwrap();
    assert_eq!(line.bookings, 2);
    assert!(line.resource_hours > 0.9, "{line:?}");
}
