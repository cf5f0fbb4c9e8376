//! The wide-area side of the data plane (paper 002 §5): IPIP and Q-in-Q
//! tunnels on a node's WAN ports, the gateway's outgoing NAT and public
//! addresses, and public MACs. Stages and tables the fast path runs; it
//! may use `fast`'s packets, actions and reasons, never `control`.

pub(crate) mod gateway;
pub mod nat;
pub(crate) mod public_mac;
pub mod tunnels;
