//! Ethernet II frames (IEEE 802.3 with an EtherType).

use crate::{Error, Result};
use core::fmt;

/// A 48-bit MAC address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct EthernetAddress(pub [u8; 6]);

impl EthernetAddress {
    pub const BROADCAST: Self = Self([0xff; 6]);

    /// The address as the low 48 bits of a u64 (for classifier keys).
    pub fn to_u64(self) -> u64 {
        let b = self.0;
        u64::from_be_bytes([0, 0, b[0], b[1], b[2], b[3], b[4], b[5]])
    }

    pub fn from_u64(v: u64) -> Self {
        let b = v.to_be_bytes();
        Self([b[2], b[3], b[4], b[5], b[6], b[7]])
    }
}

impl fmt::Display for EthernetAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        write!(
            f,
            "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
            b[0], b[1], b[2], b[3], b[4], b[5]
        )
    }
}

impl core::str::FromStr for EthernetAddress {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let mut out = [0u8; 6];
        let mut parts = s.split([':', '-']);
        for b in &mut out {
            let p = parts.next().ok_or(Error::Syntax)?;
            if p.len() != 2 {
                return Err(Error::Syntax);
            }
            *b = u8::from_str_radix(p, 16).map_err(|_| Error::Syntax)?;
        }
        if parts.next().is_some() {
            return Err(Error::Syntax);
        }
        Ok(Self(out))
    }
}

/// EtherType values Prism knows by name.
pub mod ethertype {
    pub const IPV4: u16 = 0x0800;
    pub const ARP: u16 = 0x0806;
    pub const VLAN: u16 = 0x8100;
    pub const QINQ: u16 = 0x88a8;
    pub const IPV6: u16 = 0x86dd;
    pub const MPLS: u16 = 0x8847;
}

mod field {
    use crate::field::Field;
    pub const DESTINATION: Field = 0..6;
    pub const SOURCE: Field = 6..12;
    pub const ETHERTYPE: Field = 12..14;
    pub const PAYLOAD: usize = 14;
}

/// Length of an Ethernet II header.
pub const HEADER_LEN: usize = field::PAYLOAD;

/// A read/write view of an Ethernet II frame.
#[derive(Debug, Clone)]
pub struct EthernetFrame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> EthernetFrame<T> {
    pub const fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }

    pub fn new_checked(buffer: T) -> Result<Self> {
        if buffer.as_ref().len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        Ok(Self { buffer })
    }

    pub fn into_inner(self) -> T {
        self.buffer
    }

    pub fn dst_addr(&self) -> EthernetAddress {
        let mut a = [0; 6];
        a.copy_from_slice(&self.buffer.as_ref()[field::DESTINATION]);
        EthernetAddress(a)
    }

    pub fn src_addr(&self) -> EthernetAddress {
        let mut a = [0; 6];
        a.copy_from_slice(&self.buffer.as_ref()[field::SOURCE]);
        EthernetAddress(a)
    }

    pub fn ethertype(&self) -> u16 {
        let d = &self.buffer.as_ref()[field::ETHERTYPE];
        u16::from_be_bytes([d[0], d[1]])
    }

    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[field::PAYLOAD..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> EthernetFrame<T> {
    pub fn set_dst_addr(&mut self, a: EthernetAddress) {
        self.buffer.as_mut()[field::DESTINATION].copy_from_slice(&a.0);
    }
    pub fn set_src_addr(&mut self, a: EthernetAddress) {
        self.buffer.as_mut()[field::SOURCE].copy_from_slice(&a.0);
    }
    pub fn set_ethertype(&mut self, t: u16) {
        self.buffer.as_mut()[field::ETHERTYPE].copy_from_slice(&t.to_be_bytes());
    }
    pub fn payload_mut(&mut self) -> &mut [u8] {
        &mut self.buffer.as_mut()[field::PAYLOAD..]
    }
}

/// The owned form of an Ethernet II header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EthernetRepr {
    pub src_addr: EthernetAddress,
    pub dst_addr: EthernetAddress,
    pub ethertype: u16,
}

impl EthernetRepr {
    pub fn parse<T: AsRef<[u8]>>(frame: &EthernetFrame<T>) -> Result<Self> {
        Ok(Self {
            src_addr: frame.src_addr(),
            dst_addr: frame.dst_addr(),
            ethertype: frame.ethertype(),
        })
    }

    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, frame: &mut EthernetFrame<T>) {
        frame.set_src_addr(self.src_addr);
        frame.set_dst_addr(self.dst_addr);
        frame.set_ethertype(self.ethertype);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static FRAME: [u8; 18] = [
        0x02, 0x00, 0x00, 0x00, 0x00, 0x02, // dst
        0x02, 0x00, 0x00, 0x00, 0x00, 0x01, // src
        0x08, 0x00, // IPv4
        0xaa, 0xbb, 0xcc, 0xdd,
    ];

    #[test]
    fn decode() {
        let f = EthernetFrame::new_checked(&FRAME[..]).unwrap();
        assert_eq!(f.dst_addr(), EthernetAddress([2, 0, 0, 0, 0, 2]));
        assert_eq!(f.src_addr(), EthernetAddress([2, 0, 0, 0, 0, 1]));
        assert_eq!(f.ethertype(), ethertype::IPV4);
        assert_eq!(f.payload(), &[0xaa, 0xbb, 0xcc, 0xdd]);
        assert_eq!(
            EthernetFrame::new_checked(&FRAME[..13]).unwrap_err(),
            Error::Truncated
        );
    }

    #[test]
    fn encode() {
        let repr = EthernetRepr::parse(&EthernetFrame::new_checked(&FRAME[..]).unwrap()).unwrap();
        let mut buf = [0u8; 18];
        buf[14..].copy_from_slice(&FRAME[14..]);
        repr.emit(&mut EthernetFrame::new_unchecked(&mut buf[..]));
        assert_eq!(buf, FRAME);
    }

    #[test]
    fn mac_text() {
        let a: EthernetAddress = "02:00:5e:10:00:ff".parse().unwrap();
        assert_eq!(a.to_string(), "02:00:5e:10:00:ff");
        assert_eq!(EthernetAddress::from_u64(a.to_u64()), a);
        assert!("02:00:5e:10:00".parse::<EthernetAddress>().is_err());
        assert!("02:00:5e:10:00:ff:01".parse::<EthernetAddress>().is_err());
    }
}
