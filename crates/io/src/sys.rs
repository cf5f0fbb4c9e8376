//! Process and thread controls the node and the benchmarks need: signals
//! to a child, pinning a thread to a core, the thread's id.

use std::io;

/// The signals Prism sends to processes it started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGHUP: a `prism swrouter` re-reads its network.
    Hangup,
    /// SIGSTOP: a benchmark peer leaves the core to the other side.
    Stop,
    /// SIGCONT.
    Continue,
    /// SIGTERM.
    Terminate,
    /// SIGKILL.
    Kill,
}

impl Signal {
    fn number(self) -> libc::c_int {
        match self {
            Signal::Hangup => libc::SIGHUP,
            Signal::Stop => libc::SIGSTOP,
            Signal::Continue => libc::SIGCONT,
            Signal::Terminate => libc::SIGTERM,
            Signal::Kill => libc::SIGKILL,
        }
    }
}

/// Sends `sig` to process `pid`.
pub fn signal(pid: u32, sig: Signal) -> io::Result<()> {
    // SAFETY: kill(2) has no memory-safety preconditions; a stale pid fails
    // with ESRCH.
    if unsafe { libc::kill(pid as libc::pid_t, sig.number()) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Keeps the calling thread on `core`.
pub fn pin_to_core(core: usize) -> io::Result<()> {
    // SAFETY: cpu_set_t is plain data; sched_setaffinity(0) acts on this thread.
    let r = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(core, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Gives the calling thread nice value `nice` (Linux keeps one per
/// thread): below 0, the scheduler favours it over the node's other work
/// (a router's start, a container's) on a machine with few cores.
/// Needs CAP_SYS_NICE to go below 0.
pub fn set_thread_nice(nice: i32) -> io::Result<()> {
    // SAFETY: setpriority on this thread's id; no memory is passed.
    let r = unsafe { libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, nice) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The calling thread's id (for `perf stat -t`).
pub fn thread_id() -> u32 {
    // SAFETY: gettid has no preconditions.
    unsafe { libc::gettid() as u32 }
}

/// Restores the default action of SIGPIPE (Rust ignores it, so a write to
/// a closed pipe returns an error that `println!` turns into a panic): a
/// command whose reader went away (`prism sim rmu | head -3`) then ends
/// quietly, as other Unix tools do. Only for commands that hold nothing
/// that needs cleaning up.
pub fn default_sigpipe() {
    // SAFETY: setting a signal's disposition to SIG_DFL has no
    // preconditions; no handler of ours is replaced.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// The bytes an unprivileged writer may still write on the filesystem
/// holding `path` (statvfs(3): the free blocks not reserved for root,
/// times the fragment size).
pub fn available_bytes(path: &std::path::Path) -> io::Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path with a NUL byte"))?;
    // SAFETY: statvfs is plain old data; all zeroes is a valid value.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path that outlives the call, and `s`
    // is a properly sized, writable statvfs the call fills.
    if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
        return Err(io::Error::last_os_error());
    }
    #[allow(clippy::useless_conversion)] // c_ulong is u64 here, not everywhere
    let (blocks, size) = (u64::from(s.f_bavail), u64::from(s.f_frsize));
    Ok(blocks.saturating_mul(size))
}

#[cfg(test)]
mod disk_tests {
    #[test]
    fn the_available_bytes_of_a_directory_are_read_and_a_missing_one_refused() {
        let n = super::available_bytes(&std::env::temp_dir()).unwrap();
        assert!(n > 0);
        assert!(super::available_bytes(std::path::Path::new("/no/such/dir")).is_err());
    }
}
