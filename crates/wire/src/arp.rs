//! ARP for IPv4 over Ethernet (RFC 826).

use crate::{Error, EthernetAddress, Ipv4Address, Result};

mod field {
    use crate::field::Field;
    pub const HTYPE: Field = 0..2;
    pub const PTYPE: Field = 2..4;
    pub const HLEN: usize = 4;
    pub const PLEN: usize = 5;
    pub const OPER: Field = 6..8;
    pub const SHA: Field = 8..14;
    pub const SPA: Field = 14..18;
    pub const THA: Field = 18..24;
    pub const TPA: Field = 24..28;
}

/// Length of an Ethernet/IPv4 ARP packet.
pub const PACKET_LEN: usize = 28;

/// A view of an ARP packet.
#[derive(Debug, Clone)]
pub struct ArpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

fn be16(d: &[u8]) -> u16 {
    u16::from_be_bytes([d[0], d[1]])
}

impl<T: AsRef<[u8]>> ArpPacket<T> {
    pub const fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }

    /// Checks the length and that it is Ethernet/IPv4 ARP, the only kind Prism reads.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let b = buffer.as_ref();
        if b.len() < PACKET_LEN {
            return Err(Error::Truncated);
        }
        if be16(&b[field::HTYPE]) != 1
            || be16(&b[field::PTYPE]) != 0x0800
            || b[field::HLEN] != 6
            || b[field::PLEN] != 4
        {
            return Err(Error::Unsupported);
        }
        Ok(Self { buffer })
    }

    pub fn operation(&self) -> u16 {
        be16(&self.buffer.as_ref()[field::OPER])
    }
    pub fn sender_hardware_addr(&self) -> EthernetAddress {
        let mut a = [0; 6];
        a.copy_from_slice(&self.buffer.as_ref()[field::SHA]);
        EthernetAddress(a)
    }
    pub fn sender_protocol_addr(&self) -> Ipv4Address {
        Ipv4Address::from_bytes(&self.buffer.as_ref()[field::SPA])
    }
    pub fn target_hardware_addr(&self) -> EthernetAddress {
        let mut a = [0; 6];
        a.copy_from_slice(&self.buffer.as_ref()[field::THA]);
        EthernetAddress(a)
    }
    pub fn target_protocol_addr(&self) -> Ipv4Address {
        Ipv4Address::from_bytes(&self.buffer.as_ref()[field::TPA])
    }
}

/// The owned form of an Ethernet/IPv4 ARP packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArpRepr {
    pub operation: u16,
    pub sender_hardware_addr: EthernetAddress,
    pub sender_protocol_addr: Ipv4Address,
    pub target_hardware_addr: EthernetAddress,
    pub target_protocol_addr: Ipv4Address,
}

impl ArpRepr {
    pub const REQUEST: u16 = 1;
    pub const REPLY: u16 = 2;

    pub fn parse<T: AsRef<[u8]>>(p: &ArpPacket<T>) -> Result<Self> {
        Ok(Self {
            operation: p.operation(),
            sender_hardware_addr: p.sender_hardware_addr(),
            sender_protocol_addr: p.sender_protocol_addr(),
            target_hardware_addr: p.target_hardware_addr(),
            target_protocol_addr: p.target_protocol_addr(),
        })
    }

    pub const fn buffer_len(&self) -> usize {
        PACKET_LEN
    }

    /// Writes the packet into the first [`PACKET_LEN`] bytes of `buf`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        if buf.len() < PACKET_LEN {
            return Err(Error::Truncated);
        }
        buf[field::HTYPE].copy_from_slice(&1u16.to_be_bytes());
        buf[field::PTYPE].copy_from_slice(&0x0800u16.to_be_bytes());
        buf[field::HLEN] = 6;
        buf[field::PLEN] = 4;
        buf[field::OPER].copy_from_slice(&self.operation.to_be_bytes());
        buf[field::SHA].copy_from_slice(&self.sender_hardware_addr.0);
        buf[field::SPA].copy_from_slice(&self.sender_protocol_addr.0);
        buf[field::THA].copy_from_slice(&self.target_hardware_addr.0);
        buf[field::TPA].copy_from_slice(&self.target_protocol_addr.0);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // An ARP request "who has 10.0.0.2, tell 10.0.0.1".
    static REQ: [u8; 28] = [
        0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01, //
        0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 10, 0, 0, 1, //
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 10, 0, 0, 2,
    ];

    #[test]
    fn decode_encode() {
        let p = ArpPacket::new_checked(&REQ[..]).unwrap();
        let r = ArpRepr::parse(&p).unwrap();
        assert_eq!(r.operation, ArpRepr::REQUEST);
        assert_eq!(r.sender_protocol_addr, Ipv4Address([10, 0, 0, 1]));
        assert_eq!(r.target_protocol_addr, Ipv4Address([10, 0, 0, 2]));
        assert_eq!(r.sender_hardware_addr, EthernetAddress([2, 0, 0, 0, 0, 1]));
        let mut out = [0xffu8; 28];
        r.emit(&mut out).unwrap();
        assert_eq!(out, REQ);
    }

    #[test]
    fn rejects() {
        assert_eq!(
            ArpPacket::new_checked(&REQ[..27]).unwrap_err(),
            Error::Truncated
        );
        let mut v = REQ;
        v[1] = 6; // IEEE 802 hardware type
        assert_eq!(
            ArpPacket::new_checked(&v[..]).unwrap_err(),
            Error::Unsupported
        );
    }
}
