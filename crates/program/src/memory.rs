//! The address space a program sees, and every access checked against it.
//!
//! A program holds addresses in its registers and does arithmetic on them,
//! so the engine gives each region a range of made-up addresses and
//! translates every load and store: an access wholly inside one region is
//! done, any other traps. The packet's range must fit 32 bits, because a
//! program reads `ctx->data` as a 32-bit field.
//!
//! | region | addresses | access |
//! |---|---|---|
//! | `struct xdp_md` | `CTX` + 0..24 | 4-byte loads of its fields |
//! | the stack, 512 bytes per call frame | below `STACK_TOP` | load, store |
//! | the frame, `data` to `data_end` | `PACKET` + its offset in the buffer | load, store |
//! | a map's values | `MAP_VALUE` + map << 40 + offset | load, store, atomic |
//! | a map itself | `MAP_HANDLE` + map | passed to helpers only |

use crate::maps::Map;

pub const CTX: u64 = 0x2000_0000;
const CTX_SIZE: u64 = 24;
pub const STACK_TOP: u64 = 0x3000_0000;
pub const FRAME_STACK: usize = 512;
/// Call frames a program may nest (the kernel allows 8).
pub const MAX_DEPTH: usize = 8;
pub const STACK_SIZE: usize = FRAME_STACK * MAX_DEPTH;
pub const PACKET: u64 = 0x4000_0000;
pub const MAP_HANDLE: u64 = 0x5000_0000_0000;
pub const MAP_VALUE: u64 = 1 << 48;
const MAP_SHIFT: u32 = 40;

/// The frame a program runs on: its buffer (headroom in front, tailroom
/// behind) and where the frame lies in it.
#[derive(Debug)]
pub struct Frame<'a> {
    pub buf: &'a mut [u8],
    pub start: usize,
    pub len: usize,
    /// `ctx->ingress_ifindex`: the port the frame came in on.
    pub ingress: u32,
    /// `ctx->rx_queue_index`.
    pub queue: u32,
}

impl Frame<'_> {
    pub fn data(&self) -> &[u8] {
        &self.buf[self.start..self.start + self.len]
    }
}

#[derive(Debug, Clone, Copy)]
enum Region {
    Packet(usize),
    Stack(usize),
    Ctx(usize),
    Value(usize, usize),
}

pub(crate) struct Mem<'a, 'b> {
    pub frame: &'a mut Frame<'b>,
    pub stack: &'a mut [u8; STACK_SIZE],
    pub maps: &'a [Map],
}

impl Mem<'_, '_> {
    #[inline(always)]
    fn region(&self, addr: u64, size: usize) -> Option<Region> {
        let end = addr.checked_add(size as u64)?;
        let data = PACKET + self.frame.start as u64;
        if addr >= data && end <= data + self.frame.len as u64 {
            return Some(Region::Packet((addr - PACKET) as usize));
        }
        let low = STACK_TOP - STACK_SIZE as u64;
        if addr >= low && end <= STACK_TOP {
            return Some(Region::Stack((addr - low) as usize));
        }
        if addr >= MAP_VALUE {
            return self.value(addr - MAP_VALUE, size);
        }
        if addr >= CTX && end <= CTX + CTX_SIZE {
            return Some(Region::Ctx((addr - CTX) as usize));
        }
        None
    }

    fn value(&self, rel: u64, size: usize) -> Option<Region> {
        let m = (rel >> MAP_SHIFT) as usize;
        let at = (rel & ((1 << MAP_SHIFT) - 1)) as usize;
        let map = self.maps.get(m)?;
        let stride = map.stride_bytes();
        let within = at % stride;
        let fits = at / stride < map.slot_count() && within + size <= map.def.value_size as usize;
        fits.then_some(Region::Value(m, at))
    }

    #[inline(always)]
    pub fn load(&self, addr: u64, size: usize) -> Option<u64> {
        Some(match self.region(addr, size)? {
            Region::Packet(at) => read_le(self.frame.buf, at, size)?,
            Region::Stack(at) => read_le(&self.stack[..], at, size)?,
            Region::Value(m, at) => self.maps[m].load(at, size),
            Region::Ctx(at) if size == 4 && at % 4 == 0 => u64::from(self.ctx_field(at / 4)),
            Region::Ctx(_) => return None,
        })
    }

    fn ctx_field(&self, k: usize) -> u32 {
        let data = (PACKET as usize + self.frame.start) as u32;
        match k {
            0 | 2 => data,
            1 => data + self.frame.len as u32,
            3 => self.frame.ingress,
            4 => self.frame.queue,
            _ => 0,
        }
    }

    #[inline(always)]
    pub fn store(&mut self, addr: u64, size: usize, value: u64) -> Option<()> {
        match self.region(addr, size)? {
            Region::Packet(at) => write_le(self.frame.buf, at, size, value)?,
            Region::Stack(at) => write_le(&mut self.stack[..], at, size, value)?,
            Region::Value(m, at) => self.maps[m].store(at, size, value),
            Region::Ctx(_) => return None,
        }
        Some(())
    }

    /// An atomic read-modify-write (4 or 8 bytes, aligned); the old value.
    pub fn atomic(&mut self, addr: u64, size: usize, f: impl Fn(u64) -> u64) -> Option<u64> {
        if !addr.is_multiple_of(size as u64) {
            return None;
        }
        if let Region::Value(m, at) = self.region(addr, size)? {
            return Some(self.maps[m].update_atomic(at, size, f));
        }
        let old = self.load(addr, size)?;
        self.store(addr, size, f(old))?;
        Some(old)
    }

    /// Copies `out.len()` bytes from `addr` (a helper's key or value).
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Option<()> {
        let n = out.len();
        match self.region(addr, n)? {
            Region::Packet(at) => out.copy_from_slice(&self.frame.buf[at..at + n]),
            Region::Stack(at) => out.copy_from_slice(&self.stack[at..at + n]),
            Region::Value(m, at) => {
                for (k, b) in out.iter_mut().enumerate() {
                    *b = self.maps[m].load(at + k, 1) as u8;
                }
            }
            Region::Ctx(_) => return None,
        }
        Some(())
    }
}

/// The address of byte `at` of map `m`'s values.
pub fn value_address(m: usize, at: usize) -> u64 {
    // Wrapping: a program's global-variable offset is any 32 bits, and a
    // made-up address only fails to translate.
    MAP_VALUE
        .wrapping_add((m as u64) << MAP_SHIFT)
        .wrapping_add(at as u64)
}

/// `size` bytes at `at`, little-endian: fixed-size reads, so that each is
/// one load rather than a call to copy a slice of any length.
#[inline(always)]
fn read_le(b: &[u8], at: usize, size: usize) -> Option<u64> {
    Some(match size {
        1 => u64::from(*b.get(at)?),
        2 => u64::from(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?)),
        4 => u64::from(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?)),
        _ => u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?),
    })
}

#[inline(always)]
fn write_le(b: &mut [u8], at: usize, size: usize, v: u64) -> Option<()> {
    match size {
        1 => *b.get_mut(at)? = v as u8,
        2 => b
            .get_mut(at..at + 2)?
            .copy_from_slice(&(v as u16).to_le_bytes()),
        4 => b
            .get_mut(at..at + 4)?
            .copy_from_slice(&(v as u32).to_le_bytes()),
        _ => b.get_mut(at..at + 8)?.copy_from_slice(&v.to_le_bytes()),
    }
    Some(())
}
