//! The engine: a checked program run on one frame, under a budget of
//! instructions, every memory access translated and bounds-checked
//! ([`crate::memory`]). Whatever the program does, a run ends with a verdict
//! or a [`Trap`], in at most `budget` instructions, without unwinding or
//! allocating.

use std::sync::Arc;

use crate::helpers;
use crate::insn::*;
use crate::maps::Map;
use crate::memory::{
    CTX, FRAME_STACK, Frame, MAP_HANDLE, MAX_DEPTH, Mem, STACK_SIZE, STACK_TOP, value_address,
};
pub use crate::outcome::{Trap, Verdict};

/// Instructions a run may take unless the booking says otherwise.
pub const DEFAULT_BUDGET: u32 = 4096;

/// A checked program with its maps, ready to run on any number of workers.
#[derive(Debug, Clone)]
pub struct Program {
    code: Arc<[Insn]>,
    pub maps: Arc<[Map]>,
    pub budget: u32,
}

/// Each worker's stack for the runs it makes (allocated once).
#[derive(Debug)]
pub struct Scratch {
    stack: Box<[u8; STACK_SIZE]>,
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch {
            stack: Box::new([0; STACK_SIZE]),
        }
    }
}

struct Vm<'a, 'b> {
    r: [u64; 11],
    mem: Mem<'a, 'b>,
    redirect: Option<u32>,
    calls: [(usize, [u64; 4]); MAX_DEPTH],
    depth: usize,
}

enum Step {
    To(usize),
    Exit,
}

impl Program {
    /// `code` must have passed [`check`] with `maps.len()` maps.
    pub fn new(code: Vec<Insn>, maps: Vec<Map>, budget: u32) -> Program {
        Program {
            code: code.into(),
            maps: maps.into(),
            budget,
        }
    }

    pub fn len(&self) -> usize {
        self.code.len()
    }

    pub fn is_empty(&self) -> bool {
        self.code.is_empty()
    }

    /// Runs the program on `frame`.
    pub fn run(&self, frame: &mut Frame<'_>, scratch: &mut Scratch) -> Result<Verdict, Trap> {
        let mem = Mem {
            frame,
            stack: &mut scratch.stack,
            maps: &self.maps,
        };
        let mut vm = Vm {
            r: [0; 11],
            mem,
            redirect: None,
            calls: [(0, [0; 4]); MAX_DEPTH],
            depth: 0,
        };
        vm.r[1] = CTX;
        vm.r[10] = STACK_TOP;
        let mut pc = 0;
        for _ in 0..self.budget {
            match vm.step(&self.code, pc)? {
                Step::To(next) => pc = next,
                Step::Exit if vm.depth == 0 => return vm.verdict(),
                Step::Exit => pc = vm.ret(),
            }
        }
        Err(Trap::Budget)
    }
}

impl Vm<'_, '_> {
    #[inline(always)]
    fn step(&mut self, code: &[Insn], pc: usize) -> Result<Step, Trap> {
        let i = code[pc];
        match i.class() {
            CLASS_ALU64 => self.alu64(&i),
            CLASS_ALU => self.alu32(&i),
            CLASS_JMP | CLASS_JMP32 => return self.jump(&i, pc),
            CLASS_LDX => self.ldx(&i, pc)?,
            CLASS_ST | CLASS_STX => self.st(&i, pc)?,
            _ => {
                self.r[usize::from(i.dst)] = match i.src {
                    PSEUDO_MAP_FD => MAP_HANDLE.wrapping_add(i.imm as u64),
                    PSEUDO_MAP_VALUE => {
                        value_address((i.imm & 0xffff_ffff) as usize, (i.imm >> 32) as usize)
                    }
                    _ => i.imm as u64,
                };
                return Ok(Step::To(pc + 2));
            }
        }
        Ok(Step::To(pc + 1))
    }

    fn verdict(&self) -> Result<Verdict, Trap> {
        Ok(match self.r[0] {
            0 => Verdict::Aborted,
            1 => Verdict::Drop,
            2 => Verdict::Pass,
            3 => Verdict::Tx,
            4 => Verdict::Redirect(self.redirect.ok_or(Trap::NoRedirect)?),
            value => return Err(Trap::Action { value }),
        })
    }

    fn ret(&mut self) -> usize {
        self.depth -= 1;
        let (pc, saved) = self.calls[self.depth];
        self.r[6..10].copy_from_slice(&saved);
        self.r[10] += FRAME_STACK as u64;
        pc
    }

    #[inline(always)]
    fn source(&self, i: &Insn) -> u64 {
        if i.op & 0x08 != 0 {
            self.r[usize::from(i.src)]
        } else {
            i.imm as u64
        }
    }

    #[inline(always)]
    fn alu64(&mut self, i: &Insn) {
        let d = usize::from(i.dst);
        let (a, b) = (self.r[d], self.source(i));
        self.r[d] = match i.op & 0xf0 {
            0x00 => a.wrapping_add(b),
            0x10 => a.wrapping_sub(b),
            0x20 => a.wrapping_mul(b),
            OP_DIV if b == 0 => 0,
            OP_DIV if i.off == 1 => (a as i64).wrapping_div(b as i64) as u64,
            OP_DIV => a / b,
            0x40 => a | b,
            0x50 => a & b,
            0x60 => a << (b & 63),
            0x70 => a >> (b & 63),
            0x80 => (a as i64).wrapping_neg() as u64,
            OP_MOD if b == 0 => a,
            OP_MOD if i.off == 1 => (a as i64).wrapping_rem(b as i64) as u64,
            OP_MOD => a % b,
            0xa0 => a ^ b,
            0xb0 => match i.off {
                8 => b as i8 as i64 as u64,
                16 => b as i16 as i64 as u64,
                32 => b as i32 as i64 as u64,
                _ => b,
            },
            0xc0 => ((a as i64) >> (b & 63)) as u64,
            _ => swap(a, i.imm),
        };
    }

    #[inline(always)]
    fn alu32(&mut self, i: &Insn) {
        let d = usize::from(i.dst);
        if i.op & 0xf0 == OP_END {
            let a = self.r[d];
            self.r[d] = if i.op & 0x08 != 0 {
                swap(a, i.imm)
            } else {
                a & crate::maps::mask(i.imm as usize / 8)
            };
            return;
        }
        let (a, b) = (self.r[d] as u32, self.source(i) as u32);
        self.r[d] = u64::from(match i.op & 0xf0 {
            0x00 => a.wrapping_add(b),
            0x10 => a.wrapping_sub(b),
            0x20 => a.wrapping_mul(b),
            OP_DIV if b == 0 => 0,
            OP_DIV if i.off == 1 => (a as i32).wrapping_div(b as i32) as u32,
            OP_DIV => a / b,
            0x40 => a | b,
            0x50 => a & b,
            0x60 => a << (b & 31),
            0x70 => a >> (b & 31),
            0x80 => (a as i32).wrapping_neg() as u32,
            OP_MOD if b == 0 => a,
            OP_MOD if i.off == 1 => (a as i32).wrapping_rem(b as i32) as u32,
            OP_MOD => a % b,
            0xa0 => a ^ b,
            0xb0 => match i.off {
                8 => b as i8 as i32 as u32,
                16 => b as i16 as i32 as u32,
                _ => b,
            },
            _ => ((a as i32) >> (b & 31)) as u32,
        });
    }

    #[inline(always)]
    fn jump(&mut self, i: &Insn, pc: usize) -> Result<Step, Trap> {
        let op = i.op & 0xf0;
        if op == OP_EXIT {
            return Ok(Step::Exit);
        }
        if op == OP_CALL {
            return self.call(i, pc);
        }
        let wide = i.class() == CLASS_JMP;
        if op == 0 {
            let off = if wide { i64::from(i.off) } else { i.imm };
            return Ok(Step::To((pc as i64 + 1 + off) as usize));
        }
        let taken = compare(op, self.r[usize::from(i.dst)], self.source(i), wide);
        let next = if taken {
            pc as i64 + 1 + i64::from(i.off)
        } else {
            pc as i64 + 1
        };
        Ok(Step::To(next as usize))
    }

    fn call(&mut self, i: &Insn, pc: usize) -> Result<Step, Trap> {
        if i.src != PSEUDO_CALL {
            let args = [self.r[1], self.r[2], self.r[3], self.r[4]];
            self.r[0] = helpers::call(i.imm, args, &mut self.mem, &mut self.redirect, pc)?;
            return Ok(Step::To(pc + 1));
        }
        if self.depth + 1 >= MAX_DEPTH {
            return Err(Trap::Depth { at: pc });
        }
        let saved = [self.r[6], self.r[7], self.r[8], self.r[9]];
        self.calls[self.depth] = (pc + 1, saved);
        self.depth += 1;
        self.r[10] -= FRAME_STACK as u64;
        Ok(Step::To((pc as i64 + 1 + i.imm) as usize))
    }

    #[inline(always)]
    fn ldx(&mut self, i: &Insn, pc: usize) -> Result<(), Trap> {
        let size = size_of(i.op);
        let addr = self.r[usize::from(i.src)].wrapping_add(i.off as u64);
        let v = self.mem.load(addr, size).ok_or(Trap::Memory { at: pc })?;
        self.r[usize::from(i.dst)] = if i.op & 0xe0 == MODE_MEMSX {
            sign_extend(v, size)
        } else {
            v
        };
        Ok(())
    }

    #[inline(always)]
    fn st(&mut self, i: &Insn, pc: usize) -> Result<(), Trap> {
        let size = size_of(i.op);
        let addr = self.r[usize::from(i.dst)].wrapping_add(i.off as u64);
        if i.op & 0xe0 == MODE_ATOMIC {
            return self.atomic(i, addr, size).ok_or(Trap::Memory { at: pc });
        }
        let v = if i.class() == CLASS_ST {
            i.imm as u64
        } else {
            self.r[usize::from(i.src)]
        };
        self.mem.store(addr, size, v).ok_or(Trap::Memory { at: pc })
    }

    fn atomic(&mut self, i: &Insn, addr: u64, size: usize) -> Option<()> {
        let s = usize::from(i.src);
        let (v, expected) = (self.r[s], self.r[0]);
        let old = self.mem.atomic(addr, size, |old| match i.imm & !1 {
            0x00 => old.wrapping_add(v),
            0x40 => old | v,
            0x50 => old & v,
            0xa0 => old ^ v,
            0xe0 => v,
            _ if old == expected & crate::maps::mask(size) => v,
            _ => old,
        })?;
        match i.imm {
            0xf1 => self.r[0] = old,
            imm if imm & 1 != 0 => self.r[s] = old,
            _ => {}
        }
        Some(())
    }
}

fn size_of(op: u8) -> usize {
    match op & 0x18 {
        0x00 => 4,
        0x08 => 2,
        0x10 => 1,
        _ => 8,
    }
}

fn sign_extend(v: u64, size: usize) -> u64 {
    match size {
        1 => v as i8 as i64 as u64,
        2 => v as i16 as i64 as u64,
        4 => v as i32 as i64 as u64,
        _ => v,
    }
}

/// The low `bits` bits of `a`, byte-swapped.
fn swap(a: u64, bits: i64) -> u64 {
    match bits {
        16 => u64::from((a as u16).swap_bytes()),
        32 => u64::from((a as u32).swap_bytes()),
        _ => a.swap_bytes(),
    }
}

#[inline(always)]
fn compare(op: u8, a: u64, b: u64, wide: bool) -> bool {
    let (a, b) = if wide {
        (a, b)
    } else {
        (u64::from(a as u32), u64::from(b as u32))
    };
    let (sa, sb) = if wide {
        (a as i64, b as i64)
    } else {
        (i64::from(a as i32), i64::from(b as i32))
    };
    match op {
        0x10 => a == b,
        0x20 => a > b,
        0x30 => a >= b,
        0x40 => a & b != 0,
        0x50 => a != b,
        0x60 => sa > sb,
        0x70 => sa >= sb,
        0xa0 => a < b,
        0xb0 => a <= b,
        0xc0 => sa < sb,
        _ => sa <= sb,
    }
}
