//! Packet I/O for Prism: the one crate that touches files and the operating
//! system. The pipeline crate does none.
//!
//! - [`pcap`]: read pcap and pcapng captures per ingress port, write pcap.
//! - [`afpacket`]: AF_PACKET ports with a TPACKET_V3 receive ring (Linux).
//! - [`xdp`] and [`bpf`]: AF_XDP ports (UMEM, rings) and the XDP program
//!   that redirects an interface's frames to them.
//! - [`port`]: either kind behind one type, and the choice between them.
//! - [`seqpacket`]: a Unix sequenced-packet client (DPDK's telemetry socket).
//! - [`sys`]: signals, thread pinning.
//! - [`netns`]: network namespaces, veth pairs, sysctls (iproute2).
//! - [`container`]: software-tier containers (namespace + veth + cgroup).
//! - [`oci`]: processing nodes' containers: OCI runtime specs, seccomp
//!   profiles, Debian's `runc`.

pub mod afpacket;
pub mod bpf;
pub mod capture;
pub mod container;
pub mod datasets;
pub mod instance;
pub mod netns;
pub mod oci;
pub mod pcap;
pub mod port;
pub mod program;
pub mod seqpacket;
pub mod sys;
pub mod xdp;
