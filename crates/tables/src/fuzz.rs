//! Body of the classifier fuzz target, shared with the proptests: bytes are
//! read as a sequence of rule inserts, deletes and lookups, and every lookup
//! of the fast classifier must equal the linear reference's.

use crate::Classifier;
use crate::linear::LinearClassifier;
use crate::prefix::Ipv4Prefix;
use crate::rule::{Key, PortRange, Rule, Ternary};

fn take<const N: usize>(data: &mut &[u8]) -> Option<[u8; N]> {
    if data.len() < N {
        return None;
    }
    let (a, b) = data.split_at(N);
    *data = b;
    a.try_into().ok()
}

/// Runs the operations `data` encodes; panics if the classifiers disagree.
pub fn classifier_matches_reference(mut data: &[u8]) {
    let mut fast = Classifier::new();
    let mut slow = LinearClassifier::new();
    while let Some([op]) = take::<1>(&mut data) {
        match op % 4 {
            0 | 1 => {
                let Some(b) = take::<16>(&mut data) else {
                    return;
                };
                let r = fuzz_rule(&b);
                fast.insert(r);
                slow.insert(r);
            }
            2 => {
                let Some([id]) = take::<1>(&mut data) else {
                    return;
                };
                assert_eq!(
                    fast.remove(u32::from(id & 0x1f)).is_some(),
                    slow.remove(u32::from(id & 0x1f)).is_some()
                );
            }
            _ => {
                let Some(b) = take::<9>(&mut data) else {
                    return;
                };
                let k = fuzz_key(&b);
                assert_eq!(fast.lookup(&k), slow.lookup(&k), "lookup disagrees");
            }
        }
    }
}

/// A rule from 16 bytes: a small address space and few ids, so rules
/// overlap and collide.
fn fuzz_rule(b: &[u8; 16]) -> Rule {
    let src = Ipv4Prefix::new(u32::from(b[0] & 0x0f) << 24, b[1] % 33);
    let dst = Ipv4Prefix::new(u32::from(b[2] & 0x0f) << 24 | u32::from(b[3]), b[4] % 33);
    let range = |lo: u8, hi: u8| PortRange {
        lo: u16::from(lo.min(hi) & 0x1f),
        hi: u16::from(lo.max(hi) & 0x1f),
    };
    let mut t = Ternary::ANY.src_ip(src).dst_ip(dst);
    if b[9] & 1 == 1 {
        t = t.proto(b[10], b[11]);
    }
    if b[9] & 2 == 2 {
        t = t.vlan(Some(u16::from(b[12] & 3)));
    }
    Rule::new(
        u32::from(b[13] & 0x1f),
        u32::from(b[14] & 7),
        t,
        u32::from(b[15]),
    )
    .with_ports(range(b[5], b[6]), range(b[7], b[8]))
}

/// A header from 9 bytes, in the rules' small address space.
fn fuzz_key(b: &[u8; 9]) -> Key {
    Key::from_flow(&prism_wire::FlowKey {
        src_ip: u32::from(b[0] & 0x0f) << 24 | u32::from(b[1]),
        dst_ip: u32::from(b[2] & 0x0f) << 24 | u32::from(b[3]),
        src_port: u16::from(b[4] & 0x1f),
        dst_port: u16::from(b[5] & 0x1f),
        proto: b[6],
        vlan: if b[7] & 4 == 0 {
            0
        } else {
            prism_wire::VLAN_PRESENT | u16::from(b[7] & 3)
        },
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        #[test]
        fn random_programs(data in proptest::collection::vec(any::<u8>(), 0..600)) {
            super::classifier_matches_reference(&data);
        }
    }
}
