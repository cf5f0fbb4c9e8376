//! AF_XDP ports: one socket per (interface, queue), with its own UMEM (the
//! frame memory shared with the kernel) and its four rings.
//!
//! Receive: the XDP program of [`crate::bpf`] redirects each frame of the
//! queue into a UMEM frame the socket put on its fill ring; the frame shows
//! up on the RX ring, the caller reads it in place, and the frame goes back
//! on the fill ring. No system call per frame or per batch: the rings are
//! shared memory. Transmit: frames are copied into free UMEM frames, put on
//! the TX ring, and the kernel is kicked with one `sendto`; the completion
//! ring returns the frames.
//!
//! Zero-copy (`XDP_ZEROCOPY`) is used where the driver has it; veth has
//! not, so there the socket runs in copy mode (`XDP_COPY`): the kernel copies
//! each frame into the UMEM, which still spares the skb and the system calls
//! of a packet socket. [`XdpPort::mode`] says which one a port got.
//!
//! Nothing allocates per packet: the UMEM and rings are mapped once and the
//! free-frame stack is allocated with the port.
//!
//! Reference: Linux `Documentation/networking/af_xdp.rst`.

use crate::afpacket::{PortStats, RxFrame, annotate, check, ifindex};
use crate::bpf::{XdpHook, XdpRedirect};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::Arc;

mod ring;
mod socket;

use ring::{Ring, XdpDesc};
use socket::{bind, register_umem};

const XDP_PGOFF_RX_RING: libc::off_t = 0;
const XDP_PGOFF_TX_RING: libc::off_t = 0x8000_0000;

/// How frames cross between the kernel and the UMEM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum XdpCopy {
    /// The NIC's DMA writes into the UMEM (`XDP_ZEROCOPY`).
    ZeroCopy,
    /// The kernel copies frames into the UMEM (`XDP_COPY`).
    Copy,
}

/// Sizes of an AF_XDP port.
#[derive(Debug, Clone, Copy)]
pub struct XdpConfig {
    /// UMEM frames; half receive, half transmit.
    pub frames: u32,
    /// Bytes per UMEM frame (2048 or 4096). The kernel keeps 256 bytes of
    /// headroom, so the largest frame is `frame_size - 256` (1,792 at 2048:
    /// room for a 1,518-byte frame and tags).
    pub frame_size: u32,
    /// Entries of each ring (a power of two, at most `frames / 2`).
    pub ring: u32,
    /// Try the driver's native XDP hook before the generic one.
    pub native: bool,
    /// Try zero-copy before copy mode.
    pub zero_copy: bool,
}

impl Default for XdpConfig {
    /// Any port's, wire or container link: 2,048 receive slots hold 20 ms
    /// at 100,000 frames/s, the scheduling hiccup a polling thread sees on
    /// a busy machine (512 held 5 ms, and lost frames while a network
    /// changed tier), or a 2,048-frame burst from a sender that was held up
    /// (512 slots on container links lost 100-900 of a 1,500-frame burst
    /// through a software network). 8 MiB per port.
    fn default() -> Self {
        Self {
            frames: 4096,
            frame_size: 2048,
            ring: 2048,
            native: true,
            zero_copy: true,
        }
    }
}

/// The frame memory shared with the kernel, unmapped when dropped: one
/// owner, so one `munmap`. (Unmapping twice once unmapped whatever another
/// thread had mapped at that address in between: frames read as zeros or as
/// the backtrace reader's debug info, one test run in ten under load.)
#[derive(Debug)]
struct Umem {
    ptr: *mut u8,
    len: usize,
}

impl Umem {
    fn map(len: usize) -> io::Result<Self> {
        // SAFETY: an anonymous private mapping.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_POPULATE,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        // Children (an `ip` run, a container) need none of it, and the
        // kernel need not copy pinned pages at each fork.
        // SAFETY: advising our own fresh mapping.
        unsafe { libc::madvise(ptr, len, libc::MADV_DONTFORK) };
        Ok(Self {
            ptr: ptr.cast(),
            len,
        })
    }
}

impl Drop for Umem {
    fn drop(&mut self) {
        // SAFETY: ptr/len are what mmap returned, unmapped only here.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

/// An AF_XDP socket on one queue of one interface.
#[derive(Debug)]
pub struct XdpPort {
    // Fields drop in order: the socket closes before its memory goes.
    fd: OwnedFd,
    umem: Umem,
    frame_size: u32,
    fill: Ring,
    comp: Ring,
    rx: Ring,
    tx: Ring,
    /// UMEM frames free for transmission.
    tx_free: Vec<u64>,
    redirect: Arc<XdpRedirect>,
    queue: u32,
    copy: XdpCopy,
    pub stats: PortStats,
}

// SAFETY: the raw pointers are into this port's own mappings, which move with
// it; nothing is shared between threads.
unsafe impl Send for XdpPort {}

impl Drop for XdpPort {
    fn drop(&mut self) {
        let _ = self.redirect.map.remove(self.queue);
        // The socket, the rings and the UMEM close and unmap themselves.
    }
}

/// The number of receive queues of `iface` (AF_XDP binds one socket per queue).
pub fn rx_queues(iface: &str) -> u32 {
    std::fs::read_dir(format!("/sys/class/net/{iface}/queues"))
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().starts_with("rx-"))
                .count() as u32
        })
        .unwrap_or(1)
        .max(1)
}

impl XdpPort {
    /// Attaches the redirect program to `iface` for all its receive queues.
    /// Share the result between the queues' sockets.
    pub fn attach(iface: &str, cfg: &XdpConfig) -> io::Result<Arc<XdpRedirect>> {
        let idx = ifindex(iface)?;
        XdpRedirect::attach(idx, rx_queues(iface), cfg.native)
            .map(Arc::new)
            .map_err(|e| annotate(e, iface, "XDP"))
    }

    /// Opens a socket on `queue` of the interface `redirect` is attached to,
    /// zero-copy if the driver can and `cfg` allows, else copy mode.
    pub fn open(
        iface: &str,
        queue: u32,
        redirect: Arc<XdpRedirect>,
        cfg: &XdpConfig,
    ) -> io::Result<Self> {
        if cfg.zero_copy
            && let Ok(p) = Self::open_mode(queue, redirect.clone(), cfg, XdpCopy::ZeroCopy)
        {
            return Ok(p);
        }
        Self::open_mode(queue, redirect, cfg, XdpCopy::Copy)
            .map_err(|e| annotate(e, iface, &format!("AF_XDP socket on queue {queue}")))
    }

    fn open_mode(
        queue: u32,
        redirect: Arc<XdpRedirect>,
        cfg: &XdpConfig,
        copy: XdpCopy,
    ) -> io::Result<Self> {
        assert!(cfg.ring.is_power_of_two() && cfg.ring * 2 <= cfg.frames);
        // SAFETY: plain socket(2).
        let raw =
            check(unsafe { libc::socket(libc::AF_XDP, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) })?;
        // SAFETY: a fresh descriptor we own.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let umem = Umem::map(cfg.frames as usize * cfg.frame_size as usize)?;
        Self::build(fd, umem, queue, redirect, cfg, copy)
    }

    fn build(
        fd: OwnedFd,
        umem: Umem,
        queue: u32,
        redirect: Arc<XdpRedirect>,
        cfg: &XdpConfig,
        copy: XdpCopy,
    ) -> io::Result<Self> {
        let raw = fd.as_raw_fd();
        let off = register_umem(raw, &umem, cfg)?;
        let fill = Ring::map(
            raw,
            &off.fr,
            cfg.ring,
            8,
            libc::XDP_UMEM_PGOFF_FILL_RING as libc::off_t,
        )?;
        let comp = Ring::map(
            raw,
            &off.cr,
            cfg.ring,
            8,
            libc::XDP_UMEM_PGOFF_COMPLETION_RING as libc::off_t,
        )?;
        let rx = Ring::map(raw, &off.rx, cfg.ring, 16, XDP_PGOFF_RX_RING)?;
        let tx = Ring::map(raw, &off.tx, cfg.ring, 16, XDP_PGOFF_TX_RING)?;
        let half = cfg.frames / 2;
        let fs = u64::from(cfg.frame_size);
        let mut port = Self {
            fd,
            umem,
            frame_size: cfg.frame_size,
            fill,
            comp,
            rx,
            tx,
            tx_free: (half..cfg.frames).map(|i| u64::from(i) * fs).collect(),
            redirect,
            queue,
            copy,
            stats: PortStats::default(),
        };
        port.fill_for_receive(half.min(cfg.ring));
        bind(raw, port.redirect.ifindex as u32, queue, copy)?;
        port.redirect.map.insert(queue, raw)?;
        Ok(port)
    }

    /// Hands the first `n` frames of the UMEM to the kernel for receiving.
    fn fill_for_receive(&mut self, n: u32) {
        let fs = u64::from(self.frame_size);
        for i in 0..n {
            let slot = self.fill.local;
            // SAFETY: the ring is empty and `i` < its size.
            unsafe { self.fill.addr(slot).write(u64::from(i) * fs) };
            self.fill.local = slot.wrapping_add(1);
        }
        self.fill.publish_producer();
    }

    /// Zero-copy or copy mode.
    pub fn copy_mode(&self) -> XdpCopy {
        self.copy
    }

    /// Where the XDP program runs on this port's interface.
    pub fn hook(&self) -> XdpHook {
        self.redirect.hook
    }

    /// Calls `f` on every frame waiting on the RX ring (at most `max`), then
    /// gives their UMEM frames back to the fill ring. Returns the count.
    pub fn recv(&mut self, max: u32, mut f: impl FnMut(RxFrame<'_>)) -> usize {
        let n = self.rx.ready().min(max).min(self.fill.free());
        if n == 0 {
            if self.fill.needs_wakeup() {
                self.wake_rx();
            }
            return 0;
        }
        for _ in 0..n {
            let slot = self.rx.local;
            // SAFETY: the slot is between our consumer and the kernel's producer.
            let d = unsafe { self.rx.xdesc(slot).read() };
            self.rx.local = slot.wrapping_add(1);
            let start = d.addr as usize;
            if start + d.len as usize <= self.umem.len {
                // SAFETY: the frame lies inside the UMEM (checked) and the
                // kernel does not touch it until we put it on the fill ring.
                let data =
                    unsafe { std::slice::from_raw_parts(self.umem.ptr.add(start), d.len as usize) };
                f(RxFrame {
                    data,
                    vlan: None,
                    timestamp_ns: 0,
                });
            }
            // Back to the fill ring at the start of its frame.
            let frame = d.addr - d.addr % u64::from(self.frame_size);
            let fslot = self.fill.local;
            // SAFETY: `fill.free() >= n` was checked.
            unsafe { self.fill.addr(fslot).write(frame) };
            self.fill.local = fslot.wrapping_add(1);
        }
        self.rx.publish_consumer();
        self.fill.publish_producer();
        if self.fill.needs_wakeup() {
            self.wake_rx();
        }
        self.stats.rx_frames += u64::from(n);
        n as usize
    }

    fn wake_rx(&self) {
        // SAFETY: a zero-length recvfrom only kicks the kernel's fill-ring processing.
        unsafe {
            libc::recvfrom(
                self.fd.as_raw_fd(),
                std::ptr::null_mut(),
                0,
                libc::MSG_DONTWAIT,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
    }

    fn reap_completions(&mut self) {
        let n = self.comp.ready();
        for _ in 0..n {
            let slot = self.comp.local;
            // SAFETY: between our consumer and the kernel's producer.
            let a = unsafe { self.comp.addr(slot).read() };
            self.comp.local = slot.wrapping_add(1);
            self.tx_free.push(a - a % u64::from(self.frame_size));
        }
        if n > 0 {
            self.comp.publish_consumer();
        }
    }

    /// Copies `frames` into UMEM frames and transmits them. Returns how many
    /// were queued; frames that find no free UMEM frame or ring slot, or
    /// are too long, are counted in `tx_errors`.
    pub fn send_batch<'a, I>(&mut self, frames: I) -> usize
    where
        I: IntoIterator<Item = &'a [u8]>,
    {
        self.reap_completions();
        let mut queued = 0u32;
        let max_len = self.frame_size as usize;
        for f in frames {
            if self.tx.free() == 0 || self.tx_free.is_empty() {
                // Let the kernel drain the ring, then try once more.
                self.kick_tx();
                self.reap_completions();
            }
            let Some(addr) = (self.tx.free() > 0 && f.len() <= max_len)
                .then(|| self.tx_free.pop())
                .flatten()
            else {
                self.stats.tx_errors += 1;
                continue;
            };
            // SAFETY: `addr` is a free frame of our UMEM, `f` fits in it.
            unsafe {
                std::ptr::copy_nonoverlapping(f.as_ptr(), self.umem.ptr.add(addr as usize), f.len())
            };
            let slot = self.tx.local;
            // SAFETY: `tx.free() > 0` was checked.
            unsafe {
                self.tx.xdesc(slot).write(XdpDesc {
                    addr,
                    len: f.len() as u32,
                    options: 0,
                })
            };
            self.tx.local = slot.wrapping_add(1);
            self.tx.publish_producer();
            queued += 1;
        }
        if queued > 0 {
            self.kick_tx();
        }
        self.stats.tx_frames += u64::from(queued);
        queued as usize
    }

    /// Frames on the TX ring the kernel has not taken yet.
    pub fn tx_pending(&self) -> u32 {
        self.tx.local.wrapping_sub(self.tx.kernel_consumer())
    }

    /// Has the kernel send what is on the TX ring. In copy mode the kernel
    /// sends at most 32 frames per call and answers EAGAIN when frames
    /// remain, so this calls again for as long as the ring moves. (Stopping
    /// at the first EAGAIN left a burst on the ring, 32 frames a call: a
    /// software router sent 96 frames per 44 ms wait and a 1,500-frame
    /// burst came out over half a second.) If the kernel takes nothing
    /// (device busy) the frames stay for the next call (callers with
    /// nothing else to send call [`XdpPort::flush`] when idle).
    fn kick_tx(&mut self) {
        for _ in 0..256 {
            let pending = self.tx_pending();
            if pending == 0 || (self.copy == XdpCopy::ZeroCopy && !self.tx.needs_wakeup()) {
                return;
            }
            // SAFETY: a zero-length sendto only kicks transmission.
            let r = unsafe {
                libc::sendto(
                    self.fd.as_raw_fd(),
                    std::ptr::null(),
                    0,
                    libc::MSG_DONTWAIT,
                    std::ptr::null(),
                    0,
                )
            };
            if r < 0 {
                let again = matches!(
                    io::Error::last_os_error().raw_os_error(),
                    Some(libc::EAGAIN | libc::EBUSY)
                );
                if !again || self.tx_pending() == pending {
                    return;
                }
            }
        }
    }

    /// Sends frames left on the TX ring and takes back finished ones.
    pub fn flush(&mut self) {
        self.kick_tx();
        self.reap_completions();
    }

    /// Frames the kernel could not deliver to this socket (ring full, no
    /// fill frames, invalid), added to [`PortStats::rx_ring_drops`].
    pub fn poll_drops(&mut self) -> u64 {
        // SAFETY: plain data the kernel fills.
        let mut st: libc::xdp_statistics = unsafe { std::mem::zeroed() };
        let mut len = std::mem::size_of_val(&st) as libc::socklen_t;
        // SAFETY: `st` has room for the answer.
        let r = unsafe {
            libc::getsockopt(
                self.fd.as_raw_fd(),
                libc::SOL_XDP,
                libc::XDP_STATISTICS,
                (&mut st as *mut libc::xdp_statistics).cast(),
                &mut len,
            )
        };
        if r == 0 {
            // Cumulative counters: keep the latest.
            self.stats.rx_ring_drops = st.rx_dropped + st.rx_ring_full + st.rx_invalid_descs;
        }
        self.stats.rx_ring_drops
    }
}

impl AsRawFd for XdpPort {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}
