//! Packet I/O for Prism. This crate holds the code that touches files and
//! (later) the operating system; the pipeline crate does none.
//!
//! - [`pcap`]: read pcap and pcapng captures per ingress port, write pcap.

pub mod pcap;
