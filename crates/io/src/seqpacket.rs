//! A Unix `SOCK_SEQPACKET` client: one message per `send`, one per `recv`.
//! DPDK's telemetry socket (`/var/run/dpdk/<prefix>/dpdk_telemetry.v2`)
//! speaks this way; the benchmarks against DPDK read its port counters
//! through it. The standard library has stream and datagram Unix sockets
//! only.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;

#[derive(Debug)]
pub struct SeqPacket {
    fd: OwnedFd,
}

impl SeqPacket {
    pub fn connect(path: &Path) -> io::Result<Self> {
        use std::os::unix::ffi::OsStrExt;
        let bytes = path.as_os_str().as_bytes();
        // SAFETY: sockaddr_un is plain data.
        let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
        if bytes.len() >= addr.sun_path.len() {
            return Err(io::Error::other(format!(
                "{}: socket path too long",
                path.display()
            )));
        }
        addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
        for (d, s) in addr.sun_path.iter_mut().zip(bytes) {
            *d = *s as libc::c_char;
        }
        // SAFETY: plain socket(2).
        let raw =
            unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC, 0) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a fresh descriptor we own.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: connecting to a valid sockaddr_un of the right size.
        let r = unsafe {
            libc::connect(
                raw,
                (&addr as *const libc::sockaddr_un).cast(),
                std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t,
            )
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Self { fd })
    }

    pub fn send(&self, msg: &[u8]) -> io::Result<()> {
        // SAFETY: `msg` is valid for its length.
        let r = unsafe {
            libc::send(
                self.fd.as_raw_fd(),
                msg.as_ptr().cast(),
                msg.len(),
                libc::MSG_NOSIGNAL,
            )
        };
        if r < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    }

    /// Receives one message (at most `max` bytes).
    pub fn recv(&self, max: usize) -> io::Result<Vec<u8>> {
        let mut buf = vec![0u8; max];
        // SAFETY: `buf` has room for `max` bytes.
        let r = unsafe { libc::recv(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), max, 0) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        buf.truncate(r as usize);
        Ok(buf)
    }
}
