//! ICMPv4 (RFC 792): type, code, checksum and the 4-byte rest of header.

use crate::checksum;
use crate::{Error, Result};

mod field {
    use crate::field::Field;
    pub const TYPE: usize = 0;
    pub const CODE: usize = 1;
    pub const CHECKSUM: Field = 2..4;
    pub const REST: Field = 4..8;
}

pub const HEADER_LEN: usize = 8;

/// Message types Prism generates or names.
pub mod kind {
    pub const ECHO_REPLY: u8 = 0;
    pub const DEST_UNREACHABLE: u8 = 3;
    pub const ECHO_REQUEST: u8 = 8;
    pub const TIME_EXCEEDED: u8 = 11;
}

/// A view of an ICMPv4 message.
#[derive(Debug, Clone)]
pub struct Icmpv4Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Icmpv4Packet<T> {
    pub const fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }
    pub fn new_checked(buffer: T) -> Result<Self> {
        if buffer.as_ref().len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        Ok(Self { buffer })
    }
    pub fn msg_type(&self) -> u8 {
        self.buffer.as_ref()[field::TYPE]
    }
    pub fn msg_code(&self) -> u8 {
        self.buffer.as_ref()[field::CODE]
    }
    pub fn checksum(&self) -> u16 {
        let d = &self.buffer.as_ref()[field::CHECKSUM];
        u16::from_be_bytes([d[0], d[1]])
    }
    /// The 4 bytes after the checksum (identifier and sequence for echo).
    pub fn rest_of_header(&self) -> [u8; 4] {
        let d = &self.buffer.as_ref()[field::REST];
        [d[0], d[1], d[2], d[3]]
    }
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..]
    }
    /// The checksum covers the whole message.
    pub fn verify_checksum(&self) -> bool {
        checksum::checksum(self.buffer.as_ref()) == 0
    }
}

/// The owned form of an ICMPv4 header; the payload stays in the buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Icmpv4Repr {
    pub msg_type: u8,
    pub msg_code: u8,
    pub rest_of_header: [u8; 4],
    pub payload_len: usize,
}

impl Icmpv4Repr {
    pub fn parse<T: AsRef<[u8]>>(p: &Icmpv4Packet<T>) -> Result<Self> {
        if !p.verify_checksum() {
            return Err(Error::BadChecksum);
        }
        Ok(Self {
            msg_type: p.msg_type(),
            msg_code: p.msg_code(),
            rest_of_header: p.rest_of_header(),
            payload_len: p.payload().len(),
        })
    }

    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN + self.payload_len
    }

    /// Writes the header over `buf`, whose tail already holds the payload,
    /// and fills the checksum over the whole message.
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        if buf.len() < self.buffer_len() {
            return Err(Error::Truncated);
        }
        let buf = &mut buf[..self.buffer_len()];
        buf[field::TYPE] = self.msg_type;
        buf[field::CODE] = self.msg_code;
        buf[field::CHECKSUM].copy_from_slice(&[0, 0]);
        buf[field::REST].copy_from_slice(&self.rest_of_header);
        let c = checksum::checksum(buf);
        buf[field::CHECKSUM].copy_from_slice(&c.to_be_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Echo request id 0x1234 seq 1 with payload "abcd"; checksum 0x2104
    // computed independently (Python, RFC 1071 sum).
    static ECHO: [u8; 12] = [
        0x08, 0x00, 0x21, 0x04, 0x12, 0x34, 0x00, 0x01, b'a', b'b', b'c', b'd',
    ];

    #[test]
    fn decode_encode() {
        let p = Icmpv4Packet::new_checked(&ECHO[..]).unwrap();
        assert!(p.verify_checksum());
        let r = Icmpv4Repr::parse(&p).unwrap();
        assert_eq!(
            (r.msg_type, r.msg_code, r.rest_of_header, r.payload_len),
            (8, 0, [0x12, 0x34, 0, 1], 4)
        );
        let mut out = [0u8; 12];
        out[8..].copy_from_slice(b"abcd");
        r.emit(&mut out).unwrap();
        assert_eq!(out, ECHO);
        assert_eq!(
            Icmpv4Packet::new_checked(&ECHO[..7]).unwrap_err(),
            Error::Truncated
        );
        let mut bad = ECHO;
        bad[9] = b'X';
        assert_eq!(
            Icmpv4Repr::parse(&Icmpv4Packet::new_checked(&bad[..]).unwrap()).unwrap_err(),
            Error::BadChecksum
        );
    }
}
