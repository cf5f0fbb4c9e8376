//! UDP (RFC 768).

use crate::checksum::{self, Pseudo};
use crate::{Error, Ipv4Address, Result};

mod field {
    use crate::field::Field;
    pub const SRC_PORT: Field = 0..2;
    pub const DST_PORT: Field = 2..4;
    pub const LENGTH: Field = 4..6;
    pub const CHECKSUM: Field = 6..8;
}

pub const HEADER_LEN: usize = 8;

fn be16(d: &[u8]) -> u16 {
    u16::from_be_bytes([d[0], d[1]])
}

/// A view of a UDP datagram.
#[derive(Debug, Clone)]
pub struct UdpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> UdpPacket<T> {
    pub const fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }
    /// Checks that the header fits and its length field is sane.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let b = buffer.as_ref();
        if b.len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        let l = usize::from(be16(&b[field::LENGTH]));
        if l < HEADER_LEN {
            return Err(Error::BadLength);
        }
        if l > b.len() {
            return Err(Error::Truncated);
        }
        Ok(Self { buffer })
    }
    pub fn src_port(&self) -> u16 {
        be16(&self.buffer.as_ref()[field::SRC_PORT])
    }
    pub fn dst_port(&self) -> u16 {
        be16(&self.buffer.as_ref()[field::DST_PORT])
    }
    pub fn len(&self) -> u16 {
        be16(&self.buffer.as_ref()[field::LENGTH])
    }
    pub fn is_empty(&self) -> bool {
        usize::from(self.len()) == HEADER_LEN
    }
    pub fn checksum(&self) -> u16 {
        be16(&self.buffer.as_ref()[field::CHECKSUM])
    }
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..usize::from(self.len())]
    }
    /// A zero checksum means "not computed" over IPv4.
    pub fn verify_checksum(&self, src: Ipv4Address, dst: Ipv4Address) -> bool {
        self.verify_checksum_over(Pseudo::V4(src.0, dst.0))
    }
    /// The checksum over `ips`' pseudo-header: zero means "not computed"
    /// over IPv4 only; over IPv6 the checksum is mandatory (RFC 8200 §8.1),
    /// and a zero is wrong.
    pub fn verify_checksum_over(&self, ips: Pseudo) -> bool {
        if self.checksum() == 0 {
            return matches!(ips, Pseudo::V4(..));
        }
        let data = &self.buffer.as_ref()[..usize::from(self.len())];
        let acc = ips.sum(crate::protocol::UDP, u32::from(self.len()));
        !checksum::fold(checksum::sum(acc, data)) == 0
    }
}

/// The owned form of a UDP header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UdpRepr {
    pub src_port: u16,
    pub dst_port: u16,
    pub payload_len: usize,
}

impl UdpRepr {
    pub fn parse<T: AsRef<[u8]>>(
        p: &UdpPacket<T>,
        src: Ipv4Address,
        dst: Ipv4Address,
    ) -> Result<Self> {
        Self::parse_over(p, Pseudo::V4(src.0, dst.0))
    }

    /// As [`Self::parse`], the checksum over `ips` (IPv4 or IPv6).
    pub fn parse_over<T: AsRef<[u8]>>(p: &UdpPacket<T>, ips: Pseudo) -> Result<Self> {
        if !p.verify_checksum_over(ips) {
            return Err(Error::BadChecksum);
        }
        Ok(Self {
            src_port: p.src_port(),
            dst_port: p.dst_port(),
            payload_len: p.payload().len(),
        })
    }

    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN + self.payload_len
    }

    /// Writes the header over `buf`, whose tail holds the payload, with the checksum.
    pub fn emit(&self, buf: &mut [u8], src: Ipv4Address, dst: Ipv4Address) -> Result<()> {
        self.emit_over(buf, Pseudo::V4(src.0, dst.0))
    }

    /// As [`Self::emit`], the checksum over `ips` (IPv4 or IPv6).
    pub fn emit_over(&self, buf: &mut [u8], ips: Pseudo) -> Result<()> {
        let len = self.buffer_len();
        if buf.len() < len {
            return Err(Error::Truncated);
        }
        if len > usize::from(u16::MAX) {
            return Err(Error::BadLength);
        }
        let buf = &mut buf[..len];
        buf[field::SRC_PORT].copy_from_slice(&self.src_port.to_be_bytes());
        buf[field::DST_PORT].copy_from_slice(&self.dst_port.to_be_bytes());
        buf[field::LENGTH].copy_from_slice(&(len as u16).to_be_bytes());
        buf[field::CHECKSUM].copy_from_slice(&[0, 0]);
        let acc = ips.sum(crate::protocol::UDP, len as u32);
        let mut c = !checksum::fold(checksum::sum(acc, buf));
        if c == 0 {
            c = 0xffff; // RFC 768: a computed zero is sent as all ones
        }
        buf[field::CHECKSUM].copy_from_slice(&c.to_be_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: Ipv4Address = Ipv4Address([10, 0, 0, 1]);
    const DST: Ipv4Address = Ipv4Address([10, 0, 0, 2]);
    // 10.0.0.1:4660 -> 10.0.0.2:53, payload "hi"; checksum 0x7105 computed
    // independently (Python, RFC 1071 sum over pseudo-header and datagram).
    static DGRAM: [u8; 10] = [0x12, 0x34, 0x00, 0x35, 0x00, 0x0a, 0x71, 0x05, b'h', b'i'];

    #[test]
    fn decode_encode() {
        let p = UdpPacket::new_checked(&DGRAM[..]).unwrap();
        assert_eq!((p.src_port(), p.dst_port(), p.len()), (4660, 53, 10));
        assert!(p.verify_checksum(SRC, DST));
        let r = UdpRepr::parse(&p, SRC, DST).unwrap();
        let mut out = [0u8; 10];
        out[8..].copy_from_slice(b"hi");
        r.emit(&mut out, SRC, DST).unwrap();
        assert_eq!(out, DGRAM);
    }

    #[test]
    fn rejects() {
        assert_eq!(
            UdpPacket::new_checked(&DGRAM[..7]).unwrap_err(),
            Error::Truncated
        );
        let mut b = DGRAM;
        b[5] = 4;
        assert_eq!(
            UdpPacket::new_checked(&b[..]).unwrap_err(),
            Error::BadLength
        );
        let mut b = DGRAM;
        b[5] = 11;
        assert_eq!(
            UdpPacket::new_checked(&b[..]).unwrap_err(),
            Error::Truncated
        );
        let mut b = DGRAM;
        b[9] = b'o';
        assert_eq!(
            UdpRepr::parse(&UdpPacket::new_checked(&b[..]).unwrap(), SRC, DST).unwrap_err(),
            Error::BadChecksum
        );
    }
}
