//! A processing booking's parameters (VANI's processing resources): the
//! `spec` of a booking of type `processing`, its JSON Schema (the
//! registry's built-in type) and the request `prism ctl book --type
//! processing` makes.

use crate::bookings::BookingRequest;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The resource type's name.
pub const PROCESSING: &str = "processing";

/// A processing node: a container from an image, with an interface on
/// each network it is attached to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProcessingSpec {
    /// An image: one of the project's (`NAME`), one shared with it
    /// (`OWNER/NAME`), or one the node holds (`base`, `NAME:TAG`;
    /// docs/processing.md).
    pub image: String,
    /// The manifest digest (`sha256:…`) of the stored image `image` names,
    /// pinned when it is booked: set by the controller (given, the booking
    /// is refused unless the image has it). A name saved again later names
    /// another image; this booking keeps running the one it was booked
    /// with, or, that one gone, fails naming it. None for an image of the
    /// node's own (`base`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_digest: Option<String>,
    /// The networks it is on (bookings of the project, by name), `eth0`
    /// first. They must be on one node, which runs processing nodes.
    pub attach: Vec<Attachment>,
    /// CPU time, in CPUs (0.5: half of one CPU's time).
    pub cpus: f64,
    pub memory_mib: u64,
    /// At most this many processes and threads (default 512).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pids: Option<u32>,
    /// What it runs (default: the image's own command).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
}

/// One interface: the network and its address there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Attachment {
    /// A network or shared VLAN booking of the project, by name; or a
    /// shared VLAN of another project that invited this one,
    /// `OWNER/NAME`.
    pub network: String,
    /// Its address, CIDR (`10.1.0.5/24`): the network's routes send the
    /// address to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// Its default route's next hop (one interface at most).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway: Option<String>,
    /// The node hands `address` (and `gateway`) to it by DHCP, instead
    /// of setting them in it before it starts: its image runs a DHCP
    /// client (docs/processing.md).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dhcp: bool,
}

/// The type's JSON Schema (draft 2020-12), as the registry lists it.
pub fn schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["image", "attach", "cpus", "memory_mib"],
        "properties": {
            "image": {"type": "string", "pattern": "^([A-Za-z0-9][A-Za-z0-9._-]{0,62}/)?[a-z0-9][a-z0-9._-]{0,62}(:[A-Za-z0-9._-]{1,64})?$"},
            "image_digest": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"},
            "attach": {
                "type": "array", "minItems": 1, "maxItems": 8,
                "items": {
                    "type": "object", "additionalProperties": false, "required": ["network"],
                    "properties": {
                        "network": {"type": "string"},
                        "address": {"type": "string"},
                        "gateway": {"type": "string"},
                        "dhcp": {"type": "boolean"}
                    }
                }
            },
            "cpus": {"type": "number", "exclusiveMinimum": 0, "maximum": 64},
            "memory_mib": {"type": "integer", "minimum": 16, "maximum": 65536},
            "pids": {"type": "integer", "minimum": 8, "maximum": 65536},
            "command": {"type": "array", "items": {"type": "string"}, "minItems": 1}
        }
    })
}

impl BookingRequest {
    /// A processing node's booking, provisioned at once.
    pub fn processing(name: &str, spec: &ProcessingSpec, lease_s: Option<i64>) -> Self {
        Self {
            name: name.to_string(),
            resource_type: PROCESSING.into(),
            spec: serde_json::to_value(spec).unwrap_or_default(),
            bandwidth_mbps: 0,
            lease_s,
            provision: true,
            parts: Vec::new(),
            nat: false,
        }
    }
}

impl ProcessingSpec {
    /// The spec of `prism ctl book --type processing`: `--attach A,B`
    /// with `--address` per network in order (fewer: the rest have none)
    /// and `--gateway` on the first.
    pub fn from_flags(
        image: &str,
        attach: &[String],
        addresses: &[String],
        gateway: Option<&str>,
        (cpus, memory_mib): (f64, u64),
    ) -> Result<Self, String> {
        if attach.is_empty() {
            return Err("--attach: at least one network".into());
        }
        if addresses.len() > attach.len() {
            return Err(format!(
                "{} addresses for {} networks (--address goes with --attach, in order)",
                addresses.len(),
                attach.len()
            ));
        }
        let attach = (attach.iter().enumerate())
            .map(|(i, n)| Attachment {
                network: n.clone(),
                address: addresses.get(i).cloned(),
                gateway: (i == 0).then(|| gateway.map(str::to_string)).flatten(),
                dhcp: false,
            })
            .collect();
        Ok(Self {
            image: image.to_string(),
            image_digest: None,
            attach,
            cpus,
            memory_mib,
            pids: None,
            command: None,
        })
    }
}

/// What `prism ctl book` was given: a network's spec file and bandwidth,
/// or a processing node's flags.
#[derive(Debug, Clone, Default)]
pub struct BookFlags<'a> {
    pub name: &'a str,
    pub resource_type: &'a str,
    pub spec: Option<&'a std::path::Path>,
    pub bandwidth: Option<i64>,
    pub lease_s: Option<i64>,
    pub hold: bool,
    pub nat: bool,
    pub image: Option<&'a str>,
    pub attach: &'a [String],
    pub addresses: &'a [String],
    pub gateway: Option<&'a str>,
    pub cpus: f64,
    pub memory_mib: u64,
    /// A shared VLAN's node.
    pub node: Option<&'a str>,
    /// Addresses handed out by DHCP (each attachment that has one).
    pub dhcp: bool,
}

impl BookFlags<'_> {
    /// The request the flags make, or what is wrong with them.
    pub fn request(&self) -> Result<BookingRequest, String> {
        let mut r = match self.resource_type {
            PROCESSING => self.processing()?,
            crate::SHARED_VLAN => {
                if self.spec.is_some() || self.bandwidth.is_some() || self.image.is_some() {
                    return Err("a shared VLAN takes no --spec, --bandwidth or --image".into());
                }
                BookingRequest::shared_vlan(self.name, self.node, self.lease_s)
            }
            "network" => {
                let (Some(spec), Some(bw)) = (self.spec, self.bandwidth) else {
                    return Err("a network needs --spec FILE and --bandwidth MBIT".into());
                };
                BookingRequest::from_spec_file(self.name, spec, bw, self.lease_s)?
            }
            t => {
                return Err(format!(
                    "--type {t}: `network`, `processing` or `shared-vlan` (others through the API)"
                ));
            }
        };
        r.nat = self.nat;
        r.provision = !self.hold;
        Ok(r)
    }

    fn processing(&self) -> Result<BookingRequest, String> {
        if self.spec.is_some() || self.bandwidth.is_some() || self.nat || self.node.is_some() {
            return Err("a processing node takes no --spec, --bandwidth, --nat or --node".into());
        }
        let image = self.image.ok_or("a processing node needs --image")?;
        let flags = (self.cpus, self.memory_mib);
        let mut spec =
            ProcessingSpec::from_flags(image, self.attach, self.addresses, self.gateway, flags)?;
        if self.dhcp {
            if self.addresses.is_empty() {
                return Err("--dhcp hands out the --address given: give one".into());
            }
            for a in spec.attach.iter_mut().filter(|a| a.address.is_some()) {
                a.dhcp = true;
            }
        }
        Ok(BookingRequest::processing(self.name, &spec, self.lease_s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_make_the_spec_the_schema_takes() {
        let s = ProcessingSpec::from_flags(
            "base",
            &["lan".into(), "wan".into()],
            &["10.1.0.5/24".into()],
            Some("10.1.0.1"),
            (0.5, 256),
        )
        .unwrap();
        assert_eq!(s.attach[0].address.as_deref(), Some("10.1.0.5/24"));
        assert_eq!(s.attach[0].gateway.as_deref(), Some("10.1.0.1"));
        assert_eq!(
            (s.attach[1].address.as_ref(), s.attach[1].gateway.as_ref()),
            (None, None)
        );
        let v = serde_json::to_value(&s).unwrap();
        let schema = schema();
        assert!(v.is_object() && schema["required"].as_array().unwrap().len() == 4);
        assert!(ProcessingSpec::from_flags("base", &[], &[], None, (1.0, 64)).is_err());
        let e = ProcessingSpec::from_flags(
            "base",
            &["a".into()],
            &["x".into(), "y".into()],
            None,
            (1.0, 64),
        );
        assert!(e.unwrap_err().contains("2 addresses for 1"));
    }
}
