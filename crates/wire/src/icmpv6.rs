//! ICMPv6 (RFC 4443): echo, the four error messages, and neighbour
//! discovery's solicitation and advertisement (RFC 4861 §4.3, §4.4) with
//! their link-layer address options. The checksum covers the IPv6
//! pseudo-header, so parsing and emitting take both addresses.

use crate::checksum;
use crate::ethernet::EthernetAddress;
use crate::ipv6::Ipv6Address;
use crate::ipv6ext::ICMPV6;
use crate::{Error, Result};

/// ICMPv6 message types Prism knows by name.
pub mod kind {
    pub const DST_UNREACHABLE: u8 = 1;
    pub const PACKET_TOO_BIG: u8 = 2;
    pub const TIME_EXCEEDED: u8 = 3;
    pub const PARAM_PROBLEM: u8 = 4;
    pub const ECHO_REQUEST: u8 = 128;
    pub const ECHO_REPLY: u8 = 129;
    pub const NEIGHBOR_SOLICIT: u8 = 135;
    pub const NEIGHBOR_ADVERT: u8 = 136;
}

/// Neighbour discovery's option types for a link-layer address.
const OPT_SOURCE_LL: u8 = 1;
const OPT_TARGET_LL: u8 = 2;

/// The most of the invoking packet an error carries: as much as fits in
/// the minimum MTU (RFC 4443 §2.4 (c)), 1280 less 40 and 8.
pub const MAX_INVOKING: usize = 1232;

/// A view of an ICMPv6 message.
#[derive(Debug, Clone)]
pub struct Icmpv6Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Icmpv6Packet<T> {
    pub const fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }
    /// A message of at least its fixed 8 bytes.
    pub fn new_checked(buffer: T) -> Result<Self> {
        match buffer.as_ref().len() >= 8 {
            true => Ok(Self { buffer }),
            false => Err(Error::Truncated),
        }
    }
    pub fn msg_type(&self) -> u8 {
        self.buffer.as_ref()[0]
    }
    pub fn code(&self) -> u8 {
        self.buffer.as_ref()[1]
    }
    pub fn checksum(&self) -> u16 {
        u16::from_be_bytes([self.buffer.as_ref()[2], self.buffer.as_ref()[3]])
    }
    /// The 32 bits after the checksum: echo's identifier and sequence,
    /// an error's MTU or pointer, neighbour advertisement's flags.
    pub fn word(&self) -> u32 {
        let b = self.buffer.as_ref();
        u32::from_be_bytes([b[4], b[5], b[6], b[7]])
    }
    /// What follows the fixed 8 bytes.
    pub fn body(&self) -> &[u8] {
        &self.buffer.as_ref()[8..]
    }
    /// Whether the checksum over `src`, `dst` and the message is right.
    pub fn verify_checksum(&self, src: Ipv6Address, dst: Ipv6Address) -> bool {
        let b = self.buffer.as_ref();
        let Ok(len) = u32::try_from(b.len()) else {
            return false;
        };
        let acc = checksum::pseudo_header_sum_v6(&src.0, &dst.0, ICMPV6, len);
        checksum::fold(checksum::sum(acc, b)) == 0xffff
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Icmpv6Packet<T> {
    /// Computes the checksum over `src`, `dst` and the message.
    pub fn fill_checksum(&mut self, src: Ipv6Address, dst: Ipv6Address) {
        let b = self.buffer.as_mut();
        b[2..4].fill(0);
        let len = b.len() as u32;
        let acc = checksum::pseudo_header_sum_v6(&src.0, &dst.0, ICMPV6, len);
        let c = !checksum::fold(checksum::sum(acc, b));
        b[2..4].copy_from_slice(&c.to_be_bytes());
    }
}

/// The owned form of the ICMPv6 messages Prism reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Icmpv6Repr<'a> {
    EchoRequest {
        ident: u16,
        seq_no: u16,
        data: &'a [u8],
    },
    EchoReply {
        ident: u16,
        seq_no: u16,
        data: &'a [u8],
    },
    /// An error (destination unreachable, packet too big, time exceeded,
    /// parameter problem: `msg_type`) about `invoking`, the start of the
    /// packet that caused it; `word` is the MTU or the pointer (else 0).
    Error {
        msg_type: u8,
        code: u8,
        word: u32,
        invoking: &'a [u8],
    },
    NeighborSolicit {
        target: Ipv6Address,
        source_mac: Option<EthernetAddress>,
    },
    NeighborAdvert {
        router: bool,
        solicited: bool,
        override_: bool,
        target: Ipv6Address,
        target_mac: Option<EthernetAddress>,
    },
}

/// The link-layer address option of type `want` among neighbour
/// discovery's `options` (each a multiple of 8 bytes; a zero length is
/// malformed, RFC 4861 §4.6).
fn ll_option(options: &[u8], want: u8) -> Result<Option<EthernetAddress>> {
    let mut rest = options;
    let mut found = None;
    while !rest.is_empty() {
        let len = usize::from(*rest.get(1).ok_or(Error::Truncated)?) * 8;
        if len == 0 {
            return Err(Error::BadLength);
        }
        let opt = rest.get(..len).ok_or(Error::Truncated)?;
        if opt[0] == want && len == 8 {
            let mut mac = [0u8; 6];
            mac.copy_from_slice(&opt[2..8]);
            found = Some(EthernetAddress(mac));
        }
        rest = &rest[len..];
    }
    Ok(found)
}

impl<'a> Icmpv6Repr<'a> {
    /// Parses a message sent from `src` to `dst`, its checksum checked.
    pub fn parse<T: AsRef<[u8]> + ?Sized>(
        p: &Icmpv6Packet<&'a T>,
        src: Ipv6Address,
        dst: Ipv6Address,
    ) -> Result<Self> {
        if !p.verify_checksum(src, dst) {
            return Err(Error::BadChecksum);
        }
        let b: &'a [u8] = p.buffer.as_ref();
        let (ident, seq_no) = ((p.word() >> 16) as u16, p.word() as u16);
        let nd = |b: &'a [u8]| -> Result<(Ipv6Address, &'a [u8])> {
            let target = Ipv6Address::from_bytes(b.get(8..24).ok_or(Error::Truncated)?);
            match p.code() == 0 && !target.is_multicast() {
                true => Ok((target, &b[24..])),
                false => Err(Error::Unsupported),
            }
        };
        Ok(match p.msg_type() {
            kind::ECHO_REQUEST => Icmpv6Repr::EchoRequest {
                ident,
                seq_no,
                data: &b[8..],
            },
            kind::ECHO_REPLY => Icmpv6Repr::EchoReply {
                ident,
                seq_no,
                data: &b[8..],
            },
            kind::DST_UNREACHABLE..=kind::PARAM_PROBLEM => Icmpv6Repr::Error {
                msg_type: p.msg_type(),
                code: p.code(),
                word: p.word(),
                invoking: &b[8..],
            },
            kind::NEIGHBOR_SOLICIT => {
                let (target, options) = nd(b)?;
                let source_mac = ll_option(options, OPT_SOURCE_LL)?;
                Icmpv6Repr::NeighborSolicit { target, source_mac }
            }
            kind::NEIGHBOR_ADVERT => {
                let (target, options) = nd(b)?;
                let flags = b[4];
                Icmpv6Repr::NeighborAdvert {
                    router: flags & 0x80 != 0,
                    solicited: flags & 0x40 != 0,
                    override_: flags & 0x20 != 0,
                    target,
                    target_mac: ll_option(options, OPT_TARGET_LL)?,
                }
            }
            _ => return Err(Error::Unsupported),
        })
    }

    pub fn buffer_len(&self) -> usize {
        let ll = |m: &Option<EthernetAddress>| if m.is_some() { 8 } else { 0 };
        match self {
            Icmpv6Repr::EchoRequest { data, .. } | Icmpv6Repr::EchoReply { data, .. } => {
                8 + data.len()
            }
            Icmpv6Repr::Error { invoking, .. } => 8 + invoking.len().min(MAX_INVOKING),
            Icmpv6Repr::NeighborSolicit { source_mac, .. } => 24 + ll(source_mac),
            Icmpv6Repr::NeighborAdvert { target_mac, .. } => 24 + ll(target_mac),
        }
    }

    /// Writes the message (checksum over `src` and `dst` included) into
    /// the start of `buf`, which must be [`Self::buffer_len`] long.
    pub fn emit(&self, buf: &mut [u8], src: Ipv6Address, dst: Ipv6Address) -> Result<()> {
        let len = self.buffer_len();
        let b = buf.get_mut(..len).ok_or(Error::Truncated)?;
        b.fill(0);
        let (t, code, word) = self.head();
        b[0] = t;
        b[1] = code;
        b[4..8].copy_from_slice(&word.to_be_bytes());
        match *self {
            Icmpv6Repr::EchoRequest { data, .. } | Icmpv6Repr::EchoReply { data, .. } => {
                b[8..].copy_from_slice(data)
            }
            Icmpv6Repr::Error { invoking, .. } => b[8..].copy_from_slice(&invoking[..len - 8]),
            Icmpv6Repr::NeighborSolicit {
                target,
                source_mac: mac,
            }
            | Icmpv6Repr::NeighborAdvert {
                target,
                target_mac: mac,
                ..
            } => {
                b[8..24].copy_from_slice(&target.0);
                if let Some(m) = mac {
                    let opt = if t == kind::NEIGHBOR_SOLICIT {
                        OPT_SOURCE_LL
                    } else {
                        OPT_TARGET_LL
                    };
                    b[24..32]
                        .copy_from_slice(&[opt, 1, m.0[0], m.0[1], m.0[2], m.0[3], m.0[4], m.0[5]]);
                }
            }
        }
        Icmpv6Packet::new_unchecked(b).fill_checksum(src, dst);
        Ok(())
    }

    /// The type, code and the word after the checksum.
    fn head(&self) -> (u8, u8, u32) {
        let echo = |ident: u16, seq: u16| (u32::from(ident) << 16) | u32::from(seq);
        match *self {
            Icmpv6Repr::EchoRequest { ident, seq_no, .. } => {
                (kind::ECHO_REQUEST, 0, echo(ident, seq_no))
            }
            Icmpv6Repr::EchoReply { ident, seq_no, .. } => {
                (kind::ECHO_REPLY, 0, echo(ident, seq_no))
            }
            Icmpv6Repr::Error {
                msg_type,
                code,
                word,
                ..
            } => (msg_type, code, word),
            Icmpv6Repr::NeighborSolicit { .. } => (kind::NEIGHBOR_SOLICIT, 0, 0),
            Icmpv6Repr::NeighborAdvert {
                router,
                solicited,
                override_,
                ..
            } => {
                let flags = (u32::from(router) << 31)
                    | (u32::from(solicited) << 30)
                    | (u32::from(override_) << 29);
                (kind::NEIGHBOR_ADVERT, 0, flags)
            }
        }
    }
}

#[cfg(test)]
mod tests;
