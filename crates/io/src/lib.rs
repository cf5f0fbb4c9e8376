//! Packet I/O for Prism: the one crate that touches files and the operating
//! system. The pipeline crate does none.
//!
//! - [`pcap`]: read pcap and pcapng captures per ingress port, write pcap.
//! - [`afpacket`]: AF_PACKET ports with a TPACKET_V3 receive ring (Linux).
//! - [`netns`]: network namespaces, veth pairs, sysctls (iproute2).
//! - [`container`]: software-tier containers (namespace + veth + cgroup).

pub mod afpacket;
pub mod container;
pub mod netns;
pub mod pcap;
