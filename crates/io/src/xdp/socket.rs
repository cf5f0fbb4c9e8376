//! The AF_XDP socket's options: its UMEM registered and its rings sized,
//! and the bind to an interface's queue in a copy mode.

use super::{Umem, XdpConfig, XdpCopy};
use crate::afpacket::check;
use std::io;
use std::os::fd::RawFd;

pub(super) fn setsockopt<T>(fd: RawFd, name: libc::c_int, v: &T) -> io::Result<()> {
    crate::afpacket::setsockopt(fd, libc::SOL_XDP, name, v)
}

/// Registers `umem` with the socket and sizes its four rings; the rings'
/// offsets for mapping them.
pub(super) fn register_umem(
    raw: RawFd,
    umem: &Umem,
    cfg: &XdpConfig,
) -> io::Result<libc::xdp_mmap_offsets> {
    let reg = libc::xdp_umem_reg {
        addr: umem.ptr as u64,
        len: umem.len as u64,
        chunk_size: cfg.frame_size,
        headroom: 0,
        flags: 0,
        tx_metadata_len: 0,
    };
    setsockopt(raw, libc::XDP_UMEM_REG, &reg)?;
    for opt in [
        libc::XDP_UMEM_FILL_RING,
        libc::XDP_UMEM_COMPLETION_RING,
        libc::XDP_RX_RING,
        libc::XDP_TX_RING,
    ] {
        setsockopt(raw, opt, &cfg.ring)?;
    }
    // SAFETY: xdp_mmap_offsets is plain data the kernel fills.
    let mut off: libc::xdp_mmap_offsets = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of_val(&off) as libc::socklen_t;
    // SAFETY: `off` has room for the answer.
    check(unsafe {
        libc::getsockopt(
            raw,
            libc::SOL_XDP,
            libc::XDP_MMAP_OFFSETS,
            (&mut off as *mut libc::xdp_mmap_offsets).cast(),
            &mut len,
        )
    })?;
    Ok(off)
}

/// Binds the socket to `queue` of interface `ifindex`, in `copy` mode,
/// waking the kernel only when it asks.
pub(super) fn bind(raw: RawFd, ifindex: u32, queue: u32, copy: XdpCopy) -> io::Result<()> {
    let mut sxdp: libc::sockaddr_xdp = {
        // SAFETY: plain data.
        unsafe { std::mem::zeroed() }
    };
    sxdp.sxdp_family = libc::AF_XDP as u16;
    sxdp.sxdp_ifindex = ifindex;
    sxdp.sxdp_queue_id = queue;
    sxdp.sxdp_flags = libc::XDP_USE_NEED_WAKEUP
        | match copy {
            XdpCopy::ZeroCopy => libc::XDP_ZEROCOPY,
            XdpCopy::Copy => libc::XDP_COPY,
        };
    // SAFETY: binding to a valid sockaddr_xdp of the right size.
    check(unsafe {
        libc::bind(
            raw,
            (&sxdp as *const libc::sockaddr_xdp).cast(),
            std::mem::size_of::<libc::sockaddr_xdp>() as libc::socklen_t,
        )
    })?;
    Ok(())
}
