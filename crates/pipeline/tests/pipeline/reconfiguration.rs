//! Modelled reconfiguration (paper 000): a slot loading a module forwards
//! nothing for the load's time; other slots forward on; the three
//! strategies' substrate steps. Frames are built by etherparse.

use etherparse::PacketBuilder;
use prism_pipeline::control::reconfig::Strategy;
use prism_pipeline::fast::reasons::HardwareDrop;
use prism_pipeline::*;
use prism_tables::{PortRange, Ternary};

const S: u64 = 1_000_000_000;

fn udp_vlan(vid: u16) -> Vec<u8> {
    let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 0xa], [2, 0, 0, 0, 0, 0xb])
        .single_vlan(vid.try_into().unwrap())
        .ipv4([10, 0, 0, 1], [10, 1, 0, 1], 64)
        .udp(1, 2);
    let mut v = Vec::new();
    b.write(&mut v, b"reconfig").unwrap();
    v
}

fn out1() -> Action {
    Action {
        out_port: Some(1),
        ..Default::default()
    }
}

/// Network `name` on VLAN `vid`, destination routing (`flow`: source+
/// destination routing, paper 000's configuration II).
fn spec(name: &str, vid: u16, flow: bool, tier: Tier) -> NetworkSpec {
    let any = "0.0.0.0/0".parse().unwrap();
    NetworkSpec {
        name: name.into(),
        tier,
        mapping: vec![MappingRule {
            priority: 1,
            fields: Ternary::ANY.vlan(Some(vid)),
            src_port: PortRange::ANY,
            dst_port: PortRange::ANY,
        }],
        forwarding: if flow {
            ForwardingSpec::Flow(vec![(any, any, out1())])
        } else {
            ForwardingSpec::Destination(vec![(any, out1())])
        },
        rate_limit: None,
        software_channel: None,
        quantum: 1514,
        tunnels: Vec::new(),
        program: None,
    }
}

/// A and B in the NetFPGA's two regions, with its modelled times.
fn netfpga() -> Substrate {
    let p = prism_pipeline::control::device::profile("netfpga-v2p")
        .unwrap()
        .clone();
    let mut s = Substrate::new(p, 2);
    s.add_network(spec("a", 1, false, Tier::Hardware)).unwrap();
    s.add_network(spec("b", 2, false, Tier::Hardware)).unwrap();
    // The device was programmed with these before the clock starts.
    s.set_reconfig_timing(prism_pipeline::control::reconfig::bitstreams("netfpga-v2p"));
    s
}

/// One region's load on the NetFPGA (every module's bitstream is 680 KB).
fn load_ns() -> u64 {
    let b = prism_pipeline::control::reconfig::bitstreams("netfpga-v2p").unwrap();
    prism_pipeline::control::reconfig::ms_to_ns(b.partial_ms(Some(ModuleKind::FlowRouting)))
}

/// Sends `n` frames of each VLAN at `now`; returns frames out of port 1
/// per VLAN and the reconfiguration drops per network.
fn send(s: &Substrate, now: u64) -> ([usize; 2], [u64; 2]) {
    let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
    let mut batch = Vec::new();
    for vid in [1u16, 2] {
        for _ in 0..10 {
            batch.push(p.pool.packet(&udp_vlan(vid), 0, now).unwrap());
        }
    }
    p.process(&mut batch, now);
    let mut out = Vec::new();
    p.transmit(1, usize::MAX, &mut out);
    let mut per = [0; 2];
    for f in &out {
        per[usize::from(f.network)] += 1;
    }
    let dark = DropReason::Hardware(HardwareDrop::Reconfiguring);
    let d = |id: u16| p.counters().networks[usize::from(id)].drops[dark.index()];
    (per, [d(0), d(1)])
}

#[test]
fn partial_darkens_one_slot_for_paper_000s_0_6_s() {
    let mut s = netfpga();
    assert_eq!(send(&s, 10 * S), ([10, 10], [0, 0]));
    s.set_now(10 * S);
    s.replace_network(spec("b", 2, true, Tier::Hardware))
        .unwrap();
    let ready = s.slot_ready_ns("b").unwrap();
    assert_eq!(ready, 10 * S + load_ns(), "{ready}");
    assert!((load_ns() as f64 / 1e6 - 600.0).abs() < 1.0);
    // During the load: B drops everything, named; A forwards everything.
    assert_eq!(send(&s, 10 * S + 1), ([10, 0], [0, 10]));
    assert_eq!(send(&s, ready - 1), ([10, 0], [0, 10]));
    // Then B' forwards, from the same slot.
    assert_eq!(send(&s, ready), ([10, 10], [0, 0]));
    assert_eq!(s.hardware().slot_of(1), Some(1));
    // The same module again is no reconfiguration at all.
    s.set_now(20 * S);
    s.replace_network(spec("b", 2, true, Tier::Hardware))
        .unwrap();
    assert_eq!(send(&s, 20 * S), ([10, 10], [0, 0]));
}

#[test]
fn fallback_keeps_the_slot_while_software_serves() {
    let mut s = netfpga();
    s.set_now(5 * S);
    let slot = s.hardware().slot_of(1).unwrap();
    // B moves to software with its new module's table...
    s.replace_network(spec("b", 2, true, Tier::Software))
        .unwrap();
    let ready = s
        .reserve_slot(slot, "b", (ModuleKind::FlowRouting, 0))
        .unwrap();
    assert!(ready > 5 * S + 590_000_000, "{ready}");
    // ...no one else takes the slot meanwhile...
    assert!(s.check(&spec("c", 3, true, Tier::Hardware)).is_err());
    // ...and once loaded, B returns to it and forwards at once.
    s.set_now(ready);
    s.replace_network(spec("b", 2, true, Tier::Hardware))
        .unwrap();
    assert_eq!(s.hardware().slot_of(1), Some(slot));
    assert_eq!(send(&s, ready), ([10, 10], [0, 0]));
    assert_eq!(s.hardware().config()[slot].reserved_for, None);
}

#[test]
fn full_reprogramming_darkens_every_slot_for_12_s() {
    let mut s = netfpga();
    s.set_now(3 * S);
    let end = s
        .reprogram_with(spec("b", 2, true, Tier::Hardware))
        .unwrap();
    assert_eq!(end, 15 * S);
    assert_eq!(send(&s, 3 * S), ([0, 0], [10, 10]));
    assert_eq!(send(&s, end - 1), ([0, 0], [10, 10]));
    assert_eq!(send(&s, end), ([10, 10], [0, 0]));
    // A network carried by software meanwhile does not see the dark.
    let mut s = netfpga();
    s.set_now(3 * S);
    s.set_tier("a", Tier::Software).unwrap();
    s.reprogram_with(spec("b", 2, true, Tier::Hardware))
        .unwrap();
    let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
    let mut batch = vec![p.pool.packet(&udp_vlan(1), 0, 4 * S).unwrap()];
    p.process(&mut batch, 4 * S);
    assert_eq!(p.counters().networks[0].to_software, 1);
}

#[test]
fn removal_blanks_and_reuse_by_another_kind_reloads() {
    let mut s = netfpga();
    s.set_now(S);
    s.remove_network("b").unwrap();
    let blank_done = S + load_ns();
    assert_eq!(s.hardware().config()[1].loaded, None);
    assert_eq!(s.hardware().config()[1].ready_ns, blank_done);
    // A flow-routing network in the blanked slot waits for both loads.
    s.add_network(spec("c", 2, true, Tier::Hardware)).unwrap();
    assert_eq!(s.slot_ready_ns("c"), Some(blank_done + load_ns()));
    // Without timing (the default) nothing is ever dark.
    let p = prism_pipeline::control::device::profile("netfpga-v2p")
        .unwrap()
        .clone();
    let mut s = Substrate::new(p, 2);
    s.add_network(spec("a", 1, false, Tier::Hardware)).unwrap();
    s.add_network(spec("b", 2, false, Tier::Hardware)).unwrap();
    s.replace_network(spec("b", 2, true, Tier::Hardware))
        .unwrap();
    assert_eq!(send(&s, 0), ([10, 10], [0, 0]));
}

#[test]
fn strategies_parse_by_name() {
    for st in Strategy::ALL {
        assert_eq!(st.as_str().parse::<Strategy>(), Ok(st));
    }
    assert!("static".parse::<Strategy>().is_err());
}
