//! A software network's router configuration, checked and with its ports
//! resolved (`router = { ... }` in a network document).
//!
//! ```toml
//! router = { kind = "kernel", addresses = { a = "10.0.1.1/24", b = "10.0.2.1/24" } }
//! router = { kind = "kernel", addresses = { b = "10.0.2.1/24" }, command = ["bird", "-f", "-c", "/etc/prism/bird.conf", "-s", "/run/prism/bird.ctl"] }
//! router = { kind = "prism" }
//! router = { kind = "command", command = ["click", "/etc/router.click"] }
//! ```

use crate::doc::{RouterDoc, RouterKind};
use crate::error::DocError;

/// A checked router configuration, ports resolved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RouterConfig {
    pub kind: RouterKind,
    pub command: Vec<String>,
    /// (port index, CIDR).
    pub addresses: Vec<(u16, String)>,
    pub cpu_weight: Option<u32>,
    /// Memory limit in bytes.
    pub memory_max: Option<u64>,
}

/// Checks `r`, resolving port names against `ports`; errors name fields
/// under `router`.
pub fn check(r: &RouterDoc, ports: &[String]) -> Result<RouterConfig, DocError> {
    let command = command(r)?;
    let mut addresses = Vec::new();
    for (port, cidr) in &r.addresses {
        let f = format!("addresses.{port}");
        let i = ports.iter().position(|p| p == port).ok_or_else(|| {
            at(
                &f,
                format!("no port `{port}` (ports: {})", ports.join(", ")),
            )
        })?;
        let ok = cidr.split_once('/').is_some_and(|(a, l)| {
            a.parse::<std::net::Ipv4Addr>().is_ok() && l.parse::<u8>().is_ok_and(|l| l <= 32)
        });
        if !ok {
            return Err(at(&f, format!("`{cidr}` is not an IPv4 address/length")));
        }
        addresses.push((i as u16, cidr.clone()));
    }
    if let Some(w) = r.cpu_weight
        && !(1..=10_000).contains(&w)
    {
        return Err(at("cpu_weight", format!("{w} is outside 1..=10000")));
    }
    Ok(RouterConfig {
        kind: r.kind,
        command,
        addresses,
        cpu_weight: r.cpu_weight,
        memory_max: r.memory_mib.map(|m| m << 20),
    })
}

/// An error at field `f` of the router (`router` itself when empty).
fn at(f: &str, m: String) -> DocError {
    DocError::new(
        if f.is_empty() {
            "router".to_string()
        } else {
            format!("router.{f}")
        },
        m,
    )
}

/// The router's command: a program and its arguments for a `command`
/// router or a kernel router's daemon; none for the others.
fn command(r: &RouterDoc) -> Result<Vec<String>, DocError> {
    let command = match (r.kind, &r.command) {
        (RouterKind::Command, Some(c)) if !c.is_empty() => c.clone(),
        (RouterKind::Command, _) => {
            return Err(at(
                "command",
                "`kind = \"command\"` needs `command = [program, args...]`".into(),
            ));
        }
        (RouterKind::Kernel, Some(c)) if !c.is_empty() => c.clone(),
        (_, Some(_)) => {
            return Err(at(
                "command",
                "`command` is for `kind = \"command\"` (the router) or `kind = \"kernel\"` (a routing daemon beside Linux forwarding)".into(),
            ));
        }
        (_, None) => Vec::new(),
    };
    if let Some(i) = command.iter().position(|a| a.contains('\0')) {
        return Err(at(
            &format!("command[{i}]"),
            "a NUL byte cannot be passed to a program".into(),
        ));
    }
    if command.first().is_some_and(String::is_empty) {
        return Err(at("command[0]", "the program is empty".into()));
    }
    Ok(command)
}
