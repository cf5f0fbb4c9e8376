//! IPv6 prefixes in CIDR notation (RFC 4291 §2.3), as [`crate::prefix`]
//! is for IPv4: the tables match them, the network document will name them.

use core::fmt;
use core::str::FromStr;

/// An IPv6 prefix: the address has no bits set past `len`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Ipv6Prefix {
    addr: u128,
    len: u8,
}

/// Why an IPv6 prefix could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prefix6Error {
    BadAddress(String),
    BadLength(String),
    HostBitsSet(String, u8, Ipv6Prefix),
}

impl fmt::Display for Prefix6Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadAddress(a) => write!(f, "`{a}` is not an IPv6 address"),
            Self::BadLength(l) => write!(f, "prefix length `{l}` is not a number from 0 to 128"),
            Self::HostBitsSet(s, len, p) => {
                write!(f, "`{s}` has bits set past its /{len} (did you mean {p}?)")
            }
        }
    }
}

impl std::error::Error for Prefix6Error {}

/// The netmask of a prefix length (0..=128).
#[inline]
pub const fn mask6(len: u8) -> u128 {
    if len == 0 {
        0
    } else {
        u128::MAX << (128 - len as u32)
    }
}

#[allow(clippy::len_without_is_empty)] // `len` is the prefix length, not a size
impl Ipv6Prefix {
    /// A prefix; bits past `len` are cleared. `len` is capped at 128.
    pub const fn new(addr: u128, len: u8) -> Self {
        let len = if len > 128 { 128 } else { len };
        Self {
            addr: addr & mask6(len),
            len,
        }
    }
    pub const fn addr(self) -> u128 {
        self.addr
    }
    pub const fn len(self) -> u8 {
        self.len
    }
    pub const fn mask(self) -> u128 {
        mask6(self.len)
    }
    pub const fn contains(self, addr: u128) -> bool {
        addr & mask6(self.len) == self.addr
    }
    /// Whether `other` lies within this prefix.
    pub const fn covers(self, other: Ipv6Prefix) -> bool {
        other.len >= self.len && self.contains(other.addr)
    }
    /// Parses `addr/len`, or a bare address as a /128; host bits must be
    /// clear.
    pub fn parse_strict(s: &str) -> Result<Self, Prefix6Error> {
        let (addr, len) = split(s)?;
        let p = Self::new(addr, len);
        if addr != p.addr {
            return Err(Prefix6Error::HostBitsSet(s.to_string(), len, p));
        }
        Ok(p)
    }
    /// Parses like [`parse_strict`](Self::parse_strict) but clears host bits.
    pub fn parse_loose(s: &str) -> Result<Self, Prefix6Error> {
        let (addr, len) = split(s)?;
        Ok(Self::new(addr, len))
    }
}

fn split(s: &str) -> Result<(u128, u8), Prefix6Error> {
    let s = s.trim();
    let (a, l) = match s.split_once('/') {
        Some((a, l)) => (a, Some(l)),
        None => (s, None),
    };
    let addr: core::net::Ipv6Addr = a
        .parse()
        .map_err(|_| Prefix6Error::BadAddress(a.to_string()))?;
    let len = match l {
        None => 128,
        Some(l) => match l.parse::<u8>() {
            Ok(n) if n <= 128 => n,
            _ => return Err(Prefix6Error::BadLength(l.to_string())),
        },
    };
    Ok((u128::from(addr), len))
}

impl FromStr for Ipv6Prefix {
    type Err = Prefix6Error;
    fn from_str(s: &str) -> Result<Self, Prefix6Error> {
        Self::parse_strict(s)
    }
}

impl fmt::Display for Ipv6Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", core::net::Ipv6Addr::from(self.addr), self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        let p: Ipv6Prefix = "2001:db8::/32".parse().unwrap();
        assert_eq!((p.addr() >> 96, p.len()), (0x2001_0db8, 32));
        assert_eq!(p.to_string(), "2001:db8::/32");
        assert_eq!("::1".parse::<Ipv6Prefix>().unwrap().len(), 128);
        assert_eq!("::/0".parse::<Ipv6Prefix>().unwrap().mask(), 0);
        assert!(matches!(
            "2001:db8::1/32".parse::<Ipv6Prefix>(),
            Err(Prefix6Error::HostBitsSet(..))
        ));
        assert_eq!(Ipv6Prefix::parse_loose("2001:db8::1/32").unwrap(), p);
        assert!(matches!(
            "2001:db8::/129".parse::<Ipv6Prefix>(),
            Err(Prefix6Error::BadLength(_))
        ));
        assert!(matches!(
            "10.0.0.0/8".parse::<Ipv6Prefix>(),
            Err(Prefix6Error::BadAddress(_))
        ));
        let inside = Ipv6Prefix::new(0x2001_0db8_0001 << 80, 48);
        assert!(p.covers(inside) && !inside.covers(p));
        assert!(p.contains(u128::from(0x2001_0db8_u32) << 96 | 1));
        assert!(!p.contains(u128::from(0x2001_0db9_u32) << 96));
    }
}
