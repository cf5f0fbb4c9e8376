//! IPv4 and IPv6 prefixes: the wire crate's (the document names them too), here
//! for the tables' callers.

pub use prism_wire::prefix::{Ipv4Prefix, PrefixError, mask};
pub use prism_wire::prefix6::{Ipv6Prefix, Prefix6Error, mask6};
