//! Compilation of a network document into the pipeline's `NetworkSpec`
//! and its router configuration.
//!
//! In: a [`NetworkDoc`] and the node's port names. Out: the specification
//! the substrate places and compiles, or a [`DocError`] naming the field.
//! Capacities (slots, table sizes) are the substrate's to check.

use prism_netdoc::{ActionDoc, CipherDoc, CipherName, Endpoints, ForwardingMode, MatchDoc};
use prism_netdoc::{DocError, NetworkDoc, PortRef, RouterConfig, check_router, hex_key};
use prism_pipeline::fast::payload::Aead;
use prism_pipeline::{
    Action, ForwardingSpec, IpipOp, MappingRule, NetworkSpec, PayloadOp, RuleSpec, Tier,
    TunnelSpec, VlanOp,
};
use prism_tables::{PortRange, Ternary};
use prism_wire::Ipv4Address;

/// A compiled document.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The specification; a `tier = "auto"` network is in software until
    /// placed (`crate::scenario` places it).
    pub spec: NetworkSpec,
    /// The software router (default: Prism's).
    pub router: RouterConfig,
}

/// The default token-bucket depth for `rate` bit/s: 50 ms, at least two
/// full-size frames. A software node polices frames when its worker gets
/// to them, which on a loaded machine is tens of milliseconds after they
/// arrived, all at once: at 10 ms, VANI Table 2's shaped experiments lost
/// 0.5–1% of their frames to it (docs/processing.md).
pub fn default_burst(rate: u64) -> u64 {
    (rate / 8 / 20).max(3028)
}

/// The smallest token bucket: one full-size Ethernet frame, without which
/// a rate-limited network drops every such frame.
pub const MIN_BURST: u64 = 1514;

/// The longest network name, in bytes.
pub const MAX_NAME: usize = 64;

/// A network name: 1 to 64 bytes, no control characters (names go into
/// paths, logs and file names).
fn check_name(name: &str) -> Result<(), DocError> {
    if name.is_empty() {
        return Err(err("name", "a network needs a name"));
    }
    if name.len() > MAX_NAME {
        return Err(err(
            "name",
            format!("{} bytes; at most {MAX_NAME}", name.len()),
        ));
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(err(
            "name",
            format!("{:?} is not printable; names are printable text", c),
        ));
    }
    Ok(())
}

/// Checks `doc` against the node's `ports` and compiles it.
pub fn compile(doc: &NetworkDoc, ports: &[String]) -> Result<Compiled, DocError> {
    let c = Ctx { ports };
    Ok(Compiled {
        spec: c.network(doc)?,
        router: doc
            .router
            .as_ref()
            .map(|r| check_router(r, ports))
            .transpose()?
            .unwrap_or_default(),
    })
}

struct Ctx<'a> {
    ports: &'a [String],
}

fn err(field: &str, message: impl Into<String>) -> DocError {
    DocError::new(field, message)
}

impl Ctx<'_> {
    fn port(&self, r: &PortRef, field: &str) -> Result<u16, DocError> {
        let i = match r {
            PortRef::Index(i) if usize::from(*i) < self.ports.len() => Some(*i),
            PortRef::Index(_) => None,
            PortRef::Name(n) => self.ports.iter().position(|p| p == n).map(|i| i as u16),
        };
        i.ok_or_else(|| {
            err(
                field,
                format!("no port {r} (ports: {})", self.ports.join(", ")),
            )
        })
    }

    fn cipher(&self, c: &CipherDoc, field: &str, seal: bool) -> Result<PayloadOp, DocError> {
        let key_err = |n: usize| {
            err(
                &format!("{field}.key"),
                format!("expected {n} bytes as {} hex digits", 2 * n),
            )
        };
        let aead = match c.cipher {
            CipherName::Chacha20poly1305 => Some(Aead::ChaCha20Poly1305),
            CipherName::Aes128Gcm => Some(Aead::Aes128Gcm),
            CipherName::Aes256Gcm => Some(Aead::Aes256Gcm),
            CipherName::Des => None,
        };
        if let Some(aead) = aead {
            let mut key = [0u8; 32];
            let n = aead.key_len();
            if n == 16 {
                key[..16].copy_from_slice(&hex_key::<16>(&c.key).ok_or_else(|| key_err(16))?);
            } else {
                key = hex_key::<32>(&c.key).ok_or_else(|| key_err(32))?;
            }
            return Ok(if seal {
                PayloadOp::Seal { aead, key }
            } else {
                PayloadOp::Open { aead, key }
            });
        }
        Ok(match (c.cipher, seal) {
            (_, true) => PayloadOp::DesEncrypt {
                key: hex_key::<8>(&c.key).ok_or_else(|| key_err(8))?,
            },
            (_, false) => PayloadOp::DesDecrypt {
                key: hex_key::<8>(&c.key).ok_or_else(|| key_err(8))?,
            },
        })
    }

    fn action(&self, t: &ActionDoc, field: &str) -> Result<Action, DocError> {
        let ipip_ops = usize::from(t.ipip_encap.is_some())
            + usize::from(t.ipip_decap)
            + usize::from(t.ipip_rewrite.is_some());
        let vlan_ops = usize::from(t.vlan_push.is_some())
            + usize::from(t.vlan_pop)
            + usize::from(t.vlan_set.is_some());
        if ipip_ops > 1 || vlan_ops > 1 {
            return Err(err(
                field,
                "at most one IPIP and one VLAN operation per action",
            ));
        }
        if !t.drop && t.port.is_none() && t.software.is_none() {
            return Err(err(
                field,
                "an action needs `port`, `software` or `drop = true`",
            ));
        }
        let ipip = ipip_op(t);
        let vlan = vlan_op(t, field)?;
        let payload_ops = usize::from(t.encrypt.is_some())
            + usize::from(t.decrypt.is_some())
            + usize::from(t.compress)
            + usize::from(t.decompress);
        if payload_ops > 1 {
            return Err(err(
                field,
                "at most one of encrypt, decrypt, compress, decompress",
            ));
        }
        let payload = match (&t.encrypt, &t.decrypt) {
            (Some(c), _) => Some(self.cipher(c, &format!("{field}.encrypt"), true)?),
            (_, Some(c)) => Some(self.cipher(c, &format!("{field}.decrypt"), false)?),
            _ if t.compress => Some(PayloadOp::Compress),
            _ if t.decompress => Some(PayloadOp::Decompress),
            _ => None,
        };
        Ok(Action {
            payload,
            out_port: t
                .port
                .as_ref()
                .map(|p| self.port(p, &format!("{field}.port")))
                .transpose()?,
            set_src_mac: t.set_src_mac.map(|m| m.0),
            set_dst_mac: t.set_dst_mac.map(|m| m.0),
            decrement_ttl: t.decrement_ttl,
            to_software: t.software,
            drop: t.drop,
            ipip,
            vlan,
        })
    }

    fn fields(
        &self,
        m: &MatchDoc,
        field: &str,
    ) -> Result<(Ternary, PortRange, PortRange), DocError> {
        let mut t = Ternary::ANY;
        if let Some(p) = &m.in_port {
            t = t.in_port(self.port(p, &format!("{field}.in_port"))?);
        }
        if let Some(v) = m.vlan {
            t = t.vlan(v.0);
        }
        if let Some(mac) = m.src_mac {
            t = t.src_mac(mac.0.to_u64(), u64::MAX);
        }
        if let Some(mac) = m.dst_mac {
            t = t.dst_mac(mac.0.to_u64(), u64::MAX);
        }
        if let Some(e) = m.ethertype {
            t = t.ethertype(e);
        }
        if let Some(p) = m.src {
            t = t.src_ip(p.0);
        }
        if let Some(p) = m.dst {
            t = t.dst_ip(p.0);
        }
        if let Some(p) = m.inner_src {
            t = t.inner_src_ip(p.0);
        }
        if let Some(p) = m.inner_dst {
            t = t.inner_dst_ip(p.0);
        }
        if let Some(p) = m.proto {
            t = t.proto(p, 0xff);
        }
        Ok((
            t,
            m.src_port.map_or(PortRange::ANY, |p| p.0),
            m.dst_port.map_or(PortRange::ANY, |p| p.0),
        ))
    }

    fn forwarding(&self, n: &NetworkDoc) -> Result<ForwardingSpec, DocError> {
        let mode = n.forwarding;
        if mode != ForwardingMode::Rules {
            if !n.rule.is_empty() {
                return Err(err("rule", "`rule` needs `forwarding = \"rules\"`"));
            }
            if n.default_action.is_some() {
                return Err(err(
                    "default_action",
                    "`default_action` needs `forwarding = \"rules\"`",
                ));
            }
        }
        crate::bridge::check_mode(n)?;
        if mode == ForwardingMode::Rules && !n.route.is_empty() {
            return Err(err("route", "a rules network takes `rule`, not `route`"));
        }
        let mut routes = Vec::new();
        let mut flows = Vec::new();
        for (i, rt) in n.route.iter().enumerate() {
            let f = format!("route[{i}]");
            let action = self.action(&rt.action, &format!("{f}.action"))?;
            match (mode, rt.prefix, rt.src, rt.dst) {
                (ForwardingMode::Destination | ForwardingMode::Source, Some(p), None, None) => {
                    routes.push((p.0, action))
                }
                (ForwardingMode::Flow, None, Some(s), Some(d)) => flows.push((s.0, d.0, action)),
                (ForwardingMode::Flow, ..) => {
                    return Err(err(
                        &f,
                        "a flow route has `src` and `dst` prefixes, and no `prefix`",
                    ));
                }
                _ => {
                    return Err(err(
                        &f,
                        format!("a {mode:?} route has one `prefix`, and no `src`/`dst`"),
                    ));
                }
            }
        }
        Ok(match mode {
            ForwardingMode::Destination => ForwardingSpec::Destination(routes),
            ForwardingMode::Source => ForwardingSpec::Source(routes),
            ForwardingMode::Flow => ForwardingSpec::Flow(flows),
            ForwardingMode::Bridge => {
                let port = |r: &PortRef, f: &str| self.port(r, f);
                ForwardingSpec::Bridge(crate::bridge::compile(n.bridge.as_ref(), port)?)
            }
            ForwardingMode::Rules => self.rules(n)?,
        })
    }

    /// A rules network's table and default action.
    fn rules(&self, n: &NetworkDoc) -> Result<ForwardingSpec, DocError> {
        let mut rules = Vec::new();
        for (i, r) in n.rule.iter().enumerate() {
            let f = format!("rule[{i}]");
            let (fields, src_port, dst_port) = self.fields(&r.matches, &format!("{f}.match"))?;
            let action = self.action(&r.action, &format!("{f}.action"))?;
            rules.push(RuleSpec {
                priority: r.priority,
                fields,
                src_port,
                dst_port,
                action,
            });
        }
        let default = n
            .default_action
            .as_ref()
            .map(|a| self.action(a, "default_action"))
            .transpose()?;
        Ok(ForwardingSpec::Rules { rules, default })
    }

    fn network(&self, n: &NetworkDoc) -> Result<NetworkSpec, DocError> {
        let name = n.name.clone();
        check_name(&name)?;
        let mut mapping = Vec::new();
        for (i, m) in n.map.iter().enumerate() {
            let (fields, src_port, dst_port) = self.fields(m, &format!("map[{i}]"))?;
            mapping.push(MappingRule {
                priority: m.priority.unwrap_or(1),
                fields,
                src_port,
                dst_port,
            });
        }
        let forwarding = self.forwarding(n)?;
        if let Some(r) = &n.rate_limit {
            if r.rate.0 == 0 {
                return Err(err(
                    "rate_limit.rate",
                    "0 bit/s forwards nothing; leave the rate limit out for none",
                ));
            }
            if let Some(b) = r.burst
                && b < MIN_BURST
            {
                return Err(err(
                    "rate_limit.burst",
                    format!(
                        "{b} bytes cannot hold one full-size frame; the bucket needs at least {MIN_BURST}"
                    ),
                ));
            }
        }
        Ok(NetworkSpec {
            name,
            // `auto` placed later (`crate::scenario`); until then software.
            tier: n.tier.fixed().unwrap_or(Tier::Software),
            mapping,
            forwarding,
            rate_limit: n
                .rate_limit
                .as_ref()
                .map(|r| (r.rate.0, r.burst.unwrap_or_else(|| default_burst(r.rate.0)))),
            software_channel: n.software_channel,
            quantum: n.quantum.unwrap_or(1514),
            tunnels: tunnels(n)?,
            program: match &n.program {
                Some(_) if n.tier == prism_netdoc::TierChoice::Software => {
                    return Err(err(
                        "program",
                        "a program runs in the hardware tier: tier must be hardware",
                    ));
                }
                Some(p) => Some(crate::program::program(p)?),
                None => None,
            },
        })
    }
}

/// An action's IPIP operation (at most one was checked).
fn ipip_op(t: &ActionDoc) -> IpipOp {
    let ep = |e: &Endpoints| (Ipv4Address::from(e.src.0), Ipv4Address::from(e.dst.0));
    if let Some(e) = &t.ipip_encap {
        let (src, dst) = ep(e);
        IpipOp::Encap { src, dst }
    } else if let Some(e) = &t.ipip_rewrite {
        let (src, dst) = ep(e);
        IpipOp::Rewrite { src, dst }
    } else if t.ipip_decap {
        IpipOp::Decap
    } else {
        IpipOp::None
    }
}

/// An action's VLAN operation (at most one was checked), its ID checked.
fn vlan_op(t: &ActionDoc, field: &str) -> Result<VlanOp, DocError> {
    let vid = |v: u16, f: &str| {
        if v < 4096 {
            Ok(v)
        } else {
            Err(err(
                &format!("{field}.{f}"),
                format!("VLAN ID {v} is over 4095"),
            ))
        }
    };
    Ok(match (t.vlan_push, t.vlan_pop, t.vlan_set) {
        (Some(v), _, _) => VlanOp::Push {
            vid: vid(v, "vlan_push")?,
        },
        (_, true, _) => VlanOp::Pop,
        (_, _, Some(v)) => VlanOp::Replace {
            vid: vid(v, "vlan_set")?,
        },
        _ => VlanOp::None,
    })
}

/// A network's tunnels from the wide area.
fn tunnels(n: &NetworkDoc) -> Result<Vec<TunnelSpec>, DocError> {
    let vid = |v: u16, field: String| match v {
        1..=4094 => Ok(v),
        _ => Err(err(&field, format!("VLAN ID {v} is not from 1 to 4094"))),
    };
    n.tunnel
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let vlan = t
                .vlan_push
                .map(|v| vid(v, format!("tunnel[{i}].vlan_push")))
                .transpose()?;
            if t.public_mac.is_some() || t.internal_mac.is_some() {
                return crate::bridge::public_mac(t, vlan, &format!("tunnel[{i}]"));
            }
            if t.c_tag.is_some() && t.s_tag.is_none() {
                return Err(err(&format!("tunnel[{i}].c_tag"), "`c_tag` goes with `s_tag`"));
            }
            match (t.src, t.dst, t.s_tag, t.nat, t.public, t.internal) {
                (Some(src), Some(dst), None, false, None, None) => Ok(TunnelSpec::Ipip {
                    src: src.0.into(),
                    dst: dst.0.into(),
                    vlan,
                }),
                (None, None, Some(s), false, None, None) if vlan.is_none() => {
                    Ok(TunnelSpec::QinQ {
                        s_tag: vid(s, format!("tunnel[{i}].s_tag"))?,
                        c_tag: t
                            .c_tag
                            .map(|c| vid(c, format!("tunnel[{i}].c_tag")))
                            .transpose()?,
                    })
                }
                (None, None, None, true, None, None) => Ok(TunnelSpec::Nat { vlan }),
                (None, None, None, false, Some(public), Some(internal)) => Ok(TunnelSpec::Public {
                    public: public.0.into(),
                    internal: internal.0.into(),
                    vlan,
                }),
                _ => Err(err(
                    &format!("tunnel[{i}]"),
                    "one of: `src` and `dst` (IPIP, with an optional `vlan_push`); `s_tag` \
                     (802.1ad, with an optional `c_tag`); `nat = true` (with an optional `vlan_push`); `public` and \
                     `internal` (with an optional `vlan_push`); `public_mac` and `internal_mac` \
                     (with an optional `vlan_push`)",
                )),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use prism_netdoc::from_json;
    use serde_json::json;

    fn ports() -> Vec<String> {
        vec!["a".into(), "b".into()]
    }

    fn compile_json(v: serde_json::Value) -> Result<Compiled, DocError> {
        let doc: NetworkDoc = from_json(v.to_string().as_bytes())?;
        compile(&doc, &ports())
    }

    #[test]
    fn a_json_network_compiles() {
        let c = compile_json(json!({
            "name": "n", "tier": "software", "forwarding": "destination",
            "map": [{"in_port": "a"}],
            "route": [{"prefix": "10.0.2.0/24", "action": {"port": "b", "decrement_ttl": true}}],
            "rate_limit": {"rate": "5Mbit"},
            "router": {"kind": "kernel", "addresses": {"a": "10.0.1.1/24"}}
        }))
        .unwrap();
        assert_eq!(c.spec.tier, Tier::Software);
        let ForwardingSpec::Destination(r) = &c.spec.forwarding else {
            panic!("{:?}", c.spec.forwarding)
        };
        assert_eq!(r[0].0.to_string(), "10.0.2.0/24");
        assert_eq!(r[0].1.out_port, Some(1));
        assert!(r[0].1.decrement_ttl);
        assert_eq!(c.spec.rate_limit, Some((5_000_000, 31_250)));
        assert_eq!(c.router.addresses, vec![(0, "10.0.1.1/24".to_string())]);
    }

    #[test]
    fn refusals_name_the_field() {
        for (doc, field, want) in [
            (
                json!({"name": "n", "tier": "hardware", "forwarding": "destination",
                       "route": [{"prefix": "10.0.0.0/8", "action": {"port": "c"}}]}),
                "route[0].action.port",
                "no port `c`",
            ),
            (
                json!({"name": "n", "tier": "hardware", "forwarding": "destination",
                       "route": [{"prefix": "10.0.0.0/33", "action": {"port": "a"}}]}),
                "route[0].prefix",
                "bad prefix `10.0.0.0/33`",
            ),
            (
                json!({"name": "n", "tier": "hardware", "forwarding": "sideways"}),
                "forwarding",
                "unknown variant `sideways`",
            ),
            (
                json!({"name": "n", "tier": "hardware", "forwarding": "flow",
                       "route": [{"prefix": "10.0.0.0/8", "action": {"drop": true}}]}),
                "route[0]",
                "a flow route has",
            ),
            (
                json!({"name": "n", "tier": "hardware", "forwarding": "rules",
                       "rule": [{"priority": 1, "match": {"in_port": 7}, "action": {"drop": true}}]}),
                "rule[0].match.in_port",
                "no port 7",
            ),
            (
                json!({"name": "n", "tier": "software", "forwarding": "source",
                       "router": {"kind": "kernel", "addresses": {"c": "10.0.0.1/24"}}}),
                "router.addresses.c",
                "no port `c`",
            ),
            (
                json!({"name": "n", "tier": "hardware", "forwarding": "destination",
                       "route": [{"prefix": "10.0.0.0/8", "action": {"port": "a", "colour": 1}}]}),
                "route[0].action.colour",
                "unknown field `colour`",
            ),
            (
                json!({"name": "", "tier": "hardware", "forwarding": "destination"}),
                "name",
                "needs a name",
            ),
            (json!({"tier": "hardware"}), "", "missing field `name`"),
            (
                json!({"name": "a\u{0}b", "tier": "hardware", "forwarding": "destination"}),
                "name",
                "not printable",
            ),
            (
                json!({"name": "n".repeat(65), "tier": "hardware", "forwarding": "destination"}),
                "name",
                "at most 64",
            ),
            (
                json!({"name": "n", "tier": "hardware", "forwarding": "destination",
                       "rate_limit": {"rate": 0}}),
                "rate_limit.rate",
                "forwards nothing",
            ),
            (
                json!({"name": "n", "tier": "hardware", "forwarding": "destination",
                       "rate_limit": {"rate": "1Mbit", "burst": 0}}),
                "rate_limit.burst",
                "at least 1514",
            ),
            (
                json!({"name": "n", "tier": "software", "forwarding": "destination",
                       "router": {"kind": "command", "command": ["/bin/echo", "a\u{0}b"]}}),
                "router.command[1]",
                "NUL",
            ),
            (json!([1, 2]), "", "a JSON object"),
        ] {
            let e = compile_json(doc.clone()).unwrap_err();
            assert_eq!(e.field, field, "{doc}: {e}");
            assert!(e.message.contains(want), "{doc}: {e}");
        }
    }

    #[test]
    fn duplicate_keys_are_refused() {
        let e = from_json::<NetworkDoc>(
            br#"{"name": "a", "name": "b", "tier": "hardware", "forwarding": "source"}"#,
        )
        .unwrap_err();
        assert!(e.message.contains("duplicate field `name`"), "{e}");
    }

    #[test]
    fn documents_round_trip_through_json_and_toml() {
        let v = json!({
            "name": "n", "tier": "hardware", "forwarding": "rules",
            "rule": [{"priority": 5, "match": {"src": "10.0.0.0/8", "dst_port": "80-90", "vlan": "none"},
                      "action": {"port": 1, "ipip_encap": {"src": "192.0.2.1", "dst": "192.0.2.2"}}}],
            "default_action": {"drop": true},
            "rate_limit": {"rate": 1000000, "burst": 4000}
        });
        let doc: NetworkDoc = from_json(v.to_string().as_bytes()).unwrap();
        assert_eq!(serde_json::to_value(&doc).unwrap(), v);
        let text = toml::to_string(&doc).unwrap();
        let back: NetworkDoc = toml::from_str(&text).unwrap();
        assert_eq!(back, doc);
    }
}

#[cfg(test)]
mod cipher_tests {
    use super::*;
    use prism_netdoc::from_json;
    use serde_json::json;

    fn with_cipher(cipher: &str, key: &str) -> Result<PayloadOp, DocError> {
        let v = json!({
            "name": "c", "tier": "hardware", "forwarding": "destination",
            "route": [{"prefix": "0.0.0.0/0",
                       "action": {"port": "b", "encrypt": {"cipher": cipher, "key": key}}}],
        });
        let doc: NetworkDoc = from_json(v.to_string().as_bytes())?;
        let c = compile(&doc, &["a".to_string(), "b".to_string()])?;
        let ForwardingSpec::Destination(r) = &c.spec.forwarding else {
            panic!("destination routing")
        };
        Ok(r[0].1.payload.expect("a payload operation"))
    }

    #[test]
    fn aead_ciphers_take_their_key_lengths() {
        let k16 = "00112233445566778899aabbccddeeff";
        let k32 = format!("{k16}{k16}");
        let PayloadOp::Seal { aead, key } = with_cipher("aes-128-gcm", k16).unwrap() else {
            panic!("seal")
        };
        assert_eq!((aead, &key[16..]), (Aead::Aes128Gcm, &[0u8; 16][..]));
        assert!(matches!(
            with_cipher("aes-256-gcm", &k32).unwrap(),
            PayloadOp::Seal {
                aead: Aead::Aes256Gcm,
                ..
            }
        ));
        let e = with_cipher("aes-128-gcm", &k32).unwrap_err();
        assert_eq!(e.field, "route[0].action.encrypt.key", "{e:?}");
        assert!(e.message.contains("16 bytes"), "{e:?}");
        let e = with_cipher("aes-512-gcm", k16).unwrap_err();
        assert!(e.message.contains("unknown variant"), "{e:?}");
    }
}
