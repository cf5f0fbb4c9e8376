//! TCP headers (RFC 9293): ports, sequence numbers, flags, options length.

use crate::checksum::{self, Pseudo};
use crate::{Error, Ipv4Address, Result};

mod field {
    use crate::field::Field;
    pub const SRC_PORT: Field = 0..2;
    pub const DST_PORT: Field = 2..4;
    pub const SEQ: Field = 4..8;
    pub const ACK: Field = 8..12;
    pub const OFF_FLAGS: Field = 12..14;
    pub const WINDOW: Field = 14..16;
    pub const CHECKSUM: Field = 16..18;
    pub const URGENT: Field = 18..20;
}

pub const MIN_HEADER_LEN: usize = 20;

/// Flag bits of the 9-bit flags field.
pub mod flags {
    pub const FIN: u16 = 0x001;
    pub const SYN: u16 = 0x002;
    pub const RST: u16 = 0x004;
    pub const PSH: u16 = 0x008;
    pub const ACK: u16 = 0x010;
    pub const URG: u16 = 0x020;
}

fn be16(d: &[u8]) -> u16 {
    u16::from_be_bytes([d[0], d[1]])
}
fn be32(d: &[u8]) -> u32 {
    u32::from_be_bytes([d[0], d[1], d[2], d[3]])
}

/// A view of a TCP segment.
#[derive(Debug, Clone)]
pub struct TcpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> TcpPacket<T> {
    pub const fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }
    /// Checks that the fixed header fits and the data offset is sane.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let b = buffer.as_ref();
        if b.len() < MIN_HEADER_LEN {
            return Err(Error::Truncated);
        }
        let p = Self { buffer };
        let hl = p.header_len();
        if hl < MIN_HEADER_LEN {
            return Err(Error::BadHeaderLength);
        }
        if hl > p.buffer.as_ref().len() {
            return Err(Error::Truncated);
        }
        Ok(p)
    }
    pub fn src_port(&self) -> u16 {
        be16(&self.buffer.as_ref()[field::SRC_PORT])
    }
    pub fn dst_port(&self) -> u16 {
        be16(&self.buffer.as_ref()[field::DST_PORT])
    }
    pub fn seq_number(&self) -> u32 {
        be32(&self.buffer.as_ref()[field::SEQ])
    }
    pub fn ack_number(&self) -> u32 {
        be32(&self.buffer.as_ref()[field::ACK])
    }
    pub fn header_len(&self) -> usize {
        usize::from(self.buffer.as_ref()[field::OFF_FLAGS.start] >> 4) * 4
    }
    pub fn flags(&self) -> u16 {
        be16(&self.buffer.as_ref()[field::OFF_FLAGS]) & 0x01ff
    }
    pub fn window_len(&self) -> u16 {
        be16(&self.buffer.as_ref()[field::WINDOW])
    }
    pub fn checksum(&self) -> u16 {
        be16(&self.buffer.as_ref()[field::CHECKSUM])
    }
    pub fn urgent_at(&self) -> u16 {
        be16(&self.buffer.as_ref()[field::URGENT])
    }
    pub fn options(&self) -> &[u8] {
        &self.buffer.as_ref()[MIN_HEADER_LEN..self.header_len()]
    }
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len()..]
    }
    pub fn verify_checksum(&self, src: Ipv4Address, dst: Ipv4Address) -> bool {
        self.verify_checksum_over(Pseudo::V4(src.0, dst.0))
    }
    /// The checksum over `ips`' pseudo-header (IPv4 or IPv6).
    pub fn verify_checksum_over(&self, ips: Pseudo) -> bool {
        let data = self.buffer.as_ref();
        let Ok(len) = u16::try_from(data.len()) else {
            return false;
        };
        let acc = ips.sum(crate::protocol::TCP, u32::from(len));
        !checksum::fold(checksum::sum(acc, data)) == 0
    }
}

/// The owned form of a TCP header (options carried as bytes, up to 40).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpRepr {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq_number: u32,
    pub ack_number: u32,
    pub flags: u16,
    pub window_len: u16,
    pub urgent_at: u16,
    pub payload_len: usize,
    options: [u8; 40],
    options_len: u8,
}

impl TcpRepr {
    pub fn new(
        src_port: u16,
        dst_port: u16,
        seq_number: u32,
        flags: u16,
        payload_len: usize,
    ) -> Self {
        Self {
            src_port,
            dst_port,
            seq_number,
            ack_number: 0,
            flags,
            window_len: 65535,
            urgent_at: 0,
            payload_len,
            options: [0; 40],
            options_len: 0,
        }
    }

    pub fn set_options(&mut self, options: &[u8]) -> Result<()> {
        if options.len() > 40 || !options.len().is_multiple_of(4) {
            return Err(Error::BadHeaderLength);
        }
        self.options[..options.len()].copy_from_slice(options);
        self.options_len = options.len() as u8;
        Ok(())
    }

    pub fn options(&self) -> &[u8] {
        &self.options[..usize::from(self.options_len)]
    }

    pub fn parse<T: AsRef<[u8]>>(
        p: &TcpPacket<T>,
        src: Ipv4Address,
        dst: Ipv4Address,
    ) -> Result<Self> {
        Self::parse_over(p, Pseudo::V4(src.0, dst.0))
    }

    /// As [`Self::parse`], the checksum over `ips` (IPv4 or IPv6).
    pub fn parse_over<T: AsRef<[u8]>>(p: &TcpPacket<T>, ips: Pseudo) -> Result<Self> {
        if !p.verify_checksum_over(ips) {
            return Err(Error::BadChecksum);
        }
        let mut r = Self::new(
            p.src_port(),
            p.dst_port(),
            p.seq_number(),
            p.flags(),
            p.payload().len(),
        );
        r.ack_number = p.ack_number();
        r.window_len = p.window_len();
        r.urgent_at = p.urgent_at();
        r.set_options(p.options())?;
        Ok(r)
    }

    pub fn header_len(&self) -> usize {
        MIN_HEADER_LEN + usize::from(self.options_len)
    }

    pub fn buffer_len(&self) -> usize {
        self.header_len() + self.payload_len
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
        let len16 = u16::try_from(len).map_err(|_| Error::BadLength)?;
        let hl = self.header_len();
        let buf = &mut buf[..len];
        buf[field::SRC_PORT].copy_from_slice(&self.src_port.to_be_bytes());
        buf[field::DST_PORT].copy_from_slice(&self.dst_port.to_be_bytes());
        buf[field::SEQ].copy_from_slice(&self.seq_number.to_be_bytes());
        buf[field::ACK].copy_from_slice(&self.ack_number.to_be_bytes());
        let off_flags = ((hl as u16 / 4) << 12) | (self.flags & 0x01ff);
        buf[field::OFF_FLAGS].copy_from_slice(&off_flags.to_be_bytes());
        buf[field::WINDOW].copy_from_slice(&self.window_len.to_be_bytes());
        buf[field::CHECKSUM].copy_from_slice(&[0, 0]);
        buf[field::URGENT].copy_from_slice(&self.urgent_at.to_be_bytes());
        buf[MIN_HEADER_LEN..hl].copy_from_slice(self.options());
        let acc = ips.sum(crate::protocol::TCP, u32::from(len16));
        let c = !checksum::fold(checksum::sum(acc, buf));
        buf[field::CHECKSUM].copy_from_slice(&c.to_be_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: Ipv4Address = Ipv4Address([192, 168, 0, 1]);
    const DST: Ipv4Address = Ipv4Address([192, 168, 0, 2]);
    // SYN 192.168.0.1:1234 -> 192.168.0.2:80, seq 1, MSS option 1460.
    // Checksum 0x11b0 computed independently (Python, RFC 1071 sum).
    static SYN: [u8; 24] = [
        0x04, 0xd2, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 0, 0x60, 0x02, 0xff, 0xff, 0x11, 0xb0, 0, 0,
        0x02, 0x04, 0x05, 0xb4,
    ];

    #[test]
    fn decode_encode() {
        let p = TcpPacket::new_checked(&SYN[..]).unwrap();
        assert_eq!(
            (p.src_port(), p.dst_port(), p.seq_number(), p.flags()),
            (1234, 80, 1, flags::SYN)
        );
        assert_eq!(p.header_len(), 24);
        assert_eq!(p.options(), &[2, 4, 5, 0xb4]);
        assert!(p.verify_checksum(SRC, DST));
        let r = TcpRepr::parse(&p, SRC, DST).unwrap();
        let mut out = [0u8; 24];
        r.emit(&mut out, SRC, DST).unwrap();
        assert_eq!(out, SYN);
    }

    #[test]
    fn rejects() {
        assert_eq!(
            TcpPacket::new_checked(&SYN[..19]).unwrap_err(),
            Error::Truncated
        );
        let mut b = SYN;
        b[12] = 0x40;
        assert_eq!(
            TcpPacket::new_checked(&b[..]).unwrap_err(),
            Error::BadHeaderLength
        );
        let mut b = SYN;
        b[12] = 0x70;
        assert_eq!(
            TcpPacket::new_checked(&b[..]).unwrap_err(),
            Error::Truncated
        );
    }
}
