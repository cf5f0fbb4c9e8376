//! AF_PACKET ports: a memory-mapped TPACKET_V3 receive ring and batched
//! transmission with `sendmmsg`, on one Linux interface.
//!
//! Receive: the kernel fills blocks of the ring with frames and hands a block
//! over when it is full or `retire_ms` after its first frame (TPACKET_V3's
//! block timeout: at low rates this is the latency floor, at high rates
//! blocks fill long before). Frames whose VLAN tag the driver moved into
//! metadata are given back their tag, so the pipeline sees the wire frame.
//!
//! Transmit: `sendmmsg` of up to [`TX_BATCH`] frames per call, bypassing the
//! qdisc layer (`PACKET_QDISC_BYPASS`) as DPDK's af_packet PMD does. A frame
//! the interface refuses (for example a veth peer whose backlog is full) is
//! counted in [`PortStats::tx_errors`].
//!
//! Nothing here allocates per packet: the ring is mapped once and the
//! `sendmmsg` vectors are allocated with the port.
//!
//! Reference: Linux `Documentation/networking/packet_mmap.rst`.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

const SOL_PACKET: libc::c_int = 263;
const PACKET_ADD_MEMBERSHIP: libc::c_int = 1;
const PACKET_RX_RING: libc::c_int = 5;
const PACKET_VERSION: libc::c_int = 10;
const PACKET_QDISC_BYPASS: libc::c_int = 20;
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;
const PACKET_MR_PROMISC: libc::c_ushort = 1;
const TPACKET_V3: libc::c_int = 2;
const TP_STATUS_KERNEL: u32 = 0;
const TP_STATUS_USER: u32 = 1;
const TP_STATUS_VLAN_VALID: u32 = 1 << 4;
const TP_STATUS_VLAN_TPID_VALID: u32 = 1 << 6;
const PACKET_OUTGOING: u8 = 4;
const ETH_P_ALL: u16 = 0x0003;

/// Frames per `sendmmsg` call.
pub const TX_BATCH: usize = 64;

/// Layout of the receive ring.
#[derive(Debug, Clone, Copy)]
pub struct RingConfig {
    pub block_size: u32,
    pub blocks: u32,
    /// Block timeout in milliseconds (TPACKET_V3's `tp_retire_blk_tov`).
    pub retire_ms: u32,
}

impl Default for RingConfig {
    fn default() -> Self {
        Self {
            block_size: 1 << 18,
            blocks: 16,
            retire_ms: 1,
        }
    }
}

/// Counters kept by a port, beside the pipeline's.
#[derive(Debug, Default, Clone, Copy, serde::Serialize)]
pub struct PortStats {
    pub rx_frames: u64,
    pub tx_frames: u64,
    /// Frames the interface refused on transmit.
    pub tx_errors: u64,
    /// Frames the kernel dropped because the ring was full.
    pub rx_ring_drops: u64,
}

/// One received frame, as the ring holds it.
#[derive(Debug, Clone, Copy)]
pub struct RxFrame<'a> {
    pub data: &'a [u8],
    /// A VLAN tag the driver stripped into metadata: (TPID, TCI).
    pub vlan: Option<(u16, u16)>,
    pub timestamp_ns: u64,
}

/// An AF_PACKET socket on one interface.
#[derive(Debug)]
pub struct PacketPort {
    fd: OwnedFd,
    ifindex: i32,
    ring: Option<Ring>,
    mmsg: Vec<libc::mmsghdr>,
    iov: Vec<libc::iovec>,
    pub stats: PortStats,
}

// SAFETY: the raw pointers in `mmsg`/`iov` point into the port's own vectors
// or are rebuilt before each send; the ring mapping belongs to the socket.
// Nothing is shared between threads, the port just moves to its thread.
unsafe impl Send for PacketPort {}

#[derive(Debug)]
struct Ring {
    base: *mut u8,
    size: usize,
    block_size: usize,
    blocks: usize,
    next: usize,
}

impl Drop for Ring {
    fn drop(&mut self) {
        // SAFETY: base/size are exactly what mmap returned.
        unsafe { libc::munmap(self.base.cast(), self.size) };
    }
}

pub(crate) fn check(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

pub(crate) fn setsockopt<T>(
    fd: RawFd,
    level: libc::c_int,
    name: libc::c_int,
    v: &T,
) -> io::Result<()> {
    // SAFETY: `v` is a valid T for the duration of the call.
    check(unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (v as *const T).cast(),
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    })
    .map(drop)
}

/// The interface index of `name` in the calling thread's network namespace.
pub fn ifindex(name: &str) -> io::Result<i32> {
    let c = CString::new(name).map_err(|_| io::Error::other("interface name has a NUL"))?;
    // SAFETY: c is a valid C string.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if i == 0 {
        Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("no interface `{name}`"),
        ))
    } else {
        Ok(i as i32)
    }
}

impl PacketPort {
    /// A transmit-only port on `iface`.
    pub fn open_tx(iface: &str) -> io::Result<Self> {
        Self::open(iface, None)
    }

    /// A port on `iface`, in promiscuous mode, receiving into a ring laid out
    /// by `ring` (and transmitting), if given.
    pub fn open(iface: &str, ring: Option<RingConfig>) -> io::Result<Self> {
        let ifindex = ifindex(iface)?;
        let proto = if ring.is_some() { ETH_P_ALL.to_be() } else { 0 };
        // Made with protocol 0, the socket receives nothing until `bind`
        // names the interface and the protocol (libpcap opens its sockets
        // so). Made with ETH_P_ALL, it would take every interface's frames
        // into the ring until `bind`, and `bind` would then unhook it for
        // an RCU grace period, losing this interface's frames meanwhile
        // (packet(7); `packet_do_bind` in the kernel).
        // SAFETY: plain socket(2).
        let raw = check(unsafe {
            libc::socket(
                libc::AF_PACKET,
                libc::SOCK_RAW | libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK,
                0,
            )
        })
        .map_err(|e| annotate(e, iface, "socket(AF_PACKET)"))?;
        // SAFETY: raw is a fresh descriptor we own.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let one: libc::c_int = 1;
        setsockopt(raw, SOL_PACKET, PACKET_QDISC_BYPASS, &one)
            .map_err(|e| annotate(e, iface, "PACKET_QDISC_BYPASS"))?;
        let mut port = Self {
            fd,
            ifindex,
            ring: None,
            mmsg: Vec::with_capacity(TX_BATCH),
            iov: Vec::with_capacity(TX_BATCH),
            stats: PortStats::default(),
        };
        if let Some(cfg) = ring {
            // Our own transmissions must not come back in: older kernels
            // lack the option, so the ring also skips PACKET_OUTGOING frames.
            let _ = setsockopt(raw, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one);
            port.ring = Some(map_ring(raw, iface, cfg)?);
            set_promiscuous(raw, ifindex, iface)?;
        }
        // SAFETY: sockaddr_ll is plain old data.
        let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = proto;
        sll.sll_ifindex = ifindex;
        // SAFETY: binding to a valid sockaddr_ll of the right size.
        check(unsafe {
            libc::bind(
                raw,
                (&sll as *const libc::sockaddr_ll).cast(),
                std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        })
        .map_err(|e| annotate(e, iface, "bind"))?;
        Ok(port)
    }

    pub fn ifindex(&self) -> i32 {
        self.ifindex
    }

    /// Calls `f` on every frame of the next filled block, if there is one,
    /// then hands the block back to the kernel. Returns the frame count.
    pub fn recv_block(&mut self, mut f: impl FnMut(RxFrame<'_>)) -> usize {
        let Some(ring) = self.ring.as_mut() else {
            return 0;
        };
        // SAFETY: `next < blocks`, so the block lies inside the mapping.
        let block = unsafe { ring.base.add(ring.next * ring.block_size) };
        let status = block.wrapping_add(8).cast::<u32>();
        // SAFETY: the block status word is shared with the kernel; read it
        // with acquire ordering so the frames it covers are visible.
        let st = unsafe { std::sync::atomic::AtomicU32::from_ptr(status) }
            .load(std::sync::atomic::Ordering::Acquire);
        if st & TP_STATUS_USER == 0 {
            return 0;
        }
        // SAFETY: the block belongs to user space until we release it; the
        // header fields and frame offsets are the kernel's, inside the block.
        let (num, first) = unsafe {
            (
                block.add(12).cast::<u32>().read(),
                block.add(16).cast::<u32>().read(),
            )
        };
        let mut off = first as usize;
        let mut delivered = 0;
        for _ in 0..num {
            if off + 48 > ring.block_size {
                break;
            }
            // SAFETY: `off` is inside the block (checked above).
            let h = unsafe { block.add(off) };
            // SAFETY: reading tpacket3_hdr fields at their offsets.
            let (next, sec, nsec, snap, fstatus, mac, tci, tpid, pkttype) = unsafe {
                (
                    h.cast::<u32>().read(),
                    h.add(4).cast::<u32>().read(),
                    h.add(8).cast::<u32>().read(),
                    h.add(12).cast::<u32>().read(),
                    h.add(20).cast::<u32>().read(),
                    h.add(24).cast::<u16>().read(),
                    h.add(32).cast::<u32>().read(),
                    h.add(36).cast::<u16>().read(),
                    h.add(48 + 10).read(),
                )
            };
            let start = off + usize::from(mac);
            if pkttype != PACKET_OUTGOING && start + snap as usize <= ring.block_size {
                // SAFETY: the frame lies inside the block (checked).
                let data = unsafe { std::slice::from_raw_parts(block.add(start), snap as usize) };
                let vlan = (fstatus & TP_STATUS_VLAN_VALID != 0).then(|| {
                    let tpid = if fstatus & TP_STATUS_VLAN_TPID_VALID != 0 {
                        tpid
                    } else {
                        0x8100
                    };
                    (tpid, tci as u16)
                });
                f(RxFrame {
                    data,
                    vlan,
                    timestamp_ns: u64::from(sec) * 1_000_000_000 + u64::from(nsec),
                });
                delivered += 1;
            }
            if next == 0 {
                break;
            }
            off += next as usize;
        }
        // SAFETY: releasing the block to the kernel (release ordering: our
        // reads of it are done).
        unsafe { std::sync::atomic::AtomicU32::from_ptr(status) }
            .store(TP_STATUS_KERNEL, std::sync::atomic::Ordering::Release);
        ring.next = (ring.next + 1) % ring.blocks;
        self.stats.rx_frames += delivered as u64;
        delivered
    }

    /// Waits up to `timeout_ms` for the ring to have a block (or any of
    /// `ports` to be readable).
    pub fn wait_any(ports: &[&PacketPort], timeout_ms: i32) -> io::Result<()> {
        poll_readable(ports.iter().map(|p| p.fd.as_raw_fd()), timeout_ms)
    }

    /// Sends `frames` (at most [`TX_BATCH`] per system call). Returns how
    /// many the interface accepted; the rest are counted as errors.
    pub fn send_batch<'a, I>(&mut self, frames: I) -> usize
    where
        I: IntoIterator<Item = &'a [u8]>,
    {
        let mut it = frames.into_iter().peekable();
        let mut accepted = 0;
        while it.peek().is_some() {
            self.iov.clear();
            for f in it.by_ref().take(TX_BATCH) {
                self.iov.push(libc::iovec {
                    iov_base: f.as_ptr() as *mut libc::c_void,
                    iov_len: f.len(),
                });
            }
            self.mmsg.clear();
            for iov in self.iov.iter_mut() {
                // SAFETY: mmsghdr is plain old data.
                let mut m: libc::mmsghdr = unsafe { std::mem::zeroed() };
                m.msg_hdr.msg_iov = iov;
                m.msg_hdr.msg_iovlen = 1;
                self.mmsg.push(m);
            }
            let mut done = 0;
            while done < self.mmsg.len() {
                // SAFETY: mmsg[done..] point at live iovecs over live frames.
                let r = unsafe {
                    libc::sendmmsg(
                        self.fd.as_raw_fd(),
                        self.mmsg.as_mut_ptr().add(done),
                        (self.mmsg.len() - done) as libc::c_uint,
                        libc::MSG_DONTWAIT,
                    )
                };
                if r <= 0 {
                    // The frame at `done` was refused; skip it and go on.
                    self.stats.tx_errors += 1;
                    done += 1;
                } else {
                    done += r as usize;
                    accepted += r as usize;
                }
            }
        }
        self.stats.tx_frames += accepted as u64;
        accepted
    }

    /// Frames the kernel dropped for want of ring space since the last call
    /// (`PACKET_STATISTICS`), added to [`PortStats::rx_ring_drops`].
    pub fn poll_drops(&mut self) -> u64 {
        const PACKET_STATISTICS: libc::c_int = 6;
        let mut st = [0u32; 3];
        let mut len = std::mem::size_of_val(&st) as libc::socklen_t;
        // SAFETY: st has room for tpacket_stats_v3.
        let r = unsafe {
            libc::getsockopt(
                self.fd.as_raw_fd(),
                SOL_PACKET,
                PACKET_STATISTICS,
                st.as_mut_ptr().cast(),
                &mut len,
            )
        };
        if r == 0 {
            self.stats.rx_ring_drops += u64::from(st[1]);
        }
        self.stats.rx_ring_drops
    }
}

impl AsRawFd for PacketPort {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// Waits up to `timeout_ms` for any of the (at most 64) descriptors to be
/// readable; an interrupted wait returns early, without error.
pub fn poll_readable(fds: impl Iterator<Item = RawFd>, timeout_ms: i32) -> io::Result<()> {
    let mut set = [libc::pollfd {
        fd: -1,
        events: 0,
        revents: 0,
    }; 64];
    let mut n = 0;
    for (fd, slot) in fds.zip(set.iter_mut()) {
        slot.fd = fd;
        slot.events = libc::POLLIN;
        n += 1;
    }
    // SAFETY: `set` holds `n` initialised pollfds.
    match check(unsafe { libc::poll(set.as_mut_ptr(), n as libc::nfds_t, timeout_ms) }) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(()),
        Err(e) => Err(e),
    }
}

pub(crate) fn annotate(e: io::Error, iface: &str, what: &str) -> io::Error {
    io::Error::new(e.kind(), format!("{iface}: {what}: {e}"))
}
/// Makes the socket's TPACKET_V3 receive ring and maps it (locked in
/// memory where RLIMIT_MEMLOCK allows).
fn map_ring(raw: RawFd, iface: &str, cfg: RingConfig) -> io::Result<Ring> {
    setsockopt(raw, SOL_PACKET, PACKET_VERSION, &TPACKET_V3)
        .map_err(|e| annotate(e, iface, "PACKET_VERSION"))?;
    let req = [
        cfg.block_size,
        cfg.blocks,
        2048,
        cfg.block_size / 2048 * cfg.blocks,
        cfg.retire_ms,
        0,
        0,
    ];
    setsockopt(raw, SOL_PACKET, PACKET_RX_RING, &req)
        .map_err(|e| annotate(e, iface, "PACKET_RX_RING"))?;
    let size = cfg.block_size as usize * cfg.blocks as usize;
    // SAFETY: mapping the ring the kernel just made for this socket.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_LOCKED | libc::MAP_POPULATE,
            raw,
            0,
        )
    };
    let base = if base == libc::MAP_FAILED {
        // MAP_LOCKED needs RLIMIT_MEMLOCK; retry without it.
        // SAFETY: as above.
        let b = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                raw,
                0,
            )
        };
        if b == libc::MAP_FAILED {
            return Err(annotate(io::Error::last_os_error(), iface, "mmap ring"));
        }
        b
    } else {
        base
    };
    Ok(Ring {
        base: base.cast(),
        size,
        block_size: cfg.block_size as usize,
        blocks: cfg.blocks as usize,
        next: 0,
    })
}

/// Receives every frame of the interface, whatever its destination MAC.
fn set_promiscuous(raw: RawFd, ifindex: i32, iface: &str) -> io::Result<()> {
    let mut mreq: libc::packet_mreq = {
        // SAFETY: packet_mreq is plain old data.
        unsafe { std::mem::zeroed() }
    };
    mreq.mr_ifindex = ifindex;
    mreq.mr_type = PACKET_MR_PROMISC;
    setsockopt(raw, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mreq)
        .map_err(|e| annotate(e, iface, "promiscuous mode"))
}
