//! The engine's arithmetic, jumps, stack and atomics against the kernel's,
//! on random programs: each sets r0..r5 to random values, runs forty random
//! instructions over them (every ALU operation in 64 and 32 bits, with a
//! register or a constant, the signed divisions, sign-extending moves and
//! byte swaps of ISA v4; conditional jumps over an instruction; stack
//! stores and (sign-extending) loads; atomic operations), and writes the
//! six registers into the frame, which both then hand back.

use prism_io::program::verify_code;
use prism_program::insn::check;
use prism_program::{Frame, Program, Scratch, Verdict};
use prism_testkit::root;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn slot(op: u8, dst: u8, src: u8, off: i16, imm: i32) -> [u8; 8] {
    let mut b = [op, dst | (src << 4), 0, 0, 0, 0, 0, 0];
    b[2..4].copy_from_slice(&off.to_le_bytes());
    b[4..8].copy_from_slice(&imm.to_le_bytes());
    b
}

fn wide(dst: u8, v: u64) -> [[u8; 8]; 2] {
    [
        slot(0x18, dst, 0, 0, v as u32 as i32),
        slot(0, 0, 0, 0, (v >> 32) as u32 as i32),
    ]
}

const OPS: [u8; 13] = [
    0x00, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80, 0x90, 0xa0, 0xb0, 0xc0,
];
const JUMPS: [u8; 11] = [
    0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0xa0, 0xb0, 0xc0, 0xd0,
];

fn value(rng: &mut SmallRng) -> u64 {
    match rng.random_range(0..4) {
        0 => rng.random_range(0..8),
        1 => u64::MAX - rng.random_range(0..8),
        2 => 1 << rng.random_range(0..64),
        _ => rng.random(),
    }
}

fn imm(rng: &mut SmallRng) -> i32 {
    value(rng) as i32
}

/// One ALU instruction the verifier takes.
fn alu(rng: &mut SmallRng) -> [u8; 8] {
    let (dst, src) = (rng.random_range(0..6u8), rng.random_range(0..6u8));
    let class = if rng.random_bool(0.5) { 0x07 } else { 0x04 };
    let bits = if class == 0x07 { 64 } else { 32 };
    if rng.random_range(0..12) == 0 {
        let width = [16, 32, 64][rng.random_range(0..3)];
        let op = [0xd4, 0xdc, 0xd7][rng.random_range(0..3)];
        return slot(op, dst, 0, 0, width);
    }
    let op = OPS[rng.random_range(0..OPS.len())];
    let register = rng.random_bool(0.5);
    let signed = matches!(op, 0x30 | 0x90) && rng.random_bool(0.5);
    let off = match op {
        0x30 | 0x90 if signed => 1,
        0xb0 if register && rng.random_bool(0.4) => {
            [8, 16, 32][rng.random_range(0..if bits == 64 { 3 } else { 2 })]
        }
        _ => 0,
    };
    match op {
        0x80 => slot(class | op, dst, 0, 0, 0),
        _ if register => slot(class | op | 0x08, dst, src, off, 0),
        0x60 | 0x70 | 0xc0 => slot(class | op, dst, 0, off, rng.random_range(0..bits)),
        0x30 | 0x90 => slot(class | op, dst, 0, off, imm(rng).max(1)),
        _ => slot(class | op, dst, 0, off, imm(rng)),
    }
}

/// A conditional jump over one ALU instruction.
fn jump(rng: &mut SmallRng) -> [[u8; 8]; 2] {
    let class = if rng.random_bool(0.5) { 0x05 } else { 0x06 };
    let op = JUMPS[rng.random_range(0..JUMPS.len())];
    let (dst, src) = (rng.random_range(0..6u8), rng.random_range(0..6u8));
    let j = if rng.random_bool(0.5) {
        slot(class | op | 0x08, dst, src, 1, 0)
    } else {
        slot(class | op, dst, 0, 1, imm(rng))
    };
    [j, alu(rng)]
}

/// A stack store and a load of the same slot (sign-extending or not), or
/// an atomic operation on it.
fn stack(rng: &mut SmallRng) -> Vec<[u8; 8]> {
    let (a, b) = (rng.random_range(0..6u8), rng.random_range(0..6u8));
    let mut v = vec![slot(0x7b, 10, a, -8, 0)];
    match rng.random_range(0..3) {
        0 => v.push(slot(
            [0x79, 0x61, 0x69, 0x71][rng.random_range(0..4)],
            b,
            10,
            -8,
            0,
        )),
        1 => v.push(slot(
            [0x81, 0x89, 0x91][rng.random_range(0..3)],
            b,
            10,
            -8,
            0,
        )),
        _ => {
            let op = [0x00, 0x01, 0x40, 0x41, 0x50, 0x51, 0xa0, 0xa1, 0xe1, 0xf1]
                [rng.random_range(0..10)];
            let size = if rng.random_bool(0.5) { 0xdb } else { 0xc3 };
            v.push(slot(size, 10, b, -8, op));
            v.push(slot(0x79, a, 10, -8, 0));
        }
    }
    v
}

fn program(rng: &mut SmallRng) -> Vec<[u8; 8]> {
    let mut p = vec![slot(0x61, 6, 1, 0, 0), slot(0x61, 7, 1, 4, 0)];
    for r in 0..6 {
        p.extend(wide(r, value(rng)));
    }
    for _ in 0..40 {
        match rng.random_range(0..8) {
            0 => p.extend(jump(rng)),
            1 => p.extend(stack(rng)),
            _ => p.push(alu(rng)),
        }
    }
    p.extend([
        slot(0xbf, 8, 6, 0, 0),
        slot(0x07, 8, 0, 0, 48),
        slot(0x2d, 8, 7, 6, 0),
    ]);
    p.extend((0..6).map(|r| slot(0x7b, 6, r, 8 * r as i16, 0)));
    p.extend([slot(0xb7, 0, 0, 0, 2), slot(0x95, 0, 0, 0, 0)]);
    p
}

#[test]
fn random_programs_compute_what_the_kernel_computes() {
    if !root("program: random instruction sequences against the kernel") {
        return;
    }
    let mut rng = SmallRng::seed_from_u64(0x5052_4953);
    let frame = [0u8; 64];
    let mut scratch = Scratch::default();
    for k in 0..300 {
        let raw = program(&mut rng);
        let kernel = match verify_code(&raw) {
            Ok(v) => v,
            Err(e) => panic!("program {k}: the kernel refused a program built to be valid: {e}"),
        };
        let theirs = kernel.test_run(&frame, 1).unwrap();
        let ours = Program::new(check(&raw, 0).expect("checked"), Vec::new(), 1000);
        let mut buf = vec![0u8; 256 + 64 + 256];
        let mut f = Frame {
            buf: &mut buf,
            start: 256,
            len: 64,
            ingress: 1,
            queue: 0,
        };
        let action = ours.run(&mut f, &mut scratch).expect("no trap");
        assert_eq!(
            (action, f.data()),
            (Verdict::Pass, &theirs.frame[..]),
            "program {k}: {raw:02x?}"
        );
        assert_eq!(theirs.action, 2);
    }
}
