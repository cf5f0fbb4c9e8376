//! The WAN port is the controller's: only the documents it writes send
//! frames there (a span's tunnels, NAT's default route, a bridge's S-tag
//! or public-MAC member). A booking's own route, rule or bridge member
//! that leaves by it could put frames on the wide area as another
//! experiment's (a forged tunnel source, another booking's S-tag) or
//! around the gateway; it is refused at booking, located.

use crate::datastore::nodes::NodeWan;
use crate::error::{Error, Result};
use prism_netdoc::{ActionDoc, NetworkDoc, PortRef};

/// Refuses `doc`'s own actions (routes, rules, default action, bridge
/// members) that name the node's WAN port, by name or index; `at` prefixes
/// the field (`spec` or `parts[i]`).
pub(crate) fn refuse_wan_egress(
    doc: &NetworkDoc,
    wan: Option<&NodeWan>,
    ports: &[String],
    at: &str,
) -> Result<()> {
    let Some(wan) = wan else {
        return Ok(());
    };
    let is_wan = |p: &PortRef| match p {
        PortRef::Name(n) => *n == wan.port,
        PortRef::Index(i) => ports.get(usize::from(*i)) == Some(&wan.port),
    };
    let leaves = |a: &ActionDoc| a.port.as_ref().is_some_and(is_wan);
    let mut found = None;
    for (i, r) in doc.route.iter().enumerate() {
        if found.is_none() && leaves(&r.action) {
            found = Some(format!("route[{i}].action.port"));
        }
    }
    for (i, r) in doc.rule.iter().enumerate() {
        if found.is_none() && leaves(&r.action) {
            found = Some(format!("rule[{i}].action.port"));
        }
    }
    if found.is_none() && doc.default_action.as_ref().is_some_and(leaves) {
        found = Some("default_action.port".into());
    }
    let members = doc.bridge.iter().flat_map(|b| b.port.iter().enumerate());
    for (i, m) in members {
        if found.is_none() && is_wan(&m.port) {
            found = Some(format!("bridge.port[{i}].port"));
        }
    }
    match found {
        None => Ok(()),
        Some(field) => Err(Error::forbidden(format!(
            "port `{}` is the node's WAN port: only the controller sends there (spans, `nat`, bridges, public addresses)",
            wan.port
        ))
        .with_field(format!("{at}.{field}"))),
    }
}
