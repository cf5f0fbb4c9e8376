//! IEEE 802.1Q VLAN tags, single and stacked (802.1ad / QinQ).
//!
//! A tag is the 4 bytes that follow a TPID of 0x8100 or 0x88a8: the TCI
//! (priority, drop-eligible bit, 12-bit VLAN ID) and the EtherType of what
//! comes next. Real captures use both 0x88a8 and 0x8100 for the outer tag of
//! a stacked pair, so both are accepted at either position.

use crate::{Error, Result};

mod field {
    use crate::field::Field;
    pub const TCI: Field = 0..2;
    pub const ETHERTYPE: Field = 2..4;
}

/// Length of one tag after the TPID.
pub const TAG_LEN: usize = 4;

/// Whether `ethertype` is a VLAN tag protocol identifier.
pub const fn is_tpid(ethertype: u16) -> bool {
    ethertype == crate::ethertype::VLAN || ethertype == crate::ethertype::QINQ
}

/// Where a frame's first tag goes: after the two MAC addresses.
pub const FIRST_TAG_OFFSET: usize = 12;

/// Writes a whole tag as it sits on the wire, TPID first, into the 4 bytes
/// of `gap` (opened at [`FIRST_TAG_OFFSET`]): how a tag that a NIC stripped
/// into receive metadata (`tpid`, `tci`) is put back into its frame. The
/// EtherType that followed the MACs now follows the tag, unchanged.
pub fn emit_stripped_tag(gap: &mut [u8; TAG_LEN], tpid: u16, tci: u16) {
    gap[..2].copy_from_slice(&tpid.to_be_bytes());
    gap[2..].copy_from_slice(&tci.to_be_bytes());
}

/// A view of one VLAN tag (the bytes after its TPID).
#[derive(Debug, Clone)]
pub struct VlanTag<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> VlanTag<T> {
    pub const fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }

    pub fn new_checked(buffer: T) -> Result<Self> {
        if buffer.as_ref().len() < TAG_LEN {
            return Err(Error::Truncated);
        }
        Ok(Self { buffer })
    }

    fn tci(&self) -> u16 {
        let d = &self.buffer.as_ref()[field::TCI];
        u16::from_be_bytes([d[0], d[1]])
    }

    pub fn priority(&self) -> u8 {
        (self.tci() >> 13) as u8
    }

    pub fn drop_eligible(&self) -> bool {
        self.tci() & 0x1000 != 0
    }

    pub fn vlan_id(&self) -> u16 {
        self.tci() & 0x0fff
    }

    pub fn ethertype(&self) -> u16 {
        let d = &self.buffer.as_ref()[field::ETHERTYPE];
        u16::from_be_bytes([d[0], d[1]])
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> VlanTag<T> {
    pub fn set_tci(&mut self, priority: u8, drop_eligible: bool, vlan_id: u16) {
        let tci =
            (u16::from(priority & 7) << 13) | (u16::from(drop_eligible) << 12) | (vlan_id & 0x0fff);
        self.buffer.as_mut()[field::TCI].copy_from_slice(&tci.to_be_bytes());
    }
    pub fn set_ethertype(&mut self, t: u16) {
        self.buffer.as_mut()[field::ETHERTYPE].copy_from_slice(&t.to_be_bytes());
    }
}

/// The owned form of a VLAN tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VlanRepr {
    pub priority: u8,
    pub drop_eligible: bool,
    pub vlan_id: u16,
    pub ethertype: u16,
}

impl VlanRepr {
    pub fn parse<T: AsRef<[u8]>>(tag: &VlanTag<T>) -> Result<Self> {
        Ok(Self {
            priority: tag.priority(),
            drop_eligible: tag.drop_eligible(),
            vlan_id: tag.vlan_id(),
            ethertype: tag.ethertype(),
        })
    }

    pub const fn buffer_len(&self) -> usize {
        TAG_LEN
    }

    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, tag: &mut VlanTag<T>) {
        tag.set_tci(self.priority, self.drop_eligible, self.vlan_id);
        tag.set_ethertype(self.ethertype);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // From the shared 802.1q capture: TCI 0x0064 (VID 100), then IPv4.
    static TAG: [u8; 4] = [0x00, 0x64, 0x08, 0x00];
    // PCP 5, DEI set, VID 4094.
    static TAG2: [u8; 4] = [0xbf, 0xfe, 0x81, 0x00];

    #[test]
    fn decode() {
        let t = VlanTag::new_checked(&TAG[..]).unwrap();
        assert_eq!(
            (t.priority(), t.drop_eligible(), t.vlan_id(), t.ethertype()),
            (0, false, 100, 0x0800)
        );
        let t = VlanTag::new_checked(&TAG2[..]).unwrap();
        assert_eq!(
            (t.priority(), t.drop_eligible(), t.vlan_id(), t.ethertype()),
            (5, true, 4094, 0x8100)
        );
        assert_eq!(
            VlanTag::new_checked(&TAG[..3]).unwrap_err(),
            Error::Truncated
        );
    }

    #[test]
    fn encode() {
        for bytes in [TAG, TAG2] {
            let repr = VlanRepr::parse(&VlanTag::new_checked(&bytes[..]).unwrap()).unwrap();
            let mut out = [0u8; 4];
            repr.emit(&mut VlanTag::new_unchecked(&mut out[..]));
            assert_eq!(out, bytes);
        }
    }

    #[test]
    fn a_stripped_tag_goes_back_before_the_ethertype() {
        let mut frame = [0u8; 18];
        frame[12..14].copy_from_slice(&[0x08, 0x00]);
        // Open the gap as a NIC-metadata restore does, then fill it.
        frame.copy_within(12..14, 16);
        let gap: &mut [u8; TAG_LEN] = (&mut frame[12..16]).try_into().unwrap();
        emit_stripped_tag(gap, 0x8100, 0x2064);
        assert_eq!(&frame[12..18], &[0x81, 0x00, 0x20, 0x64, 0x08, 0x00]);
        let t = VlanTag::new_checked(&frame[14..]).unwrap();
        assert_eq!((t.priority(), t.vlan_id(), t.ethertype()), (1, 100, 0x0800));
    }
}
