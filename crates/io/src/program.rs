//! A researcher's program given to the kernel: its verifier decides whether
//! the program is taken (a refusal carries the verifier's log and the
//! instruction it stopped at), and `BPF_PROG_TEST_RUN` runs it on a frame,
//! the reference the engine (`prism_program`) is compared and measured
//! against. Through `aya`, which creates the object's maps, relocates and
//! loads it (`BPF_PROG_LOAD` as `BPF_PROG_TYPE_XDP`).
//!
//! Loading needs `CAP_BPF` (root here); without it [`verify`] says so
//! rather than taking an unverified program.

use std::io;
use std::os::fd::{AsFd, AsRawFd};
use std::time::Duration;

use aya::programs::{ProgramError, TestRun, TestRunOptions, Xdp};
use aya::{Ebpf, EbpfError, EbpfLoader, VerifierLogLevel};
use thiserror::Error;

/// Why the kernel did not take a program.
#[derive(Debug, Error)]
pub enum VerifyError {
    #[error("the kernel's verifier refused the program at instruction {}: {reason}", at.map_or("?".to_string(), |a| a.to_string()))]
    Refused {
        /// The instruction the verifier stopped at, when its log names one.
        at: Option<usize>,
        /// The log's last line: what was wrong.
        reason: String,
        /// The whole log.
        log: String,
    },
    #[error("this host cannot verify eBPF programs (loading one needs CAP_BPF): {0}")]
    NoPrivilege(io::Error),
    #[error("the kernel could not take the object: {0}")]
    Object(String),
    #[error("the object has no XDP program named {0:?}")]
    NoProgram(String),
}

impl VerifyError {
    /// The verifier's whole log, for a refusal.
    pub fn log(&self) -> Option<&str> {
        match self {
            VerifyError::Refused { log, .. } => Some(log),
            _ => None,
        }
    }
}

/// A program the verifier took, loaded in the kernel (unattached: it runs
/// only through [`Verified::test_run`]). Dropped, it and its maps are gone.
#[derive(Debug)]
pub struct Verified {
    ebpf: Ebpf,
    name: String,
}

/// One `BPF_PROG_TEST_RUN`: the action, the frame after, and the kernel's
/// mean time per repetition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelRun {
    pub action: u32,
    pub frame: Vec<u8>,
    pub per_run: Duration,
}

/// Loads program `name` of `elf` as an XDP program, the verifier's log kept.
pub fn verify(elf: &[u8], name: &str) -> Result<Verified, VerifyError> {
    let mut ebpf = EbpfLoader::new()
        .verifier_log_level(VerifierLogLevel::DEBUG)
        .load(elf)
        .map_err(object_error)?;
    let xdp: &mut Xdp = ebpf
        .program_mut(name)
        .ok_or_else(|| VerifyError::NoProgram(name.to_string()))?
        .try_into()
        .map_err(|_| VerifyError::NoProgram(name.to_string()))?;
    match xdp.load() {
        Ok(()) => Ok(Verified {
            ebpf,
            name: name.to_string(),
        }),
        Err(ProgramError::LoadError {
            io_error,
            verifier_log,
        }) => {
            if io_error.raw_os_error() == Some(libc::EPERM) && verifier_log.to_string().is_empty() {
                return Err(VerifyError::NoPrivilege(io_error));
            }
            Err(refused(&verifier_log.to_string()))
        }
        Err(e) => Err(VerifyError::Object(e.to_string())),
    }
}

fn object_error(e: EbpfError) -> VerifyError {
    match e {
        EbpfError::MapError(aya::maps::MapError::CreateError { io_error, .. })
            if io_error.raw_os_error() == Some(libc::EPERM) =>
        {
            VerifyError::NoPrivilege(io_error)
        }
        e => VerifyError::Object(chain(&e)),
    }
}

/// The verifier's log read for the instruction it stopped at (the last
/// line of the form `N: (op) …`) and its reason (the last other line).
fn refused(log: &str) -> VerifyError {
    let lines: Vec<&str> = log
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let at = lines.iter().rev().find_map(|l| {
        let (n, rest) = l.split_once(": (")?;
        rest.get(..2)?;
        n.parse::<usize>().ok()
    });
    let reason = lines
        .iter()
        .rev()
        .find(|l| !l.starts_with("processed ") && !l.starts_with("verification time"))
        .unwrap_or(&"")
        .to_string();
    VerifyError::Refused {
        at,
        reason,
        log: log.to_string(),
    }
}

/// A program given to the kernel as bare instructions (no object, so no
/// maps), verified and loaded.
#[derive(Debug)]
pub struct VerifiedCode {
    fd: std::os::fd::OwnedFd,
}

/// Loads `slots` as an XDP program, as [`verify`] loads an object's.
pub fn verify_code(slots: &[[u8; 8]]) -> Result<VerifiedCode, VerifyError> {
    match crate::bpf::load_slots(slots, 1 << 20) {
        Ok(fd) => Ok(VerifiedCode { fd }),
        Err((e, log)) if e.raw_os_error() == Some(libc::EPERM) && log.is_empty() => {
            Err(VerifyError::NoPrivilege(e))
        }
        Err((_, log)) => Err(refused(&log)),
    }
}

impl VerifiedCode {
    /// Runs the program `repeat` times on `frame` (`BPF_PROG_TEST_RUN`).
    pub fn test_run(&self, frame: &[u8], repeat: u32) -> io::Result<KernelRun> {
        let (action, frame, ns) = crate::bpf::test_run(self.fd.as_raw_fd(), frame, repeat)?;
        Ok(KernelRun {
            action,
            frame,
            per_run: Duration::from_nanos(u64::from(ns)),
        })
    }
}

impl Verified {
    fn xdp(&self) -> &Xdp {
        let p = self
            .ebpf
            .program(&self.name)
            .expect("loaded under this name");
        p.try_into().expect("loaded as XDP")
    }

    /// Runs the program `repeat` times on `frame` (`BPF_PROG_TEST_RUN`).
    pub fn test_run(&self, frame: &[u8], repeat: u32) -> io::Result<KernelRun> {
        let mut out = vec![0u8; frame.len() + 512];
        let opts = TestRunOptions {
            data_in: Some(frame),
            data_out: Some(&mut out),
            repeat,
            ..Default::default()
        };
        let r = self
            .xdp()
            .test_run(opts)
            .map_err(|e| io::Error::other(chain(&e)))?;
        out.truncate(r.data_size_out as usize);
        Ok(KernelRun {
            action: r.return_value,
            frame: out,
            per_run: r.duration,
        })
    }

    /// Every entry of map `name`, (key, value), read with the bpf(2) calls.
    pub fn map_entries(&self, name: &str) -> io::Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let (fd, key, value) = self.map_fd(name)?;
        crate::bpf::entries(fd, key, value)
    }

    /// Sets `key` to `value` in map `name`.
    pub fn map_update(&self, name: &str, key: &[u8], value: &[u8]) -> io::Result<()> {
        let (fd, key_size, value_size) = self.map_fd(name)?;
        if key.len() != key_size || value.len() != value_size {
            return Err(io::Error::other(format!(
                "map {name} takes {key_size}-byte keys and {value_size}-byte values"
            )));
        }
        crate::bpf::update(fd, key, value)
    }

    fn map_fd(&self, name: &str) -> io::Result<(std::os::fd::RawFd, usize, usize)> {
        let map = self
            .ebpf
            .map(name)
            .ok_or_else(|| io::Error::other(format!("no map {name}")))?;
        let data = match map {
            aya::maps::Map::HashMap(d) | aya::maps::Map::Array(d) => d,
            _ => {
                return Err(io::Error::other(format!(
                    "map {name} is neither an array nor a hash"
                )));
            }
        };
        let info = data.info().map_err(|e| io::Error::other(e.to_string()))?;
        Ok((
            data.fd().as_fd().as_raw_fd(),
            info.key_size() as usize,
            info.value_size() as usize,
        ))
    }
}

fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cause = c.source();
    }
    s
}
