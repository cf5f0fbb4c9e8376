//! The helpers a program may call ([`crate::insn::HELPERS`]), with the
//! kernel's arguments, results and error numbers, so that a program written
//! for the kernel runs here unchanged.

use crate::maps::{EINVAL, MAX_KEY, MAX_VALUE};
use crate::memory::{CTX, MAP_HANDLE, value_address};
use crate::vm::{Trap, Vm};

const ETH_HLEN: i64 = 14;
const XDP_ABORTED: u64 = 0;
const XDP_REDIRECT: u64 = 4;

/// Calls helper `n` for the instruction at `at`; its result goes to r0.
pub(crate) fn call(vm: &mut Vm<'_, '_>, n: i64, at: usize) -> Result<u64, Trap> {
    let bad = Trap::Helper { at };
    match n {
        1 => lookup(vm, at),
        2 => update(vm, at),
        3 => {
            let (m, key, len) = key_of(vm, at)?;
            Ok(vm.mem.maps[m].delete(&key[..len]) as u64)
        }
        23 => Ok(redirect(vm)),
        44 if vm.r[1] == CTX => Ok(adjust_head(vm, vm.r[2] as i32)),
        65 if vm.r[1] == CTX => Ok(adjust_tail(vm, vm.r[2] as i32)),
        _ => Err(bad),
    }
}

/// The map in r1 and the key r2 points to.
fn key_of(vm: &Vm<'_, '_>, at: usize) -> Result<(usize, [u8; MAX_KEY as usize], usize), Trap> {
    let m = vm.r[1].wrapping_sub(MAP_HANDLE) as usize;
    let map = vm.mem.maps.get(m).ok_or(Trap::Helper { at })?;
    let len = map.def.key_size as usize;
    let mut key = [0u8; MAX_KEY as usize];
    vm.mem
        .read(vm.r[2], &mut key[..len])
        .ok_or(Trap::Helper { at })?;
    Ok((m, key, len))
}

fn lookup(vm: &Vm<'_, '_>, at: usize) -> Result<u64, Trap> {
    let (m, key, len) = key_of(vm, at)?;
    let map = &vm.mem.maps[m];
    Ok(map
        .lookup(&key[..len])
        .map_or(0, |slot| value_address(m, slot * map.stride_bytes())))
}

fn update(vm: &Vm<'_, '_>, at: usize) -> Result<u64, Trap> {
    let (m, key, len) = key_of(vm, at)?;
    let size = vm.mem.maps[m].def.value_size as usize;
    let mut value = [0u8; MAX_VALUE as usize];
    vm.mem
        .read(vm.r[3], &mut value[..size])
        .ok_or(Trap::Helper { at })?;
    Ok(vm.mem.maps[m].update(&key[..len], &value[..size], vm.r[4]) as u64)
}

/// `bpf_redirect(port, flags)`: the port is kept for the exit; flags must
/// be 0 (the kernel's answer to others is `XDP_ABORTED`).
fn redirect(vm: &mut Vm<'_, '_>) -> u64 {
    if vm.r[2] != 0 {
        return XDP_ABORTED;
    }
    vm.redirect = Some(vm.r[1] as u32);
    XDP_REDIRECT
}

/// Moves the frame's start by `delta` (negative: a header pushed into the
/// headroom); at least an Ethernet header must remain.
fn adjust_head(vm: &mut Vm<'_, '_>, delta: i32) -> u64 {
    let f = &mut vm.mem.frame;
    let start = f.start as i64 + i64::from(delta);
    let len = f.len as i64 - i64::from(delta);
    if start < 0 || len < ETH_HLEN {
        return (-EINVAL) as u64;
    }
    f.start = start as usize;
    f.len = len as usize;
    0
}

/// Moves the frame's end by `delta`, within the buffer; at least an
/// Ethernet header must remain. Bytes it grows by are zero, as the kernel's.
fn adjust_tail(vm: &mut Vm<'_, '_>, delta: i32) -> u64 {
    let f = &mut vm.mem.frame;
    let len = f.len as i64 + i64::from(delta);
    if len < ETH_HLEN || f.start as i64 + len > f.buf.len() as i64 {
        return (-EINVAL) as u64;
    }
    let old_end = f.start + f.len;
    f.len = len as usize;
    let new_end = f.start + f.len;
    if new_end > old_end {
        f.buf[old_end..new_end].fill(0);
    }
    0
}
