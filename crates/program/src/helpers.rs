//! The helpers a program may call (`bpf_redirect(port, flags)` keeps the
//! port for the exit; flags other than 0 get the kernel's `XDP_ABORTED`) ([`crate::insn::HELPERS`]), with the
//! kernel's arguments, results and error numbers, so that a program written
//! for the kernel runs here unchanged.

use crate::maps::{EINVAL, MAX_KEY, MAX_VALUE};
use crate::memory::{CTX, MAP_HANDLE, Mem, value_address};
use crate::outcome::Trap;

const ETH_HLEN: i64 = 14;
const SMALL_VALUE: usize = 64;
const XDP_ABORTED: u64 = 0;
const XDP_REDIRECT: u64 = 4;

/// Calls helper `n` with r1 to r4 (`r`) for the instruction at `at`;
/// its result goes to r0. `redirect` keeps `bpf_redirect`'s port.
pub(crate) fn call(
    n: i64,
    r: [u64; 4],
    mem: &mut Mem<'_, '_>,
    redirect: &mut Option<u32>,
    at: usize,
) -> Result<u64, Trap> {
    match n {
        1 => lookup(mem, r, at),
        2 => update(mem, r, at),
        3 => {
            let (m, key, len) = key_of(mem, r, at)?;
            Ok(mem.maps[m].delete(&key[..len]) as u64)
        }
        23 if r[1] != 0 => Ok(XDP_ABORTED),
        23 => {
            *redirect = Some(r[0] as u32);
            Ok(XDP_REDIRECT)
        }
        44 if r[0] == CTX => Ok(adjust_head(mem, r[1] as i32)),
        65 if r[0] == CTX => Ok(adjust_tail(mem, r[1] as i32)),
        _ => Err(Trap::Helper { at }),
    }
}

/// The map in r1 and the key r2 points to.
fn key_of(
    mem: &Mem<'_, '_>,
    r: [u64; 4],
    at: usize,
) -> Result<(usize, [u8; MAX_KEY as usize], usize), Trap> {
    let m = r[0].wrapping_sub(MAP_HANDLE) as usize;
    let map = mem.maps.get(m).ok_or(Trap::Helper { at })?;
    let len = map.def.key_size as usize;
    let mut key = [0u8; MAX_KEY as usize];
    mem.read(r[1], &mut key[..len]).ok_or(Trap::Helper { at })?;
    Ok((m, key, len))
}

fn lookup(mem: &Mem<'_, '_>, r: [u64; 4], at: usize) -> Result<u64, Trap> {
    let (m, key, len) = key_of(mem, r, at)?;
    let map = &mem.maps[m];
    Ok(map
        .lookup(&key[..len])
        .map_or(0, |slot| value_address(m, slot * map.stride_bytes())))
}

fn update(mem: &Mem<'_, '_>, r: [u64; 4], at: usize) -> Result<u64, Trap> {
    let (m, key, len) = key_of(mem, r, at)?;
    let size = mem.maps[m].def.value_size as usize;
    // Most values are a few words: those are read into a small buffer, so
    // that an update does not clear 4 KiB of stack each time.
    let (mut small, mut large);
    let value: &mut [u8] = if size <= SMALL_VALUE {
        small = [0u8; SMALL_VALUE];
        &mut small[..size]
    } else {
        large = [0u8; MAX_VALUE as usize];
        &mut large[..size]
    };
    mem.read(r[2], value).ok_or(Trap::Helper { at })?;
    Ok(mem.maps[m].update(&key[..len], value, r[3]) as u64)
}

/// Moves the frame's start by `delta` (negative: a header pushed into the
/// headroom); at least an Ethernet header must remain.
fn adjust_head(mem: &mut Mem<'_, '_>, delta: i32) -> u64 {
    let f = &mut mem.frame;
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
fn adjust_tail(mem: &mut Mem<'_, '_>, delta: i32) -> u64 {
    let f = &mut mem.frame;
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
