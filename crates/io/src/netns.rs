//! Network namespaces, veth pairs and links, through iproute2's `ip`.
//!
//! Namespaces are named ones (`ip netns add`), so that they outlive a crash
//! of Prism and the next start can find and remove them by prefix. Sockets
//! are opened inside a namespace by a short-lived thread that enters it with
//! `setns(2)`: a socket stays in the namespace it was created in, wherever
//! it is used afterwards.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::process::Command;

/// Runs `ip <args>`, returning its standard output or an error that quotes
/// the command and what `ip` said.
pub fn ip(args: &[&str]) -> io::Result<String> {
    run("ip", args)
}

/// Runs `ip -n <ns> <args>` (or plain `ip` for the root namespace, `None`).
pub fn ip_in(ns: Option<&str>, args: &[&str]) -> io::Result<String> {
    match ns {
        Some(ns) => {
            let mut v = vec!["-n", ns];
            v.extend_from_slice(args);
            ip(&v)
        }
        None => ip(args),
    }
}

/// Runs `ip [-n ns] -batch -` on `lines` (one `ip` command each, without
/// the `ip`), stopping at the first that fails; the error names its line.
pub fn ip_batch(ns: Option<&str>, lines: &[String]) -> io::Result<()> {
    use std::io::Write;
    let mut args: Vec<&str> = Vec::new();
    if let Some(ns) = ns {
        args.extend(["-n", ns]);
    }
    args.extend(["-batch", "-"]);
    let mut child = Command::new("ip")
        .args(&args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot run `ip`: {e} (is iproute2 installed?)"),
            )
        })?;
    let mut stdin = child.stdin.take().expect("piped");
    let text = lines.join("\n") + "\n";
    let w = stdin.write_all(text.as_bytes());
    drop(stdin);
    let out = child.wait_with_output()?;
    w?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        // ip says "Command failed -:N"; quote line N.
        let line = err
            .rsplit("-:")
            .next()
            .and_then(|n| n.trim().parse::<usize>().ok())
            .and_then(|n| lines.get(n.wrapping_sub(1)))
            .map(|l| format!(" (`ip {l}`)"))
            .unwrap_or_default();
        return Err(io::Error::other(format!(
            "`ip -batch` in {}: {}{line}",
            ns.unwrap_or("the root namespace"),
            err.trim()
        )));
    }
    Ok(())
}

/// Runs a program, returning its standard output; a non-zero exit is an
/// error naming the command line and carrying its standard error.
pub fn run(program: &str, args: &[&str]) -> io::Result<String> {
    let out = Command::new(program).args(args).output().map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot run `{program}`: {e} (is iproute2 installed?)"),
        )
    })?;
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "`{program} {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Named network namespaces, by `ip netns list`.
pub fn list_namespaces() -> io::Result<Vec<String>> {
    Ok(ip(&["netns", "list"])?
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect())
}

/// Creates namespace `name` with its loopback up; an existing namespace of
/// that name is an error.
pub fn create_namespace(name: &str) -> io::Result<()> {
    ip(&["netns", "add", name])?;
    ip_in(Some(name), &["link", "set", "lo", "up"])?;
    Ok(())
}

/// Names the network namespace of process `pid` `name` (made by another
/// runtime, such as an OCI container's), as if made by [`create_namespace`].
pub fn attach_namespace(name: &str, pid: u32) -> io::Result<()> {
    ip(&["netns", "attach", name, &pid.to_string()])?;
    ip_in(Some(name), &["link", "set", "lo", "up"])?;
    Ok(())
}

/// Kills every process in namespace `name`, then deletes it (which deletes
/// its veths and their peers).
pub fn delete_namespace(name: &str) -> io::Result<()> {
    if let Ok(pids) = ip(&["netns", "pids", name]) {
        for pid in pids
            .split_whitespace()
            .filter_map(|p| p.parse::<i32>().ok())
        {
            // SAFETY: kill(2) on a pid; a stale pid at worst fails with ESRCH.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
    ip(&["netns", "delete", name]).map(drop)
}

/// Creates a veth pair: `a` in namespace `ns_a`, `b` in `ns_b` (`None`: the
/// root namespace), both up, IPv6 off (its router solicitations are noise on
/// a data-plane port).
pub fn create_veth(a: &str, ns_a: Option<&str>, b: &str, ns_b: Option<&str>) -> io::Result<()> {
    // Each end is created in its namespace directly: the name may be taken
    // in the root namespace (`eth0` inside a container, say).
    let mut args = vec!["link", "add", "name", a];
    if let Some(ns) = ns_a {
        args.extend(["netns", ns]);
    }
    args.extend(["type", "veth", "peer", "name", b]);
    if let Some(ns) = ns_b {
        args.extend(["netns", ns]);
    }
    ip(&args)?;
    for (ifname, ns) in [(a, ns_a), (b, ns_b)] {
        let _ = sysctl_in(ns, &format!("net.ipv6.conf.{ifname}.disable_ipv6"), "1");
        wire_frames_only(ns, ifname)?;
        ip_in(ns, &["link", "set", ifname, "up"])?;
    }
    Ok(())
}

/// Turns off checksum offload, TSO, GSO and GRO on `ifname`, so that what
/// crosses it are frames as a wire carries them: complete checksums, at most
/// one MTU. Otherwise a veth passes 64 KB TCP super-segments with checksums
/// left to "hardware" that a packet socket receives as they are.
pub fn wire_frames_only(ns: Option<&str>, ifname: &str) -> io::Result<()> {
    let args = [
        "-K", ifname, "tx", "off", "tso", "off", "gso", "off", "gro", "off",
    ];
    match ns {
        Some(ns) => {
            let mut v = vec!["netns", "exec", ns, "ethtool"];
            v.extend_from_slice(&args);
            run("ip", &v).map(drop)
        }
        None => run("ethtool", &args).map(drop),
    }
}

/// Deletes link `name` in the root namespace if it exists.
pub fn delete_link(name: &str) -> io::Result<()> {
    match ip(&["link", "delete", name]) {
        // Gone already: deleting a namespace takes the peers of its veths
        // with it, a moment later.
        Err(_) if !link_exists(name) => Ok(()),
        r => r.map(drop),
    }
}

pub fn link_exists(name: &str) -> bool {
    std::path::Path::new("/sys/class/net").join(name).exists()
}

/// Links of the root namespace whose name starts with `prefix`.
pub fn links_with_prefix(prefix: &str) -> Vec<String> {
    std::fs::read_dir("/sys/class/net")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.starts_with(prefix))
                .collect()
        })
        .unwrap_or_default()
}

/// Sets a sysctl in namespace `ns` (root if `None`).
pub fn sysctl_in(ns: Option<&str>, key: &str, value: &str) -> io::Result<()> {
    let kv = format!("{key}={value}");
    match ns {
        Some(ns) => run("ip", &["netns", "exec", ns, "sysctl", "-q", "-w", &kv]).map(drop),
        None => run("sysctl", &["-q", "-w", &kv]).map(drop),
    }
}

/// Runs `f` on a thread that has entered namespace `ns`, and returns its
/// result. Sockets `f` opens belong to `ns` from then on.
pub fn in_namespace<T: Send + 'static>(
    ns: &str,
    f: impl FnOnce() -> io::Result<T> + Send + 'static,
) -> io::Result<T> {
    let path = format!("/run/netns/{ns}");
    let file = File::open(&path)
        .map_err(|e| io::Error::new(e.kind(), format!("network namespace `{ns}` ({path}): {e}")))?;
    std::thread::spawn(move || {
        // SAFETY: setns on this thread only; the thread ends after `f`.
        if unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
            return Err(io::Error::last_os_error());
        }
        f()
    })
    .join()
    .map_err(|_| io::Error::other("namespace thread panicked"))?
}

/// The MAC address of `ifname` in namespace `ns`.
pub fn mac_of(ns: Option<&str>, ifname: &str) -> io::Result<[u8; 6]> {
    let out = ip_in(ns, &["-o", "link", "show", ifname])?;
    let mac = out
        .split_whitespace()
        .skip_while(|w| *w != "link/ether")
        .nth(1)
        .ok_or_else(|| io::Error::other(format!("{ifname}: no Ethernet address")))?;
    parse_mac(mac).ok_or_else(|| io::Error::other(format!("{ifname}: bad address {mac}")))
}

pub fn parse_mac(s: &str) -> Option<[u8; 6]> {
    let mut out = [0u8; 6];
    let mut parts = s.split(':');
    for b in out.iter_mut() {
        *b = u8::from_str_radix(parts.next()?, 16).ok()?;
    }
    parts.next().is_none().then_some(out)
}

pub fn format_mac(m: [u8; 6]) -> String {
    format!(
        "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
        m[0], m[1], m[2], m[3], m[4], m[5]
    )
}

/// True when the process may create namespaces and raw sockets.
pub fn have_privileges() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mac_round_trip() {
        let m = parse_mac("02:00:0a:ff:01:9c").unwrap();
        assert_eq!(m, [2, 0, 0x0a, 0xff, 1, 0x9c]);
        assert_eq!(format_mac(m), "02:00:0a:ff:01:9c");
        assert_eq!(parse_mac("02:00:0a:ff:01"), None);
        assert_eq!(parse_mac("02:00:0a:ff:01:9c:00"), None);
        assert_eq!(parse_mac("zz:00:0a:ff:01:9c"), None);
    }
}
