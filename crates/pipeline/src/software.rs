//! The software tier's side of the data plane: the channels that hand
//! packets to software routers, Prism's own software router (the hardware
//! tier's forwarding, one packet at a time), and the tunnel boundary of a
//! container whose router cannot handle IPIP. It may use `fast`, never
//! `control`.

pub mod boundary;
pub mod channels;
pub mod router;
