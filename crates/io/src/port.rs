//! A live port of either kind, AF_XDP or AF_PACKET, behind one interface, and
//! the choice between them.
//!
//! `IoChoice::Auto` tries AF_XDP first (one socket per receive queue, native
//! hook, zero-copy where the driver has it) and falls back to an AF_PACKET
//! ring when the kernel, the driver or the privileges refuse, saying why.

use crate::afpacket::{PacketPort, PortStats, RingConfig, RxFrame};
use crate::xdp::{XdpConfig, XdpPort, rx_queues};
use std::io;
use std::os::fd::{AsRawFd, RawFd};

/// Which socket family to receive with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IoChoice {
    /// AF_XDP where it works, else AF_PACKET.
    #[default]
    Auto,
    /// AF_XDP only (an error if it cannot be set up).
    Xdp,
    /// AF_PACKET with a TPACKET_V3 ring.
    Packet,
}

impl IoChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            IoChoice::Auto => "auto",
            IoChoice::Xdp => "xdp",
            IoChoice::Packet => "packet",
        }
    }
}

impl std::str::FromStr for IoChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(IoChoice::Auto),
            "xdp" | "af_xdp" => Ok(IoChoice::Xdp),
            "packet" | "af_packet" => Ok(IoChoice::Packet),
            _ => Err(format!("`{s}`: expected auto, xdp or packet")),
        }
    }
}

/// A port: receives (if opened for it) and transmits.
// Ports are few and live as long as the node: keeping the AF_XDP rings
// inline saves a pointer chase per poll, and the size costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Port {
    Packet(PacketPort),
    Xdp(XdpPort),
}

impl Port {
    /// Calls `f` on up to `max` received frames (AF_PACKET: one ring block).
    pub fn recv(&mut self, max: u32, f: impl FnMut(RxFrame<'_>)) -> usize {
        match self {
            Port::Packet(p) => p.recv_block(f),
            Port::Xdp(p) => p.recv(max, f),
        }
    }

    pub fn send_batch<'a, I>(&mut self, frames: I) -> usize
    where
        I: IntoIterator<Item = &'a [u8]>,
    {
        match self {
            Port::Packet(p) => p.send_batch(frames),
            Port::Xdp(p) => p.send_batch(frames),
        }
    }

    /// Pushes out frames a busy kernel left on an AF_XDP TX ring.
    pub fn flush(&mut self) {
        if let Port::Xdp(p) = self
            && p.tx_pending() > 0
        {
            p.flush();
        }
    }

    /// Refreshes the receive-loss counter and returns the statistics.
    pub fn poll_stats(&mut self) -> PortStats {
        match self {
            Port::Packet(p) => {
                p.poll_drops();
                p.stats
            }
            Port::Xdp(p) => {
                p.poll_drops();
                p.stats
            }
        }
    }

    /// What the port is, for reports: `af_xdp native copy`, `af_packet`.
    pub fn describe(&self) -> String {
        match self {
            Port::Packet(_) => "af_packet".into(),
            Port::Xdp(p) => format!(
                "af_xdp {} {}",
                p.hook().as_str(),
                match p.copy_mode() {
                    crate::xdp::XdpCopy::Copy => "copy",
                    crate::xdp::XdpCopy::ZeroCopy => "zero-copy",
                }
            ),
        }
    }

    /// Waits up to `timeout_ms` for any of `ports` to have frames.
    pub fn wait_any(ports: &[&Port], timeout_ms: i32) -> io::Result<()> {
        crate::afpacket::poll_readable(ports.iter().map(|p| p.as_raw_fd()), timeout_ms)
    }
}

impl AsRawFd for Port {
    fn as_raw_fd(&self) -> RawFd {
        match self {
            Port::Packet(p) => p.as_raw_fd(),
            Port::Xdp(p) => p.as_raw_fd(),
        }
    }
}

/// Receive ports opened on one interface, and what was chosen.
#[derive(Debug)]
pub struct Opened {
    /// One per receive queue with AF_XDP; one ring with AF_PACKET.
    pub ports: Vec<Port>,
    /// Why AF_XDP was not used, if `Auto` fell back.
    pub fallback: Option<String>,
}

/// Opens receiving ports on `iface` as `choice` says.
pub fn open_rx(iface: &str, choice: IoChoice, xdp: &XdpConfig) -> io::Result<Opened> {
    let packet = || -> io::Result<Port> {
        PacketPort::open(iface, Some(RingConfig::default())).map(Port::Packet)
    };
    let try_xdp = || -> io::Result<Vec<Port>> {
        let redirect = XdpPort::attach(iface, xdp)?;
        (0..rx_queues(iface))
            .map(|q| XdpPort::open(iface, q, redirect.clone(), xdp).map(Port::Xdp))
            .collect()
    };
    match choice {
        IoChoice::Packet => Ok(Opened {
            ports: vec![packet()?],
            fallback: None,
        }),
        IoChoice::Xdp => Ok(Opened {
            ports: try_xdp()?,
            fallback: None,
        }),
        IoChoice::Auto => match try_xdp() {
            Ok(ports) => Ok(Opened {
                ports,
                fallback: None,
            }),
            Err(e) => Ok(Opened {
                ports: vec![packet()?],
                fallback: Some(e.to_string()),
            }),
        },
    }
}

/// A transmit-only port on `iface` (AF_PACKET: any number may share an interface).
pub fn open_tx(iface: &str) -> io::Result<Port> {
    PacketPort::open_tx(iface).map(Port::Packet)
}
