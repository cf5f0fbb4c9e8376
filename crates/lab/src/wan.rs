//! `prism demo --wan`: three nodes whose WAN ports share a bridge
//! (`demo`), the frames between every pair of hosts (`traffic`), the
//! gateway against an Internet host (`gateway`), public MACs
//! (`public_mac`), VANI Table 2's rates (`rates`), and a node killed and
//! started again under traffic (`faults`).

pub mod demo;
mod faults;
mod gateway;
pub mod public_mac;
pub mod rates;
mod traffic;
