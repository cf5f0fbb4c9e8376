//! Scenario files loaded: the documents compiled and placed into the
//! pipeline's substrate (docs/scenario.md), errors located by file, line
//! and field (`ScenarioError`).

use crate::auto_tier::{self, AutoPlacer};
use crate::compile::compile;
use prism_netdoc::{
    DocError, NetworkDoc, PlacementDoc, RouterConfig, ScenarioDoc, ScenarioError, TierChoice,
    WanDoc, default_policy,
};
use prism_pipeline::{Substrate, control::device};
use std::collections::BTreeMap;

/// A loaded scenario: the substrate with its networks, and the ports.
#[derive(Debug)]
pub struct Scenario {
    pub substrate: Substrate,
    pub port_names: Vec<String>,
    pub port_rates: Vec<Option<u64>>,
    /// Per port, the interface a live node attaches it to.
    pub interfaces: Vec<Option<String>>,
    /// Per port, its software interface (multi-receiver path), if any.
    pub software_interfaces: Vec<Option<String>>,
    /// The node's WAN port and its identity on the wide area, if it has one.
    pub wan: Option<(u16, WanDoc)>,
    /// Per network name, its software router (default: Prism's).
    pub routers: BTreeMap<String, RouterConfig>,
    /// Per network name, its document, with `tier = "auto"` replaced by the
    /// tier chosen.
    pub docs: BTreeMap<String, NetworkDoc>,
    /// The device profile's name.
    pub device: String,
    /// Networks defined with `tier = "auto"` (their `docs` say the tier
    /// chosen): a live node keeps placing them on their measured rate.
    pub auto: std::collections::BTreeSet<String>,
    /// The scenario's `[placement]` table, if it has one.
    pub placement: Option<PlacementDoc>,
}

impl Scenario {
    /// A port by name or index.
    pub fn port_index(&self, r: &str) -> Option<u16> {
        self.port_names
            .iter()
            .position(|n| n == r)
            .map(|i| i as u16)
            .or_else(|| {
                r.parse()
                    .ok()
                    .filter(|i| usize::from(*i) < self.port_names.len())
            })
    }
}

struct Ctx<'a> {
    file: &'a str,
    text: &'a str,
}

impl Ctx<'_> {
    /// An error about the field at `path`, located in the text.
    fn at(&self, path: &str, msg: String) -> ScenarioError {
        ScenarioError::at_field(self.file, self.text, path, msg)
    }

    /// A document error of network `i` named `name`.
    fn doc(&self, i: usize, name: &str, e: DocError) -> ScenarioError {
        let path = e.clone().within(&format!("network[{i}]")).field;
        self.at(&path, format!("network `{name}`: {e}"))
    }
}

/// Parses and loads a scenario; `file` names it in errors.
pub fn load(file: &str, text: &str) -> Result<Scenario, ScenarioError> {
    let raw = ScenarioDoc::parse(file, text)?;
    build(Ctx { file, text }, raw)
}

/// Loads the scenario in `text` with `networks` in place of its own: how a
/// node restores the networks it was told through its API. Errors in the
/// networks (there should be none: they were accepted once) point at the
/// file's start.
pub fn load_with_networks(
    file: &str,
    text: &str,
    networks: Vec<NetworkDoc>,
) -> Result<Scenario, ScenarioError> {
    let mut raw = ScenarioDoc::parse(file, text)?;
    raw.network = networks;
    build(Ctx { file, text }, raw)
}

/// Replaces `tier = "auto"` in `docs` by the tier each network was placed
/// in; returns the names of those networks.
fn placed_tiers(
    docs: &mut BTreeMap<String, NetworkDoc>,
    substrate: &Substrate,
) -> std::collections::BTreeSet<String> {
    let auto = docs
        .iter()
        .filter(|(_, d)| d.tier == TierChoice::Auto)
        .map(|(n, _)| n.clone())
        .collect();
    for (name, doc) in docs.iter_mut() {
        if let Some(s) = substrate.spec(name) {
            doc.tier = s.tier.into();
        }
    }
    auto
}

/// Makes the scenario's WAN port (one at most) the substrate's.
fn set_wan_port(
    ctx: &Ctx<'_>,
    raw: &ScenarioDoc,
    substrate: &mut Substrate,
) -> Result<(), ScenarioError> {
    let wan_ports: Vec<u16> = (0..raw.port.len() as u16)
        .filter(|i| raw.port[usize::from(*i)].wan.is_some())
        .collect();
    if let Some(&second) = wan_ports.get(1) {
        return Err(ctx.at(
            &format!("port[{second}].wan"),
            format!(
                "field `port.wan`: a node has one WAN port (`{}` is one already)",
                raw.port[usize::from(wan_ports[0])].name
            ),
        ));
    }
    substrate
        .set_wan_ports(&wan_ports)
        .map_err(|e| ctx.at("port", e.to_string()))?;
    let wan = wan_ports
        .first()
        .and_then(|p| raw.port[usize::from(*p)].wan.as_ref());
    substrate.set_wan_address(wan.map(|w| (w.address.0.into(), w.mac.0)));
    Ok(())
}

fn build(ctx: Ctx<'_>, raw: ScenarioDoc) -> Result<Scenario, ScenarioError> {
    let profile = device::profile(&raw.device).ok_or_else(|| {
        let names: Vec<_> = device::PROFILES.iter().map(|p| p.name).collect();
        ctx.at(
            "device",
            format!(
                "field `device`: unknown device `{}` (known: {})",
                raw.device,
                names.join(", ")
            ),
        )
    })?;
    let port_names = port_names(&ctx, &raw)?;
    let mut substrate = Substrate::new(profile.clone(), port_names.len() as u16);
    set_wan_port(&ctx, &raw, &mut substrate)?;
    let mut placer = placer(&ctx, &raw, profile)?;
    let mut routers = BTreeMap::new();
    let mut docs = BTreeMap::new();
    // One publication for the whole scenario, not one per network.
    substrate.batch(|substrate| -> Result<(), ScenarioError> {
        for (i, n) in raw.network.iter().enumerate() {
            if let Some(r) = add_one(&ctx, substrate, &mut placer, (i, n), &port_names)? {
                routers.insert(n.name.clone(), r);
            }
            docs.insert(n.name.clone(), n.clone());
        }
        Ok(())
    })?;
    if let Some(d) = &raw.default_network {
        substrate
            .set_default_network(Some(d))
            .map_err(|e| ctx.at("default_network", format!("field `default_network`: {e}")))?;
    }
    let auto = placed_tiers(&mut docs, &substrate);
    Ok(Scenario {
        docs,
        auto,
        placement: raw.placement.clone(),
        device: profile.name.to_string(),
        substrate,
        port_rates: raw.port.iter().map(|p| p.rate.map(|r| r.0)).collect(),
        interfaces: raw.port.iter().map(|p| p.interface.clone()).collect(),
        software_interfaces: raw
            .port
            .iter()
            .map(|p| p.software_interface.clone())
            .collect(),
        wan: (raw.port.iter().enumerate()).find_map(|(i, p)| p.wan.clone().map(|w| (i as u16, w))),
        routers,
        port_names,
    })
}

/// The scenario's port names: at least one, each once.
fn port_names(ctx: &Ctx<'_>, raw: &ScenarioDoc) -> Result<Vec<String>, ScenarioError> {
    if raw.port.is_empty() {
        return Err(ScenarioError::at_start(
            ctx.file,
            ctx.text,
            "field `port`: a scenario needs at least one [[port]]".into(),
        ));
    }
    let mut port_names: Vec<String> = Vec::new();
    for (i, p) in raw.port.iter().enumerate() {
        if port_names.contains(&p.name) {
            return Err(ctx.at(
                &format!("port[{i}].name"),
                format!("field `port.name`: duplicate port name `{}`", p.name),
            ));
        }
        port_names.push(p.name.clone());
    }
    Ok(port_names)
}

/// The placement policy `tier = "auto"` networks are placed by.
fn placer(
    ctx: &Ctx<'_>,
    raw: &ScenarioDoc,
    profile: &device::DeviceProfile,
) -> Result<AutoPlacer, ScenarioError> {
    let pl = raw.placement.as_ref();
    let policy = pl.map_or_else(default_policy, |p| p.policy.clone());
    AutoPlacer::new(
        &policy,
        usize::from(profile.slots),
        pl.and_then(|p| p.hardware_bandwidth)
            .map_or(1000.0, |r| r.0 as f64 / 1e6),
        pl.and_then(|p| p.software_bandwidth)
            .map_or(100.0, |r| r.0 as f64 / 1e6),
        profile.partial_reconfig_ms,
    )
    .ok_or_else(|| {
        ctx.at(
            "placement.policy",
            format!(
                "field `placement.policy`: unknown policy `{policy}` (paper, no-migration, repack)"
            ),
        )
    })
}

/// Compiles network `i` and adds it, placing it first when its tier is
/// `auto` (moving others as the policy says); its router, if it names one.
fn add_one(
    ctx: &Ctx<'_>,
    substrate: &mut Substrate,
    placer: &mut AutoPlacer,
    (i, n): (usize, &NetworkDoc),
    port_names: &[String],
) -> Result<Option<RouterConfig>, ScenarioError> {
    let c = compile(n, port_names).map_err(|e| ctx.doc(i, &n.name, e))?;
    let mut spec = c.spec;
    let here = format!("network[{i}].name");
    let mbps = n
        .bandwidth
        .map(|b| b.0 as f64 / 1e6)
        .or(spec.rate_limit.map(|(r, _)| r as f64 / 1e6));
    let mut migrations = Vec::new();
    if n.tier == TierChoice::Auto {
        let mbps = mbps.ok_or_else(|| ctx.at(&here, format!("network `{}`: field `bandwidth`: `tier = \"auto\"` needs `bandwidth` (or a `rate_limit`) to place the network", spec.name)))?;
        let next = substrate.networks().count() as u64;
        let (tier, m) = placer.admit(next, mbps).ok_or_else(|| {
            let (hw, sw) = placer.used();
            ctx.at(&here, format!("network `{}`: field `tier`: the `{}` policy found no room for {mbps} Mbit/s (hardware carries {hw:.1} Mbit/s, software {sw:.1})", spec.name, placer.policy_name))
        })?;
        spec.tier = tier;
        migrations = m;
    }
    let tier = spec.tier;
    let id = substrate
        .add_network(spec)
        .map_err(|e| ctx.at(&here, e.to_string()))?;
    if n.tier != TierChoice::Auto {
        placer.record(u64::from(id), tier, mbps.unwrap_or(0.0));
    }
    for m in &migrations {
        let name = substrate
            .networks()
            .find(|(i, _)| u64::from(*i) == m.id)
            .map(|(_, s)| s.name.clone())
            .unwrap_or_default();
        substrate
            .set_tier(&name, auto_tier::destination(m))
            .map_err(|e| ctx.at(&here, format!("placing `{}` moves `{name}`: {e}", n.name)))?;
    }
    Ok(n.router.is_some().then_some(c.router))
}

#[cfg(test)]
mod tests {
    use super::*;
    use prism_pipeline::Tier;

    const GOOD: &str = r#"
device = "netfpga-v2p"
[[port]]
name = "wan"
[[port]]
name = "lan"
rate = "1Gbit"

[[network]]
name = "red"
tier = "hardware"
forwarding = "destination"
map = [{ in_port = "wan", vlan = 10 }]
route = [{ prefix = "10.0.0.0/8", action = { port = "lan", decrement_ttl = true } }]
"#;

    fn err(text: &str) -> String {
        load("s.toml", text).unwrap_err().to_string()
    }

    /// `s.toml:N:` for the (last) line of `text` containing `needle`.
    fn at(text: &str, needle: &str) -> String {
        let n = text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.contains(needle))
            .last()
            .expect("needle present")
            .0
            + 1;
        format!("s.toml:{n}:")
    }

    #[test]
    fn loads() {
        let s = load("s.toml", GOOD).unwrap();
        assert_eq!(s.port_names, vec!["wan", "lan"]);
        assert_eq!(s.port_rates, vec![None, Some(1_000_000_000)]);
        assert_eq!(s.substrate.hardware().free_slots(), 1);
    }

    #[test]
    fn a_wan_port_and_a_network_s_tunnels() {
        let text = r#"
[[port]]
name = "lan"
[[port]]
name = "up"
wan = { address = "203.0.113.1", mac = "02:0a:00:00:00:01" }
[[network]]
name = "part"
tier = "hardware"
forwarding = "destination"
map = [{ vlan = 100 }]
tunnel = [{ src = "198.18.0.2", dst = "203.0.113.1", vlan_push = 100 }, { s_tag = 3001 }]
route = [{ prefix = "10.1.0.0/24", action = { port = "lan" } }]
"#;
        let s = load("s.toml", text).unwrap();
        let (port, wan) = s.wan.clone().unwrap();
        assert_eq!((port, wan.address.0.to_string()), (1, "203.0.113.1".into()));
        assert_eq!(s.substrate.wan_ports(), &[1]);
        let t = s.substrate.spec("part").unwrap().tunnels.clone();
        assert_eq!(
            t,
            [
                prism_pipeline::TunnelSpec::Ipip {
                    src: prism_wire::Ipv4Address([198, 18, 0, 2]),
                    dst: prism_wire::Ipv4Address([203, 0, 113, 1]),
                    vlan: Some(100),
                },
                prism_pipeline::TunnelSpec::QinQ {
                    s_tag: 3001,
                    c_tag: None
                },
            ]
        );
        let mixed = text.replace("s_tag = 3001 }", "s_tag = 3001, src = \"198.18.0.9\" }");
        let e = err(&mixed);
        assert!(e.starts_with(&at(&mixed, "s_tag = 3001,")), "{e}");
        assert!(e.contains("one of: `src` and `dst`"), "{e}");
        let two = text.replace(
            "name = \"lan\"",
            "name = \"lan\"\nwan = { address = \"203.0.113.9\", mac = \"02:0a:00:00:00:09\" }",
        );
        let e = err(&two);
        assert!(e.starts_with(&at(&two, "203.0.113.1\", mac")), "{e}");
        assert!(e.contains("one WAN port (`lan` is one already)"), "{e}");
        let bad = text.replace("vlan_push = 100", "vlan_push = 4095");
        let e = err(&bad);
        assert!(e.starts_with(&at(&bad, "vlan_push")), "{e}");
        assert!(e.contains("VLAN ID 4095 is not from 1 to 4094"), "{e}");
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let t = GOOD.replace("decrement_ttl = true", "decrement_ttl = true, colour = 1");
        let e = err(&t);
        assert!(
            e.starts_with(&at(&t, "colour")) && e.contains("unknown field `colour`"),
            "{e}"
        );
        let t = GOOD.replace("10.0.0.0/8", "10.0.0.0/33");
        let e = err(&t);
        assert!(
            e.starts_with(&at(&t, "/33")) && e.contains("bad prefix `10.0.0.0/33`"),
            "{e}"
        );
        let e = err(&GOOD.replace("10.0.0.0/8", "10.0.0.1/8"));
        assert!(e.contains("bits set past"), "{e}");
        let t = GOOD.replace("port = \"lan\"", "port = \"dmz\"");
        let e = err(&t);
        assert!(
            e.starts_with(&at(&t, "dmz"))
                && e.contains("field `route[0].action.port`: no port `dmz`"),
            "{e}"
        );
        let dup = format!(
            "{GOOD}\n[[network]]\nname = \"red\"\ntier = \"software\"\nforwarding = \"source\"\n"
        );
        let e = err(&dup);
        assert!(
            e.starts_with(&at(&dup, "name = \"red\"")) && e.contains("`red` already exists"),
            "{e}"
        );
        let three = format!(
            "{GOOD}\n[[network]]\nname = \"b\"\ntier = \"hardware\"\nforwarding = \"source\"\n\n[[network]]\nname = \"c\"\ntier = \"hardware\"\nforwarding = \"flow\"\n"
        );
        let e = err(&three);
        assert!(
            e.starts_with(&at(&three, "name = \"c\"")) && e.contains("all 2 hardware slots"),
            "{e}"
        );
        let t = GOOD.replace("netfpga-v2p", "stratix");
        let e = err(&t);
        assert!(
            e.starts_with(&at(&t, "stratix")) && e.contains("unknown device `stratix`"),
            "{e}"
        );
        let t = GOOD.replace("vlan = 10", "vlan = 5000");
        let e = err(&t);
        assert!(e.starts_with(&at(&t, "5000")), "{e}");
        let e = err("port = 3");
        assert!(e.starts_with("s.toml:1:"), "{e}");
        let t = GOOD.replace("\"1Gbit\"", "\"fast\"");
        let e = err(&t);
        assert!(
            e.starts_with(&at(&t, "fast")) && e.contains("bad rate"),
            "{e}"
        );
    }

    #[test]
    fn auto_tier_follows_the_paper_heuristic() {
        let base = "device = \"netfpga-v2p\"\n[placement]\npolicy = \"paper\"\nsoftware_bandwidth = \"100Mbit\"\n[[port]]\nname = \"p\"\n";
        let net = |name: &str, bw: &str| {
            format!(
                "[[network]]\nname = \"{name}\"\ntier = \"auto\"\nforwarding = \"destination\"\nbandwidth = \"{bw}\"\n"
            )
        };
        // Software first while its 100 Mbit/s last, then the 2 hardware slots, then refusal.
        let text = format!(
            "{base}{}{}{}{}",
            net("a", "60Mbit"),
            net("b", "50Mbit"),
            net("c", "30Mbit"),
            net("d", "200Mbit")
        );
        let s = load("s.toml", &text).unwrap();
        let tiers: Vec<_> = s.substrate.networks().map(|(_, n)| n.tier).collect();
        assert_eq!(
            tiers,
            vec![
                Tier::Software,
                Tier::Hardware,
                Tier::Software,
                Tier::Hardware
            ]
        );
        let text = format!("{text}{}", net("e", "20Mbit"));
        let e = load("s.toml", &text).unwrap_err().to_string();
        assert!(
            e.contains("network `e`: field `tier`: the `paper` policy found no room"),
            "{e}"
        );
        let e = load(
            "s.toml",
            &format!("{base}[[network]]\nname = \"x\"\ntier = \"auto\"\nforwarding = \"source\"\n"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("needs `bandwidth`"), "{e}");
        let e = load("s.toml", &base.replace("\"paper\"", "\"magic\""))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("s.toml:3:") && e.contains("unknown policy `magic`"),
            "{e}"
        );
    }

    fn with_router(router: &str) -> Result<Scenario, String> {
        let text = format!(
            "[[port]]\nname = \"a\"\n[[port]]\nname = \"b\"\n[[network]]\nname = \"n\"\ntier = \"software\"\nforwarding = \"destination\"\nroute = [{{ prefix = \"10.0.0.0/8\", action = {{ port = \"b\" }} }}]\nrouter = {router}\n"
        );
        load("t.toml", &text).map_err(|e| e.to_string())
    }

    #[test]
    fn router_config_resolves_ports_and_defaults() {
        let sc = with_router("{ kind = \"kernel\", addresses = { b = \"10.0.2.1/24\" }, cpu_weight = 50, memory_mib = 64 }").unwrap();
        let r = &sc.routers["n"];
        assert_eq!(r.kind, prism_netdoc::RouterKind::Kernel);
        assert_eq!(r.addresses, vec![(1, "10.0.2.1/24".to_string())]);
        assert_eq!(r.memory_max, Some(64 << 20));
        let sc = with_router("{}").unwrap();
        assert_eq!(sc.routers["n"].kind, prism_netdoc::RouterKind::Prism);
    }

    #[test]
    fn router_errors_name_the_line_and_field() {
        for (router, want) in [
            (
                "{ kind = \"kernel\", addresses = { c = \"10.0.2.1/24\" } }",
                "field `router.addresses.c`: no port `c`",
            ),
            (
                "{ kind = \"kernel\", addresses = { a = \"10.0.2.1\" } }",
                "not an IPv4 address/length",
            ),
            ("{ kind = \"command\" }", "needs `command"),
            (
                "{ kind = \"prism\", command = [\"x\"] }",
                "is for `kind = \"command\"`",
            ),
            ("{ kind = \"quagga\" }", "unknown variant"),
            ("{ kind = \"prism\", cpu_weight = 0 }", "outside 1..=10000"),
        ] {
            let e = with_router(router).unwrap_err();
            assert!(e.contains("t.toml:10"), "{router}: {e}");
            assert!(e.contains(want), "{router}: {e}");
        }
    }

    #[test]
    fn a_single_network_scenario_reloads_to_the_same_document() {
        let s = load("s.toml", GOOD).unwrap();
        let doc = s.docs["red"].clone();
        let text = ScenarioDoc::single(&s.device, &s.port_names, doc.clone())
            .to_toml()
            .unwrap();
        let again = load("r.toml", &text).unwrap();
        assert_eq!(again.docs["red"], doc);
        assert_eq!(again.substrate.spec("red"), s.substrate.spec("red"));
    }
}
