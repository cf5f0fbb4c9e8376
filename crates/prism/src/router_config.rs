//! A software network's router in a live node (`router = { ... }` in a
//! `[[network]]` table): which router runs in its container, the addresses
//! of its interfaces, and its CPU and memory share.
//!
//! ```toml
//! router = { kind = "kernel", addresses = { a = "10.0.1.1/24", b = "10.0.2.1/24" } }
//! router = { kind = "kernel", addresses = { b = "10.0.2.1/24" }, command = ["bird", "-f", "-c", "/etc/prism/bird.conf", "-s", "/run/prism/bird.ctl"] }
//! router = { kind = "prism" }
//! router = { kind = "command", command = ["click", "/etc/router.click"] }
//! ```

use crate::scenario::ScenarioError;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::ops::Range;
use toml::Spanned;

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum RouterKind {
    /// Linux IP forwarding, configured from the network's table.
    Kernel,
    /// Prism's software router on raw frames (the default).
    #[default]
    Prism,
    /// Any program, attached to the container's interfaces.
    Command,
}

impl RouterKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RouterKind::Kernel => "kernel",
            RouterKind::Prism => "prism",
            RouterKind::Command => "command",
        }
    }
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct RouterToml {
    #[serde(default)]
    pub kind: RouterKind,
    /// The program of a `command` router; with `kernel`, a routing daemon
    /// started in the container after the table is installed, exporting
    /// its routes to table 200 (`kernel_router::DAEMON_TABLE`).
    pub command: Option<Vec<String>>,
    /// Port name → address (CIDR) of the container's interface on that port.
    #[serde(default)]
    pub addresses: BTreeMap<String, String>,
    pub cpu_weight: Option<u32>,
    /// Memory limit in MiB.
    pub memory_mib: Option<u64>,
}

/// A checked router configuration, ports resolved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RouterConfig {
    pub kind: RouterKind,
    pub command: Vec<String>,
    /// (port index, CIDR).
    pub addresses: Vec<(u16, String)>,
    pub cpu_weight: Option<u32>,
    pub memory_max: Option<u64>,
}

/// Checks `r`, resolving port names with `port`; errors point at `span`.
pub fn check(
    r: &Spanned<RouterToml>,
    net: &str,
    ports: &[String],
    err: impl Fn(Range<usize>, String) -> ScenarioError,
) -> Result<RouterConfig, ScenarioError> {
    let t = r.get_ref();
    let e = |msg: String| err(r.span(), format!("network `{net}`: field `router`: {msg}"));
    let command = match (t.kind, &t.command) {
        (RouterKind::Command, Some(c)) if !c.is_empty() => c.clone(),
        (RouterKind::Command, _) => {
            return Err(e(
                "`kind = \"command\"` needs `command = [program, args...]`".into(),
            ));
        }
        (RouterKind::Kernel, Some(c)) if !c.is_empty() => c.clone(),
        (_, Some(_)) => {
            return Err(e(
                "`command` is for `kind = \"command\"` (the router) or `kind = \"kernel\"` (a routing daemon beside Linux forwarding)".into(),
            ));
        }
        (_, None) => Vec::new(),
    };
    let mut addresses = Vec::new();
    for (port, cidr) in &t.addresses {
        let i = ports.iter().position(|p| p == port).ok_or_else(|| {
            e(format!(
                "`addresses`: no port `{port}` (ports: {})",
                ports.join(", ")
            ))
        })?;
        let ok = cidr.split_once('/').is_some_and(|(a, l)| {
            a.parse::<std::net::Ipv4Addr>().is_ok() && l.parse::<u8>().is_ok_and(|l| l <= 32)
        });
        if !ok {
            return Err(e(format!(
                "`addresses.{port}`: `{cidr}` is not an IPv4 address/length"
            )));
        }
        addresses.push((i as u16, cidr.clone()));
    }
    if let Some(w) = t.cpu_weight
        && !(1..=10_000).contains(&w)
    {
        return Err(e(format!("`cpu_weight` {w} is outside 1..=10000")));
    }
    Ok(RouterConfig {
        kind: t.kind,
        command,
        addresses,
        cpu_weight: t.cpu_weight,
        memory_max: t.memory_mib.map(|m| m << 20),
    })
}

#[cfg(test)]
mod tests {
    use crate::scenario;

    fn load(router: &str) -> Result<scenario::Scenario, String> {
        let text = format!(
            "[[port]]\nname = \"a\"\n[[port]]\nname = \"b\"\n[[network]]\nname = \"n\"\ntier = \"software\"\nforwarding = \"destination\"\nroute = [{{ prefix = \"10.0.0.0/8\", action = {{ port = \"b\" }} }}]\nrouter = {router}\n"
        );
        scenario::load("t.toml", &text).map_err(|e| e.to_string())
    }

    #[test]
    fn router_config_resolves_ports_and_defaults() {
        let sc = load("{ kind = \"kernel\", addresses = { b = \"10.0.2.1/24\" }, cpu_weight = 50, memory_mib = 64 }").unwrap();
        let r = &sc.routers["n"];
        assert_eq!(r.kind, super::RouterKind::Kernel);
        assert_eq!(r.addresses, vec![(1, "10.0.2.1/24".to_string())]);
        assert_eq!(r.memory_max, Some(64 << 20));
        let sc = load("{}").unwrap();
        assert_eq!(sc.routers["n"].kind, super::RouterKind::Prism);
    }

    #[test]
    fn router_errors_name_the_line_and_field() {
        for (router, want) in [
            (
                "{ kind = \"kernel\", addresses = { c = \"10.0.2.1/24\" } }",
                "no port `c`",
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
            let e = load(router).unwrap_err();
            assert!(e.contains("t.toml:10"), "{router}: {e}");
            assert!(e.contains(want), "{router}: {e}");
        }
    }
}
