//! `forwarding = "bridge"`: a network that delivers by destination MAC
//! among its member ports, learning where each host is (paper 002's bridge
//! service; the pipeline's `prism_pipeline::fast::bridge`).
//!
//! ```toml
//! [[network]]
//! name = "l2"
//! tier = "hardware"
//! forwarding = "bridge"
//! map = [{ vlan = 30 }]
//! bridge = { port = [{ port = "p0" }, { port = "p1" }, { port = "wan", s_tag = 300 }],
//!            mac = [{ mac = "02:00:00:00:00:01", port = "p0" }], ageing_s = 300 }
//! ```

use prism_netdoc::{
    BridgeDoc, DocError, ForwardingMode, NetworkDoc, PortRef, TierChoice, TunnelDoc,
};
use prism_pipeline::{Action, TunnelSpec, VlanOp, fast::bridge::BridgeSpec};

fn err(field: &str, message: impl Into<String>) -> DocError {
    DocError::new(field, message)
}

/// A tunnel entry naming a public MAC: `public_mac` standing for
/// `internal_mac` (both unicast), nothing else but `vlan_push`.
pub(crate) fn public_mac(
    t: &TunnelDoc,
    vlan: Option<u16>,
    field: &str,
) -> Result<TunnelSpec, DocError> {
    let others = t.src.is_some()
        || t.dst.is_some()
        || t.s_tag.is_some()
        || t.nat
        || t.public.is_some()
        || t.internal.is_some();
    let (Some(public), Some(internal), false) = (t.public_mac, t.internal_mac, others) else {
        return Err(err(
            field,
            "a public MAC entry has `public_mac` and `internal_mac` (and an optional \
             `vlan_push`), nothing else",
        ));
    };
    for (name, m) in [("public_mac", public), ("internal_mac", internal)] {
        if m.0.0[0] & 1 != 0 {
            return Err(err(
                &format!("{field}.{name}"),
                format!(
                    "{} is a group (multicast) address; one host's MAC is unicast",
                    m.0
                ),
            ));
        }
    }
    Ok(TunnelSpec::PublicMac {
        public: public.0,
        internal: internal.0,
        vlan,
    })
}

/// Refuses a `bridge` section on another mode, and a bridge with routes
/// or outside the hardware tier.
pub(crate) fn check_mode(n: &NetworkDoc) -> Result<(), DocError> {
    if n.forwarding != ForwardingMode::Bridge {
        return match n.bridge {
            Some(_) => Err(err("bridge", "`bridge` needs `forwarding = \"bridge\"`")),
            None => Ok(()),
        };
    }
    if !n.route.is_empty() {
        return Err(err("route", "a bridge network takes `bridge`, not `route`"));
    }
    if n.tier != TierChoice::Hardware {
        return Err(err(
            "tier",
            "a bridge forwards in the hardware tier only (the software routers route IP): \
             `tier = \"hardware\"`",
        ));
    }
    Ok(())
}

/// Compiles `doc` with `port` resolving a port reference at a field path.
pub(crate) fn compile(
    doc: Option<&BridgeDoc>,
    port: impl Fn(&PortRef, &str) -> Result<u16, DocError>,
) -> Result<BridgeSpec, DocError> {
    let doc = doc.ok_or_else(|| {
        err(
            "bridge",
            "a bridge network needs `bridge = { port = [...] }`, its member ports",
        )
    })?;
    let members = members(doc, &port)?;
    let statics = statics(doc, &members, &port)?;
    let ageing_s = match doc.ageing_s {
        Some(0) => {
            return Err(err(
                "bridge.ageing_s",
                "0 s learns nothing; leave it out for 300 s",
            ));
        }
        Some(s) => s,
        None => prism_pipeline::fast::bridge::DEFAULT_AGEING_S,
    };
    Ok(BridgeSpec {
        members,
        statics,
        ageing_s,
    })
}

/// Each member's action: its port, and its S-tag pushed.
fn members(
    doc: &BridgeDoc,
    port: &impl Fn(&PortRef, &str) -> Result<u16, DocError>,
) -> Result<Vec<Action>, DocError> {
    if doc.port.is_empty() {
        return Err(err(
            "bridge.port",
            "a bridge needs at least one member port",
        ));
    }
    let mut members: Vec<Action> = Vec::new();
    for (i, m) in doc.port.iter().enumerate() {
        let field = format!("bridge.port[{i}]");
        let p = port(&m.port, &format!("{field}.port"))?;
        if members.iter().any(|a| a.out_port == Some(p)) {
            return Err(err(
                &format!("{field}.port"),
                format!("port {} is a member twice", m.port),
            ));
        }
        let vlan = match m.s_tag {
            None if m.untagged => VlanOp::Pop,
            None => VlanOp::None,
            Some(_) if m.untagged => {
                return Err(err(
                    &format!("{field}.untagged"),
                    "a member pushes an S-tag or leaves untagged, not both",
                ));
            }
            Some(t @ 1..=4094) => VlanOp::Push { vid: t },
            Some(t) => {
                return Err(err(
                    &format!("{field}.s_tag"),
                    format!("S-tag {t} is not from 1 to 4094"),
                ));
            }
        };
        members.push(Action {
            out_port: Some(p),
            vlan,
            ..Action::default()
        });
    }
    Ok(members)
}

/// The static entries: (MAC, member index).
fn statics(
    doc: &BridgeDoc,
    members: &[Action],
    port: &impl Fn(&PortRef, &str) -> Result<u16, DocError>,
) -> Result<Vec<([u8; 6], u16)>, DocError> {
    let mut statics: Vec<([u8; 6], u16)> = Vec::new();
    for (i, s) in doc.mac.iter().enumerate() {
        let field = format!("bridge.mac[{i}]");
        let mac = s.mac.0.0;
        let refuse = |why: String| Err(err(&format!("{field}.mac"), why));
        if mac[0] & 1 != 0 {
            return refuse(format!(
                "{} is a group (multicast) address; a static entry names one host",
                s.mac.0
            ));
        }
        if statics.iter().any(|(m, _)| *m == mac) {
            return refuse(format!("{} has a static entry already", s.mac.0));
        }
        let p = port(&s.port, &format!("{field}.port"))?;
        let member = members
            .iter()
            .position(|a| a.out_port == Some(p))
            .ok_or_else(|| {
                err(
                    &format!("{field}.port"),
                    format!("port {} is not one of the bridge's members", s.port),
                )
            })?;
        statics.push((mac, member as u16));
    }
    Ok(statics)
}

#[cfg(test)]
mod tests {
    use crate::compile;
    use prism_netdoc::{DocError, NetworkDoc, from_json};
    use prism_pipeline::{ForwardingSpec, VlanOp};
    use serde_json::json;

    fn compile_json(v: serde_json::Value) -> Result<prism_pipeline::NetworkSpec, DocError> {
        let doc: NetworkDoc = from_json(v.to_string().as_bytes())?;
        let ports = ["p0", "p1", "wan"].map(String::from);
        compile(&doc, &ports).map(|c| c.spec)
    }

    fn bridge(b: serde_json::Value) -> serde_json::Value {
        json!({"name": "l2", "tier": "hardware", "forwarding": "bridge",
               "map": [{"vlan": 30}], "bridge": b})
    }

    #[test]
    fn a_bridge_compiles_with_its_members_and_static_entries() {
        let spec = compile_json(bridge(json!({
            "port": [{"port": "p0"}, {"port": "p1"}, {"port": "wan", "s_tag": 3001}],
            "mac": [{"mac": "02:00:00:00:00:01", "port": "p1"}],
            "ageing_s": 120
        })))
        .unwrap();
        let ForwardingSpec::Bridge(b) = spec.forwarding else {
            panic!("{:?}", spec.forwarding)
        };
        let ports: Vec<_> = b.members.iter().map(|m| m.out_port).collect();
        assert_eq!(ports, [Some(0), Some(1), Some(2)]);
        assert_eq!(b.members[2].vlan, VlanOp::Push { vid: 3001 });
        assert_eq!(b.members[0].vlan, VlanOp::None);
        assert_eq!(b.statics, vec![([2, 0, 0, 0, 0, 1], 1)]);
        assert_eq!(b.ageing_s, 120);
    }

    #[test]
    fn refusals_name_the_field() {
        let p = |port: &str| json!({"port": port});
        for (doc, field) in [
            (bridge(json!({"port": []})), "bridge.port"),
            (
                bridge(json!({"port": [p("p0"), p("p0")]})),
                "bridge.port[1].port",
            ),
            (bridge(json!({"port": [p("p9")]})), "bridge.port[0].port"),
            (
                bridge(json!({"port": [{"port": "wan", "s_tag": 4095}]})),
                "bridge.port[0].s_tag",
            ),
            (
                bridge(json!({"port": [p("p0")],
                              "mac": [{"mac": "01:00:5e:00:00:01", "port": "p0"}]})),
                "bridge.mac[0].mac",
            ),
            (
                bridge(json!({"port": [p("p0")],
                              "mac": [{"mac": "02:00:00:00:00:01", "port": "p1"}]})),
                "bridge.mac[0].port",
            ),
            (
                bridge(json!({"port": [p("p0")], "ageing_s": 0})),
                "bridge.ageing_s",
            ),
            (
                json!({"name": "l2", "tier": "hardware", "forwarding": "bridge"}),
                "bridge",
            ),
            (
                json!({"name": "l2", "tier": "software", "forwarding": "bridge",
                       "bridge": {"port": [p("p0")]}}),
                "tier",
            ),
            (
                json!({"name": "l2", "tier": "hardware", "forwarding": "destination",
                       "bridge": {"port": [p("p0")]}}),
                "bridge",
            ),
        ] {
            let e = compile_json(doc.clone()).expect_err(&doc.to_string());
            assert_eq!(e.field, field, "{doc}: {e}");
        }
    }
}
