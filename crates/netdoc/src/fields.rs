//! Field types of network documents: values written as text in a scenario
//! file or a JSON body (prefixes, MAC and IPv4 addresses, rates, port
//! ranges, VLAN IDs), each parsed with a message naming what it expected.
//!
//! Every type serializes back to the text (or number) it was read from, so
//! a document read from JSON can be written as TOML and read again.

use prism_wire::{EthernetAddress, Ipv4Prefix, PortRange};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type};
use utoipa::openapi::{KnownFormat, RefOr, SchemaFormat};

/// A field written either as a number or as text.
#[derive(Deserialize)]
#[serde(untagged)]
enum NumOrText<N> {
    Num(N),
    Text(String),
}

fn string_schema(description: &str, example: &str) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(SchemaType::Type(Type::String))
        .description(Some(description))
        .examples([example])
        .into()
}

fn int_or_string(description: &str, example: &str) -> RefOr<Schema> {
    OneOfBuilder::new()
        .item(
            ObjectBuilder::new()
                .schema_type(SchemaType::Type(Type::Integer))
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
                .minimum(Some(0)),
        )
        .item(ObjectBuilder::new().schema_type(SchemaType::Type(Type::String)))
        .description(Some(description))
        .examples([example])
        .into()
}

/// Declares a newtype read from text with `FromStr` and written with `Display`.
macro_rules! text_field {
    ($(#[$m:meta])* $name:ident($inner:ty), $what:literal, $example:literal) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $name(pub $inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                s.parse::<$inner>().map(Self).map_err(|e| {
                    serde::de::Error::custom(format!(concat!("bad ", $what, " `{}`: {}"), s, e))
                })
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(&self.0)
            }
        }

        impl utoipa::PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                string_schema(concat!("A ", $what), $example)
            }
        }

        impl utoipa::ToSchema for $name {}
    };
}

text_field!(
    /// An IPv4 prefix with no host bits set: `10.0.0.0/8`.
    Prefix(Ipv4Prefix),
    "prefix",
    "10.0.2.0/24"
);
text_field!(
    /// A MAC address: `02:00:00:00:00:01`.
    Mac(EthernetAddress),
    "MAC address",
    "02:50:00:00:00:01"
);
text_field!(
    /// A block of unicast MACs: `02:0b:00:00:00:00/40`, the first 40 bits
    /// fixed (24 to 48; a node's pool of public MACs).
    MacPool(MacBlock),
    "MAC block",
    "02:0b:00:00:00:00/40"
);
text_field!(
    /// An IPv4 address: `192.0.2.1`.
    Addr(std::net::Ipv4Addr),
    "IPv4 address",
    "192.0.2.1"
);

/// A port reference: a name from the node's ports, or an index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PortRef {
    Index(u16),
    Name(String),
}

impl fmt::Display for PortRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PortRef::Index(i) => write!(f, "{i}"),
            PortRef::Name(n) => write!(f, "`{n}`"),
        }
    }
}

impl utoipa::PartialSchema for PortRef {
    fn schema() -> RefOr<Schema> {
        int_or_string("A port: its name, or its index", "b")
    }
}

impl utoipa::ToSchema for PortRef {}

/// An inclusive range of L4 ports: `80` or `"1024-65535"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ports(pub PortRange);

impl<'de> Deserialize<'de> for Ports {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match NumOrText::<u16>::deserialize(d)? {
            NumOrText::Num(n) => Ok(Self(PortRange::exact(n))),
            NumOrText::Text(s) => {
                let err = || {
                    serde::de::Error::custom(format!(
                        "`{s}` is not a port or a range `lo-hi` of ports 0-65535"
                    ))
                };
                let (lo, hi) = s.split_once('-').ok_or_else(err)?;
                let (lo, hi): (u16, u16) = (
                    lo.trim().parse().map_err(|_| err())?,
                    hi.trim().parse().map_err(|_| err())?,
                );
                if lo > hi {
                    return Err(err());
                }
                Ok(Self(PortRange { lo, hi }))
            }
        }
    }
}

impl Serialize for Ports {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let PortRange { lo, hi } = self.0;
        if lo == hi {
            s.serialize_u16(lo)
        } else {
            s.collect_str(&format_args!("{lo}-{hi}"))
        }
    }
}

impl utoipa::PartialSchema for Ports {
    fn schema() -> RefOr<Schema> {
        int_or_string("An L4 port, or an inclusive range `lo-hi`", "1024-65535")
    }
}

impl utoipa::ToSchema for Ports {}

/// A bit rate in bit/s: a number, or text such as `"100Mbit"` or `"1.5Gbit"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate(pub u64);

/// Parses `100Mbit`, `1.5 Gbit`, `64000`: bit/s, with an optional unit.
pub fn parse_rate(s: &str) -> Option<u64> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mul) = [("gbit", 1e9), ("mbit", 1e6), ("kbit", 1e3), ("bit", 1.0)]
        .iter()
        .find_map(|(suf, m)| t.strip_suffix(suf).map(|n| (n.trim().to_string(), *m)))
        .unwrap_or((t.clone(), 1.0));
    let v: f64 = num.parse().ok()?;
    (v.is_finite() && v > 0.0).then_some((v * mul) as u64)
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match NumOrText::<u64>::deserialize(d)? {
            NumOrText::Num(n) => Ok(Self(n)),
            NumOrText::Text(s) => parse_rate(&s).map(Self).ok_or_else(|| {
                serde::de::Error::custom(format!(
                    "bad rate `{s}`: use bit/s or a number with kbit, Mbit or Gbit"
                ))
            }),
        }
    }
}

impl Serialize for Rate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

impl utoipa::PartialSchema for Rate {
    fn schema() -> RefOr<Schema> {
        int_or_string(
            "A rate in bit/s, or text with a unit (kbit, Mbit, Gbit)",
            "100Mbit",
        )
    }
}

impl utoipa::ToSchema for Rate {}

/// A VLAN to match: an ID 0-4095, or `"none"` for untagged frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vlan(pub Option<u16>);

impl<'de> Deserialize<'de> for Vlan {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match NumOrText::<u16>::deserialize(d)? {
            NumOrText::Num(n) if n < 4096 => Ok(Self(Some(n))),
            NumOrText::Text(s) if s == "none" => Ok(Self(None)),
            _ => Err(serde::de::Error::custom(
                "a VLAN is an ID from 0 to 4095, or \"none\" for untagged",
            )),
        }
    }
}

impl Serialize for Vlan {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(v) => s.serialize_u16(v),
            None => s.serialize_str("none"),
        }
    }
}

impl utoipa::PartialSchema for Vlan {
    fn schema() -> RefOr<Schema> {
        int_or_string("A VLAN ID 0-4095, or \"none\" for untagged frames", "10")
    }
}

impl utoipa::ToSchema for Vlan {}

/// `N` bytes written as `2N` hex digits.
pub fn hex_key<const N: usize>(s: &str) -> Option<[u8; N]> {
    let mut out = [0u8; N];
    hex::decode_to_slice(s.trim(), &mut out).ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("100Mbit"), Some(100_000_000));
        assert_eq!(parse_rate("1.5 Gbit"), Some(1_500_000_000));
        assert_eq!(parse_rate("64000"), Some(64_000));
        assert_eq!(parse_rate("-1Mbit"), None);
        assert_eq!(parse_rate("fast"), None);
    }

    #[test]
    fn fields_round_trip_through_json() {
        let p: Ports = serde_json::from_str("\"1024-65535\"").unwrap();
        assert_eq!(serde_json::to_string(&p).unwrap(), "\"1024-65535\"");
        let p: Ports = serde_json::from_str("80").unwrap();
        assert_eq!(serde_json::to_string(&p).unwrap(), "80");
        assert!(serde_json::from_str::<Ports>("\"9-1\"").is_err());
        let v: Vlan = serde_json::from_str("\"none\"").unwrap();
        assert_eq!(serde_json::to_string(&v).unwrap(), "\"none\"");
        assert!(serde_json::from_str::<Vlan>("4096").is_err());
        let m: Mac = serde_json::from_str("\"02:50:00:01:00:02\"").unwrap();
        assert_eq!(serde_json::to_string(&m).unwrap(), "\"02:50:00:01:00:02\"");
        let e = serde_json::from_str::<Prefix>("\"10.0.0.1/8\"").unwrap_err();
        assert!(e.to_string().contains("bad prefix `10.0.0.1/8`"), "{e}");
        let r: Rate = serde_json::from_str("\"5Mbit\"").unwrap();
        assert_eq!(r, Rate(5_000_000));
        assert_eq!(hex_key::<2>("0aFF"), Some([0x0a, 0xff]));
        assert_eq!(hex_key::<2>("0aF"), None);
    }
}

/// A block of MACs: the first `len` bits of `base` fixed (a MAC "prefix",
/// as OpenFlow's masked MAC matches write one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MacBlock {
    pub base: [u8; 6],
    pub len: u8,
}

impl MacBlock {
    /// The block's `i`-th MAC, if it has one.
    pub fn nth(&self, i: u64) -> Option<[u8; 6]> {
        let size = 1u64 << (48 - u32::from(self.len));
        (i < size).then(|| {
            let mut b = [0u8; 8];
            b[2..].copy_from_slice(&self.base);
            let m = (u64::from_be_bytes(b) + i).to_be_bytes();
            [m[2], m[3], m[4], m[5], m[6], m[7]]
        })
    }

    /// How many MACs it holds.
    pub fn size(&self) -> u64 {
        1u64 << (48 - u32::from(self.len))
    }
}

impl std::str::FromStr for MacBlock {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (mac, len) = s
            .split_once('/')
            .ok_or("expected MAC/length, e.g. 02:0b:00:00:00:00/40")?;
        let base: EthernetAddress = mac.parse().map_err(|_| format!("`{mac}` is not a MAC"))?;
        let len: u8 = len
            .parse()
            .ok()
            .filter(|l| (24..=48).contains(l))
            .ok_or("the length is 24 to 48 bits")?;
        let mut b = [0u8; 8];
        b[2..].copy_from_slice(&base.0);
        let host_bits = u64::from_be_bytes(b) & ((1u64 << (48 - u32::from(len))) - 1);
        if host_bits != 0 {
            return Err(format!("bits past the first {len} are set"));
        }
        if base.0[0] & 1 != 0 {
            return Err("a group (multicast) block; hosts' MACs are unicast".into());
        }
        Ok(Self { base: base.0, len })
    }
}

impl fmt::Display for MacBlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", EthernetAddress(self.base), self.len)
    }
}

#[cfg(test)]
mod mac_block_tests {
    use super::MacBlock;

    #[test]
    fn a_block_reads_counts_and_refuses() {
        let b: MacBlock = "02:0b:00:00:00:00/44".parse().unwrap();
        assert_eq!(b.size(), 16);
        assert_eq!(b.nth(15), Some([2, 0xb, 0, 0, 0, 0xf]));
        assert_eq!(b.nth(16), None);
        assert_eq!(b.to_string(), "02:0b:00:00:00:00/44");
        for bad in [
            "02:0b:00:00:00:01/44",
            "03:0b:00:00:00:00/40",
            "02:0b:00:00:00:00/23",
            "02:0b:00:00:00:00",
        ] {
            assert!(bad.parse::<MacBlock>().is_err(), "{bad}");
        }
    }
}
