//! IPv6 headers (RFC 8200 §3).
//!
//! `new_checked` validates what a router must before trusting a header:
//! version 6, a payload length that fits the buffer, and no jumbogram (a
//! payload length of zero ahead of a hop-by-hop header, RFC 2675: Prism
//! forwards none, and says so by [`Error::Unsupported`]). IPv6 has no
//! header checksum: the hop limit is changed in place. The extension
//! headers after it are walked by [`crate::ipv6ext`].

use crate::{Error, Result};
use core::fmt;

/// An IPv6 address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Ipv6Address(pub [u8; 16]);

impl Ipv6Address {
    pub const UNSPECIFIED: Self = Self([0; 16]);

    /// The first 16 bytes of `b` (which must hold them).
    pub fn from_bytes(b: &[u8]) -> Self {
        let mut a = [0u8; 16];
        a.copy_from_slice(&b[..16]);
        Self(a)
    }
    pub const fn to_u128(self) -> u128 {
        u128::from_be_bytes(self.0)
    }
    pub const fn from_u128(v: u128) -> Self {
        Self(v.to_be_bytes())
    }
    /// `ff00::/8`.
    pub const fn is_multicast(self) -> bool {
        self.0[0] == 0xff
    }
    /// `fe80::/10`.
    pub const fn is_link_local(self) -> bool {
        self.0[0] == 0xfe && self.0[1] & 0xc0 == 0x80
    }
    /// The solicited-node multicast address of this one (RFC 4291 §2.7.1:
    /// `ff02::1:ff00:0/104` with its last 24 bits), where neighbour
    /// solicitations for it are sent.
    pub const fn solicited_node(self) -> Self {
        let mut a = [0u8; 16];
        a[0] = 0xff;
        a[1] = 0x02;
        a[11] = 0x01;
        a[12] = 0xff;
        a[13] = self.0[13];
        a[14] = self.0[14];
        a[15] = self.0[15];
        Self(a)
    }
}

impl From<core::net::Ipv6Addr> for Ipv6Address {
    fn from(a: core::net::Ipv6Addr) -> Self {
        Self(a.octets())
    }
}

impl From<Ipv6Address> for core::net::Ipv6Addr {
    fn from(a: Ipv6Address) -> Self {
        a.0.into()
    }
}

impl fmt::Display for Ipv6Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        core::net::Ipv6Addr::from(self.0).fmt(f)
    }
}

pub(crate) mod field {
    use crate::field::Field;
    pub const VER_TC_FL: Field = 0..4;
    pub const PAYLOAD_LEN: Field = 4..6;
    pub const NEXT_HEADER: usize = 6;
    pub const HOP_LIMIT: usize = 7;
    pub const SRC_ADDR: Field = 8..24;
    pub const DST_ADDR: Field = 24..40;
}

/// Length of the fixed IPv6 header.
pub const HEADER_LEN: usize = 40;

/// A view of an IPv6 packet.
#[derive(Debug, Clone)]
pub struct Ipv6Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv6Packet<T> {
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
        if len < HEADER_LEN {
            return Err(Error::Truncated);
        }
        if self.version() != 6 {
            return Err(Error::BadVersion);
        }
        if self.payload_len() == 0 && self.next_header() == crate::ipv6ext::HOP_BY_HOP {
            // A jumbogram's length is in its hop-by-hop option (RFC 2675).
            return Err(Error::Unsupported);
        }
        if len < HEADER_LEN + usize::from(self.payload_len()) {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn word(&self) -> u32 {
        let b = &self.buffer.as_ref()[field::VER_TC_FL];
        u32::from_be_bytes([b[0], b[1], b[2], b[3]])
    }
    pub fn version(&self) -> u8 {
        self.buffer.as_ref()[0] >> 4
    }
    pub fn traffic_class(&self) -> u8 {
        (self.word() >> 20) as u8
    }
    /// The 20-bit flow label.
    pub fn flow_label(&self) -> u32 {
        self.word() & 0x000f_ffff
    }
    pub fn payload_len(&self) -> u16 {
        let b = &self.buffer.as_ref()[field::PAYLOAD_LEN];
        u16::from_be_bytes([b[0], b[1]])
    }
    pub fn next_header(&self) -> u8 {
        self.buffer.as_ref()[field::NEXT_HEADER]
    }
    pub fn hop_limit(&self) -> u8 {
        self.buffer.as_ref()[field::HOP_LIMIT]
    }
    pub fn src_addr(&self) -> Ipv6Address {
        Ipv6Address::from_bytes(&self.buffer.as_ref()[field::SRC_ADDR])
    }
    pub fn dst_addr(&self) -> Ipv6Address {
        Ipv6Address::from_bytes(&self.buffer.as_ref()[field::DST_ADDR])
    }
    /// The payload (extension headers and upper layer), bounded by the
    /// payload length (link padding excluded).
    pub fn payload(&self) -> &[u8] {
        let end = HEADER_LEN + usize::from(self.payload_len());
        &self.buffer.as_ref()[HEADER_LEN..end]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv6Packet<T> {
    fn set_word(&mut self, w: u32) {
        self.buffer.as_mut()[field::VER_TC_FL].copy_from_slice(&w.to_be_bytes());
    }
    pub fn set_traffic_class(&mut self, tc: u8) {
        let w = (self.word() & 0xf00f_ffff) | (u32::from(tc) << 20);
        self.set_word(w);
    }
    pub fn set_flow_label(&mut self, label: u32) {
        let w = (self.word() & 0xfff0_0000) | (label & 0x000f_ffff);
        self.set_word(w);
    }
    pub fn set_payload_len(&mut self, v: u16) {
        self.buffer.as_mut()[field::PAYLOAD_LEN].copy_from_slice(&v.to_be_bytes());
    }
    pub fn set_next_header(&mut self, v: u8) {
        self.buffer.as_mut()[field::NEXT_HEADER] = v;
    }
    pub fn set_hop_limit(&mut self, v: u8) {
        self.buffer.as_mut()[field::HOP_LIMIT] = v;
    }
    /// Decrements the hop limit (saturating at zero) and returns the new
    /// value: no checksum to patch, IPv6 has none.
    #[inline]
    pub fn decrement_hop_limit(&mut self) -> u8 {
        let h = self.hop_limit().saturating_sub(1);
        self.set_hop_limit(h);
        h
    }
    pub fn set_src_addr(&mut self, a: Ipv6Address) {
        self.buffer.as_mut()[field::SRC_ADDR].copy_from_slice(&a.0);
    }
    pub fn set_dst_addr(&mut self, a: Ipv6Address) {
        self.buffer.as_mut()[field::DST_ADDR].copy_from_slice(&a.0);
    }
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let end = HEADER_LEN + usize::from(self.payload_len());
        &mut self.buffer.as_mut()[HEADER_LEN..end]
    }
}

/// The owned form of an IPv6 header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ipv6Repr {
    pub src_addr: Ipv6Address,
    pub dst_addr: Ipv6Address,
    /// The first header after this one (an extension or the upper layer).
    pub next_header: u8,
    pub hop_limit: u8,
    pub traffic_class: u8,
    pub flow_label: u32,
    pub payload_len: usize,
}

impl Ipv6Repr {
    pub fn new(
        src_addr: Ipv6Address,
        dst_addr: Ipv6Address,
        next_header: u8,
        hop_limit: u8,
        payload_len: usize,
    ) -> Self {
        Self {
            src_addr,
            dst_addr,
            next_header,
            hop_limit,
            traffic_class: 0,
            flow_label: 0,
            payload_len,
        }
    }

    pub fn parse<T: AsRef<[u8]>>(p: &Ipv6Packet<T>) -> Result<Self> {
        p.check_len()?;
        let mut r = Self::new(
            p.src_addr(),
            p.dst_addr(),
            p.next_header(),
            p.hop_limit(),
            usize::from(p.payload_len()),
        );
        r.traffic_class = p.traffic_class();
        r.flow_label = p.flow_label();
        Ok(r)
    }

    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header into the start of `buf`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        if buf.len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        let len = u16::try_from(self.payload_len).map_err(|_| Error::BadLength)?;
        if self.flow_label > 0x000f_ffff {
            return Err(Error::BadLength);
        }
        let word = (6u32 << 28) | (u32::from(self.traffic_class) << 20) | self.flow_label;
        buf[field::VER_TC_FL].copy_from_slice(&word.to_be_bytes());
        buf[field::PAYLOAD_LEN].copy_from_slice(&len.to_be_bytes());
        buf[field::NEXT_HEADER] = self.next_header;
        buf[field::HOP_LIMIT] = self.hop_limit;
        buf[field::SRC_ADDR].copy_from_slice(&self.src_addr.0);
        buf[field::DST_ADDR].copy_from_slice(&self.dst_addr.0);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // An ICMPv6 echo request header as Linux sends it (`ping -6 ::1`
    // style, traffic class 0xb8, flow label 0x12345), 8 payload bytes.
    static PKT: [u8; 48] = [
        0x6b, 0x81, 0x23, 0x45, 0x00, 0x08, 0x3a, 0x40, // ver, tc, fl; len 8; ICMPv6; hops 64
        0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, // 2001:db8::1
        0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, // 2001:db8::2
        0x80, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01,
    ];

    fn addr(s: &str) -> Ipv6Address {
        s.parse::<core::net::Ipv6Addr>().unwrap().into()
    }

    #[test]
    fn decode() {
        let p = Ipv6Packet::new_checked(&PKT[..]).unwrap();
        assert_eq!(p.version(), 6);
        assert_eq!(p.traffic_class(), 0xb8);
        assert_eq!(p.flow_label(), 0x12345);
        assert_eq!(p.payload_len(), 8);
        assert_eq!(p.next_header(), 58);
        assert_eq!(p.hop_limit(), 64);
        assert_eq!(p.src_addr(), addr("2001:db8::1"));
        assert_eq!(p.dst_addr().to_string(), "2001:db8::2");
        assert_eq!(p.payload(), &PKT[40..]);
    }

    #[test]
    fn encode_roundtrip() {
        let r = Ipv6Repr::parse(&Ipv6Packet::new_checked(&PKT[..]).unwrap()).unwrap();
        let mut out = [0u8; 48];
        out[40..].copy_from_slice(&PKT[40..]);
        r.emit(&mut out).unwrap();
        assert_eq!(out, PKT);
    }

    #[test]
    fn validation() {
        assert_eq!(
            Ipv6Packet::new_checked(&PKT[..39]).unwrap_err(),
            Error::Truncated
        );
        let mut b = PKT;
        b[0] = 0x4b;
        assert_eq!(
            Ipv6Packet::new_checked(&b[..]).unwrap_err(),
            Error::BadVersion
        );
        let mut b = PKT;
        b[5] = 9; // one byte more than there is
        assert_eq!(
            Ipv6Packet::new_checked(&b[..]).unwrap_err(),
            Error::Truncated
        );
        let mut b = PKT;
        (b[4], b[5], b[6]) = (0, 0, 0); // a jumbogram: length 0, hop-by-hop next
        assert_eq!(
            Ipv6Packet::new_checked(&b[..]).unwrap_err(),
            Error::Unsupported
        );
        // Link padding past the payload length is not payload.
        let mut padded = [0u8; 64];
        padded[..48].copy_from_slice(&PKT);
        let p = Ipv6Packet::new_checked(&padded[..]).unwrap();
        assert_eq!(p.payload().len(), 8);
    }

    #[test]
    fn hop_limit_and_fields_written_in_place() {
        let mut b = PKT;
        let mut p = Ipv6Packet::new_checked(&mut b[..]).unwrap();
        assert_eq!(p.decrement_hop_limit(), 63);
        p.set_hop_limit(0);
        assert_eq!(p.decrement_hop_limit(), 0, "saturates");
        p.set_traffic_class(0x04);
        p.set_flow_label(0xfffff);
        assert_eq!(
            (p.traffic_class(), p.flow_label(), p.version()),
            (4, 0xfffff, 6)
        );
        p.set_dst_addr(addr("fe80::1"));
        assert!(p.dst_addr().is_link_local() && !p.dst_addr().is_multicast());
    }

    #[test]
    fn solicited_node_address() {
        let a = addr("2001:db8::1:ab12:3456");
        assert_eq!(a.solicited_node(), addr("ff02::1:ff12:3456"));
        assert!(a.solicited_node().is_multicast());
    }
}
