//! The four rings of an AF_XDP socket, as the kernel maps them: a
//! producer and a consumer index, a flags word and the descriptors.
//! One side of each ring is ours: we produce into the fill and TX rings and
//! consume from the RX and completion rings.

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU32, Ordering};

/// One of a socket's four rings, mapped from the kernel.
#[derive(Debug)]
pub(super) struct Ring {
    map: *mut u8,
    map_len: usize,
    producer: *const AtomicU32,
    consumer: *const AtomicU32,
    flags: *const AtomicU32,
    desc: *mut u8,
    mask: u32,
    size: u32,
    /// Our copy of the index we own (producer for fill/TX, consumer for RX/completion).
    pub local: u32,
}

impl Drop for Ring {
    fn drop(&mut self) {
        // SAFETY: map/map_len are what mmap returned.
        unsafe { libc::munmap(self.map.cast(), self.map_len) };
    }
}

impl Ring {
    pub(super) fn map(
        fd: RawFd,
        off: &libc::xdp_ring_offset,
        size: u32,
        desc_size: usize,
        pgoff: libc::off_t,
    ) -> io::Result<Self> {
        let map_len = off.desc as usize + size as usize * desc_size;
        // SAFETY: mapping a ring the kernel made for this socket, at its page offset.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_POPULATE,
                fd,
                pgoff,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let map = map.cast::<u8>();
        // SAFETY: the offsets come from XDP_MMAP_OFFSETS and lie in the mapping.
        let (producer, consumer, flags, desc) = unsafe {
            (
                map.add(off.producer as usize).cast::<AtomicU32>(),
                map.add(off.consumer as usize).cast::<AtomicU32>(),
                map.add(off.flags as usize).cast::<AtomicU32>(),
                map.add(off.desc as usize),
            )
        };
        // A fresh ring's indices are all zero.
        Ok(Self {
            map,
            map_len,
            producer,
            consumer,
            flags,
            desc,
            mask: size - 1,
            size,
            local: 0,
        })
    }

    pub(super) fn kernel_producer(&self) -> u32 {
        // SAFETY: the index word lives in the mapping for the ring's lifetime.
        unsafe { &*self.producer }.load(Ordering::Acquire)
    }
    pub(super) fn kernel_consumer(&self) -> u32 {
        // SAFETY: as above.
        unsafe { &*self.consumer }.load(Ordering::Acquire)
    }
    pub(super) fn needs_wakeup(&self) -> bool {
        // SAFETY: as above.
        unsafe { &*self.flags }.load(Ordering::Relaxed) & libc::XDP_RING_NEED_WAKEUP != 0
    }
    /// Free slots of a ring we produce into.
    pub(super) fn free(&self) -> u32 {
        self.size - self.local.wrapping_sub(self.kernel_consumer())
    }
    /// Filled slots of a ring we consume from.
    pub(super) fn ready(&self) -> u32 {
        self.kernel_producer().wrapping_sub(self.local)
    }
    pub(super) fn publish_producer(&mut self) {
        // SAFETY: as above; release so the descriptors are visible first.
        unsafe { &*self.producer }.store(self.local, Ordering::Release);
    }
    pub(super) fn publish_consumer(&mut self) {
        // SAFETY: as above; release so our reads of the slots are done.
        unsafe { &*self.consumer }.store(self.local, Ordering::Release);
    }
    /// Address-ring slot `i` (fill and completion rings hold u64 addresses).
    pub(super) fn addr(&self, i: u32) -> *mut u64 {
        // SAFETY: masked index within the ring's descriptors.
        unsafe { self.desc.cast::<u64>().add((i & self.mask) as usize) }
    }
    /// Descriptor-ring slot `i` (RX and TX rings hold `xdp_desc`).
    pub(super) fn xdesc(&self, i: u32) -> *mut XdpDesc {
        // SAFETY: masked index within the ring's descriptors.
        unsafe { self.desc.cast::<XdpDesc>().add((i & self.mask) as usize) }
    }
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(super) struct XdpDesc {
    pub addr: u64,
    pub len: u32,
    pub options: u32,
}
