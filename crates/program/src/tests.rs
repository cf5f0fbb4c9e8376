//! The engine on hand-written programs: every refusal and every trap, the
//! helpers' results, and neighbours' memory out of reach. The same engine
//! against the kernel, on compiled programs and random instruction
//! sequences, is in `crates/io/tests/linux/program.rs`.

use crate::insn::check;
use crate::maps::{Map, MapDef, MapKind};
use crate::memory::{Frame, MAP_VALUE, PACKET};
use crate::{CheckError, Program, Scratch, Trap, Verdict};

/// One instruction slot.
pub fn slot(op: u8, dst: u8, src: u8, off: i16, imm: i32) -> [u8; 8] {
    let mut b = [0u8; 8];
    b[0] = op;
    b[1] = dst | (src << 4);
    b[2..4].copy_from_slice(&off.to_le_bytes());
    b[4..8].copy_from_slice(&imm.to_le_bytes());
    b
}

const MOV_K: u8 = 0xb7;
const EXIT: u8 = 0x95;

fn exit_with(action: i32) -> Vec<[u8; 8]> {
    vec![slot(MOV_K, 0, 0, 0, action), slot(EXIT, 0, 0, 0, 0)]
}

fn counter_map() -> MapDef {
    MapDef {
        name: "m".into(),
        kind: MapKind::Hash,
        key_size: 4,
        value_size: 8,
        max_entries: 4,
    }
}

fn run(raw: &[[u8; 8]], maps: Vec<MapDef>, frame: &mut [u8]) -> (Result<Verdict, Trap>, Program) {
    let code = check(raw, maps.len()).expect("checked");
    let program = Program::new(code, maps.into_iter().map(Map::new).collect(), 1000);
    let len = frame.len();
    let mut buf = vec![0u8; 64 + len + 64];
    buf[64..64 + len].copy_from_slice(frame);
    let mut f = Frame {
        buf: &mut buf,
        start: 64,
        len,
        ingress: 1,
        queue: 0,
    };
    let r = program.run(&mut f, &mut Scratch::default());
    let (s, l) = (f.start, f.len);
    frame.copy_from_slice(&buf[s..s + l.min(len)]);
    (r, program)
}

#[test]
fn a_program_returns_its_action() {
    for (action, verdict) in [
        (0, Verdict::Aborted),
        (1, Verdict::Drop),
        (2, Verdict::Pass),
        (3, Verdict::Tx),
    ] {
        assert_eq!(run(&exit_with(action), vec![], &mut [0; 60]).0, Ok(verdict));
    }
    assert_eq!(
        run(&exit_with(9), vec![], &mut [0; 60]).0,
        Err(Trap::Action { value: 9 })
    );
    assert_eq!(
        run(&exit_with(4), vec![], &mut [0; 60]).0,
        Err(Trap::NoRedirect)
    );
}

#[test]
fn a_loop_exhausts_the_budget_and_stops() {
    let raw = [
        slot(MOV_K, 0, 0, 0, 2),
        slot(0x05, 0, 0, -1, 0),
        slot(EXIT, 0, 0, 0, 0),
    ];
    let (r, _) = run(&raw, vec![], &mut [0; 60]);
    assert_eq!(r, Err(Trap::Budget));
    assert_eq!(Trap::Budget.reason(), "program/budget");
}

#[test]
fn reads_past_the_frame_and_into_nowhere_trap_at_their_instruction() {
    // r2 = ctx->data; r0 = *(u8 *)(r2 + 60): one past a 60-byte frame.
    let past = [
        slot(0x61, 2, 1, 0, 0),
        slot(0x71, 0, 2, 60, 0),
        slot(EXIT, 0, 0, 0, 0),
    ];
    assert_eq!(
        run(&past, vec![], &mut [0; 60]).0,
        Err(Trap::Memory { at: 1 })
    );
    // The byte before the frame (in the headroom) is not the program's either.
    let before = [
        slot(0x61, 2, 1, 0, 0),
        slot(0x71, 0, 2, -1, 0),
        slot(EXIT, 0, 0, 0, 0),
    ];
    assert_eq!(
        run(&before, vec![], &mut [0; 60]).0,
        Err(Trap::Memory { at: 1 })
    );
    // An address made up: the start of a map's values with no map.
    let wide = slot(0x18, 3, 0, 0, 0);
    let mut high = slot(0, 0, 0, 0, 0);
    high[4..8].copy_from_slice(&((MAP_VALUE >> 32) as u32).to_le_bytes());
    let made_up = [wide, high, slot(0x79, 0, 3, 0, 0), slot(EXIT, 0, 0, 0, 0)];
    assert_eq!(
        run(&made_up, vec![], &mut [0; 60]).0,
        Err(Trap::Memory { at: 2 })
    );
    // Writing the context is refused.
    let ctx = [slot(0x62, 1, 0, 0, 7), slot(EXIT, 0, 0, 0, 0)];
    assert_eq!(
        run(&ctx, vec![], &mut [0; 60]).0,
        Err(Trap::Memory { at: 0 })
    );
}

#[test]
fn the_last_byte_of_the_frame_is_the_programs() {
    let raw = [
        slot(0x61, 2, 1, 0, 0),
        slot(0x71, 0, 2, 59, 0),
        slot(EXIT, 0, 0, 0, 0),
    ];
    let mut frame = [0u8; 60];
    frame[59] = 3;
    assert_eq!(run(&raw, vec![], &mut frame).0, Ok(Verdict::Tx));
    assert!(PACKET < u64::from(u32::MAX), "ctx->data is read as 32 bits");
}

#[test]
fn programs_that_could_derail_the_engine_are_refused_at_their_instruction() {
    let cases: Vec<(Vec<[u8; 8]>, CheckError)> = vec![
        (vec![], CheckError::Empty),
        (
            vec![slot(0xff, 0, 0, 0, 0), slot(EXIT, 0, 0, 0, 0)],
            CheckError::UnknownOpcode { at: 0, op: 0xff },
        ),
        (
            vec![slot(MOV_K, 11, 0, 0, 0), slot(EXIT, 0, 0, 0, 0)],
            CheckError::BadRegister { at: 0, reg: 11 },
        ),
        (
            vec![slot(MOV_K, 10, 0, 0, 0), slot(EXIT, 0, 0, 0, 0)],
            CheckError::WritesFramePointer { at: 0 },
        ),
        (
            vec![slot(0x05, 0, 0, 5, 0), slot(EXIT, 0, 0, 0, 0)],
            CheckError::BadJump { at: 0, to: 6 },
        ),
        (
            vec![slot(0x85, 0, 0, 0, 6), slot(EXIT, 0, 0, 0, 0)],
            helper_refused(6),
        ),
        (
            vec![
                slot(0x18, 1, 1, 0, 3),
                slot(0, 0, 0, 0, 0),
                slot(EXIT, 0, 0, 0, 0),
            ],
            CheckError::UnknownMap {
                at: 0,
                map: 3,
                maps: 0,
            },
        ),
        (
            vec![slot(0x18, 1, 0, 0, 3)],
            CheckError::TruncatedWideLoad { at: 0 },
        ),
        (
            vec![slot(MOV_K, 0, 0, 0, 2)],
            CheckError::FallsOffTheEnd { at: 0 },
        ),
    ];
    for (raw, want) in cases {
        assert_eq!(check(&raw, 0).unwrap_err(), want);
    }
    // A jump into the second half of a 16-byte load.
    let into = [
        slot(0x05, 0, 0, 1, 0),
        slot(0x18, 1, 0, 0, 3),
        slot(0, 0, 0, 0, 0),
        slot(EXIT, 0, 0, 0, 0),
    ];
    assert_eq!(
        check(&into, 0).unwrap_err(),
        CheckError::BadJump { at: 0, to: 2 }
    );
}

fn helper_refused(helper: i64) -> CheckError {
    let allowed = crate::HELPERS
        .iter()
        .map(|(_, n)| *n)
        .collect::<Vec<_>>()
        .join(", ");
    CheckError::HelperNotAllowed {
        at: 0,
        helper,
        allowed,
    }
}

/// key = 7 on the stack; update(map, &key, &key, 0); r0 = lookup(map,
/// &key); exit with what r0 points to.
fn update_then_read() -> Vec<[u8; 8]> {
    vec![
        slot(0x62, 10, 0, -8, 7),
        slot(0x62, 10, 0, -4, 0),
        slot(0x18, 1, 1, 0, 0),
        slot(0, 0, 0, 0, 0),
        slot(0xbf, 2, 10, 0, 0),
        slot(0x07, 2, 0, 0, -8),
        slot(0xbf, 3, 2, 0, 0),
        slot(MOV_K, 4, 0, 0, 0),
        slot(0x85, 0, 0, 0, 2),
        slot(0x18, 1, 1, 0, 0),
        slot(0, 0, 0, 0, 0),
        slot(0xbf, 2, 10, 0, 0),
        slot(0x07, 2, 0, 0, -8),
        slot(0x85, 0, 0, 0, 1),
        slot(0x79, 0, 0, 0, 0),
        slot(0x57, 0, 0, 0, 3),
        slot(EXIT, 0, 0, 0, 0),
    ]
}

#[test]
fn the_map_helpers_keep_values_the_api_reads() {
    let (r, program) = run(&update_then_read(), vec![counter_map()], &mut [0; 60]);
    assert_eq!(r, Ok(Verdict::Tx), "7 & 3");
    let entries = program.maps[0].entries();
    assert_eq!(
        entries,
        vec![(7u32.to_le_bytes().to_vec(), 7u64.to_le_bytes().to_vec())]
    );
}

#[test]
fn a_full_hash_map_refuses_another_key_and_a_deleted_key_is_gone() {
    let m = Map::new(counter_map());
    for k in 0u32..4 {
        assert_eq!(m.update(&k.to_le_bytes(), &[1; 8], 0), 0);
    }
    assert_eq!(m.update(&9u32.to_le_bytes(), &[1; 8], 0), -7, "E2BIG");
    assert_eq!(
        m.update(&1u32.to_le_bytes(), &[2; 8], 1),
        -17,
        "EEXIST with BPF_NOEXIST"
    );
    assert_eq!(m.delete(&1u32.to_le_bytes()), 0);
    assert_eq!(m.lookup(&1u32.to_le_bytes()), None);
    assert_eq!(m.delete(&1u32.to_le_bytes()), -2, "ENOENT");
    assert_eq!(
        m.update(&9u32.to_le_bytes(), &[1; 8], 0),
        0,
        "the deleted key's room is free"
    );
    assert_eq!(m.entries().len(), 4);
}

#[test]
fn a_helper_given_something_that_is_not_a_map_traps() {
    // r1 = 5 (not a map); call bpf_map_lookup_elem.
    let raw = [
        slot(MOV_K, 1, 0, 0, 5),
        slot(0x85, 0, 0, 0, 1),
        slot(EXIT, 0, 0, 0, 0),
    ];
    assert_eq!(
        run(&raw, vec![], &mut [0; 60]).0,
        Err(Trap::Helper { at: 1 })
    );
}

#[test]
fn adjust_head_pushes_into_the_headroom_and_no_further() {
    // r2 = -8; call bpf_xdp_adjust_head(ctx, -8); exit with its result.
    let push = [
        slot(MOV_K, 2, 0, 0, -8),
        slot(0x85, 0, 0, 0, 44),
        slot(EXIT, 0, 0, 0, 0),
    ];
    let code = check(&push, 0).unwrap();
    let program = Program::new(code, vec![], 100);
    let mut buf = vec![0u8; 128];
    let mut f = Frame {
        buf: &mut buf,
        start: 64,
        len: 60,
        ingress: 0,
        queue: 0,
    };
    assert_eq!(
        program.run(&mut f, &mut Scratch::default()),
        Ok(Verdict::Aborted),
        "0: done"
    );
    assert_eq!((f.start, f.len), (56, 68));
    let mut f = Frame {
        buf: &mut buf,
        start: 4,
        len: 60,
        ingress: 0,
        queue: 0,
    };
    assert_eq!(
        program.run(&mut f, &mut Scratch::default()),
        Err(Trap::Action {
            value: (-22i64) as u64
        })
    );
    assert_eq!((f.start, f.len), (4, 60), "-EINVAL: nothing moved");
}

#[test]
fn calls_nest_eight_deep_and_no_deeper() {
    // A function that calls itself for ever: the ninth frame traps.
    let raw = [slot(0x85, 0, 1, 0, -1), slot(EXIT, 0, 0, 0, 0)];
    assert_eq!(
        run(&raw, vec![], &mut [0; 60]).0,
        Err(Trap::Depth { at: 0 })
    );
}

mod arbitrary {
    //! Any bytes as a program: refused by the check, or run to a verdict
    //! or a trap, never a panic (the engine's own indexing included), and
    //! the frame's bounds always inside the buffer.
    use super::*;
    use proptest::prelude::*;

    fn any_slot() -> impl Strategy<Value = [u8; 8]> {
        let ops = prop::sample::select(vec![
            0x07u8, 0x0f, 0x17, 0x1f, 0x27, 0x2f, 0x37, 0x3f, 0x47, 0x57, 0x67, 0x77, 0x87, 0x97,
            0xa7, 0xb7, 0xbf, 0xc7, 0xd7, 0x04, 0x0c, 0x34, 0x3c, 0x94, 0x9c, 0xb4, 0xbc, 0xd4,
            0xdc, 0x05, 0x15, 0x1d, 0x25, 0x2d, 0x35, 0x45, 0x55, 0x65, 0x6d, 0x75, 0xa5, 0xad,
            0xb5, 0xc5, 0xd5, 0x06, 0x16, 0x26, 0x85, 0x95, 0x18, 0x61, 0x69, 0x71, 0x79, 0x81,
            0x89, 0x91, 0x62, 0x6a, 0x72, 0x7a, 0x63, 0x6b, 0x73, 0x7b, 0xc3, 0xdb,
        ]);
        (ops, 0u8..10, 0u8..11, -8i16..8, prop::num::i32::ANY, 0u8..4).prop_map(
            |(op, dst, src, off, imm, kind)| {
                let imm = match kind {
                    0 => imm,
                    1 => imm & 0x3f,
                    2 => [1, 2, 23, 44, 65][imm.unsigned_abs() as usize % 5],
                    _ => -(imm & 0x1ff),
                };
                let src = if op == 0x18 { src % 3 } else { src };
                slot(op, dst, src, off, imm)
            },
        )
    }

    static RAN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]
        #[test]
        fn any_program_is_refused_or_runs_to_an_end(mut raw in prop::collection::vec(any_slot(), 1..40)) {
            raw.push(slot(EXIT, 0, 0, 0, 0));
            let maps = vec![counter_map(), MapDef { name: "a".into(), kind: MapKind::Array, key_size: 4, value_size: 16, max_entries: 3 }];
            let Ok(code) = check(&raw, maps.len()) else { return Ok(()) };
            RAN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let program = Program::new(code, maps.into_iter().map(Map::new).collect(), 500);
            let mut buf = vec![0x5au8; 256];
            let mut f = Frame { buf: &mut buf, start: 64, len: 60, ingress: 0, queue: 0 };
            let _ = program.run(&mut f, &mut Scratch::default());
            prop_assert!(f.start + f.len <= 256);
        }
    }

    #[test]
    fn the_arbitrary_programs_run_often_enough_to_mean_something() {
        any_program_is_refused_or_runs_to_an_end();
        let ran = RAN.load(std::sync::atomic::Ordering::Relaxed);
        assert!(
            ran >= 400,
            "only {ran} of 4,000 arbitrary programs passed the check and ran"
        );
    }
}
