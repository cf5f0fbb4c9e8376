//! Packet formats for Prism, in the style of smoltcp's `wire` module.
//!
//! Each header has a zero-copy view (`XxxPacket<T: AsRef<[u8]>>`) with
//! `new_checked`, field accessors and setters, and an owned `XxxRepr` with
//! `parse`, `emit` and `buffer_len`. Nothing here allocates or panics on any
//! input: every length is checked before a byte is read.
//!
//! [`parse_frame`] extracts the classification key the pipeline runs on.

// No unsafe code, but for one call: the checksum's bulk loop compiled
// for AVX2 is called only once the CPU is known to have it
// (`checksum::sum_blocks`), and its test.
#![deny(unsafe_code)]

pub mod arp;
pub mod checksum;
pub mod dhcpv4;
pub mod ethernet;
/// Fuzz bodies: for the fuzz targets (feature `fuzzing`) and the
/// crate's own tests, not the product's API.
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzz;
pub mod icmp;
pub mod icmpv6;
pub mod ipv4;
pub mod ipv6;
#[cfg(test)]
mod ipv6_oracle;
pub mod ipv6ext;
pub mod key;
pub mod pcapng;
pub mod ports;
pub mod prefix;
pub mod prefix6;
pub mod tcp;
pub mod udp;
pub mod vlan;

pub use arp::{ArpPacket, ArpRepr};
pub use ethernet::{EthernetAddress, EthernetFrame, EthernetRepr, ethertype};
pub use icmp::{Icmpv4Packet, Icmpv4Repr};
pub use icmpv6::{Icmpv6Packet, Icmpv6Repr};
pub use ipv4::{Ipv4Address, Ipv4Packet, Ipv4Repr, protocol};
pub use ipv6::{Ipv6Address, Ipv6Packet, Ipv6Repr};
pub use ipv6ext::{Chain, ChainError, ExtHeader, FragmentRepr};
pub use key::{
    FlowKey, Malformed, PacketInfo, PlainIpv4, VLAN_PRESENT, parse_frame, parse_frame_into,
    plain_ipv4, plain_ipv4_key,
};
pub use ports::PortRange;
pub use prefix::{Ipv4Prefix, PrefixError};
pub use prefix6::{Ipv6Prefix, Prefix6Error};
pub use tcp::{TcpPacket, TcpRepr};
pub use udp::{UdpPacket, UdpRepr};
pub use vlan::{VlanRepr, VlanTag};

pub(crate) mod field {
    pub type Field = core::ops::Range<usize>;
}

/// Why a header could not be read or written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// The buffer is shorter than the header says it is.
    Truncated,
    /// A well-formed header of a kind Prism does not handle.
    Unsupported,
    /// Text that is not an address.
    Syntax,
    BadVersion,
    BadHeaderLength,
    BadTotalLength,
    BadLength,
    BadChecksum,
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Error::Truncated => "truncated",
            Error::Unsupported => "unsupported",
            Error::Syntax => "syntax error",
            Error::BadVersion => "bad version",
            Error::BadHeaderLength => "bad header length",
            Error::BadTotalLength => "bad total length",
            Error::BadLength => "bad length",
            Error::BadChecksum => "bad checksum",
        })
    }
}

impl std::error::Error for Error {}

pub type Result<T> = core::result::Result<T, Error>;
