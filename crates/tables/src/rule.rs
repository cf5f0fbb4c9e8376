//! Classifier keys and rules: per-field value/mask, plus L4 port ranges.
//!
//! A [`Key`] is a [`FlowKey`] packed into five 64-bit words so that masking a
//! key for a tuple is five ANDs. The layout:
//!
//! | word | bits 63..48 | 47..32 | 31..16 | 15..0 |
//! |------|-------------|--------|--------|-------|
//! | 0 | source IPv4 (63..32) | | destination IPv4 (31..0) | |
//! | 1 | inner source IPv4 | | inner destination IPv4 | |
//! | 2 | L4 source port | L4 destination port | EtherType | VLAN (`0x1000` \| VID) |
//! | 3 | ingress port | source MAC (47..0) | | |
//! | 4 | IP protocol (55..48) | destination MAC (47..0) | | |

use prism_wire::FlowKey;
use prism_wire::Ipv4Prefix;

pub const WORDS: usize = 5;

/// A packed classification key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Key(pub [u64; WORDS]);

impl Key {
    #[inline]
    pub fn from_flow(k: &FlowKey) -> Self {
        Self([
            (u64::from(k.src_ip) << 32) | u64::from(k.dst_ip),
            (u64::from(k.inner_src_ip) << 32) | u64::from(k.inner_dst_ip),
            (u64::from(k.src_port) << 48)
                | (u64::from(k.dst_port) << 32)
                | (u64::from(k.ethertype) << 16)
                | u64::from(k.vlan),
            (u64::from(k.in_port) << 48) | (k.src_mac & MAC),
            (u64::from(k.proto) << 48) | (k.dst_mac & MAC),
        ])
    }
    #[inline]
    pub fn src_port(&self) -> u16 {
        (self.0[2] >> 48) as u16
    }
    #[inline]
    pub fn dst_port(&self) -> u16 {
        (self.0[2] >> 32) as u16
    }
}

const MAC: u64 = (1 << 48) - 1;

pub use prism_wire::PortRange;

/// Per-field value and mask: a ternary match over a [`Key`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Ternary {
    pub value: [u64; WORDS],
    pub mask: [u64; WORDS],
}

impl Ternary {
    /// Matches every key.
    pub const ANY: Self = Self {
        value: [0; WORDS],
        mask: [0; WORDS],
    };

    fn set(mut self, word: usize, shift: u32, width: u32, value: u64, mask: u64) -> Self {
        let field = ((1u64 << width) - 1) << shift;
        self.mask[word] = (self.mask[word] & !field) | ((mask << shift) & field);
        self.value[word] = (self.value[word] & !field) | ((value & mask) << shift & field);
        self
    }
    pub fn src_ip(self, p: Ipv4Prefix) -> Self {
        self.set(0, 32, 32, u64::from(p.addr()), u64::from(p.mask()))
    }
    pub fn dst_ip(self, p: Ipv4Prefix) -> Self {
        self.set(0, 0, 32, u64::from(p.addr()), u64::from(p.mask()))
    }
    pub fn inner_src_ip(self, p: Ipv4Prefix) -> Self {
        self.set(1, 32, 32, u64::from(p.addr()), u64::from(p.mask()))
    }
    pub fn inner_dst_ip(self, p: Ipv4Prefix) -> Self {
        self.set(1, 0, 32, u64::from(p.addr()), u64::from(p.mask()))
    }
    pub fn ethertype(self, v: u16) -> Self {
        self.set(2, 16, 16, u64::from(v), 0xffff)
    }
    /// The outer VLAN ID; `None` matches untagged frames only.
    pub fn vlan(self, vid: Option<u16>) -> Self {
        match vid {
            Some(v) => self.set(
                2,
                0,
                16,
                u64::from(prism_wire::VLAN_PRESENT | (v & 0x0fff)),
                0x1fff,
            ),
            None => self.set(2, 0, 16, 0, 0x1fff),
        }
    }
    pub fn in_port(self, p: u16) -> Self {
        self.set(3, 48, 16, u64::from(p), 0xffff)
    }
    pub fn src_mac(self, mac: u64, mask: u64) -> Self {
        self.set(3, 0, 48, mac, mask & MAC)
    }
    pub fn dst_mac(self, mac: u64, mask: u64) -> Self {
        self.set(4, 0, 48, mac, mask & MAC)
    }
    pub fn proto(self, v: u8, mask: u8) -> Self {
        self.set(4, 48, 8, u64::from(v), u64::from(mask))
    }
    fn src_port_masked(self, v: u16, m: u16) -> Self {
        self.set(2, 48, 16, u64::from(v), u64::from(m))
    }
    fn dst_port_masked(self, v: u16, m: u16) -> Self {
        self.set(2, 32, 16, u64::from(v), u64::from(m))
    }

    #[inline]
    pub fn matches(&self, k: &Key) -> bool {
        (0..WORDS).all(|i| k.0[i] & self.mask[i] == self.value[i])
    }
}

/// Identifies a rule for deletion; also breaks priority ties (lower wins).
pub type RuleId = u32;

/// A classifier rule: the highest priority matching rule wins; among equal
/// priorities, the lowest id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rule {
    pub id: RuleId,
    pub priority: u32,
    pub fields: Ternary,
    pub src_port: PortRange,
    pub dst_port: PortRange,
    /// What the rule returns: an index into the owner's action table.
    pub action: u32,
}

impl Rule {
    pub fn new(id: RuleId, priority: u32, fields: Ternary, action: u32) -> Self {
        Self {
            id,
            priority,
            fields,
            src_port: PortRange::ANY,
            dst_port: PortRange::ANY,
            action,
        }
    }

    pub fn with_ports(mut self, src: PortRange, dst: PortRange) -> Self {
        self.src_port = src;
        self.dst_port = dst;
        self
    }

    /// The full semantics: fields under mask, and both port ranges.
    #[inline]
    pub fn matches(&self, k: &Key) -> bool {
        self.fields.matches(k)
            && self.src_port.contains(k.src_port())
            && self.dst_port.contains(k.dst_port())
    }

    /// The fields with every port range that is an aligned block folded into
    /// the mask, so that exact and prefix ports take part in hashing.
    pub fn hashed_fields(&self) -> Ternary {
        let mut t = self.fields;
        if let Some((v, m)) = self.src_port.as_prefix() {
            t = t.src_port_masked(v, m);
        }
        if let Some((v, m)) = self.dst_port.as_prefix() {
            t = t.dst_port_masked(v, m);
        }
        t
    }

    pub fn as_match(&self) -> Match {
        Match {
            id: self.id,
            priority: self.priority,
            action: self.action,
        }
    }
}

/// The winning rule of a lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Match {
    pub id: RuleId,
    pub priority: u32,
    pub action: u32,
}

impl Match {
    /// Whether `self` wins over `other`.
    #[inline]
    pub fn beats(&self, priority: u32, id: RuleId) -> bool {
        self.priority > priority || (self.priority == priority && self.id < id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_prefixes() {
        assert_eq!(PortRange::exact(80).as_prefix(), Some((80, 0xffff)));
        assert_eq!(PortRange::ANY.as_prefix(), Some((0, 0)));
        assert_eq!(
            PortRange { lo: 1024, hi: 2047 }.as_prefix(),
            Some((1024, 0xfc00))
        );
        assert_eq!(
            PortRange {
                lo: 1024,
                hi: 65535
            }
            .as_prefix(),
            None
        );
        assert_eq!(PortRange { lo: 1, hi: 2 }.as_prefix(), None);
        // Found by the classify fuzz target: an empty range must not overflow.
        assert_eq!(PortRange { lo: 5, hi: 4 }.as_prefix(), None);
    }

    #[test]
    fn fields_pack_where_documented() {
        let k = FlowKey {
            in_port: 3,
            src_mac: 0x0200_0000_0001,
            dst_mac: 0x0200_0000_0002,
            ethertype: 0x0800,
            vlan: 0x1000 | 100,
            src_ip: 0x0a00_0001,
            dst_ip: 0x0a00_0002,
            proto: 17,
            src_port: 1000,
            dst_port: 53,
            inner_src_ip: 0xc0a8_0001,
            inner_dst_ip: 0xc0a8_0002,
        };
        let key = Key::from_flow(&k);
        let t = Ternary::ANY
            .src_ip("10.0.0.0/8".parse().unwrap())
            .dst_ip("10.0.0.2/32".parse().unwrap())
            .inner_dst_ip("192.168.0.0/24".parse().unwrap())
            .ethertype(0x0800)
            .vlan(Some(100))
            .in_port(3)
            .src_mac(0x0200_0000_0001, u64::MAX)
            .dst_mac(0x0200_0000_0000, 0xffff_ffff_0000)
            .proto(17, 0xff);
        assert!(t.matches(&key));
        for wrong in [
            Ternary::ANY.in_port(4),
            Ternary::ANY.vlan(None),
            Ternary::ANY.vlan(Some(101)),
            Ternary::ANY.proto(6, 0xff),
            Ternary::ANY.inner_src_ip("192.168.0.2/32".parse().unwrap()),
            Ternary::ANY.ethertype(0x0806),
        ] {
            assert!(!wrong.matches(&key), "{wrong:?}");
        }
        let r = Rule::new(1, 1, Ternary::ANY, 0)
            .with_ports(PortRange { lo: 999, hi: 1001 }, PortRange::exact(53));
        assert!(r.matches(&key));
        assert!(r.hashed_fields().matches(&key));
        let r = r.with_ports(PortRange::exact(1001), PortRange::ANY);
        assert!(!r.matches(&key) && !r.hashed_fields().matches(&key));
    }
}
