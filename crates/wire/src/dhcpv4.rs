//! DHCPv4 (RFC 2131, options RFC 2132): a view of a message and the
//! owned form of a server's reply, as far as a server that hands each
//! client the one address reserved for its MAC needs.

use crate::{Error, EthernetAddress, Ipv4Address, Result};

mod field {
    use crate::field::Field;
    pub const OP: usize = 0;
    pub const HTYPE: usize = 1;
    pub const HLEN: usize = 2;
    pub const XID: Field = 4..8;
    pub const FLAGS: Field = 10..12;
    pub const CIADDR: Field = 12..16;
    pub const YIADDR: Field = 16..20;
    pub const SIADDR: Field = 20..24;
    pub const CHADDR: Field = 28..34;
    pub const MAGIC: Field = 236..240;
    pub const OPTIONS: usize = 240;
}

/// The server's and the client's UDP ports.
pub const SERVER_PORT: u16 = 67;
pub const CLIENT_PORT: u16 = 68;
const MAGIC: [u8; 4] = [99, 130, 83, 99];
const BOOTREQUEST: u8 = 1;
const BOOTREPLY: u8 = 2;

/// Option codes used here (RFC 2132).
pub mod option {
    pub const PAD: u8 = 0;
    pub const SUBNET_MASK: u8 = 1;
    pub const ROUTER: u8 = 3;
    pub const REQUESTED_IP: u8 = 50;
    pub const LEASE_TIME: u8 = 51;
    pub const MESSAGE_TYPE: u8 = 53;
    pub const SERVER_ID: u8 = 54;
    pub const END: u8 = 255;
}

/// Option 53's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageType {
    Discover = 1,
    Offer = 2,
    Request = 3,
    Decline = 4,
    Ack = 5,
    Nak = 6,
    Release = 7,
    Inform = 8,
}

impl MessageType {
    fn from_u8(v: u8) -> Option<Self> {
        use MessageType::*;
        Some(match v {
            1 => Discover,
            2 => Offer,
            3 => Request,
            4 => Decline,
            5 => Ack,
            6 => Nak,
            7 => Release,
            8 => Inform,
            _ => return None,
        })
    }
}

/// A view of a DHCP message (a UDP payload).
#[derive(Debug, Clone)]
pub struct DhcpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

fn addr(b: &[u8]) -> Ipv4Address {
    Ipv4Address([b[0], b[1], b[2], b[3]])
}

impl<T: AsRef<[u8]>> DhcpPacket<T> {
    /// Checks the fixed part, Ethernet's hardware type and length, and
    /// the magic cookie.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let b = buffer.as_ref();
        if b.len() < field::OPTIONS {
            return Err(Error::Truncated);
        }
        if b[field::HTYPE] != 1 || b[field::HLEN] != 6 || b[field::MAGIC] != MAGIC {
            return Err(Error::Unsupported);
        }
        Ok(Self { buffer })
    }
    pub fn is_request(&self) -> bool {
        self.buffer.as_ref()[field::OP] == BOOTREQUEST
    }
    pub fn xid(&self) -> u32 {
        let b = &self.buffer.as_ref()[field::XID];
        u32::from_be_bytes([b[0], b[1], b[2], b[3]])
    }
    pub fn flags(&self) -> u16 {
        let b = &self.buffer.as_ref()[field::FLAGS];
        u16::from_be_bytes([b[0], b[1]])
    }
    pub fn ciaddr(&self) -> Ipv4Address {
        addr(&self.buffer.as_ref()[field::CIADDR])
    }
    pub fn yiaddr(&self) -> Ipv4Address {
        addr(&self.buffer.as_ref()[field::YIADDR])
    }
    pub fn chaddr(&self) -> EthernetAddress {
        let mut m = [0; 6];
        m.copy_from_slice(&self.buffer.as_ref()[field::CHADDR]);
        EthernetAddress(m)
    }
    /// Option `code`'s value, if present and well-formed up to it.
    pub fn option(&self, code: u8) -> Option<&[u8]> {
        let mut o = &self.buffer.as_ref()[field::OPTIONS..];
        while let [c, rest @ ..] = o {
            match *c {
                option::PAD => o = rest,
                option::END => return None,
                c => {
                    let (&len, rest) = rest.split_first()?;
                    let value = rest.get(..usize::from(len))?;
                    if c == code {
                        return Some(value);
                    }
                    o = &rest[usize::from(len)..];
                }
            }
        }
        None
    }
    pub fn message_type(&self) -> Option<MessageType> {
        match self.option(option::MESSAGE_TYPE)? {
            [v] => MessageType::from_u8(*v),
            _ => None,
        }
    }
    /// Option 50, the address a client asks for.
    pub fn requested_ip(&self) -> Option<Ipv4Address> {
        self.option(option::REQUESTED_IP)
            .filter(|v| v.len() == 4)
            .map(addr)
    }
    /// Option 54, the server a client answers.
    pub fn server_id(&self) -> Option<Ipv4Address> {
        self.option(option::SERVER_ID)
            .filter(|v| v.len() == 4)
            .map(addr)
    }
}

/// A server's reply (`Offer`, `Ack` or `Nak`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DhcpReply {
    pub message_type: MessageType,
    pub xid: u32,
    /// The client's broadcast flag, echoed.
    pub flags: u16,
    pub chaddr: EthernetAddress,
    /// The address given (unspecified in a `Nak`).
    pub yiaddr: Ipv4Address,
    pub server: Ipv4Address,
    pub subnet_mask: Ipv4Address,
    pub router: Option<Ipv4Address>,
    pub lease_s: u32,
}

impl DhcpReply {
    /// The fixed part, the cookie, and at most 5 options of 6 bytes and
    /// the end: a message of 300 bytes (BOOTP's minimum, which some
    /// clients want).
    pub const fn buffer_len(&self) -> usize {
        300
    }

    /// Writes the reply over `buf` (at least [`Self::buffer_len`] bytes).
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        let buf = buf.get_mut(..self.buffer_len()).ok_or(Error::Truncated)?;
        buf.fill(0);
        (buf[field::OP], buf[field::HTYPE], buf[field::HLEN]) = (BOOTREPLY, 1, 6);
        buf[field::XID].copy_from_slice(&self.xid.to_be_bytes());
        buf[field::FLAGS].copy_from_slice(&self.flags.to_be_bytes());
        buf[field::YIADDR].copy_from_slice(&self.yiaddr.0);
        buf[field::SIADDR].copy_from_slice(&self.server.0);
        buf[field::CHADDR].copy_from_slice(&self.chaddr.0);
        buf[field::MAGIC].copy_from_slice(&MAGIC);
        let mut at = field::OPTIONS;
        let mut put = |code: u8, value: &[u8]| {
            buf[at] = code;
            buf[at + 1] = value.len() as u8;
            buf[at + 2..at + 2 + value.len()].copy_from_slice(value);
            at += 2 + value.len();
        };
        put(option::MESSAGE_TYPE, &[self.message_type as u8]);
        put(option::SERVER_ID, &self.server.0);
        if self.message_type != MessageType::Nak {
            put(option::LEASE_TIME, &self.lease_s.to_be_bytes());
            put(option::SUBNET_MASK, &self.subnet_mask.0);
            if let Some(r) = self.router {
                put(option::ROUTER, &r.0);
            }
        }
        buf[at] = option::END;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A DHCPDISCOVER laid out by RFC 2131 (with the options udhcpc
    /// sends: type, requested address, maximum size), asking for 10.7.1.2.
    fn discover() -> Vec<u8> {
        let mut m = vec![0u8; 240];
        (m[0], m[1], m[2]) = (1, 1, 6);
        m[4..8].copy_from_slice(&0x1234_5678u32.to_be_bytes());
        m[28..34].copy_from_slice(&[2, 0x70, 1, 2, 3, 0]);
        m[236..240].copy_from_slice(&MAGIC);
        m.extend([53, 1, 1, 0, 50, 4, 10, 7, 1, 2, 57, 2, 2, 64, 255]);
        m
    }

    #[test]
    fn a_discover_is_read_options_and_all() {
        let m = discover();
        let p = DhcpPacket::new_checked(&m[..]).unwrap();
        assert!(p.is_request());
        assert_eq!(p.xid(), 0x1234_5678);
        assert_eq!(p.chaddr(), EthernetAddress([2, 0x70, 1, 2, 3, 0]));
        assert_eq!(p.message_type(), Some(MessageType::Discover));
        assert_eq!(p.requested_ip(), Some(Ipv4Address([10, 7, 1, 2])));
        assert_eq!(p.server_id(), None);
    }

    #[test]
    fn bad_messages_are_refused_or_read_as_far_as_they_go() {
        let m = discover();
        assert_eq!(
            DhcpPacket::new_checked(&m[..239]).unwrap_err(),
            Error::Truncated
        );
        let mut cookie = m.clone();
        cookie[236] = 0;
        assert!(DhcpPacket::new_checked(&cookie[..]).is_err());
        // An option whose length runs past the end: not read, no panic.
        let mut cut = m[..240].to_vec();
        cut.extend([53, 9, 1]);
        let p = DhcpPacket::new_checked(&cut[..]).unwrap();
        assert_eq!(p.message_type(), None);
        for n in 240..m.len() {
            let p = DhcpPacket::new_checked(&m[..n]).unwrap();
            let _ = (p.message_type(), p.requested_ip());
        }
    }

    #[test]
    fn an_offer_is_written_byte_for_byte() {
        let r = DhcpReply {
            message_type: MessageType::Offer,
            xid: 0x1234_5678,
            flags: 0x8000,
            chaddr: EthernetAddress([2, 0x70, 1, 2, 3, 0]),
            yiaddr: Ipv4Address([10, 7, 1, 2]),
            server: Ipv4Address([10, 7, 1, 1]),
            subnet_mask: Ipv4Address([255, 255, 255, 0]),
            router: Some(Ipv4Address([10, 7, 1, 1])),
            lease_s: 86_400,
        };
        let mut buf = [0xaa; 300];
        r.emit(&mut buf).unwrap();
        assert_eq!(
            &buf[..12],
            &[2, 1, 6, 0, 0x12, 0x34, 0x56, 0x78, 0, 0, 0x80, 0]
        );
        assert_eq!(&buf[16..24], &[10, 7, 1, 2, 10, 7, 1, 1]);
        assert_eq!(
            &buf[240..268],
            &[
                53, 1, 2, 54, 4, 10, 7, 1, 1, 51, 4, 0, 1, 0x51, 0x80, 1, 4, 255, 255, 255, 0, 3,
                4, 10, 7, 1, 1, 255
            ]
        );
        let p = DhcpPacket::new_checked(&buf[..]).unwrap();
        assert!(!p.is_request());
        assert_eq!(p.message_type(), Some(MessageType::Offer));
        assert_eq!(p.yiaddr(), r.yiaddr);
        assert_eq!(p.server_id(), Some(r.server));
    }
}
