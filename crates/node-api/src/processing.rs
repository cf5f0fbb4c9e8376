//! Processing nodes (VANI's processing resources) as the node's desired
//! state: a document of its own under its own generation, as omicron's
//! sled agent keeps one config per kind. `PUT /v1/processing` says "the
//! processing nodes whose names start with `scope` are exactly these";
//! the node starts, restarts and removes containers to match, and keeps
//! one that runs as asked (a node restarted after `kill -9` finds its
//! containers and keeps them, never a second of one name).

use crate::desired::DesiredAction;
use crate::error::{ApiError, ErrorCode};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use utoipa::ToSchema;

/// Longest processing node name: it goes into interface names.
pub const MAX_NAME: usize = 40;

/// `PUT /v1/processing`: every processing node of `scope`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProcessingState {
    /// Fenced as the networks' generation: an older one is refused (409
    /// `stale_generation`); the same one again converges again.
    pub generation: u64,
    /// The name prefix this document owns; not empty.
    pub scope: String,
    #[serde(default)]
    pub nodes: Vec<ProcessingDoc>,
}

/// One processing node: a container from an image, confined, with an
/// interface on each network it is attached to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProcessingDoc {
    /// Its container's name on the node (a-z, 0-9, `-`).
    pub name: String,
    /// An OCI image layout on the node (a directory) and its tag.
    pub image: ImageRef,
    /// CPU time, in CPUs (0.5: half of one CPU's time).
    pub cpus: f64,
    pub memory_mib: u64,
    /// At most this many processes and threads.
    #[serde(default = "default_pids")]
    pub pids: u32,
    /// Its interfaces, `eth0` first.
    #[serde(default)]
    pub interfaces: Vec<InterfaceDoc>,
    /// What the container runs (default: the image's own command).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// Public keys root's ssh accepts (`authorized_keys` lines), written
    /// into the image's file system before it starts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authorized_keys: Vec<String>,
}

fn default_pids() -> u32 {
    512
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ImageRef {
    /// The image layout's directory on the node: an absolute path, or a
    /// name in the node's image directory (`base`:
    /// `/var/lib/prism/images/base`). Empty for a stored image.
    #[serde(default)]
    pub layout: String,
    #[serde(default)]
    pub tag: String,
    /// An image in the storage service instead, pulled (once per node)
    /// from the URLs it gives, every blob checked against its digest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored: Option<crate::images::StoredImage>,
}

/// An interface of a processing node: a host on `vlan` behind `port`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct InterfaceDoc {
    /// The node's port it is behind (a port's name).
    pub port: String,
    /// The network's VLAN on that port (1-4094).
    pub vlan: u16,
    /// Its addresses, CIDR (`10.1.0.5/24`).
    #[serde(default)]
    pub addresses: Vec<String>,
    /// Its default route's next hop (one interface at most).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway: Option<String>,
    /// The next hop's MAC, set as a permanent neighbour (a hardware-tier
    /// network's gateway answers no ARP: its hosts know its MAC, as the
    /// network's routes know theirs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway_mac: Option<String>,
    /// The cable out: the interface stays in the container (its
    /// addresses kept, its link down), and the node carries none of its
    /// frames (a shared VLAN left, a network released). Plugged in again
    /// or onto another VLAN without restarting the container. `vlan` may
    /// be 0 then (no VLAN).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unplugged: bool,
    /// Its one IPv4 address (and gateway) handed to it by the node's DHCP
    /// server on the link, not set in it: its image runs a DHCP client.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dhcp: bool,
    /// The network's guaranteed rate, Mbit/s: what the interface sends is
    /// shaped to it inside the container (a token bucket that queues, so
    /// that TCP slows down instead of losing to the network's policer),
    /// as VANI's processing nodes' Ethernet rate limiting does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_mbps: Option<u32>,
}

/// What became of a processing node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ProcessingOutcome {
    pub name: String,
    pub action: DesiredAction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ApiError>,
    /// Where its ssh is reached through the node (`host:port`), if the
    /// image runs sshd and the node listens on TCP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ssh: Option<String>,
    /// Its own host keys (`ssh-ed25519 AAAA…`), made on the node.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub host_keys: Vec<String>,
}

/// The answer to `PUT /v1/processing`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ProcessingApplied {
    pub generation: u64,
    pub nodes: Vec<ProcessingOutcome>,
}

/// A processing node as the node runs it (`GET /v1/processing`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ProcessingView {
    pub name: String,
    /// The OCI runtime's status: `created`, `running`, `stopped`.
    pub status: String,
    /// Its first process, as the node sees it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Each interface's MAC (`eth0` first).
    pub macs: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ssh: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub host_keys: Vec<String>,
    pub doc: ProcessingDoc,
}

impl ProcessingState {
    /// Checks what needs no node; the error names the field
    /// (`nodes[1].interfaces[0].vlan`).
    pub fn check(&self) -> Result<(), ApiError> {
        let bad = |f: String, m: String| ApiError::invalid(m).with_field(f);
        if self.scope.is_empty() {
            return Err(bad(
                "scope".into(),
                "an empty scope would own every container".into(),
            ));
        }
        let mut seen = BTreeSet::new();
        for (i, n) in self.nodes.iter().enumerate() {
            let at = |f: &str| format!("nodes[{i}].{f}");
            if !n.name.starts_with(&self.scope) {
                return Err(bad(
                    at("name"),
                    format!("`{}` is outside the scope `{}`", n.name, self.scope),
                ));
            }
            let ok = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
            if n.name.len() > MAX_NAME || !n.name.chars().all(ok) {
                return Err(bad(
                    at("name"),
                    format!("a-z, 0-9 and `-`, at most {MAX_NAME}"),
                ));
            }
            if !seen.insert(n.name.as_str()) {
                return Err(bad(at("name"), format!("`{}` is listed twice", n.name)));
            }
            n.check_limits().map_err(|(f, m)| bad(at(f), m))?;
            n.image
                .check()
                .map_err(|(f, m)| bad(at(&format!("image.{f}")), m))?;
            for (k, l) in n.interfaces.iter().enumerate() {
                l.check()
                    .map_err(|(f, m)| bad(at(&format!("interfaces[{k}].{f}")), m))?;
            }
            if n.interfaces.iter().filter(|l| l.gateway.is_some()).count() > 1 {
                return Err(bad(
                    at("interfaces"),
                    "one default route: a gateway on one interface".into(),
                ));
            }
        }
        Ok(())
    }
}

impl ProcessingDoc {
    /// Whether `other` is this document but for where its interfaces
    /// are plugged (their VLANs, plugged in or out, and so their
    /// gateways' MACs): rewired in place, the container left running.
    pub fn same_but_wiring(&self, other: &ProcessingDoc) -> bool {
        let unwired = |d: &ProcessingDoc| {
            let mut d = d.clone();
            for l in &mut d.interfaces {
                (l.vlan, l.unplugged, l.gateway_mac) = (0, false, None);
            }
            d
        };
        unwired(self) == unwired(other)
    }

    fn check_limits(&self) -> Result<(), (&'static str, String)> {
        if !(self.cpus > 0.0 && self.cpus <= 256.0) {
            return Err(("cpus", "more than 0, at most 256".into()));
        }
        if !(16..=1 << 20).contains(&self.memory_mib) {
            return Err(("memory_mib", "from 16 MiB to 1 TiB".into()));
        }
        if !(8..=1 << 16).contains(&self.pids) {
            return Err(("pids", "from 8 to 65536".into()));
        }
        if self.interfaces.len() > 8 {
            return Err(("interfaces", "at most 8".into()));
        }
        if self
            .authorized_keys
            .iter()
            .any(|k| k.contains(['\n', '\r']) || k.len() > 16 * 1024)
        {
            return Err(("authorized_keys", "one key per entry, each one line".into()));
        }
        Ok(())
    }
}

impl ImageRef {
    fn check(&self) -> Result<(), (&'static str, String)> {
        let Some(s) = &self.stored else {
            if self.layout.is_empty() || self.tag.is_empty() {
                return Err(("layout", "a layout and a tag, or a stored image".into()));
            }
            return Ok(());
        };
        if !(self.layout.is_empty() && self.tag.is_empty()) {
            return Err(("layout", "a stored image names no layout or tag".into()));
        }
        let blobs = std::iter::once(&s.manifest).chain(&s.blobs);
        for b in blobs {
            if !crate::images::is_digest(&b.digest) {
                return Err(("stored", format!("`{}` is not a digest", b.digest)));
            }
        }
        Ok(())
    }
}

impl InterfaceDoc {
    fn check(&self) -> Result<(), (&'static str, String)> {
        let no_vlan = self.unplugged && self.vlan == 0;
        if !((1..=4094).contains(&self.vlan) || no_vlan) {
            return Err(("vlan", "from 1 to 4094 (0 when unplugged)".into()));
        }
        for a in &self.addresses {
            let ok = a.split_once('/').is_some_and(|(ip, len)| {
                ip.parse::<std::net::IpAddr>().is_ok() && len.parse::<u8>().is_ok_and(|l| l <= 128)
            });
            if !ok {
                return Err((
                    "addresses",
                    format!("`{a}` is not an address with a prefix length"),
                ));
            }
        }
        if self.dhcp && !(self.addresses.len() == 1 && self.addresses[0].contains('.')) {
            return Err((
                "dhcp",
                "DHCP hands out one IPv4 address: give exactly one".into(),
            ));
        }
        if let Some(g) = &self.gateway
            && g.parse::<std::net::IpAddr>().is_err()
        {
            return Err(("gateway", format!("`{g}` is not an address")));
        }
        if self.rate_mbps == Some(0) {
            return Err(("rate_mbps", "at least 1 Mbit/s".into()));
        }
        if let Some(m) = &self.gateway_mac {
            let ok = m.split(':').count() == 6
                && m.split(':')
                    .all(|b| b.len() == 2 && u8::from_str_radix(b, 16).is_ok());
            if !ok || self.gateway.is_none() {
                return Err((
                    "gateway_mac",
                    format!("`{m}`: a MAC (aa:bb:cc:dd:ee:ff), with a gateway"),
                ));
            }
        }
        Ok(())
    }
}

/// FNV-1a of a processing node's name: names its links on the node and
/// its MACs, the same after a restart.
pub fn name_hash(name: &str) -> u32 {
    name.bytes().fold(0x811c_9dc5, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// Interface `k`'s MAC of processing node `name`: locally administered,
/// unicast, known to the controller (its networks' routes send to it)
/// before the node makes it.
pub fn interface_mac(name: &str, k: usize) -> [u8; 6] {
    let h = name_hash(name).to_be_bytes();
    [0x02, 0x70, h[0], h[1], h[2] ^ h[3], k as u8]
}

/// The refusal of a generation older than the last accepted.
pub fn processing_stale(held: u64, sent: u64) -> ApiError {
    ApiError::new(
        ErrorCode::StaleGeneration,
        format!("generation {sent} is older than {held}, which this node holds"),
    )
    .with_field("generation")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str) -> ProcessingDoc {
        ProcessingDoc {
            name: name.into(),
            image: ImageRef {
                layout: "/var/lib/prism/images/base".into(),
                tag: "latest".into(),
                stored: None,
            },
            cpus: 0.5,
            memory_mib: 128,
            pids: 64,
            interfaces: vec![InterfaceDoc {
                port: "p0".into(),
                vlan: 100,
                addresses: vec!["10.1.0.5/24".into()],
                gateway: Some("10.1.0.1".into()),
                gateway_mac: None,
                unplugged: false,
                dhcp: false,
                rate_mbps: None,
            }],
            command: None,
            authorized_keys: Vec::new(),
        }
    }

    #[test]
    fn a_bad_document_is_refused_at_its_field() {
        let ok = ProcessingState {
            generation: 1,
            scope: "pp-".into(),
            nodes: vec![node("pp-a"), node("pp-b")],
        };
        assert_eq!(ok.check(), Ok(()));
        let field = |f: &dyn Fn(&mut ProcessingState)| {
            let mut s = ok.clone();
            f(&mut s);
            s.check().unwrap_err().field.unwrap()
        };
        assert_eq!(field(&|s| s.nodes[1].name = "web".into()), "nodes[1].name");
        assert_eq!(field(&|s| s.nodes[1].name = "pp-a".into()), "nodes[1].name");
        assert_eq!(field(&|s| s.nodes[0].name = "pp-A".into()), "nodes[0].name");
        assert_eq!(field(&|s| s.nodes[0].cpus = 0.0), "nodes[0].cpus");
        assert_eq!(field(&|s| s.nodes[0].memory_mib = 1), "nodes[0].memory_mib");
        assert_eq!(
            field(&|s| s.nodes[1].interfaces[0].vlan = 0),
            "nodes[1].interfaces[0].vlan"
        );
        assert_eq!(
            field(&|s| s.nodes[1].interfaces[0].addresses = vec!["10.1.0.5".into()]),
            "nodes[1].interfaces[0].addresses"
        );
        assert_eq!(
            field(&|s| {
                let again = s.nodes[0].interfaces[0].clone();
                s.nodes[0].interfaces.push(again)
            }),
            "nodes[0].interfaces"
        );
        assert_eq!(field(&|s| s.scope.clear()), "scope");
        let mut out = ok.clone();
        (
            out.nodes[1].interfaces[0].vlan,
            out.nodes[1].interfaces[0].unplugged,
        ) = (0, true);
        assert_eq!(out.check(), Ok(()), "no VLAN for an interface unplugged");
    }

    #[test]
    fn a_document_rewired_is_the_same_but_for_its_wiring() {
        let a = node("pp-a");
        let mut b = a.clone();
        (b.interfaces[0].vlan, b.interfaces[0].unplugged) = (0, true);
        assert!(a.same_but_wiring(&b) && b.same_but_wiring(&a));
        b.interfaces[0].addresses.clear();
        assert!(!a.same_but_wiring(&b), "an address changed is no rewiring");
    }

    #[test]
    fn unknown_fields_are_refused_by_name() {
        let e = prism_netdoc::from_json::<ProcessingState>(
            br#"{"generation": 1, "scope": "pp-", "privileged": true}"#,
        )
        .unwrap_err();
        assert!(e.message.contains("privileged"), "{}", e.message);
    }
}
