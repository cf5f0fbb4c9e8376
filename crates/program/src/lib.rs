//! Researchers' packet programs (paper 002 §2.2: "program it as s/he
//! likes"): XDP programs as the kernel takes them, C compiled by
//! `clang -target bpf` or any eBPF ELF object, run in Prism's hardware tier.
//!
//! Nothing here trusts the program. [`Image::load`] reads the object and
//! checks what the interpreter itself relies on ([`insn::check`]); a
//! [`Program`] runs on one frame at a time with a budget of instructions,
//! every load and store translated into one of the regions it may touch
//! ([`memory`]), so that a loop, a bad pointer or a helper given the wrong
//! thing ends the run with a [`Trap`] (a named drop), never a panic, a
//! stall or another network's memory. The kernel's verifier is asked too,
//! where the program is accepted (`prism_io::program`): what it refuses is
//! refused here, with its log.
//!
//! No I/O and no clock, like the pipeline that runs it.

mod helpers;
pub mod insn;
pub mod maps;
pub mod memory;
mod object;
mod outcome;
mod vm;

pub use insn::{CheckError, HELPERS, Insn};
pub use maps::{Map, MapDef, MapError, MapKind};
pub use memory::Frame;
pub use object::{Image, LoadError};
pub use vm::{DEFAULT_BUDGET, Program, Scratch, Trap, Verdict};
#[cfg(test)]
mod tests;
