//! A network's own program in its slot (stage 2b): what it passes goes on
//! to the network's tables, what it sends goes out of its network's ports
//! only, and whatever it does wrong (a loop, a read out of bounds, a
//! foreign port) drops that frame under a named reason while the
//! neighbour network in the same batch loses nothing. Its maps keep their
//! contents across a change of the network's routes. The programs are
//! written here as bytecode; the examples compiled from C are run against
//! the kernel in crates/io/tests/linux/program.rs.

use std::sync::Arc;

use prism_pipeline::fast::reasons::HardwareDrop;
use prism_pipeline::fixtures::on_vlan;
use prism_pipeline::traffic::{FrameSpec, build};
use prism_pipeline::*;
use prism_program::{Image, MapDef, MapKind};
use prism_wire::Ipv4Address;

fn slot(op: u8, dst: u8, src: u8, off: i16, imm: i32) -> [u8; 8] {
    let mut b = [op, dst | (src << 4), 0, 0, 0, 0, 0, 0];
    b[2..4].copy_from_slice(&off.to_le_bytes());
    b[4..8].copy_from_slice(&imm.to_le_bytes());
    b
}

/// Counts every frame in `count[0]`, then passes it to the tables.
fn counter() -> Image {
    let code = [
        slot(0x62, 10, 0, -4, 0),
        slot(0xbf, 2, 10, 0, 0),
        slot(0x07, 2, 0, 0, -4),
        slot(0x18, 1, 1, 0, 0),
        slot(0, 0, 0, 0, 0),
        slot(0x85, 0, 0, 0, 1),
        slot(0x15, 0, 0, 2, 0),
        slot(0xb7, 1, 0, 0, 1),
        slot(0xdb, 0, 1, 0, 0),
        slot(0xb7, 0, 0, 0, 2),
        slot(0x95, 0, 0, 0, 0),
    ];
    let count = MapDef {
        name: "count".into(),
        kind: MapKind::Array,
        key_size: 4,
        value_size: 8,
        max_entries: 1,
    };
    Image::from_code("counter", &code, vec![count]).unwrap()
}

fn looping() -> Image {
    Image::from_code(
        "looping",
        &[slot(0xb7, 0, 0, 0, 2), slot(0x05, 0, 0, -1, 0)],
        vec![],
    )
    .unwrap()
}

fn out_of_bounds() -> Image {
    let code = [
        slot(0x61, 2, 1, 0, 0),
        slot(0x71, 0, 2, 2000, 0),
        slot(0x95, 0, 0, 0, 0),
    ];
    Image::from_code("oob", &code, vec![]).unwrap()
}

fn redirect(port: i32) -> Image {
    let code = [
        slot(0xb7, 1, 0, 0, port),
        slot(0xb7, 2, 0, 0, 0),
        slot(0x85, 0, 0, 0, 23),
        slot(0x95, 0, 0, 0, 0),
    ];
    Image::from_code("redirect", &code, vec![]).unwrap()
}

fn network(name: &str, vlan: u16, program: Option<(Image, &str)>, route: &str) -> NetworkSpec {
    let out = Action {
        out_port: Some(1),
        ..Default::default()
    };
    let table = ForwardingSpec::Destination(vec![(route.parse().unwrap(), out)]);
    let mut spec = on_vlan(name, vlan, table, Vec::new());
    spec.program = program.map(|(image, digest)| ProgramSpec {
        image: Arc::new(image),
        digest: digest.into(),
        budget: 256,
    });
    spec
}

fn substrate(program: Image) -> Substrate {
    let mut s = Substrate::new(control::device::profile("netfpga-v2p").unwrap().clone(), 3);
    s.add_network(network("p", 1, Some((program, "p1")), "10.0.0.0/8"))
        .unwrap();
    s.add_network(network("q", 2, None, "10.0.0.0/8")).unwrap();
    s
}

/// 32 frames, alternating between the two networks; (frames out of each
/// port, the pipeline's counters).
fn send(s: &Substrate) -> (Vec<usize>, Counters) {
    let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
    let mut batch: Vec<Packet> = (0..32u16)
        .map(|k| {
            let spec = FrameSpec {
                vlan: Some(1 + k % 2),
                dst: Ipv4Address([10, 1, 0, 1]),
                src: Ipv4Address([10, 2, 0, 1]),
                frame_len: 100,
                ..Default::default()
            };
            p.pool.packet(&build(&spec, b"x"), 0, 1).unwrap()
        })
        .collect();
    p.process(&mut batch, 1);
    let out = (0..3)
        .map(|port| {
            let mut v = Vec::new();
            p.transmit(port, usize::MAX, &mut v);
            v.len()
        })
        .collect();
    (out, p.counters().clone())
}

fn drops(c: &Counters, net: &str, s: &Substrate, r: HardwareDrop) -> u64 {
    c.networks[usize::from(s.id(net).unwrap())].drops[DropReason::Hardware(r).index()]
}

#[test]
fn a_program_that_passes_leaves_the_frame_to_its_tables_and_keeps_its_count() {
    let s = substrate(counter());
    let (out, _) = send(&s);
    assert_eq!(out[1], 32, "both networks' frames routed out of port 1");
    let program = |s: &Substrate| {
        s.handle()
            .load()
            .network(s.id("p").unwrap())
            .unwrap()
            .program
            .clone()
            .unwrap()
    };
    let count = |s: &Substrate| program(s).program.maps[0].value(0);
    assert_eq!(
        count(&s),
        16u64.to_le_bytes(),
        "p's 16 frames counted, q's not"
    );
    // A change of the network's routes keeps the program and its map.
    let mut s = s;
    s.replace_network(network("p", 1, Some((counter(), "p1")), "10.1.0.0/16"))
        .unwrap();
    send(&s);
    assert_eq!(count(&s), 32u64.to_le_bytes());
    // Another program (another digest) starts with maps of its own.
    s.replace_network(network("p", 1, Some((counter(), "p2")), "10.1.0.0/16"))
        .unwrap();
    send(&s);
    assert_eq!(count(&s), 16u64.to_le_bytes());
}

#[test]
fn a_looping_program_loses_its_own_frames_under_a_name_and_no_neighbours() {
    let s = substrate(looping());
    let (out, c) = send(&s);
    assert_eq!(out[1], 16, "q's 16 frames forwarded");
    assert_eq!(drops(&c, "p", &s, HardwareDrop::ProgramBudget), 16);
    assert_eq!(
        c.networks[usize::from(s.id("q").unwrap())]
            .drops
            .iter()
            .sum::<u64>(),
        0
    );
}

#[test]
fn a_program_reading_out_of_bounds_drops_that_frame_by_name() {
    let s = substrate(out_of_bounds());
    let (out, c) = send(&s);
    assert_eq!(
        (out[1], drops(&c, "p", &s, HardwareDrop::ProgramOutOfBounds)),
        (16, 16)
    );
}

#[test]
fn a_program_sends_out_of_its_networks_ports_only() {
    let s = substrate(redirect(1));
    let (out, _) = send(&s);
    assert_eq!(out[1], 32, "redirected to port 1, which p's routes use");
    let s = substrate(redirect(2));
    let (out, c) = send(&s);
    assert_eq!((out[2], out[1]), (0, 16), "port 2 is no port of p's");
    assert_eq!(drops(&c, "p", &s, HardwareDrop::ProgramForeignPort), 16);
}

#[test]
fn another_program_is_loaded_into_the_slot_as_a_module_is_and_the_same_one_is_not() {
    let mut s = substrate(counter());
    s.set_reconfig_timing(control::reconfig::bitstreams("netfpga-v2p"));
    s.set_now(10_000_000_000);
    let routes_only = network("p", 1, Some((counter(), "p1")), "10.1.0.0/16");
    s.replace_network(routes_only).unwrap();
    assert!(
        s.slot_ready_ns("p").unwrap() <= 10_000_000_000,
        "same program: no load"
    );
    s.replace_network(network("p", 1, Some((counter(), "p2")), "10.1.0.0/16"))
        .unwrap();
    let ready = s.slot_ready_ns("p").unwrap();
    assert!(
        ready > 10_000_000_000 + 100_000_000,
        "another program: a partial reconfiguration (modelled)"
    );
}
