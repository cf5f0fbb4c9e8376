//! eBPF instructions (RFC 9669): their encoding, and the checks a program
//! passes before it may run here.
//!
//! The kernel's verifier proves far more (every path's pointer bounds, no
//! uninitialised reads); the engine does not rely on it. What it needs
//! proven before a run is only what would make the interpreter itself go
//! wrong: every opcode known, every register in range, `r10` never written,
//! every jump landing on an instruction (never inside a 16-byte load), every
//! helper one of the stated set, every map reference a map of the program's.
//! Bounds, loops and division are checked as the program runs.

use thiserror::Error;

pub const CLASS_LD: u8 = 0x00;
pub const CLASS_LDX: u8 = 0x01;
pub const CLASS_ST: u8 = 0x02;
pub const CLASS_STX: u8 = 0x03;
pub const CLASS_ALU: u8 = 0x04;
pub const CLASS_JMP: u8 = 0x05;
pub const CLASS_JMP32: u8 = 0x06;
pub const CLASS_ALU64: u8 = 0x07;

pub const MODE_IMM: u8 = 0x00;
pub const MODE_MEM: u8 = 0x60;
pub const MODE_MEMSX: u8 = 0x80;
pub const MODE_ATOMIC: u8 = 0xc0;

pub const OP_CALL: u8 = 0x80;
pub const OP_EXIT: u8 = 0x90;
pub const OP_END: u8 = 0xd0;
pub const OP_DIV: u8 = 0x30;
pub const OP_MOD: u8 = 0x90;

/// `src_reg` of a call: a helper (0) or a function of the program (1).
pub const PSEUDO_CALL: u8 = 1;
/// `src_reg` of a 16-byte load: the immediate is a map (1).
pub const PSEUDO_MAP_FD: u8 = 1;
/// ... or an address in a map's first value (a global variable): the map
/// in the low 32 bits, the offset in the high.
pub const PSEUDO_MAP_VALUE: u8 = 2;

/// The helpers a program may call, by their kernel numbers.
pub const HELPERS: [(i32, &str); 6] = [
    (1, "bpf_map_lookup_elem"),
    (2, "bpf_map_update_elem"),
    (3, "bpf_map_delete_elem"),
    (23, "bpf_redirect"),
    (44, "bpf_xdp_adjust_head"),
    (65, "bpf_xdp_adjust_tail"),
];

/// One decoded instruction. A 16-byte load keeps its whole 64-bit
/// immediate in its first slot; its second slot is never run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Insn {
    pub op: u8,
    pub dst: u8,
    pub src: u8,
    pub off: i16,
    pub imm: i64,
}

impl Insn {
    /// Decodes one 8-byte slot (little-endian, as the kernel's).
    pub fn decode(b: [u8; 8]) -> Insn {
        Insn {
            op: b[0],
            dst: b[1] & 0x0f,
            src: b[1] >> 4,
            off: i16::from_le_bytes([b[2], b[3]]),
            imm: i64::from(i32::from_le_bytes([b[4], b[5], b[6], b[7]])),
        }
    }

    pub fn class(&self) -> u8 {
        self.op & 0x07
    }

    pub fn is_wide_load(&self) -> bool {
        self.op == 0x18
    }
}

/// Why a program is refused before it runs, at its instruction.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CheckError {
    #[error("the program has no instructions")]
    Empty,
    #[error("the program has {0} instructions; at most {1} are taken")]
    TooLong(usize, usize),
    #[error("instruction {at}: unknown opcode {op:#04x}")]
    UnknownOpcode { at: usize, op: u8 },
    #[error("instruction {at}: register r{reg} does not exist")]
    BadRegister { at: usize, reg: u8 },
    #[error("instruction {at}: r10, the frame pointer, is read-only")]
    WritesFramePointer { at: usize },
    #[error("instruction {at}: a jump to {to}, outside the program or into a 16-byte load")]
    BadJump { at: usize, to: i64 },
    #[error("instruction {at}: a 16-byte load without its second half")]
    TruncatedWideLoad { at: usize },
    #[error("instruction {at}: helper {helper} is not one a program may call (allowed: {allowed})")]
    HelperNotAllowed {
        at: usize,
        helper: i64,
        allowed: String,
    },
    #[error("instruction {at}: map {map} is not one of the program's {maps} maps")]
    UnknownMap { at: usize, map: i64, maps: usize },
    #[error(
        "instruction {at}: a 16-byte load of kind {kind} (only constants, maps and global variables are taken)"
    )]
    UnsupportedLoad { at: usize, kind: u8 },
    #[error("instruction {at}: the last instruction must be an exit or a jump")]
    FallsOffTheEnd { at: usize },
}

/// Programs longer than this are refused (the kernel's limit for an
/// unprivileged program).
pub const MAX_INSNS: usize = 4096;

/// Decodes `raw` (8-byte slots) and checks it; `maps` is how many maps the
/// program has.
pub fn check(raw: &[[u8; 8]], maps: usize) -> Result<Vec<Insn>, CheckError> {
    if raw.is_empty() {
        return Err(CheckError::Empty);
    }
    if raw.len() > MAX_INSNS {
        return Err(CheckError::TooLong(raw.len(), MAX_INSNS));
    }
    let mut code: Vec<Insn> = raw.iter().map(|b| Insn::decode(*b)).collect();
    let mut second = vec![false; code.len()];
    let mut at = 0;
    while at < code.len() {
        if code[at].is_wide_load() {
            let Some(next) = raw.get(at + 1) else {
                return Err(CheckError::TruncatedWideLoad { at });
            };
            let high = i64::from(i32::from_le_bytes([next[4], next[5], next[6], next[7]]));
            code[at].imm = (code[at].imm & 0xffff_ffff) | (high << 32);
            second[at + 1] = true;
            at += 2;
        } else {
            at += 1;
        }
    }
    for (at, insn) in code.iter().enumerate() {
        if !second[at] {
            check_one(at, insn, &code, &second, maps)?;
        }
    }
    let last = code.len() - 1;
    let op = code[last].op;
    let ends = op == (CLASS_JMP | OP_EXIT) || op == CLASS_JMP || op == CLASS_JMP32;
    if second[last] || !ends {
        return Err(CheckError::FallsOffTheEnd { at: last });
    }
    Ok(code)
}

fn check_one(
    at: usize,
    insn: &Insn,
    code: &[Insn],
    second: &[bool],
    maps: usize,
) -> Result<(), CheckError> {
    if !known(insn) {
        return Err(CheckError::UnknownOpcode { at, op: insn.op });
    }
    for reg in [insn.dst, insn.src] {
        if reg > 10 {
            return Err(CheckError::BadRegister { at, reg });
        }
    }
    if insn.dst == 10 && writes_dst(insn) || insn.src == 10 && atomic_fetches(insn) {
        return Err(CheckError::WritesFramePointer { at });
    }
    if insn.is_wide_load() {
        return match insn.src {
            0 => Ok(()),
            PSEUDO_MAP_FD if (0..maps as i64).contains(&insn.imm) => Ok(()),
            PSEUDO_MAP_FD => Err(CheckError::UnknownMap {
                at,
                map: insn.imm,
                maps,
            }),
            PSEUDO_MAP_VALUE if (0..maps as i64).contains(&(insn.imm & 0xffff_ffff)) => Ok(()),
            PSEUDO_MAP_VALUE => Err(CheckError::UnknownMap {
                at,
                map: insn.imm & 0xffff_ffff,
                maps,
            }),
            kind => Err(CheckError::UnsupportedLoad { at, kind }),
        };
    }
    let class = insn.class();
    if class != CLASS_JMP && class != CLASS_JMP32 {
        return Ok(());
    }
    let op = insn.op & 0xf0;
    if op == OP_EXIT {
        return Ok(());
    }
    if op == OP_CALL {
        return check_call(at, insn, code, second);
    }
    let off = if class == CLASS_JMP32 && op == 0 {
        insn.imm
    } else {
        i64::from(insn.off)
    };
    landing(at, at as i64 + 1 + off, code, second)
}

fn check_call(at: usize, insn: &Insn, code: &[Insn], second: &[bool]) -> Result<(), CheckError> {
    if insn.src == PSEUDO_CALL {
        return landing(at, at as i64 + 1 + insn.imm, code, second);
    }
    if HELPERS.iter().any(|(n, _)| i64::from(*n) == insn.imm) {
        return Ok(());
    }
    let allowed = HELPERS
        .iter()
        .map(|(_, n)| *n)
        .collect::<Vec<_>>()
        .join(", ");
    Err(CheckError::HelperNotAllowed {
        at,
        helper: insn.imm,
        allowed,
    })
}

fn landing(at: usize, to: i64, code: &[Insn], second: &[bool]) -> Result<(), CheckError> {
    if to < 0 || to as usize >= code.len() || second[to as usize] {
        return Err(CheckError::BadJump { at, to });
    }
    Ok(())
}

/// Whether the instruction writes its destination register.
fn writes_dst(insn: &Insn) -> bool {
    match insn.class() {
        CLASS_ALU | CLASS_ALU64 | CLASS_LDX => true,
        CLASS_LD => insn.is_wide_load(),
        _ => false,
    }
}

/// Whether the instruction is an atomic operation that writes its source
/// register (the old value fetched, or an exchange).
pub fn atomic_fetches(insn: &Insn) -> bool {
    insn.class() == CLASS_STX && insn.op & 0xe0 == MODE_ATOMIC && insn.imm & 0x01 != 0
}

fn known(insn: &Insn) -> bool {
    let op = insn.op;
    match insn.class() {
        CLASS_LD => op == 0x18,
        CLASS_LDX => {
            matches!(op & 0xe0, MODE_MEM | MODE_MEMSX)
                && !(op & 0xe0 == MODE_MEMSX && op & 0x18 == 0x18)
        }
        CLASS_ST => op & 0xe0 == MODE_MEM,
        CLASS_STX => {
            op & 0xe0 == MODE_MEM
                || (op & 0xe0 == MODE_ATOMIC
                    && matches!(op & 0x18, 0x00 | 0x18)
                    && known_atomic(insn.imm))
        }
        CLASS_ALU | CLASS_ALU64 => {
            op & 0xf0 <= 0xd0
                && !(op & 0xf0 == OP_END && insn.class() == CLASS_ALU64 && op & 0x08 != 0)
        }
        _ => known_jump(insn),
    }
}

fn known_atomic(imm: i64) -> bool {
    matches!(
        imm,
        0x00 | 0x01 | 0x40 | 0x41 | 0x50 | 0x51 | 0xa0 | 0xa1 | 0xe1 | 0xf1
    )
}

fn known_jump(insn: &Insn) -> bool {
    let op = insn.op & 0xf0;
    let class = insn.class();
    match op {
        OP_CALL | OP_EXIT => class == CLASS_JMP && insn.op & 0x08 == 0,
        0xe0 | 0xf0 => false,
        _ => true,
    }
}
