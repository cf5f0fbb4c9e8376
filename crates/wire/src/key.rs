//! Extraction of the classification key from a raw Ethernet frame.
//!
//! In: a frame as it came off a port, and the ingress port number.
//! Out: a [`FlowKey`] (the 10-tuple of paper 001 §4 plus the inner, virtual,
//! addresses of IPIP packets) and the header offsets later stages need, or a
//! [`Malformed`] reason that the pipeline counts and drops under.
//!
//! What is validated: every header's length; IPv4 version, IHL, total length
//! and header checksum, for the outer header and for the inner header of IPIP.
//! What is not an error: EtherTypes other than IPv4 and ARP (IPv6, MPLS, ...)
//! and IP protocols other than TCP/UDP/ICMP/IPIP (GRE, ESP, ...): their key
//! carries what could be read and later stages decide.
//!
//! L4 ports come from the innermost IPv4 header (for IPIP the inner one); for
//! ICMP they hold type and code, as OpenFlow does; for non-first fragments
//! they are zero. For ARP the sender and target protocol addresses fill the
//! source and destination IPv4 fields, so ARP can be mapped to a network.

use crate::{arp, ethernet, ethertype, protocol, vlan};

/// Up to this many VLAN tags are read (802.1ad plus one); more is malformed.
pub const MAX_VLAN_TAGS: usize = 2;

/// Marks the `vlan` field of a key as carrying a tag (bit 12, above the VID).
pub const VLAN_PRESENT: u16 = 0x1000;

/// The classification key of one packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FlowKey {
    pub in_port: u16,
    /// Source and destination MAC, as the low 48 bits.
    pub src_mac: u64,
    pub dst_mac: u64,
    /// EtherType after any VLAN tags.
    pub ethertype: u16,
    /// Outer VLAN: `VLAN_PRESENT | vid` when tagged, 0 when not.
    pub vlan: u16,
    pub src_ip: u32,
    pub dst_ip: u32,
    pub proto: u8,
    pub src_port: u16,
    pub dst_port: u16,
    /// Inner (virtual) addresses of an IPIP packet; 0 otherwise.
    pub inner_src_ip: u32,
    pub inner_dst_ip: u32,
}

/// Where the headers of a parsed frame are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PacketInfo {
    pub key: FlowKey,
    /// Number of VLAN tags read.
    pub vlan_tags: u8,
    /// Offset of the L3 header (IPv4, ARP, or whatever the EtherType says).
    pub l3_offset: u16,
    /// Offset of the inner IPv4 header of an IPIP packet, 0 when there is none.
    pub inner_l3_offset: u16,
    /// End of the outer IPv4 packet (total length); link padding lies beyond.
    pub l3_end: u16,
}

impl PacketInfo {
    pub fn is_ipv4(&self) -> bool {
        self.key.ethertype == ethertype::IPV4
    }
    pub fn is_ipip(&self) -> bool {
        self.inner_l3_offset != 0
    }
}

/// Declares a drop-reason enum with `ALL`, `COUNT`, `as_str` and `index`.
#[macro_export]
macro_rules! reasons {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident => $s:literal,)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum $name { $($(#[$vm])* $v,)* }
        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$v,)*];
            pub const COUNT: usize = Self::ALL.len();
            pub const fn as_str(self) -> &'static str {
                match self { $($name::$v => $s,)* }
            }
            pub const fn index(self) -> usize { self as usize }
        }
        impl core::fmt::Display for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result { f.write_str(self.as_str()) }
        }
    };
}

crate::reasons! {
    /// Why a frame could not be parsed.
    Malformed {
        EthernetTruncated => "ethernet-truncated",
        VlanTruncated => "vlan-truncated",
        TooManyVlanTags => "too-many-vlan-tags",
        ArpTruncated => "arp-truncated",
        Ipv4Truncated => "ipv4-truncated",
        Ipv4BadVersion => "ipv4-bad-version",
        Ipv4BadHeaderLength => "ipv4-bad-header-length",
        Ipv4BadTotalLength => "ipv4-bad-total-length",
        Ipv4BadChecksum => "ipv4-bad-checksum",
        InnerIpv4Malformed => "inner-ipv4-malformed",
        InnerIpv4BadChecksum => "inner-ipv4-bad-checksum",
        TcpTruncated => "tcp-truncated",
        UdpTruncated => "udp-truncated",
        IcmpTruncated => "icmp-truncated",
    }
}

fn ipv4_error(e: crate::Error) -> Malformed {
    match e {
        crate::Error::BadVersion => Malformed::Ipv4BadVersion,
        crate::Error::BadHeaderLength => Malformed::Ipv4BadHeaderLength,
        crate::Error::BadTotalLength => Malformed::Ipv4BadTotalLength,
        crate::Error::BadChecksum => Malformed::Ipv4BadChecksum,
        _ => Malformed::Ipv4Truncated,
    }
}

#[inline]
fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// A MAC address at `b[at..at + 6]` as the low 48 bits of a key field.
#[inline(always)]
fn mac48(b: &[u8], at: usize) -> u64 {
    u64::from_be_bytes([
        0,
        0,
        b[at],
        b[at + 1],
        b[at + 2],
        b[at + 3],
        b[at + 4],
        b[at + 5],
    ])
}

/// The IPv4 header fields the key needs, read with one bounds check.
#[derive(Debug, Clone, Copy)]
struct Ipv4Fields {
    hl: usize,
    total: usize,
    proto: u8,
    src: u32,
    dst: u32,
    /// Flags and fragment offset, as on the wire.
    frag: u16,
}

/// Validates an IPv4 header (version, IHL, total length, checksum) and
/// reads its fields. The common 20-byte header is summed as five 32-bit
/// words from a fixed-size array, so no per-byte bounds checks remain.
#[inline]
fn read_ipv4(b: &[u8]) -> Result<Ipv4Fields, crate::Error> {
    let Some(h) = b.first_chunk::<20>() else {
        return Err(crate::Error::Truncated);
    };
    if h[0] >> 4 != 4 {
        return Err(crate::Error::BadVersion);
    }
    let hl = usize::from(h[0] & 0x0f) * 4;
    if hl < 20 {
        return Err(crate::Error::BadHeaderLength);
    }
    if b.len() < hl {
        return Err(crate::Error::Truncated);
    }
    let total = usize::from(u16::from_be_bytes([h[2], h[3]]));
    if total < hl {
        return Err(crate::Error::BadTotalLength);
    }
    if b.len() < total {
        return Err(crate::Error::Truncated);
    }
    let mut acc = sum20(h);
    if hl > 20 {
        acc += u64::from(crate::checksum::sum(0, &b[20..hl]));
    }
    if !sums_to_ones(acc) {
        return Err(crate::Error::BadChecksum);
    }
    Ok(fields20(h, hl, total))
}

/// The 20-byte header as five 32-bit words, summed without folding.
#[inline(always)]
fn sum20(h: &[u8; 20]) -> u64 {
    let w = |i: usize| u64::from(u32::from_be_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]));
    w(0) + w(4) + w(8) + w(12) + w(16)
}

/// [`sum20`] with the words in the machine's byte order: no byte swap per
/// word, and the same verdict from [`sums_to_ones`]. On a little-endian
/// machine a word read this way is its two big-endian 16-bit halves each
/// byte-swapped, and a byte-swapped half is 256 times the half modulo
/// 0xffff (2^16 = 1 there); so this sum is 256 times the big-endian one
/// modulo 0xffff, and 256 is prime to 0xffff: one is a non-zero multiple
/// of 0xffff exactly when the other is. For a header with no options (a
/// sum with other words added must keep their order).
#[inline(always)]
fn sum20_native(h: &[u8; 20]) -> u64 {
    let w = |i: usize| u64::from(u32::from_ne_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]));
    w(0) + w(4) + w(8) + w(12) + w(16)
}

/// Whether a header's words, summed as plain integers into `acc`, make
/// the one's-complement sum 0xffff that a correct checksum gives. Since
/// 2^16 = 1 modulo 0xffff, folding the carries back in keeps the sum's
/// residue modulo 0xffff and ends in 1..=0xffff for a non-zero sum: it is
/// 0xffff exactly when `acc` is a non-zero multiple of 0xffff. Tested by
/// one multiplication (Granlund and Montgomery's test for an odd divisor):
/// times the divisor's inverse modulo 2^64, the multiples `k * 0xffff` of
/// a u64 become `k` itself, at most `u64::MAX / 0xffff`, and every other
/// value becomes more; less one, zero (the empty sum) wraps to the top.
/// Where the remainder took a multiply, a shift and a subtraction.
#[inline(always)]
fn sums_to_ones(acc: u64) -> bool {
    const INVERSE: u64 = 0xfffe_fffe_fffe_ffff; // 0xffff * INVERSE = 1 mod 2^64
    acc.wrapping_mul(INVERSE).wrapping_sub(1) < u64::MAX / 0xffff
}

#[inline(always)]
fn fields20(h: &[u8; 20], hl: usize, total: usize) -> Ipv4Fields {
    Ipv4Fields {
        hl,
        total,
        proto: h[9],
        src: u32::from_be_bytes([h[12], h[13], h[14], h[15]]),
        dst: u32::from_be_bytes([h[16], h[17], h[18], h[19]]),
        frag: u16::from_be_bytes([h[6], h[7]]),
    }
}

/// Reads L4 ports (or ICMP type/code) from `l4`, the payload of `ip`.
#[inline(always)]
fn read_l4(ip: &Ipv4Fields, l4: &[u8], key: &mut FlowKey) -> Result<(), Malformed> {
    if ip.frag & 0x1fff != 0 {
        return Ok(()); // a later fragment: no L4 header
    }
    match ip.proto {
        protocol::TCP => {
            let h = l4
                .first_chunk::<{ crate::tcp::MIN_HEADER_LEN }>()
                .ok_or(Malformed::TcpTruncated)?;
            key.src_port = u16::from_be_bytes([h[0], h[1]]);
            key.dst_port = u16::from_be_bytes([h[2], h[3]]);
        }
        protocol::UDP => {
            let h = l4
                .first_chunk::<{ crate::udp::HEADER_LEN }>()
                .ok_or(Malformed::UdpTruncated)?;
            key.src_port = u16::from_be_bytes([h[0], h[1]]);
            key.dst_port = u16::from_be_bytes([h[2], h[3]]);
        }
        protocol::ICMP => {
            let h = l4
                .first_chunk::<{ crate::icmp::HEADER_LEN }>()
                .ok_or(Malformed::IcmpTruncated)?;
            key.src_port = u16::from(h[0]);
            key.dst_port = u16::from(h[1]);
        }
        _ => {}
    }
    Ok(())
}

/// Parses `frame`, received on `in_port`, into its key and header offsets.
#[inline]
pub fn parse_frame(frame: &[u8], in_port: u16) -> Result<PacketInfo, Malformed> {
    let mut info = PacketInfo::default();
    parse_frame_into(frame, in_port, &mut info)?;
    Ok(info)
}

/// [`parse_frame`] writing into `info` in place (the pipeline's per-packet
/// scratch), which spares the fast path two copies of the result. On an
/// error `info` holds what was read before it.
#[inline(always)]
pub fn parse_frame_into(
    frame: &[u8],
    in_port: u16,
    info: &mut PacketInfo,
) -> Result<(), Malformed> {
    if let Some(r) = parse_plain_ipv4(frame, in_port, info) {
        return r;
    }
    parse_any(frame, in_port, info)
}

/// The common frame, untagged IPv4 without options and not IPIP, parsed
/// with fewer tests: what [`parse_any`] gives for it (a property test
/// compares the two). `None` for any other frame, or one with something
/// wrong in its IPv4 header, which `parse_any` then reads and names.
#[inline(always)]
fn parse_plain_ipv4(
    frame: &[u8],
    in_port: u16,
    info: &mut PacketInfo,
) -> Option<Result<(), Malformed>> {
    let (eth, ip, l4) = plain_header(frame)?;
    *info = PacketInfo {
        key: plain_key(eth, &ip, in_port),
        l3_offset: ethernet::HEADER_LEN as u16,
        l3_end: (ethernet::HEADER_LEN + ip.total) as u16,
        ..PacketInfo::default()
    };
    Some(read_l4(&ip, l4, &mut info.key))
}

/// A plain frame's key but for its ports.
#[inline(always)]
fn plain_key(eth: &[u8; 14], ip: &Ipv4Fields, in_port: u16) -> FlowKey {
    FlowKey {
        in_port,
        dst_mac: mac48(eth, 0),
        src_mac: mac48(eth, 6),
        ethertype: ethertype::IPV4,
        src_ip: ip.src,
        dst_ip: ip.dst,
        proto: ip.proto,
        ..FlowKey::default()
    }
}

/// [`plain_ipv4`] with the frame's whole key, as [`parse_frame_into`]
/// gives it: what a rule table reads of a plain frame, returned by value
/// so that a caller building its own packed key keeps it in registers.
#[inline(always)]
pub fn plain_ipv4_key(frame: &[u8], in_port: u16) -> Option<(FlowKey, PlainIpv4)> {
    let (eth, ip, l4) = plain_header(frame)?;
    let mut key = plain_key(eth, &ip, in_port);
    read_l4(&ip, l4, &mut key).ok()?;
    let p = PlainIpv4 {
        dst_ip: ip.dst,
        l3_end: (ethernet::HEADER_LEN + ip.total) as u16,
    };
    Some((key, p))
}

/// A plain frame's Ethernet header, IPv4 fields and L4 bytes (up to the
/// IPv4 total length), its IPv4 header checked; `None` for any other frame.
#[inline(always)]
fn plain_header(frame: &[u8]) -> Option<(&[u8; 14], Ipv4Fields, &[u8])> {
    let (eth, rest) = frame.split_first_chunk::<14>()?;
    let h = rest.first_chunk::<20>()?;
    if eth[12..14] != ethertype::IPV4.to_be_bytes() || h[0] != 0x45 {
        return None;
    }
    let total = usize::from(u16::from_be_bytes([h[2], h[3]]));
    if total < 20 || rest.len() < total || !sums_to_ones(sum20_native(h)) {
        return None;
    }
    let ip = fields20(h, 20, total);
    if ip.proto == protocol::IPIP && ip.frag & 0x3fff == 0 {
        return None;
    }
    Some((eth, ip, &rest[20..total]))
}

/// What routing by destination reads of a plain frame (untagged IPv4
/// without options, not IPIP): its IPv4 header starts at byte 14.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlainIpv4 {
    pub dst_ip: u32,
    /// End of the IPv4 packet in the frame ([`PacketInfo::l3_end`]).
    pub l3_end: u16,
}

/// A plain frame that [`parse_frame_into`] accepts, as much of it as
/// routing by destination reads; `None` for every other frame, valid or
/// not, which `parse_frame_into` then reads (and names what is wrong).
/// Checks what `parse_frame_into` checks, L4 truncation included.
#[inline(always)]
pub fn plain_ipv4(frame: &[u8]) -> Option<PlainIpv4> {
    let (_, ip, l4) = plain_header(frame)?;
    read_l4(&ip, l4, &mut FlowKey::default()).ok()?;
    Some(PlainIpv4 {
        dst_ip: ip.dst,
        l3_end: (ethernet::HEADER_LEN + ip.total) as u16,
    })
}

/// Any frame: VLAN tags, IPv4 options, IPIP, ARP, other EtherTypes.
#[inline]
fn parse_any(frame: &[u8], in_port: u16, info: &mut PacketInfo) -> Result<(), Malformed> {
    if frame.len() < ethernet::HEADER_LEN {
        return Err(Malformed::EthernetTruncated);
    }
    *info = PacketInfo::default();
    let key = &mut info.key;
    key.in_port = in_port;
    key.dst_mac = mac48(frame, 0);
    key.src_mac = mac48(frame, 6);
    let mut ethertype = be16(frame, 12);
    let mut off = ethernet::HEADER_LEN;
    while vlan::is_tpid(ethertype) {
        if usize::from(info.vlan_tags) == MAX_VLAN_TAGS {
            return Err(Malformed::TooManyVlanTags);
        }
        if frame.len() < off + vlan::TAG_LEN {
            return Err(Malformed::VlanTruncated);
        }
        if info.vlan_tags == 0 {
            key.vlan = VLAN_PRESENT | (be16(frame, off) & 0x0fff);
        }
        ethertype = be16(frame, off + 2);
        off += vlan::TAG_LEN;
        info.vlan_tags += 1;
    }
    key.ethertype = ethertype;
    info.l3_offset = off as u16;
    match ethertype {
        ethertype::IPV4 => {
            let ip = read_ipv4(&frame[off..]).map_err(ipv4_error)?;
            key.src_ip = ip.src;
            key.dst_ip = ip.dst;
            key.proto = ip.proto;
            info.l3_end = (off + ip.total) as u16;
            let payload = &frame[off + ip.hl..off + ip.total];
            if ip.proto == protocol::IPIP && ip.frag & 0x3fff == 0 {
                let inner = read_ipv4(payload).map_err(|e| match e {
                    crate::Error::BadChecksum => Malformed::InnerIpv4BadChecksum,
                    _ => Malformed::InnerIpv4Malformed,
                })?;
                key.inner_src_ip = inner.src;
                key.inner_dst_ip = inner.dst;
                info.inner_l3_offset = (off + ip.hl) as u16;
                read_l4(&inner, &payload[inner.hl..inner.total], key)?;
            } else {
                read_l4(&ip, payload, key)?;
            }
        }
        ethertype::ARP => {
            let a = frame.get(off..).ok_or(Malformed::ArpTruncated)?;
            if a.len() < arp::PACKET_LEN {
                return Err(Malformed::ArpTruncated);
            }
            key.src_ip = u32::from_be_bytes([a[14], a[15], a[16], a[17]]);
            key.dst_ip = u32::from_be_bytes([a[24], a[25], a[26], a[27]]);
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ipv4_udp(ttl: u8) -> Vec<u8> {
        let mut f = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00];
        let ip = crate::Ipv4Repr::new(
            crate::Ipv4Address([10, 1, 0, 1]),
            crate::Ipv4Address([10, 2, 0, 1]),
            protocol::UDP,
            ttl,
            12,
        );
        let mut b = [0u8; 32];
        ip.emit(&mut b).unwrap();
        crate::UdpRepr {
            src_port: 1000,
            dst_port: 2000,
            payload_len: 4,
        }
        .emit(&mut b[20..], ip.src_addr, ip.dst_addr)
        .unwrap();
        f.extend_from_slice(&b);
        f
    }

    #[test]
    fn udp_key() {
        let f = ipv4_udp(64);
        let info = parse_frame(&f, 3).unwrap();
        let k = info.key;
        assert_eq!(k.in_port, 3);
        assert_eq!(k.dst_mac, 0x0200_0000_0002);
        assert_eq!(k.src_mac, 0x0200_0000_0001);
        assert_eq!(k.ethertype, 0x0800);
        assert_eq!(k.vlan, 0);
        assert_eq!(k.src_ip, 0x0a01_0001);
        assert_eq!(k.dst_ip, 0x0a02_0001);
        assert_eq!((k.proto, k.src_port, k.dst_port), (17, 1000, 2000));
        assert_eq!((info.l3_offset, info.l3_end), (14, 46));
    }

    #[test]
    fn vlan_and_qinq() {
        let base = ipv4_udp(64);
        for outer in [0x88a8u16, 0x8100] {
            let mut f = base[..12].to_vec();
            f.extend_from_slice(&outer.to_be_bytes());
            f.extend_from_slice(&[0x00, 0x64, 0x81, 0x00, 0x00, 0xc8, 0x08, 0x00]);
            f.extend_from_slice(&base[14..]);
            let info = parse_frame(&f, 0).unwrap();
            assert_eq!(info.key.vlan, VLAN_PRESENT | 100);
            assert_eq!(info.vlan_tags, 2);
            assert_eq!(info.l3_offset, 22);
            assert_eq!(info.key.dst_port, 2000);
        }
        let mut f = base[..12].to_vec();
        for _ in 0..3 {
            f.extend_from_slice(&[0x81, 0x00, 0x00, 0x01]);
        }
        f.extend_from_slice(&base[12..]);
        assert_eq!(parse_frame(&f, 0).unwrap_err(), Malformed::TooManyVlanTags);
        assert_eq!(
            parse_frame(&base[..16], 0).unwrap_err(),
            Malformed::Ipv4Truncated
        );
    }

    #[test]
    fn malformed_reasons() {
        let good = ipv4_udp(64);
        assert_eq!(
            parse_frame(&good[..10], 0).unwrap_err(),
            Malformed::EthernetTruncated
        );
        let mut f = good.clone();
        f[14 + 10] ^= 0xff;
        assert_eq!(parse_frame(&f, 0).unwrap_err(), Malformed::Ipv4BadChecksum);
        let mut f = good.clone();
        f[14] = 0x55;
        assert_eq!(parse_frame(&f, 0).unwrap_err(), Malformed::Ipv4BadVersion);
        // Total length says 24: the UDP header is cut short inside the IP packet.
        let mut f = good.clone();
        f[14 + 3] = 24;
        let mut ip = crate::Ipv4Packet::new_unchecked(&mut f[14..]);
        ip.fill_checksum();
        assert_eq!(parse_frame(&f, 0).unwrap_err(), Malformed::UdpTruncated);
        let mut f = good[..12].to_vec();
        f.extend_from_slice(&[0x81, 0x00, 0x00]);
        assert_eq!(parse_frame(&f, 0).unwrap_err(), Malformed::VlanTruncated);
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = Malformed::ALL.iter().map(|m| m.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Malformed::COUNT);
    }

    /// Frames near the common one: UDP, TCP and ICMP over plain IPv4,
    /// bytes of the first 48 and the total length set at random, cut short
    /// at random, and the IPv4 checksum made right again half of the time
    /// (so the fast path sees wrong lengths, protocols, fragments and
    /// IHLs, not only bad checksums).
    fn near_plain() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let base = prop_oneof![Just(17u8), Just(6), Just(1), Just(4)];
        (
            base,
            proptest::collection::vec((0usize..48, any::<u8>()), 0..4),
            proptest::option::of(0u16..90),
            any::<bool>(),
            0usize..80,
        )
            .prop_map(|(proto, pokes, total, fix, cut)| {
                let b =
                    etherparse::PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
                        .ipv4([10, 0, 0, 1], [10, 9, 8, 7], 64);
                let mut f = Vec::new();
                match proto {
                    6 => b.tcp(1, 2, 3, 1000).write(&mut f, &[7; 20]).unwrap(),
                    1 => b.icmpv4_echo_request(1, 2).write(&mut f, &[7; 20]).unwrap(),
                    _ => b.udp(1, 2).write(&mut f, &[7; 20]).unwrap(),
                }
                if proto == 4 {
                    f[23] = 4; // IPIP whose inner header is the UDP bytes
                }
                for (at, v) in pokes {
                    f[at] = v;
                }
                if let Some(t) = total {
                    f[16..18].copy_from_slice(&t.to_be_bytes());
                }
                if fix {
                    f[24..26].fill(0);
                    let c = crate::checksum::checksum(&f[14..34]);
                    f[24..26].copy_from_slice(&c.to_be_bytes());
                }
                f.truncate(
                    f.len()
                        .min(14 + cut.max(1))
                        .max(if cut > 70 { 0 } else { 1 }),
                );
                f
            })
    }

    proptest::proptest! {
        #[test]
        fn the_plain_path_is_the_general_one(f in near_plain(), port in 0u16..4) {
            let mut fast = PacketInfo::default();
            let mut any = PacketInfo::default();
            if let Some(r) = parse_plain_ipv4(&f, port, &mut fast) {
                let want = parse_any(&f, port, &mut any);
                proptest::prop_assert_eq!(r, want);
                proptest::prop_assert_eq!(fast, any);
            }
        }

        /// The divisibility test by multiplication is the remainder's.
        #[test]
        fn sums_to_ones_is_a_non_zero_multiple(x: u64, k in 0u64..=u64::MAX / 0xffff) {
            for v in [x, k * 0xffff, k * 0xffff + 1, 0, 0xffff, u64::MAX, u64::MAX - 1] {
                proptest::prop_assert_eq!(sums_to_ones(v), v != 0 && v % 0xffff == 0, "{:#x}", v);
            }
        }

        /// The checksum's verdict is the same from words in either byte
        /// order, for any header, its checksum right or not.
        #[test]
        fn either_byte_order_checks_the_same(mut h in proptest::array::uniform20(proptest::prelude::any::<u8>()), fix: bool) {
            if fix {
                h[10..12].fill(0);
                let c = crate::checksum::checksum(&h);
                h[10..12].copy_from_slice(&c.to_be_bytes());
            }
            let want = crate::checksum::checksum(&h) == 0 && h != [0; 20];
            proptest::prop_assert_eq!(sums_to_ones(sum20(&h)), want);
            proptest::prop_assert_eq!(sums_to_ones(sum20_native(&h)), want);
        }

        /// `plain_ipv4` accepts exactly the plain frames the parser
        /// accepts, and reads their destination and end as it does.
        #[test]
        fn plain_ipv4_is_what_the_parser_reads(f in near_plain(), port in 0u16..4) {
            let parsed = parse_frame(&f, port);
            let plain = parsed.as_ref().ok().filter(|i| {
                i.is_ipv4() && i.vlan_tags == 0 && !i.is_ipip() && f[14] == 0x45
            });
            let want = plain.map(|i| PlainIpv4 { dst_ip: i.key.dst_ip, l3_end: i.l3_end });
            proptest::prop_assert_eq!(plain_ipv4(&f), want, "{:?}", parsed);
            // And its whole key, as the general parser reads it.
            let keyed = plain.map(|i| (i.key, want.unwrap()));
            proptest::prop_assert_eq!(plain_ipv4_key(&f, port), keyed, "{:?}", parsed);
        }
    }

    #[test]
    fn the_common_frames_take_the_plain_path() {
        let f = ipv4_udp(64);
        let mut info = PacketInfo::default();
        assert_eq!(parse_plain_ipv4(&f, 1, &mut info), Some(Ok(())));
        assert_eq!(Ok(info), parse_frame(&f, 1));
        // A bad checksum is left to the general path, which names it.
        let mut bad = f.clone();
        bad[24] ^= 1;
        assert_eq!(parse_plain_ipv4(&bad, 1, &mut info), None);
        assert_eq!(parse_frame(&bad, 1), Err(Malformed::Ipv4BadChecksum));
    }

    #[test]
    fn a_checksum_holds_when_the_sum_is_a_multiple_of_ffff() {
        for acc in [0u64, 0xffff, 0x1_fffe, 0x4_5000, 5 * 0xffff_ffff, 0xfffe] {
            let mut f = acc;
            while f > 0xffff {
                f = (f & 0xffff) + (f >> 16);
            }
            assert_eq!(sums_to_ones(acc), f == 0xffff, "{acc:#x}");
        }
    }
}
