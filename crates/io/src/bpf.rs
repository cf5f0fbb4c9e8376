//! The eBPF side of AF_XDP: an XSKMAP, the five-instruction XDP program
//! that redirects every frame of a queue to the AF_XDP socket registered for
//! it, and its attachment to an interface.
//!
//! The program does what libxdp's default AF_XDP program does, written as
//! bytecode so that Prism needs no BPF compiler or C library:
//!
//! ```text
//! r2 = *(u32 *)(r1 + 16)                 ; ctx->rx_queue_index
//! r1 = map[xsks]                         ; the XSKMAP (a 16-byte load)
//! r3 = XDP_PASS                          ; if no socket: the kernel's stack
//! call bpf_redirect_map
//! exit
//! ```
//!
//! It is attached through a BPF link (`BPF_LINK_CREATE`), which belongs to a
//! file descriptor: when Prism exits, however it exits, the kernel detaches
//! the program. A killed node leaves no XDP program behind.
//!
//! References: Linux `include/uapi/linux/bpf.h` (the `bpf_attr` layouts),
//! `Documentation/networking/af_xdp.rst`, RFC 9669 (the instruction set).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

const BPF_MAP_CREATE: libc::c_long = 0;
const BPF_MAP_LOOKUP_ELEM: libc::c_long = 1;
const BPF_MAP_UPDATE_ELEM: libc::c_long = 2;
const BPF_MAP_DELETE_ELEM: libc::c_long = 3;
const BPF_MAP_GET_NEXT_KEY: libc::c_long = 4;
const BPF_PROG_LOAD: libc::c_long = 5;
const BPF_PROG_TEST_RUN: libc::c_long = 10;
const BPF_LINK_CREATE: libc::c_long = 28;
const BPF_MAP_TYPE_XSKMAP: u32 = 17;
const BPF_PROG_TYPE_XDP: u32 = 6;
const BPF_XDP: u32 = 37;
const BPF_PSEUDO_MAP_FD: u8 = 1;
const BPF_FUNC_REDIRECT_MAP: i32 = 51;
const XDP_PASS: i32 = 2;
/// `XDP_FLAGS_SKB_MODE`: the generic hook, after the kernel built an skb.
const XDP_FLAGS_SKB_MODE: u32 = 1 << 1;
/// `XDP_FLAGS_DRV_MODE`: the driver's own hook.
const XDP_FLAGS_DRV_MODE: u32 = 1 << 2;

/// Where the XDP program runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum XdpHook {
    /// In the driver, before an skb exists (veth has it).
    Native,
    /// The generic hook every interface has.
    Generic,
}

impl XdpHook {
    pub fn as_str(self) -> &'static str {
        match self {
            XdpHook::Native => "native",
            XdpHook::Generic => "generic",
        }
    }
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Insn {
    code: u8,
    regs: u8,
    off: i16,
    imm: i32,
}

#[repr(C)]
#[derive(Default)]
struct MapCreateAttr {
    map_type: u32,
    key_size: u32,
    value_size: u32,
    max_entries: u32,
    map_flags: u32,
}

#[repr(C)]
#[derive(Default)]
struct MapElemAttr {
    map_fd: u32,
    _pad: u32,
    key: u64,
    value: u64,
    flags: u64,
}

#[repr(C)]
#[derive(Default)]
struct ProgLoadAttr {
    prog_type: u32,
    insn_cnt: u32,
    insns: u64,
    license: u64,
    log_level: u32,
    log_size: u32,
    log_buf: u64,
    kern_version: u32,
    prog_flags: u32,
    prog_name: [u8; 16],
    prog_ifindex: u32,
    expected_attach_type: u32,
}

#[repr(C)]
#[derive(Default)]
struct LinkCreateAttr {
    prog_fd: u32,
    target_ifindex: u32,
    attach_type: u32,
    flags: u32,
}

/// `bpf(2)` with an attribute struct; returns the new descriptor or 0.
fn sys_bpf<T>(cmd: libc::c_long, attr: &mut T) -> io::Result<RawFd> {
    // SAFETY: `attr` is a valid, initialised struct of the size passed; the
    // kernel reads (and for some commands writes) only that many bytes.
    let r = unsafe {
        libc::syscall(
            libc::SYS_bpf,
            cmd,
            (attr as *mut T).cast::<libc::c_void>(),
            std::mem::size_of::<T>() as libc::c_uint,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as RawFd)
    }
}

fn owned(fd: RawFd) -> OwnedFd {
    // SAFETY: `fd` was just returned by bpf(2) and belongs to nobody else.
    unsafe { OwnedFd::from_raw_fd(fd) }
}

/// An XSKMAP: queue index → AF_XDP socket.
#[derive(Debug)]
pub struct XskMap {
    fd: OwnedFd,
    entries: u32,
}

impl XskMap {
    pub fn new(entries: u32) -> io::Result<Self> {
        let mut a = MapCreateAttr {
            map_type: BPF_MAP_TYPE_XSKMAP,
            key_size: 4,
            value_size: 4,
            max_entries: entries,
            map_flags: 0,
        };
        let fd = sys_bpf(BPF_MAP_CREATE, &mut a)
            .map_err(|e| context(e, "creating the XSKMAP (bpf BPF_MAP_CREATE)"))?;
        Ok(Self {
            fd: owned(fd),
            entries,
        })
    }

    /// Sends frames of `queue` to socket `xsk`.
    pub fn insert(&self, queue: u32, xsk: RawFd) -> io::Result<()> {
        if queue >= self.entries {
            return Err(io::Error::other(format!(
                "queue {queue} is past the XSKMAP's {} entries",
                self.entries
            )));
        }
        let key = queue;
        let value = xsk as u32;
        let mut a = MapElemAttr {
            map_fd: self.fd.as_raw_fd() as u32,
            key: &key as *const u32 as u64,
            value: &value as *const u32 as u64,
            ..MapElemAttr::default()
        };
        sys_bpf(BPF_MAP_UPDATE_ELEM, &mut a)
            .map(drop)
            .map_err(|e| context(e, "registering the socket in the XSKMAP"))
    }

    /// Stops sending frames of `queue` to a socket (they go to the stack).
    pub fn remove(&self, queue: u32) -> io::Result<()> {
        let key = queue;
        let mut a = MapElemAttr {
            map_fd: self.fd.as_raw_fd() as u32,
            key: &key as *const u32 as u64,
            ..MapElemAttr::default()
        };
        sys_bpf(BPF_MAP_DELETE_ELEM, &mut a).map(drop)
    }
}

/// Every entry of the map behind `fd`: keys walked with
/// `BPF_MAP_GET_NEXT_KEY`, each value read with `BPF_MAP_LOOKUP_ELEM`.
pub(crate) fn entries(
    fd: RawFd,
    key_size: usize,
    value_size: usize,
) -> io::Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let mut out = Vec::new();
    let mut key: Option<Vec<u8>> = None;
    loop {
        let mut next = vec![0u8; key_size];
        let mut a = MapElemAttr {
            map_fd: fd as u32,
            key: key.as_ref().map_or(0, |k| k.as_ptr() as u64),
            value: next.as_mut_ptr() as u64,
            ..MapElemAttr::default()
        };
        match sys_bpf(BPF_MAP_GET_NEXT_KEY, &mut a) {
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return Ok(out),
            Err(e) => return Err(context(e, "walking a map's keys")),
        }
        let mut value = vec![0u8; value_size];
        let mut a = MapElemAttr {
            map_fd: fd as u32,
            key: next.as_ptr() as u64,
            value: value.as_mut_ptr() as u64,
            ..MapElemAttr::default()
        };
        sys_bpf(BPF_MAP_LOOKUP_ELEM, &mut a).map_err(|e| context(e, "reading a map's value"))?;
        out.push((next.clone(), value));
        key = Some(next);
    }
}

/// Sets `key` to `value` in the map behind `fd` (`BPF_MAP_UPDATE_ELEM`).
pub(crate) fn update(fd: RawFd, key: &[u8], value: &[u8]) -> io::Result<()> {
    let mut a = MapElemAttr {
        map_fd: fd as u32,
        key: key.as_ptr() as u64,
        value: value.as_ptr() as u64,
        ..MapElemAttr::default()
    };
    sys_bpf(BPF_MAP_UPDATE_ELEM, &mut a)
        .map(drop)
        .map_err(|e| context(e, "writing a map's value"))
}

/// The redirect program, loaded and attached to one interface. Dropping it
/// detaches the program.
#[derive(Debug)]
pub struct XdpRedirect {
    pub map: XskMap,
    _prog: OwnedFd,
    _link: OwnedFd,
    pub hook: XdpHook,
    pub ifindex: i32,
}

fn insn(code: u8, dst: u8, src: u8, off: i16, imm: i32) -> Insn {
    Insn {
        code,
        regs: (src << 4) | dst,
        off,
        imm,
    }
}

/// The program's bytecode for a map descriptor.
fn program(map_fd: RawFd) -> [Insn; 6] {
    [
        // BPF_LDX | BPF_MEM | BPF_W: r2 = *(u32 *)(r1 + 16)
        insn(0x61, 2, 1, 16, 0),
        // BPF_LD | BPF_IMM | BPF_DW with BPF_PSEUDO_MAP_FD: r1 = map (two slots)
        insn(0x18, 1, BPF_PSEUDO_MAP_FD, 0, map_fd),
        insn(0, 0, 0, 0, 0),
        // BPF_ALU64 | BPF_MOV | BPF_K: r3 = XDP_PASS
        insn(0xb7, 3, 0, 0, XDP_PASS),
        // BPF_JMP | BPF_CALL: bpf_redirect_map(r1, r2, r3)
        insn(0x85, 0, 0, 0, BPF_FUNC_REDIRECT_MAP),
        // BPF_JMP | BPF_EXIT
        insn(0x95, 0, 0, 0, 0),
    ]
}

impl XdpRedirect {
    /// Loads the program and attaches it to `ifindex`: at the native hook
    /// if `native_first` and the driver has one, else at the generic hook.
    pub fn attach(ifindex: i32, queues: u32, native_first: bool) -> io::Result<Self> {
        let map = XskMap::new(queues.max(1))?;
        let prog = load(&map)?;
        let hooks: &[(XdpHook, u32)] = if native_first {
            &[
                (XdpHook::Native, XDP_FLAGS_DRV_MODE),
                (XdpHook::Generic, XDP_FLAGS_SKB_MODE),
            ]
        } else {
            &[(XdpHook::Generic, XDP_FLAGS_SKB_MODE)]
        };
        let mut last = None;
        for &(hook, flags) in hooks {
            let mut l = LinkCreateAttr {
                prog_fd: prog.as_raw_fd() as u32,
                target_ifindex: ifindex as u32,
                attach_type: BPF_XDP,
                flags,
            };
            match sys_bpf(BPF_LINK_CREATE, &mut l) {
                Ok(fd) => {
                    return Ok(Self {
                        map,
                        _prog: prog,
                        _link: owned(fd),
                        hook,
                        ifindex,
                    });
                }
                Err(e) => last = Some(e),
            }
        }
        let e = last.unwrap_or_else(|| io::Error::other("no hook tried"));
        Err(context(
            e,
            "attaching the XDP program (is another XDP program on the interface?)",
        ))
    }
}

fn context(e: io::Error, what: &str) -> io::Error {
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

/// Loads the XDP program that redirects to `map`'s sockets; an error
/// carries the verifier's log.
fn load(map: &XskMap) -> io::Result<OwnedFd> {
    load_xdp(&program(map.fd.as_raw_fd()), b"prism_xsk_r", 4096).map_err(|(e, msg)| {
        context(
            e,
            &format!("loading the XDP program (verifier: {})", msg.trim()),
        )
    })
}

/// Loads `code` as an XDP program named `name`; a refusal comes with the
/// verifier's log (up to `log_size` bytes).
fn load_xdp(code: &[Insn], name: &[u8], log_size: usize) -> Result<OwnedFd, (io::Error, String)> {
    let license = c"GPL";
    let mut log = vec![0u8; log_size];
    let mut a = ProgLoadAttr {
        prog_type: BPF_PROG_TYPE_XDP,
        insn_cnt: code.len() as u32,
        insns: code.as_ptr() as u64,
        license: license.as_ptr() as u64,
        log_level: 1,
        log_size: log.len() as u32,
        log_buf: log.as_mut_ptr() as u64,
        expected_attach_type: BPF_XDP,
        ..ProgLoadAttr::default()
    };
    let n = name.len().min(15);
    a.prog_name[..n].copy_from_slice(&name[..n]);
    match sys_bpf(BPF_PROG_LOAD, &mut a) {
        Ok(fd) => Ok(owned(fd)),
        Err(e) => {
            let end = log.iter().position(|&b| b == 0).unwrap_or(0);
            Err((e, String::from_utf8_lossy(&log[..end]).into_owned()))
        }
    }
}

/// [`load_xdp`] of instructions as 8-byte slots (RFC 9669's encoding).
pub(crate) fn load_slots(
    slots: &[[u8; 8]],
    log_size: usize,
) -> Result<OwnedFd, (io::Error, String)> {
    let code: Vec<Insn> = slots
        .iter()
        .map(|b| Insn {
            code: b[0],
            regs: b[1],
            off: i16::from_le_bytes([b[2], b[3]]),
            imm: i32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        })
        .collect();
    load_xdp(&code, b"prism_program", log_size)
}

#[repr(C)]
#[derive(Default)]
struct TestRunAttr {
    prog_fd: u32,
    retval: u32,
    data_size_in: u32,
    data_size_out: u32,
    data_in: u64,
    data_out: u64,
    repeat: u32,
    duration: u32,
    ctx_size_in: u32,
    ctx_size_out: u32,
    ctx_in: u64,
    ctx_out: u64,
    flags: u32,
    cpu: u32,
    batch_size: u32,
    /// The struct's padding, named so that it is zero: the kernel refuses
    /// an attribute with anything but zeros past the fields it knows.
    _pad: u32,
}

/// `BPF_PROG_TEST_RUN` of the program behind `fd` on `frame`, `repeat`
/// times: (its return value, the frame after, mean nanoseconds per run).
pub(crate) fn test_run(fd: RawFd, frame: &[u8], repeat: u32) -> io::Result<(u32, Vec<u8>, u32)> {
    let mut out = vec![0u8; frame.len() + 512];
    let mut a = TestRunAttr {
        prog_fd: fd as u32,
        data_size_in: frame.len() as u32,
        data_size_out: out.len() as u32,
        data_in: frame.as_ptr() as u64,
        data_out: out.as_mut_ptr() as u64,
        repeat,
        ..TestRunAttr::default()
    };
    sys_bpf(BPF_PROG_TEST_RUN, &mut a).map_err(|e| context(e, "BPF_PROG_TEST_RUN"))?;
    out.truncate(a.data_size_out as usize);
    Ok((a.retval, out, a.duration))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_bytes_are_the_redirect_program() {
        // Encoded by hand from the opcode tables of RFC 9669 (BPF ISA),
        // map fd 7.
        let p = program(7);
        let bytes: Vec<u8> = p
            .iter()
            .flat_map(|i| {
                let mut v = vec![i.code, i.regs];
                v.extend(i.off.to_le_bytes());
                v.extend(i.imm.to_le_bytes());
                v
            })
            .collect();
        let want: [u8; 48] = [
            0x61, 0x12, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, // r2 = *(u32 *)(r1 + 16)
            0x18, 0x11, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, // r1 = map fd 7 ll
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, //
            0xb7, 0x03, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, // r3 = 2
            0x85, 0x00, 0x00, 0x00, 0x33, 0x00, 0x00, 0x00, // call 51
            0x95, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // exit
        ];
        assert_eq!(bytes, want);
    }

    #[test]
    fn attribute_layouts_match_the_kernel() {
        // Offsets from include/uapi/linux/bpf.h.
        assert_eq!(std::mem::size_of::<MapElemAttr>(), 32);
        assert_eq!(std::mem::offset_of!(ProgLoadAttr, license), 16);
        assert_eq!(std::mem::offset_of!(ProgLoadAttr, prog_name), 48);
        assert_eq!(std::mem::offset_of!(ProgLoadAttr, expected_attach_type), 68);
        assert_eq!(std::mem::size_of::<LinkCreateAttr>(), 16);
    }
}
