//! IPv4 headers (RFC 791), options included, and IPIP (RFC 2003).
//!
//! `new_checked` validates what a router must before trusting a header:
//! version 4, an IHL of at least 5 that fits the buffer, a total length that
//! covers the header and fits the buffer. The header checksum is checked
//! separately (`verify_checksum`) so a caller can count it under its own reason.

use crate::checksum;
use crate::{Error, Result};
use core::fmt;

/// An IPv4 address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Ipv4Address(pub [u8; 4]);

impl Ipv4Address {
    pub const UNSPECIFIED: Self = Self([0; 4]);

    pub fn from_bytes(b: &[u8]) -> Self {
        Self([b[0], b[1], b[2], b[3]])
    }
    pub const fn to_u32(self) -> u32 {
        u32::from_be_bytes(self.0)
    }
    pub const fn from_u32(v: u32) -> Self {
        Self(v.to_be_bytes())
    }
}

impl From<core::net::Ipv4Addr> for Ipv4Address {
    fn from(a: core::net::Ipv4Addr) -> Self {
        Self(a.octets())
    }
}

impl From<Ipv4Address> for core::net::Ipv4Addr {
    fn from(a: Ipv4Address) -> Self {
        a.0.into()
    }
}

impl fmt::Display for Ipv4Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        core::net::Ipv4Addr::from(self.0).fmt(f)
    }
}

/// IP protocol numbers Prism knows by name.
pub mod protocol {
    pub const ICMP: u8 = 1;
    pub const IPIP: u8 = 4;
    pub const TCP: u8 = 6;
    pub const UDP: u8 = 17;
    pub const GRE: u8 = 47;
    pub const ESP: u8 = 50;
    pub const AH: u8 = 51;
}

pub(crate) mod field {
    use crate::field::Field;
    pub const VER_IHL: usize = 0;
    pub const DSCP_ECN: usize = 1;
    pub const LENGTH: Field = 2..4;
    pub const IDENT: Field = 4..6;
    pub const FLG_OFF: Field = 6..8;
    pub const TTL: usize = 8;
    pub const PROTOCOL: usize = 9;
    pub const CHECKSUM: Field = 10..12;
    pub const SRC_ADDR: Field = 12..16;
    pub const DST_ADDR: Field = 16..20;
}

/// Length of an IPv4 header without options.
pub const MIN_HEADER_LEN: usize = 20;
/// Longest options field (IHL 15).
pub const MAX_OPTIONS_LEN: usize = 40;

/// A view of an IPv4 packet.
#[derive(Debug, Clone)]
pub struct Ipv4Packet<T: AsRef<[u8]>> {
    buffer: T,
}

fn be16(d: &[u8]) -> u16 {
    u16::from_be_bytes([d[0], d[1]])
}

impl<T: AsRef<[u8]>> Ipv4Packet<T> {
    pub const fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }

    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Self { buffer };
        p.check_len()?;
        Ok(p)
    }

    fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        if len < MIN_HEADER_LEN {
            return Err(Error::Truncated);
        }
        if self.version() != 4 {
            return Err(Error::BadVersion);
        }
        let hl = self.header_len();
        if hl < MIN_HEADER_LEN {
            return Err(Error::BadHeaderLength);
        }
        if len < hl {
            return Err(Error::Truncated);
        }
        let tl = usize::from(self.total_len());
        if tl < hl {
            return Err(Error::BadTotalLength);
        }
        if len < tl {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    pub fn into_inner(self) -> T {
        self.buffer
    }

    pub fn version(&self) -> u8 {
        self.buffer.as_ref()[field::VER_IHL] >> 4
    }
    /// Header length in bytes (IHL × 4).
    pub fn header_len(&self) -> usize {
        usize::from(self.buffer.as_ref()[field::VER_IHL] & 0x0f) * 4
    }
    pub fn dscp_ecn(&self) -> u8 {
        self.buffer.as_ref()[field::DSCP_ECN]
    }
    pub fn total_len(&self) -> u16 {
        be16(&self.buffer.as_ref()[field::LENGTH])
    }
    pub fn ident(&self) -> u16 {
        be16(&self.buffer.as_ref()[field::IDENT])
    }
    /// The reserved flag bit (must be zero per RFC 791, kept as seen).
    pub fn reserved_flag(&self) -> bool {
        self.buffer.as_ref()[field::FLG_OFF.start] & 0x80 != 0
    }
    pub fn dont_frag(&self) -> bool {
        self.buffer.as_ref()[field::FLG_OFF.start] & 0x40 != 0
    }
    pub fn more_frags(&self) -> bool {
        self.buffer.as_ref()[field::FLG_OFF.start] & 0x20 != 0
    }
    /// Fragment offset in bytes.
    pub fn frag_offset(&self) -> u16 {
        (be16(&self.buffer.as_ref()[field::FLG_OFF]) & 0x1fff) * 8
    }
    pub fn ttl(&self) -> u8 {
        self.buffer.as_ref()[field::TTL]
    }
    pub fn protocol(&self) -> u8 {
        self.buffer.as_ref()[field::PROTOCOL]
    }
    pub fn checksum(&self) -> u16 {
        be16(&self.buffer.as_ref()[field::CHECKSUM])
    }
    pub fn src_addr(&self) -> Ipv4Address {
        Ipv4Address::from_bytes(&self.buffer.as_ref()[field::SRC_ADDR])
    }
    pub fn dst_addr(&self) -> Ipv4Address {
        Ipv4Address::from_bytes(&self.buffer.as_ref()[field::DST_ADDR])
    }
    pub fn options(&self) -> &[u8] {
        &self.buffer.as_ref()[MIN_HEADER_LEN..self.header_len()]
    }
    /// Whether the header checksum is valid.
    pub fn verify_checksum(&self) -> bool {
        checksum::checksum(&self.buffer.as_ref()[..self.header_len()]) == 0
    }
    /// The payload, bounded by the total length (link padding excluded).
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len()..usize::from(self.total_len())]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv4Packet<T> {
    fn set16(&mut self, f: core::ops::Range<usize>, v: u16) {
        self.buffer.as_mut()[f].copy_from_slice(&v.to_be_bytes());
    }
    pub fn set_ttl(&mut self, v: u8) {
        self.buffer.as_mut()[field::TTL] = v;
    }
    pub fn set_total_len(&mut self, v: u16) {
        self.set16(field::LENGTH, v);
    }
    pub fn set_checksum(&mut self, v: u16) {
        self.set16(field::CHECKSUM, v);
    }
    pub fn set_src_addr(&mut self, a: Ipv4Address) {
        self.buffer.as_mut()[field::SRC_ADDR].copy_from_slice(&a.0);
    }
    pub fn set_dst_addr(&mut self, a: Ipv4Address) {
        self.buffer.as_mut()[field::DST_ADDR].copy_from_slice(&a.0);
    }
    /// Recomputes the header checksum from scratch.
    pub fn fill_checksum(&mut self) {
        self.set_checksum(0);
        let c = checksum::checksum(&self.buffer.as_ref()[..self.header_len()]);
        self.set_checksum(c);
    }

    /// Decrements the TTL and patches the checksum incrementally (RFC 1624).
    /// Returns the new TTL; the caller drops the packet when it is zero.
    #[inline]
    pub fn decrement_ttl(&mut self) -> u8 {
        let b = self.buffer.as_mut();
        let old = u16::from_be_bytes([b[field::TTL], b[field::PROTOCOL]]);
        let ttl = b[field::TTL].wrapping_sub(1);
        b[field::TTL] = ttl;
        let new = u16::from_be_bytes([ttl, b[field::PROTOCOL]]);
        let c = checksum::update16(be16(&b[field::CHECKSUM]), old, new);
        b[field::CHECKSUM].copy_from_slice(&c.to_be_bytes());
        ttl
    }

    /// Rewrites the source and destination addresses, patching the checksum
    /// incrementally (used to rewrite IPIP tunnel endpoints).
    #[inline]
    pub fn rewrite_addrs(&mut self, src: Ipv4Address, dst: Ipv4Address) {
        let (os, od) = (self.src_addr().to_u32(), self.dst_addr().to_u32());
        let mut c = checksum::update32(self.checksum(), os, src.to_u32());
        c = checksum::update32(c, od, dst.to_u32());
        self.set_src_addr(src);
        self.set_dst_addr(dst);
        self.set_checksum(c);
    }
}

/// The owned form of an IPv4 header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ipv4Repr {
    pub src_addr: Ipv4Address,
    pub dst_addr: Ipv4Address,
    pub protocol: u8,
    pub ttl: u8,
    pub dscp_ecn: u8,
    pub ident: u16,
    pub reserved_flag: bool,
    pub dont_frag: bool,
    pub more_frags: bool,
    pub frag_offset: u16,
    pub payload_len: usize,
    options: [u8; MAX_OPTIONS_LEN],
    options_len: u8,
}

impl Ipv4Repr {
    /// A header without options.
    pub fn new(
        src_addr: Ipv4Address,
        dst_addr: Ipv4Address,
        protocol: u8,
        ttl: u8,
        payload_len: usize,
    ) -> Self {
        Self {
            src_addr,
            dst_addr,
            protocol,
            ttl,
            dscp_ecn: 0,
            ident: 0,
            reserved_flag: false,
            dont_frag: false,
            more_frags: false,
            frag_offset: 0,
            payload_len,
            options: [0; MAX_OPTIONS_LEN],
            options_len: 0,
        }
    }

    /// Sets the options; their length must be a multiple of 4 up to 40.
    pub fn set_options(&mut self, options: &[u8]) -> Result<()> {
        if options.len() > MAX_OPTIONS_LEN || !options.len().is_multiple_of(4) {
            return Err(Error::BadHeaderLength);
        }
        self.options[..options.len()].copy_from_slice(options);
        self.options_len = options.len() as u8;
        Ok(())
    }

    pub fn options(&self) -> &[u8] {
        &self.options[..usize::from(self.options_len)]
    }

    /// Parses a header, checking its checksum.
    pub fn parse<T: AsRef<[u8]>>(p: &Ipv4Packet<T>) -> Result<Self> {
        p.check_len()?;
        if !p.verify_checksum() {
            return Err(Error::BadChecksum);
        }
        let mut r = Self::new(
            p.src_addr(),
            p.dst_addr(),
            p.protocol(),
            p.ttl(),
            p.payload().len(),
        );
        r.dscp_ecn = p.dscp_ecn();
        r.ident = p.ident();
        r.reserved_flag = p.reserved_flag();
        r.dont_frag = p.dont_frag();
        r.more_frags = p.more_frags();
        r.frag_offset = p.frag_offset();
        r.set_options(p.options())?;
        Ok(r)
    }

    pub fn buffer_len(&self) -> usize {
        MIN_HEADER_LEN + usize::from(self.options_len)
    }

    /// Writes the header (checksum included) into the start of `buf`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        let hl = self.buffer_len();
        let total = hl + self.payload_len;
        if buf.len() < hl {
            return Err(Error::Truncated);
        }
        if total > usize::from(u16::MAX) {
            return Err(Error::BadTotalLength);
        }
        buf[field::VER_IHL] = 0x40 | (hl / 4) as u8;
        buf[field::DSCP_ECN] = self.dscp_ecn;
        buf[field::LENGTH].copy_from_slice(&(total as u16).to_be_bytes());
        buf[field::IDENT].copy_from_slice(&self.ident.to_be_bytes());
        let flg = (u16::from(self.reserved_flag) << 15)
            | (u16::from(self.dont_frag) << 14)
            | (u16::from(self.more_frags) << 13)
            | (self.frag_offset / 8);
        buf[field::FLG_OFF].copy_from_slice(&flg.to_be_bytes());
        buf[field::TTL] = self.ttl;
        buf[field::PROTOCOL] = self.protocol;
        buf[field::SRC_ADDR].copy_from_slice(&self.src_addr.0);
        buf[field::DST_ADDR].copy_from_slice(&self.dst_addr.0);
        buf[MIN_HEADER_LEN..hl].copy_from_slice(self.options());
        let mut p = Ipv4Packet::new_unchecked(&mut buf[..hl]);
        p.fill_checksum();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Modelled on the outer header of the IPIP ping in the shared ipip capture
    // (172.16.0.1 -> 172.16.0.2, protocol 4), followed by 4 payload bytes.
    static PKT: [u8; 24] = [
        0x45, 0x00, 0x00, 0x18, 0x4b, 0x2a, 0x40, 0x00, 0x40, 0x04, 0x97, 0x53, 0xac, 0x10, 0x00,
        0x01, 0xac, 0x10, 0x00, 0x02, 0xde, 0xad, 0xbe, 0xef,
    ];

    fn fixed() -> [u8; 24] {
        let mut p = PKT;
        let mut v = Ipv4Packet::new_unchecked(&mut p[..]);
        v.fill_checksum();
        p
    }

    #[test]
    fn decode() {
        let bytes = fixed();
        let p = Ipv4Packet::new_checked(&bytes[..]).unwrap();
        assert_eq!(p.version(), 4);
        assert_eq!(p.header_len(), 20);
        assert_eq!(p.total_len(), 24);
        assert_eq!(p.ident(), 0x4b2a);
        assert!(p.dont_frag());
        assert_eq!(p.ttl(), 64);
        assert_eq!(p.protocol(), protocol::IPIP);
        assert_eq!(p.src_addr(), Ipv4Address([172, 16, 0, 1]));
        assert_eq!(p.dst_addr(), Ipv4Address([172, 16, 0, 2]));
        assert!(p.verify_checksum());
        assert_eq!(p.payload(), &[0xde, 0xad, 0xbe, 0xef]);
    }

    #[test]
    fn encode_roundtrip() {
        let bytes = fixed();
        let r = Ipv4Repr::parse(&Ipv4Packet::new_checked(&bytes[..]).unwrap()).unwrap();
        let mut out = [0u8; 24];
        out[20..].copy_from_slice(&bytes[20..]);
        r.emit(&mut out).unwrap();
        assert_eq!(out, bytes);
    }

    #[test]
    fn options_roundtrip() {
        let mut r = Ipv4Repr::new(
            Ipv4Address([10, 0, 0, 1]),
            Ipv4Address([10, 0, 0, 2]),
            protocol::UDP,
            9,
            0,
        );
        // Router Alert (RFC 2113).
        r.set_options(&[0x94, 0x04, 0x00, 0x00]).unwrap();
        let mut out = [0u8; 24];
        r.emit(&mut out).unwrap();
        assert_eq!(out[0], 0x46);
        let p = Ipv4Packet::new_checked(&out[..]).unwrap();
        assert_eq!(p.options(), &[0x94, 0x04, 0x00, 0x00]);
        assert_eq!(Ipv4Repr::parse(&p).unwrap(), r);
        assert!(r.set_options(&[1, 2, 3]).is_err());
    }

    // Found by the parse fuzz target: the reserved flag must survive parse/emit.
    #[test]
    fn reserved_flag_roundtrip() {
        let mut b = fixed();
        b[6] |= 0x80;
        let mut p = Ipv4Packet::new_unchecked(&mut b[..]);
        p.fill_checksum();
        let r = Ipv4Repr::parse(&Ipv4Packet::new_checked(&b[..]).unwrap()).unwrap();
        assert!(r.reserved_flag && r.dont_frag);
        let mut out = [0u8; 24];
        out[20..].copy_from_slice(&b[20..]);
        r.emit(&mut out).unwrap();
        assert_eq!(out, b);
    }

    #[test]
    fn validation() {
        let good = fixed();
        let mut b = good;
        b[0] = 0x65;
        assert_eq!(
            Ipv4Packet::new_checked(&b[..]).unwrap_err(),
            Error::BadVersion
        );
        let mut b = good;
        b[0] = 0x44;
        assert_eq!(
            Ipv4Packet::new_checked(&b[..]).unwrap_err(),
            Error::BadHeaderLength
        );
        let mut b = good;
        b[0] = 0x4f; // 60-byte header in a 24-byte buffer
        assert_eq!(
            Ipv4Packet::new_checked(&b[..]).unwrap_err(),
            Error::Truncated
        );
        let mut b = good;
        b[3] = 19;
        assert_eq!(
            Ipv4Packet::new_checked(&b[..]).unwrap_err(),
            Error::BadTotalLength
        );
        let mut b = good;
        b[3] = 25;
        assert_eq!(
            Ipv4Packet::new_checked(&b[..]).unwrap_err(),
            Error::Truncated
        );
        let mut b = good;
        b[15] ^= 1;
        let p = Ipv4Packet::new_checked(&b[..]).unwrap();
        assert!(!p.verify_checksum());
        assert_eq!(Ipv4Repr::parse(&p).unwrap_err(), Error::BadChecksum);
        assert_eq!(
            Ipv4Packet::new_checked(&good[..19]).unwrap_err(),
            Error::Truncated
        );
    }

    #[test]
    fn ttl_and_rewrite_keep_checksum_valid() {
        let mut b = fixed();
        let mut p = Ipv4Packet::new_checked(&mut b[..]).unwrap();
        assert_eq!(p.decrement_ttl(), 63);
        assert!(p.verify_checksum());
        p.rewrite_addrs(Ipv4Address([192, 0, 2, 1]), Ipv4Address([198, 51, 100, 7]));
        assert!(p.verify_checksum());
        assert_eq!(p.dst_addr(), Ipv4Address([198, 51, 100, 7]));
    }
}
