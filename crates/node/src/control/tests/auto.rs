//! `tier = "auto"` against the fake runtime: moves on measured rates, with
//! hysteresis, and fixed networks left alone.

use super::*;
use crate::control::auto::AutoSettings;
use std::collections::BTreeMap;

const HALF_S: u64 = 500_000_000;

/// A control side whose software tier carries 2 Mbit/s.
fn auto_control() -> (Control<Fake>, Arc<Mutex<Vec<Call>>>) {
    let (mut c, calls) = control();
    c.set_auto(
        AutoSettings {
            policy: "paper".into(),
            hw_mbps: 1000.0,
            sw_mbps: 2.0,
        },
        &Default::default(),
    );
    (c, calls)
}

fn auto_doc(name: &str) -> NetworkDoc {
    let mut d = doc(name, TierChoice::Auto);
    d.bandwidth = Some(prism_netdoc::Rate(1_000_000));
    d
}

/// Feeds `steps` samples half a second apart from `t` with `mbps` for `x`
/// and 1 Mbit/s for `fixed`; returns the time after and the bytes so far.
fn feed(c: &mut Control<Fake>, t: &mut u64, bytes: &mut [u64; 2], mbps: f64, steps: usize) {
    for _ in 0..steps {
        *t += HALF_S;
        bytes[0] += (mbps * 1e6 / 8.0 * 0.5) as u64;
        bytes[1] += (1e6 / 8.0 * 0.5) as u64;
        let m = BTreeMap::from([("x".to_string(), bytes[0]), ("fixed".to_string(), bytes[1])]);
        c.observe(*t, m);
    }
}

#[test]
fn an_automatic_network_follows_its_measured_rate_with_hysteresis() {
    let (mut c, calls) = auto_control();
    c.apply("fixed", Some(doc("fixed", TierChoice::Software)))
        .unwrap();
    // Paper 000's heuristic: software first.
    c.apply("x", Some(auto_doc("x"))).unwrap();
    assert_eq!(c.view("x").unwrap().tier, Tier::Software);
    assert_eq!(c.definition("x").unwrap().tier, TierChoice::Auto);
    take(&calls);
    let (mut t, mut bytes) = (0, [0u64; 2]);
    // 3 Mbit/s does not fit the 2 Mbit/s software tier: once the window
    // has a second and three evaluations in a row agree, `x` moves.
    feed(&mut c, &mut t, &mut bytes, 3.0, 4);
    assert_eq!(c.view("x").unwrap().tier, Tier::Software, "too soon");
    feed(&mut c, &mut t, &mut bytes, 3.0, 2);
    assert_eq!(c.view("x").unwrap().tier, Tier::Hardware);
    assert_eq!(
        take(&calls),
        vec![call("stop", "x", false, Some(Tier::Hardware))]
    );
    let ev = c.events_since(0);
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert_eq!(ev[0].kind, prism_node_api::EventKind::AutoMove);
    assert!(
        ev[0].message.contains("measured 3.00 Mbit/s"),
        "{}",
        ev[0].message
    );
    // A brief dip changes nothing; a lasting one brings it back after the
    // dwell time.
    feed(&mut c, &mut t, &mut bytes, 0.1, 2);
    feed(&mut c, &mut t, &mut bytes, 3.0, 4);
    assert_eq!(c.view("x").unwrap().tier, Tier::Hardware);
    feed(&mut c, &mut t, &mut bytes, 0.1, 12);
    assert_eq!(c.view("x").unwrap().tier, Tier::Software);
    assert_eq!(c.view("x").unwrap().tier_moves, 2);
    // The fixed network was never touched.
    assert_eq!(c.view("fixed").unwrap().tier_moves, 0);
    assert_eq!(c.definition("fixed").unwrap().tier, TierChoice::Software);
}

#[test]
fn an_automatic_network_needs_a_bandwidth_and_can_be_fixed_again() {
    let (mut c, _) = auto_control();
    let e = c.apply("x", Some(doc("x", TierChoice::Auto))).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("bandwidth"));
    assert!(c.view("x").is_none());
    c.apply("x", Some(auto_doc("x"))).unwrap();
    c.apply("x", Some(doc("x", TierChoice::Hardware))).unwrap();
    assert_eq!(c.definition("x").unwrap().tier, TierChoice::Hardware);
    let (mut t, mut bytes) = (0, [0u64; 2]);
    feed(&mut c, &mut t, &mut bytes, 0.0, 20);
    assert_eq!(
        c.view("x").unwrap().tier,
        Tier::Hardware,
        "no longer automatic"
    );
}

/// A desired state that sends an automatic network again as it was sent
/// (tier `auto`) leaves it where the node moved it: the held definition
/// the reconciler compares reads `auto`, not the tier chosen.
#[test]
fn an_automatic_network_sent_again_is_unchanged() {
    let (mut c, calls) = auto_control();
    let state = |generation| prism_node_api::DesiredState {
        generation,
        scope: "pc-".into(),
        networks: vec![auto_doc("pc-x")],
    };
    let first = c.put_desired(state(1)).unwrap();
    assert_eq!(
        first.networks[0].action,
        prism_node_api::DesiredAction::Added
    );
    assert_eq!(c.view("pc-x").unwrap().tier, Tier::Software);
    take(&calls);
    let again = c.put_desired(state(2)).unwrap();
    assert_eq!(
        again.networks[0].action,
        prism_node_api::DesiredAction::Unchanged
    );
    assert!(take(&calls).is_empty(), "nothing re-applied");
}
