//! IPv4 prefixes in CIDR notation (as smoltcp's `wire::Ipv4Cidr`): the
//! tables match them, the network document names them.

use core::fmt;
use core::str::FromStr;

/// An IPv4 prefix: the address has no bits set past `len`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Ipv4Prefix {
    addr: u32,
    len: u8,
}

/// Why a prefix could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrefixError {
    BadAddress(String),
    BadLength(String),
    HostBitsSet(String, u8, Ipv4Prefix),
}

impl fmt::Display for PrefixError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadAddress(a) => write!(f, "`{a}` is not an IPv4 address"),
            Self::BadLength(l) => write!(f, "prefix length `{l}` is not a number from 0 to 32"),
            Self::HostBitsSet(s, len, p) => {
                write!(f, "`{s}` has bits set past its /{len} (did you mean {p}?)")
            }
        }
    }
}

impl std::error::Error for PrefixError {}

/// The netmask of a prefix length (0..=32).
#[inline]
pub const fn mask(len: u8) -> u32 {
    if len == 0 {
        0
    } else {
        u32::MAX << (32 - len as u32)
    }
}

#[allow(clippy::len_without_is_empty)] // `len` is the prefix length, not a size
impl Ipv4Prefix {
    /// A prefix; bits past `len` are cleared. `len` is capped at 32.
    pub const fn new(addr: u32, len: u8) -> Self {
        let len = if len > 32 { 32 } else { len };
        Self {
            addr: addr & mask(len),
            len,
        }
    }
    pub const fn addr(self) -> u32 {
        self.addr
    }
    pub const fn len(self) -> u8 {
        self.len
    }
    pub const fn is_default(self) -> bool {
        self.len == 0
    }
    pub const fn mask(self) -> u32 {
        mask(self.len)
    }
    pub const fn contains(self, addr: u32) -> bool {
        addr & mask(self.len) == self.addr
    }
    /// Whether `other` lies within this prefix.
    pub const fn covers(self, other: Ipv4Prefix) -> bool {
        other.len >= self.len && self.contains(other.addr)
    }
    /// Parses `a.b.c.d/len`, or a bare address as a /32; host bits must be clear.
    pub fn parse_strict(s: &str) -> Result<Self, PrefixError> {
        let p = Self::parse_loose(s)?;
        let (addr, _) = split(s)?;
        if addr != p.addr {
            return Err(PrefixError::HostBitsSet(s.to_string(), p.len, p));
        }
        Ok(p)
    }
    /// Parses like [`parse_strict`](Self::parse_strict) but clears host bits.
    pub fn parse_loose(s: &str) -> Result<Self, PrefixError> {
        let (addr, len) = split(s)?;
        Ok(Self::new(addr, len))
    }
}

fn split(s: &str) -> Result<(u32, u8), PrefixError> {
    let s = s.trim();
    let (a, l) = match s.split_once('/') {
        Some((a, l)) => (a, Some(l)),
        None => (s, None),
    };
    let addr: core::net::Ipv4Addr = a
        .parse()
        .map_err(|_| PrefixError::BadAddress(a.to_string()))?;
    let len = match l {
        None => 32,
        Some(l) => match l.parse::<u8>() {
            Ok(n) if n <= 32 => n,
            _ => return Err(PrefixError::BadLength(l.to_string())),
        },
    };
    Ok((u32::from(addr), len))
}

impl FromStr for Ipv4Prefix {
    type Err = PrefixError;
    fn from_str(s: &str) -> Result<Self, PrefixError> {
        Self::parse_strict(s)
    }
}

impl fmt::Display for Ipv4Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", core::net::Ipv4Addr::from(self.addr), self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        let p: Ipv4Prefix = "10.1.0.0/16".parse().unwrap();
        assert_eq!((p.addr(), p.len()), (0x0a01_0000, 16));
        assert_eq!(p.to_string(), "10.1.0.0/16");
        assert_eq!("192.0.2.1".parse::<Ipv4Prefix>().unwrap().len(), 32);
        assert_eq!("0.0.0.0/0".parse::<Ipv4Prefix>().unwrap().mask(), 0);
        assert!(matches!(
            "10.1.0.1/16".parse::<Ipv4Prefix>(),
            Err(PrefixError::HostBitsSet(..))
        ));
        assert_eq!(Ipv4Prefix::parse_loose("10.1.0.1/16").unwrap(), p);
        assert!(matches!(
            "10.1.0.0/33".parse::<Ipv4Prefix>(),
            Err(PrefixError::BadLength(_))
        ));
        assert!(matches!(
            "10.1.0/8".parse::<Ipv4Prefix>(),
            Err(PrefixError::BadAddress(_))
        ));
        assert!(p.contains(0x0a01_ffff) && !p.contains(0x0a02_0000));
        assert!(p.covers(Ipv4Prefix::new(0x0a01_0100, 24)) && !p.covers(Ipv4Prefix::new(0, 8)));
    }
}
