//! IPv4 prefixes: the wire crate's (the document names them too), here
//! for the tables' callers.

pub use prism_wire::prefix::{Ipv4Prefix, PrefixError, mask};
