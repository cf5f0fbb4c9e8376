use super::*;
use proptest::prelude::*;

fn p(s: &str) -> Ipv6Prefix {
    s.parse().unwrap()
}

fn a(s: &str) -> u128 {
    u128::from(s.parse::<core::net::Ipv6Addr>().unwrap())
}

#[test]
fn the_longest_prefix_wins_in_any_order_and_a_removal_restores_the_cover() {
    for fs in [8, 16, 24] {
        let mut t = Lpm6Table::with_first_stride(fs);
        t.insert(p("2001:db8:1::/48"), 3).unwrap();
        t.insert(p("2001:db8::/32"), 2).unwrap();
        t.insert(p("::/0"), 1).unwrap();
        t.insert(p("2001:db8:1:2::1/128"), 4).unwrap();
        assert_eq!(t.lookup(a("2001:db8:1:2::1")), Some(4));
        assert_eq!(t.lookup(a("2001:db8:1:2::2")), Some(3));
        assert_eq!(t.lookup(a("2001:db8:2::1")), Some(2));
        assert_eq!(t.lookup(a("2002::1")), Some(1));
        assert_eq!(t.remove(p("2001:db8:1::/48")), Some(3));
        assert_eq!(t.lookup(a("2001:db8:1:2::2")), Some(2), "the /32 again");
        assert_eq!(t.lookup(a("2001:db8:1:2::1")), Some(4), "the /128 stays");
        assert_eq!(t.remove(p("::/0")), Some(1));
        assert_eq!(t.lookup(a("2002::1")), None);
        assert_eq!(t.remove(p("::/0")), None);
        assert_eq!((t.len(), t.get(p("2001:db8::/32"))), (2, Some(2)));
    }
}

#[test]
fn values_past_22_bits_are_refused() {
    let mut t = Lpm6Table::for_routes(1);
    assert_eq!(
        t.insert(p("2001:db8::/32"), MAX_VALUE6 + 1),
        Err(Lpm6Error::ValueTooLarge(MAX_VALUE6 + 1))
    );
    assert!(t.is_empty());
}

/// Prefixes near one another (so that they nest): a few fixed high bits,
/// random low ones, random lengths.
fn prefix() -> impl Strategy<Value = Ipv6Prefix> {
    (0u8..4, any::<u64>(), any::<u64>(), 0u8..=128).prop_map(|(hi, mid, lo, len)| {
        let addr = (u128::from(0x2001_0db8_u32 + u32::from(hi)) << 96)
            | (u128::from(mid & 0xffff_0000_ffff) << 48)
            | u128::from(lo & 0xff00_0000_0000_00ff);
        Ipv6Prefix::new(addr, len.max(24))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn inserts_and_removals_agree_with_the_reference(
        ops in proptest::collection::vec((prefix(), 0u32..1000, any::<bool>()), 1..60),
        probes in proptest::collection::vec(any::<u64>(), 20),
        fs in prop_oneof![Just(8u8), Just(16u8), Just(24u8)],
    ) {
        let mut t = Lpm6Table::with_first_stride(fs);
        let mut r = ReferenceLpm6::default();
        for (p, v, remove) in &ops {
            if *remove {
                prop_assert_eq!(t.remove(*p), r.remove(*p));
            } else {
                t.insert(*p, *v).unwrap();
                r.insert(*p, *v);
            }
        }
        for (p, _, _) in &ops {
            for addr in [p.addr(), p.addr() | !p.mask(), p.addr() | (u128::from(probes[0]) & !p.mask())] {
                prop_assert_eq!(t.lookup(addr), r.lookup(addr), "{:x} in {}", addr, p);
            }
        }
        let addrs: Vec<u128> = probes
            .iter()
            .map(|x| (0x2001_0db8_u128 << 96) | u128::from(*x) << 40)
            .chain(ops.iter().map(|(p, _, _)| p.addr()))
            .collect();
        let mut batch = vec![None; addrs.len()];
        t.lookup_batch(&addrs, &mut batch);
        for (addr, got) in addrs.iter().zip(&batch) {
            prop_assert_eq!(t.lookup(*addr), r.lookup(*addr));
            prop_assert_eq!(*got, r.lookup(*addr), "the batch at {:x}", addr);
        }
    }
}
