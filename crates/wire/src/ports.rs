//! Ranges of transport ports, as rules and documents name them.

/// An inclusive range of L4 ports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PortRange {
    pub lo: u16,
    pub hi: u16,
}

impl PortRange {
    pub const ANY: Self = Self {
        lo: 0,
        hi: u16::MAX,
    };
    pub const fn exact(p: u16) -> Self {
        Self { lo: p, hi: p }
    }
    #[inline]
    pub const fn contains(self, p: u16) -> bool {
        self.lo <= p && p <= self.hi
    }
    /// If the range is one aligned power-of-two block, its value and mask.
    pub fn as_prefix(self) -> Option<(u16, u16)> {
        if self.lo > self.hi {
            return None; // an empty range: matches nothing, checked in the bucket
        }
        let size = u32::from(self.hi) + 1 - u32::from(self.lo);
        if !size.is_power_of_two() || !u32::from(self.lo).is_multiple_of(size) {
            return None;
        }
        let mask = !(size - 1) as u16;
        Some((self.lo, mask))
    }
}
