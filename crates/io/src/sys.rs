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
