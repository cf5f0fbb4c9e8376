//! Processing bookings (VANI's processing resources, docs/processing.md):
//! a container on the node of the networks it is attached to, with an
//! interface on each network's VLAN behind the node's processing port.
//! Placement (the attached networks' node), the node's processing state,
//! and what each attached network's document gains (a mapping for the
//! processing port on its VLAN, a route to each address).

use crate::app::context::Context;
use crate::datastore::processing as store;
use crate::datastore::shared_vlans::attachable;
use crate::error::{Error, Result};
use crate::infra::db::Tx;
use crate::model::{Booking, ProcessingSpec};
use prism_netdoc::NetworkDoc;
use prism_node_api::{ImageRef, InterfaceDoc, ProcessingDoc, ProcessingState};

/// The node's scope for processing nodes: the controller's.
pub const SCOPE: &str = "pp-";

/// Processing booking `id`'s container on its node.
pub fn container_name(id: &str) -> String {
    format!("{SCOPE}{id}")
}

/// The MAC a network's frames to its processing nodes on VLAN `vlan`
/// come from, and the nodes' gateway's: one per VLAN.
pub fn gateway_mac(vlan: u16) -> String {
    let [hi, lo] = vlan.to_be_bytes();
    format!("02:70:ff:ff:{hi:02x}:{lo:02x}")
}

/// Booking `b`'s spec as a processing node's.
pub(crate) fn spec_of(b: &Booking) -> Result<ProcessingSpec> {
    serde_json::from_value(b.spec.clone())
        .map_err(|e| Error::invalid(e.to_string()).with_field("spec"))
}

/// The node (id, name) a booking of type `rtype` goes on if it is a
/// processing node's (`None` for another type).
pub(crate) async fn place_request(
    tx: &mut Tx,
    project_id: &str,
    rtype: &str,
    spec: &serde_json::Value,
) -> Result<Option<(String, String)>> {
    if rtype != crate::model::PROCESSING {
        return Ok(None);
    }
    let spec: ProcessingSpec = serde_json::from_value(spec.clone())
        .map_err(|e| Error::invalid(e.to_string()).with_field("spec"))?;
    place(tx, project_id, &spec).await.map(Some)
}

/// Pins the stored image processing spec `spec` names to its manifest
/// digest (`spec.image_digest`), in the booking transaction; a digest
/// given that the image does not have is refused. An image of the node's
/// own (no stored image by that name) is left as it is.
pub(crate) async fn pin_image(
    cx: &Context,
    tx: &mut Tx,
    project_id: &str,
    spec: &mut serde_json::Value,
) -> Result<()> {
    let Some(name) = spec.get("image").and_then(|v| v.as_str()) else {
        return Ok(());
    };
    if cx.settings.storage.is_none() {
        return Ok(());
    }
    let stored = match name.split_once('/') {
        Some((owner, n)) => {
            crate::datastore::images::shared_named(&mut **tx, project_id, owner, n).await?
        }
        None => crate::datastore::images::named(&mut **tx, project_id, name).await?,
    };
    let Some(i) = stored else { return Ok(()) };
    match spec.get("image_digest").and_then(|v| v.as_str()) {
        Some(d) if d != i.manifest_digest => Err(Error::conflict(format!(
            "image `{name}` is {}, not {d}",
            i.manifest_digest
        ))
        .with_field("spec.image_digest")),
        _ => {
            spec["image_digest"] = i.manifest_digest.into();
            Ok(())
        }
    }
}

/// The node a processing node goes on: its attached networks' (each a
/// live network of the project, on one node, which runs processing
/// nodes); its id. A refusal names the attachment.
pub(crate) async fn place(
    tx: &mut Tx,
    project_id: &str,
    spec: &ProcessingSpec,
) -> Result<(String, String)> {
    check_addresses(spec)?;
    if let Some((owner, name)) = spec.image.split_once('/') {
        let shared = crate::datastore::images::shared_named(&mut **tx, project_id, owner, name);
        if shared.await?.is_none() {
            return Err(Error::not_found(format!(
                "no image `{name}` of project `{owner}` is shared with this project"
            ))
            .with_field("spec.image"));
        }
    }
    let mut node: Option<(String, String)> = None;
    for (i, a) in spec.attach.iter().enumerate() {
        let at = format!("spec.attach[{i}].network");
        let net = attachable(tx, project_id, &a.network)
            .await?
            .ok_or_else(|| {
                Error::invalid(format!(
                    "the project has no live network or shared VLAN `{}`, nor an invitation to it",
                    a.network
                ))
                .with_field(at.clone())
            })?;
        let here = match (part_for(tx, &net, a, &at).await?, &net.ids.node, &net.node) {
            (Some(part), _, _) => part,
            (None, Some(id), Some(name)) => (id.clone(), name.clone()),
            _ => {
                let e = Error::invalid(format!("`{}` is on no node yet (not placed)", a.network));
                return Err(e.with_field(at));
            }
        };
        if let Some((_, first)) = node.as_ref().filter(|(id, _)| *id != here.0) {
            return Err(Error::invalid(format!(
                "`{}` is on node `{}`, the first network on `{first}`: one node",
                a.network, here.1
            ))
            .with_field(at));
        }
        node = Some(here);
    }
    let (id, name) =
        node.ok_or_else(|| Error::invalid("at least one").with_field("spec.attach"))?;
    if store::processing_port(tx, &id).await?.is_none() {
        return Err(Error::new(
            crate::error::ErrorCode::NoCapacity,
            format!("node `{name}` runs no processing nodes (prism node --processing-port)"),
        )
        .with_field("spec.attach[0].network"));
    }
    Ok((id, name))
}

/// The node of spanning network `net`'s part whose routes hold
/// attachment `a`'s address (the prefixes the other parts send it);
/// `None` for a network on one node.
async fn part_for(
    tx: &mut Tx,
    net: &Booking,
    a: &prism_controller_api::Attachment,
    at: &str,
) -> Result<Option<(String, String)>> {
    let parts = crate::datastore::parts::parts(&mut **tx, &net.id).await?;
    if parts.is_empty() {
        return Ok(None);
    }
    let ip = (a.address.as_deref())
        .and_then(|c| c.split('/').next()?.parse::<std::net::Ipv4Addr>().ok());
    let held = |p: &crate::datastore::parts::Part| {
        ip.is_some_and(|ip| {
            (p.route.iter().filter_map(|r| r.prefix.as_ref())).any(|x| x.0.contains(u32::from(ip)))
        })
    };
    match parts.iter().find(|p| held(p)) {
        Some(p) => Ok(Some((p.node_id.clone(), p.node.clone()))),
        None => Err(Error::invalid(format!(
            "`{}` spans nodes: the address must be in one part's prefixes (its node's)",
            a.network
        ))
        .with_field(at.replace(".network", ".address"))),
    }
}

fn check_addresses(spec: &ProcessingSpec) -> Result<()> {
    for (i, a) in spec.attach.iter().enumerate() {
        if let Some(addr) = &a.address {
            let ok = addr.split_once('/').is_some_and(|(ip, len)| {
                ip.parse::<std::net::Ipv4Addr>().is_ok() && len.parse::<u8>().is_ok_and(|l| l <= 32)
            });
            if !ok {
                return Err(Error::invalid(format!(
                    "`{addr}`: an IPv4 address with its prefix length"
                ))
                .with_field(format!("spec.attach[{i}].address")));
            }
        }
        if let Some(g) = &a.gateway
            && g.parse::<std::net::Ipv4Addr>().is_err()
        {
            return Err(Error::invalid(format!("`{g}` is not an IPv4 address"))
                .with_field(format!("spec.attach[{i}].gateway")));
        }
    }
    if spec.attach.iter().filter(|a| a.gateway.is_some()).count() > 1 {
        return Err(
            Error::invalid("one default route: a gateway on one network").with_field("spec.attach"),
        );
    }
    Ok(())
}

/// The ids of the live networks processing booking `b` is attached to
/// (their documents change with it).
pub(crate) async fn attached_ids(tx: &mut Tx, b: &Booking) -> Result<Vec<String>> {
    let Ok(spec) = spec_of(b) else {
        return Ok(Vec::new());
    };
    let mut ids = Vec::new();
    for a in &spec.attach {
        // A shared VLAN has no document: only networks change.
        let on = attachable(tx, &b.ids.project, &a.network).await?;
        ids.extend(
            on.filter(|n| n.resource_type == crate::model::NETWORK)
                .map(|n| n.id),
        );
    }
    Ok(ids)
}

/// What node `id` should run, its processing nodes behind `port`: each
/// processing booking's id, whether it is `ready`, and its document.
pub(crate) async fn desired_on(
    cx: &Context,
    id: &str,
    port: &str,
) -> Result<Vec<(String, bool, ProcessingDoc)>> {
    let mut out = Vec::new();
    for b in store::running_on(&cx.pool, id).await? {
        let spec = spec_of(&b)?;
        let mut interfaces = Vec::new();
        for a in &spec.attach {
            // A connection for the one query: the pool may have one.
            let conn = &mut *cx.pool.acquire().await?;
            let on = attachable(conn, &b.ids.project, &a.network).await?;
            interfaces.push(interface(port, a, on.as_ref()));
        }
        let ready = b.operational_state == crate::model::OperationalState::Ready;
        // An image no longer readable (deleted, its share ended, its name
        // saved again as another image) is revoked: the booking fails at
        // its node, naming it.
        let stored = crate::app::image_pull::find(cx, &b.ids.project, &spec.image)
            .await
            .unwrap_or(None)
            .filter(|i| {
                spec.image_digest
                    .as_ref()
                    .is_none_or(|d| *d == i.manifest_digest)
            });
        let mut d = doc(&b, spec, interfaces);
        if let Some(i) = stored {
            d.image = ImageRef {
                layout: String::new(),
                tag: String::new(),
                stored: Some(crate::app::image_pull::pull_source(cx, &i).await?),
            };
        }
        d.authorized_keys = crate::app::ssh_keys::authorized_keys(cx, &b.ids.user).await?;
        out.push((b.id.clone(), ready, d));
    }
    Ok(out)
}

/// Attachment `a`'s interface behind `port`, on what it attaches to if
/// that is live (and, another project's shared VLAN, still shared with
/// it); else unplugged (the interface stays, the node carries nothing).
fn interface(
    port: &str,
    a: &prism_controller_api::Attachment,
    on: Option<&Booking>,
) -> InterfaceDoc {
    let vlan = on.and_then(|n| n.vlan).and_then(|v| u16::try_from(v).ok());
    // A network's gateway in the hardware tier answers no ARP: its MAC
    // is given; a shared VLAN's gateway is a host that answers.
    let is_net = on.is_some_and(|n| n.resource_type == crate::model::NETWORK);
    InterfaceDoc {
        port: port.to_string(),
        vlan: vlan.unwrap_or(0),
        addresses: a.address.iter().cloned().collect(),
        gateway: a.gateway.clone(),
        gateway_mac: (a.gateway.as_ref().zip(vlan))
            .filter(|_| is_net)
            .map(|(_, v)| gateway_mac(v)),
        unplugged: vlan.is_none(),
        dhcp: a.dhcp,
        rate_mbps: on
            .filter(|_| is_net)
            .and_then(|n| u32::try_from(n.bandwidth_mbps).ok())
            .filter(|r| *r > 0),
    }
}

fn doc(b: &Booking, spec: ProcessingSpec, interfaces: Vec<InterfaceDoc>) -> ProcessingDoc {
    let (layout, tag) = match spec.image.split_once(':') {
        Some((n, t)) => (n.to_string(), t.to_string()),
        None => (spec.image.clone(), "latest".to_string()),
    };
    ProcessingDoc {
        name: container_name(&b.id),
        image: ImageRef {
            layout,
            tag,
            stored: None,
        },
        cpus: spec.cpus,
        memory_mib: spec.memory_mib,
        pids: spec.pids.unwrap_or(512),
        interfaces,
        command: spec.command,
        authorized_keys: Vec::new(),
    }
}

/// The whole processing state of generation `generation`.
pub(crate) fn whole(generation: u64, desired: &[(String, bool, ProcessingDoc)]) -> ProcessingState {
    ProcessingState {
        generation,
        scope: SCOPE.to_string(),
        nodes: desired.iter().map(|(_, _, d)| d.clone()).collect(),
    }
}

/// Network `b`'s document on node `node` with its processing nodes
/// there: the processing port mapped on the network's VLAN, and a route
/// to each of their addresses (a host route: the network's own routes
/// for the subnet stay as the booker wrote them).
pub(crate) async fn add_hosts(
    cx: &Context,
    node: &str,
    b: &Booking,
    doc: &mut NetworkDoc,
) -> Result<()> {
    let Some(port) = store::processing_port_of(&cx.pool, node).await? else {
        return Ok(());
    };
    let Some(vlan) = b.vlan.map(|v| v as u16) else {
        return Ok(());
    };
    let mut hosts = Vec::new();
    for p in store::running_on(&cx.pool, node).await? {
        if p.ids.project != b.ids.project {
            continue;
        }
        let Ok(spec) = spec_of(&p) else { continue };
        for (k, a) in spec.attach.iter().enumerate() {
            if a.network == b.name {
                let mac = prism_node_api::processing_mac(&container_name(&p.id), k);
                hosts.push((mac, a.address.clone()));
            }
        }
    }
    if hosts.is_empty() {
        return Ok(());
    }
    attach_hosts(doc, &port, vlan, &hosts)
}

/// Adds the mapping and host routes of `hosts` (MAC, address) behind
/// `port` on `vlan` to `doc`.
pub(crate) fn attach_hosts(
    doc: &mut NetworkDoc,
    port: &str,
    vlan: u16,
    hosts: &[([u8; 6], Option<String>)],
) -> Result<()> {
    let mut extra = serde_json::json!({
        "map": [{"in_port": port, "vlan": vlan}],
        "route": [],
    });
    for (mac, address) in hosts {
        let Some(a) = address else { continue };
        let ip = a.split('/').next().unwrap_or(a);
        extra["route"]
            .as_array_mut()
            .expect("an array")
            .push(serde_json::json!({
                "prefix": format!("{ip}/32"),
                "action": {
                    "port": port,
                    "decrement_ttl": true,
                    "set_src_mac": gateway_mac(vlan),
                    "set_dst_mac": prism_io_free_mac(*mac),
                }
            }));
    }
    let more: NetworkDoc = serde_json::from_value(serde_json::json!({
        "name": doc.name, "tier": "software", "forwarding": "destination",
        "map": extra["map"], "route": extra["route"],
    }))
    .map_err(|e| Error::internal(format!("a processing node's routes: {e}")))?;
    doc.map.extend(more.map);
    doc.route.extend(more.route);
    Ok(())
}

fn prism_io_free_mac(m: [u8; 6]) -> String {
    m.iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_network_gains_its_processing_nodes_as_hosts_behind_the_port() {
        let mut doc: NetworkDoc = serde_json::from_value(serde_json::json!({
            "name": "pc-x", "tier": "hardware", "forwarding": "destination",
            "map": [{"in_port": "p0", "vlan": 120}],
            "route": [{"prefix": "10.0.0.0/8", "action": {"port": "p0"}}],
        }))
        .unwrap();
        let mac = [2, 0x70, 1, 2, 3, 0];
        attach_hosts(
            &mut doc,
            "proc",
            120,
            &[(mac, Some("10.1.0.5/24".into())), (mac, None)],
        )
        .unwrap();
        assert_eq!(doc.map.len(), 2);
        assert_eq!(
            doc.route.len(),
            2,
            "one host route; an interface with no address gets none"
        );
        let r = serde_json::to_value(&doc.route[1]).unwrap();
        assert_eq!(r["prefix"], "10.1.0.5/32");
        assert_eq!(r["action"]["set_dst_mac"], "02:70:01:02:03:00");
        assert_eq!(r["action"]["set_src_mac"], gateway_mac(120));
        assert_eq!(gateway_mac(0x0102), "02:70:ff:ff:01:02");
    }
}
