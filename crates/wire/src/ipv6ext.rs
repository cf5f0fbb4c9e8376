//! IPv6 extension headers (RFC 8200 §4): the chain after the fixed header
//! walked to its upper layer, with a bound, and each header read through
//! one view ([`ExtHeader`]); the fragment header's fields as a `Repr`.
//!
//! What a router refuses (each a named [`ChainError`]): a chain longer than
//! [`MAX_CHAIN`] headers (RFC 8504 §5.3 lets a node limit it), a
//! hop-by-hop header anywhere but first (RFC 8200 §4.1), a routing header
//! of type 0 (deprecated by RFC 5095: dropped as policy), and a header
//! running past the payload.

use crate::field::Field;

pub const HOP_BY_HOP: u8 = 0;
pub const ROUTING: u8 = 43;
pub const FRAGMENT: u8 = 44;
pub const ESP: u8 = 50;
pub const AUTH: u8 = 51;
pub const ICMPV6: u8 = 58;
pub const NO_NEXT: u8 = 59;
pub const DEST_OPTS: u8 = 60;

/// The most extension headers walked before the upper layer.
pub const MAX_CHAIN: usize = 8;

/// Why a chain of extension headers is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainError {
    /// A header runs past the payload.
    Truncated,
    /// More than [`MAX_CHAIN`] extension headers.
    TooLong,
    /// A hop-by-hop header after another header.
    HopByHopNotFirst,
    /// A routing header of type 0.
    RoutingType0,
}

impl ChainError {
    /// The reason's name, as drop counters show it.
    pub const fn name(self) -> &'static str {
        match self {
            ChainError::Truncated => "ipv6-ext-truncated",
            ChainError::TooLong => "ipv6-ext-chain-too-long",
            ChainError::HopByHopNotFirst => "ipv6-hop-by-hop-not-first",
            ChainError::RoutingType0 => "ipv6-routing-type-0",
        }
    }
}

/// Whether `next` names an extension header this walk steps over.
pub const fn is_extension(next: u8) -> bool {
    matches!(next, HOP_BY_HOP | ROUTING | FRAGMENT | AUTH | DEST_OPTS)
}

mod field {
    use super::Field;
    pub const NEXT: usize = 0;
    pub const LEN: usize = 1;
    pub const ROUTING_TYPE: usize = 2;
    pub const FRAG_OFF: Field = 2..4;
    pub const FRAG_IDENT: Field = 4..8;
}

/// A view of one extension header of kind `kind` (which decides how its
/// length field counts) at the start of `buffer`.
#[derive(Debug, Clone, Copy)]
pub struct ExtHeader<'a> {
    kind: u8,
    buffer: &'a [u8],
}

impl<'a> ExtHeader<'a> {
    /// The header of kind `kind` at the start of `buffer`, if all of it is
    /// there.
    pub fn new_checked(kind: u8, buffer: &'a [u8]) -> Result<Self, ChainError> {
        let h = Self { kind, buffer };
        let need = match kind {
            FRAGMENT => 8,
            _ => 2,
        };
        if buffer.len() < need || buffer.len() < h.header_len() {
            return Err(ChainError::Truncated);
        }
        Ok(h)
    }

    pub fn kind(&self) -> u8 {
        self.kind
    }
    pub fn next_header(&self) -> u8 {
        self.buffer[field::NEXT]
    }
    /// Its length in bytes: the fragment header's is fixed (8), the
    /// authentication header's counts 4-byte words less two (RFC 4302),
    /// the others' 8-byte words less one.
    pub fn header_len(&self) -> usize {
        let n = usize::from(self.buffer[field::LEN]);
        match self.kind {
            FRAGMENT => 8,
            AUTH => (n + 2) * 4,
            _ => (n + 1) * 8,
        }
    }
    /// A routing header's type.
    pub fn routing_type(&self) -> Option<u8> {
        (self.kind == ROUTING).then(|| self.buffer[field::ROUTING_TYPE])
    }
    /// A fragment header's fields.
    pub fn fragment(&self) -> Option<FragmentRepr> {
        (self.kind == FRAGMENT).then(|| FragmentRepr::parse(self.buffer))
    }
    /// The options, routing data or authentication data after the first
    /// two bytes.
    pub fn data(&self) -> &'a [u8] {
        &self.buffer[2..self.header_len()]
    }
}

/// A fragment header's fields (RFC 8200 §4.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FragmentRepr {
    pub next_header: u8,
    /// The fragment's offset in bytes.
    pub offset: u16,
    pub more: bool,
    pub ident: u32,
}

impl FragmentRepr {
    /// The fields of the 8 bytes at the start of `b` (which must hold them).
    fn parse(b: &[u8]) -> Self {
        let off = u16::from_be_bytes([b[field::FRAG_OFF.start], b[field::FRAG_OFF.start + 1]]);
        let id = &b[field::FRAG_IDENT];
        Self {
            next_header: b[field::NEXT],
            offset: off & 0xfff8,
            more: off & 1 != 0,
            ident: u32::from_be_bytes([id[0], id[1], id[2], id[3]]),
        }
    }

    pub const fn buffer_len(&self) -> usize {
        8
    }

    /// Writes the header into the start of `buf` (8 bytes).
    pub fn emit(&self, buf: &mut [u8]) -> crate::Result<()> {
        if buf.len() < 8 {
            return Err(crate::Error::Truncated);
        }
        buf[field::NEXT] = self.next_header;
        buf[field::LEN] = 0;
        let off = (self.offset & 0xfff8) | u16::from(self.more);
        buf[field::FRAG_OFF].copy_from_slice(&off.to_be_bytes());
        buf[field::FRAG_IDENT].copy_from_slice(&self.ident.to_be_bytes());
        Ok(())
    }
}

/// Where a chain ends: the upper layer's protocol and where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chain {
    /// The upper layer's protocol (`NO_NEXT` if none; `ESP`'s is hidden).
    pub upper: u8,
    /// Its offset in the IPv6 payload (the extension headers' length).
    pub offset: usize,
    /// Extension headers stepped over.
    pub headers: u8,
    /// The fragment header's fields, if there is one.
    pub fragment: Option<FragmentRepr>,
}

impl Chain {
    /// Whether the upper layer's header is in this packet: not in a
    /// fragment after the first.
    pub fn has_upper_header(&self) -> bool {
        self.fragment.is_none_or(|f| f.offset == 0)
    }
}

/// Walks the extension headers of an IPv6 payload whose first header is
/// `first` to the upper layer.
pub fn walk(first: u8, payload: &[u8]) -> Result<Chain, ChainError> {
    let mut chain = Chain {
        upper: first,
        offset: 0,
        headers: 0,
        fragment: None,
    };
    while is_extension(chain.upper) {
        if chain.upper == HOP_BY_HOP && chain.headers > 0 {
            return Err(ChainError::HopByHopNotFirst);
        }
        if usize::from(chain.headers) == MAX_CHAIN {
            return Err(ChainError::TooLong);
        }
        let h = ExtHeader::new_checked(chain.upper, &payload[chain.offset..])?;
        if h.routing_type() == Some(0) {
            return Err(ChainError::RoutingType0);
        }
        if let Some(f) = h.fragment() {
            chain.fragment = Some(f);
        }
        chain.headers += 1;
        chain.offset += h.header_len();
        chain.upper = h.next_header();
        if chain.fragment.is_some_and(|f| f.offset != 0) {
            // A later fragment: what follows is the middle of the payload.
            break;
        }
    }
    Ok(chain)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Hop-by-hop (a Router Alert option, PadN to 8 bytes), then a
    // destination-options header of 16 bytes, then UDP.
    static HBH_DEST_UDP: [u8; 32] = [
        DEST_OPTS, 0, 0x05, 0x02, 0x00, 0x00, 0x01, 0x00, // hop-by-hop: RA, Pad1s
        17, 1, 0x01, 0x0c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // dest opts: PadN 12
        0x30, 0x39, 0x00, 0x35, 0x00, 0x08, 0x00, 0x00, // UDP header
    ];

    #[test]
    fn a_chain_is_walked_to_its_upper_layer() {
        let c = walk(HOP_BY_HOP, &HBH_DEST_UDP).unwrap();
        assert_eq!((c.upper, c.offset, c.headers), (17, 24, 2));
        assert!(c.fragment.is_none() && c.has_upper_header());
        let h = ExtHeader::new_checked(DEST_OPTS, &HBH_DEST_UDP[8..]).unwrap();
        assert_eq!(
            (h.header_len(), h.next_header(), h.data().len()),
            (16, 17, 14)
        );
        assert_eq!(walk(17, &HBH_DEST_UDP[24..]).unwrap().offset, 0);
        assert_eq!(walk(NO_NEXT, &[]).unwrap().upper, NO_NEXT);
    }

    #[test]
    fn fragments_name_their_offset_and_hide_a_later_ones_upper_layer() {
        let first = FragmentRepr {
            next_header: 17,
            offset: 0,
            more: true,
            ident: 0xdead_beef,
        };
        let mut b = [0u8; 16];
        first.emit(&mut b).unwrap();
        assert_eq!(&b[..8], &[17, 0, 0x00, 0x01, 0xde, 0xad, 0xbe, 0xef]);
        let c = walk(FRAGMENT, &b).unwrap();
        assert_eq!((c.upper, c.offset, c.fragment), (17, 8, Some(first)));
        assert!(c.has_upper_header());
        let later = FragmentRepr {
            offset: 1448,
            more: false,
            ..first
        };
        later.emit(&mut b).unwrap();
        assert_eq!(&b[2..4], &[0x05, 0xa8]);
        let c = walk(FRAGMENT, &b).unwrap();
        assert_eq!(c.fragment, Some(later));
        assert!(!c.has_upper_header());
    }

    #[test]
    fn refusals_are_named() {
        // A hop-by-hop header second.
        let mut b = [0u8; 16];
        b[0] = HOP_BY_HOP;
        assert_eq!(walk(DEST_OPTS, &b), Err(ChainError::HopByHopNotFirst));
        // A routing header of type 0 (RFC 5095), and one of type 4 (SRv6) walked.
        let mut r = [0u8; 8];
        r[0] = NO_NEXT;
        assert_eq!(walk(ROUTING, &r), Err(ChainError::RoutingType0));
        r[2] = 4;
        assert_eq!(walk(ROUTING, &r).unwrap().upper, NO_NEXT);
        // Nine destination-options headers.
        let mut long = [0u8; 8 * 9];
        for h in long.chunks_mut(8) {
            h[0] = DEST_OPTS;
        }
        assert_eq!(walk(DEST_OPTS, &long), Err(ChainError::TooLong));
        assert_eq!(walk(DEST_OPTS, &long[..60]), Err(ChainError::Truncated));
        // An AH's length counts 4-byte words (RFC 4302): 12 bytes here.
        let mut ah = [0u8; 16];
        (ah[0], ah[1]) = (6, 1);
        assert_eq!(walk(AUTH, &ah).unwrap().offset, 12);
    }

    #[test]
    fn a_header_cut_anywhere_is_truncated_not_a_panic() {
        for cut in 0..24 {
            assert_eq!(
                walk(HOP_BY_HOP, &HBH_DEST_UDP[..cut]),
                Err(ChainError::Truncated),
                "cut at {cut}"
            );
        }
        for cut in 0..8 {
            assert_eq!(walk(FRAGMENT, &[0u8; 8][..cut]), Err(ChainError::Truncated));
        }
    }
}
