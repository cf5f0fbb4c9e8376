//! Prerequisites a machine may lack, with one behaviour for all of them.
//!
//! A test calls a gate first; `false` means return now. Where every
//! prerequisite is required (the environment says `CI=true`, as CI's does,
//! or `PRISM_REQUIRE_ALL=1`; or the gate's own variable, which
//! `scripts/test` sets as root: `PRISM_REQUIRE_ROOT`, `PRISM_REQUIRE_SDK`;
//! `PRISM_REQUIRE_DATA` for the shared data)
//! a missing one panics, so a run cannot pass by skipping. Elsewhere the
//! gate prints one line, `prism-testkit: skipped <test>: needs <what>`,
//! which `scripts/test-lanes` counts as skipped rather than passed.

use std::path::PathBuf;

/// The line a skipped test prints (before the test's name).
pub const SKIPPED: &str = "prism-testkit: skipped ";

fn everything_required(own: &str) -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
        || std::env::var_os("PRISM_REQUIRE_ALL").is_some()
        || std::env::var_os(own).is_some()
}

/// `present`, or else a skip (or, where required, a panic) naming `what`.
pub fn prerequisite(test: &str, what: &str, present: bool, own_variable: &str) -> bool {
    if present {
        return true;
    }
    assert!(
        !everything_required(own_variable),
        "{test}: needs {what}, and this run requires every prerequisite (CI, {own_variable} or PRISM_REQUIRE_ALL)"
    );
    eprintln!("{SKIPPED}{test}: needs {what}");
    false
}

/// Root: namespaces, veths, raw sockets.
pub fn root(test: &str) -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    prerequisite(
        test,
        "root (namespaces and raw sockets)",
        root,
        "PRISM_REQUIRE_ROOT",
    )
}

/// A file or directory of the shared data sets: `rel` under
/// `../shared/data` beside the repository (or `$PRISM_SHARED/data`).
pub fn shared_data(test: &str, rel: &str) -> Option<PathBuf> {
    let root = std::env::var_os("PRISM_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
        PathBuf::from,
    );
    let p = root.join("data").join(rel);
    prerequisite(
        test,
        &format!(
            "the shared data file {} (../shared/data beside the repository, or PRISM_SHARED)",
            p.display()
        ),
        p.exists(),
        "PRISM_REQUIRE_DATA",
    )
    .then_some(p)
}

/// A program the SDK tests run (`PRISM_SDK_PYTHON`, `PRISM_SCHEMATHESIS`,
/// exported by `scripts/ensure-sdk.sh`).
pub fn sdk_program(test: &str, variable: &str) -> Option<String> {
    let v = std::env::var(variable).ok();
    prerequisite(
        test,
        &format!("{variable} (source scripts/ensure-sdk.sh)"),
        v.is_some(),
        "PRISM_REQUIRE_SDK",
    )
    .then(|| v.expect("present"))
}

/// The ELF object of the C file `source` (relative to the repository:
/// `programs/count_sources.c`, a researcher's example program),
/// compiled by `clang -O2 -g -target bpf` (Debian's clang, libbpf's
/// headers) into a directory of its own; `None` if clang or the headers
/// are missing here (a skip, or a panic where required, as root is:
/// scripts/test installs them for its root runs).
pub fn bpf_object(test: &str, source: &str) -> Option<Vec<u8>> {
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(source);
    let have = std::process::Command::new("clang")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
        && std::path::Path::new("/usr/include/bpf/bpf_helpers.h").exists();
    if !prerequisite(
        test,
        "clang and libbpf's headers (apt-get install clang libbpf-dev)",
        have,
        "PRISM_REQUIRE_ROOT",
    ) {
        return None;
    }
    static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = crate::TempDir::new(&format!(
        "bpf-{}",
        MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let out = dir.path().join("program.o");
    let arch_include = format!("/usr/include/{}-linux-gnu", std::env::consts::ARCH);
    let made = std::process::Command::new("clang")
        .args(["-O2", "-g", "-target", "bpf", "-I", &arch_include, "-c"])
        .arg(&source)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("clang runs");
    assert!(
        made.status.success(),
        "clang {}: {}",
        source.display(),
        String::from_utf8_lossy(&made.stderr)
    );
    Some(std::fs::read(&out).expect("clang's object"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_present_prerequisite_lets_the_test_run() {
        assert!(prerequisite("t", "nothing", true, "PRISM_REQUIRE_NOTHING"));
    }

    /// Where every prerequisite is required, a missing one fails the test
    /// (this process's CI=true, as CI runs it, or the variable set here).
    #[test]
    fn a_missing_prerequisite_fails_where_required() {
        let required = everything_required("PATH");
        assert!(required, "PATH is set in every test environment");
        let r = std::panic::catch_unwind(|| prerequisite("t", "a unicorn", false, "PATH"));
        assert!(r.is_err(), "a missing prerequisite passed where required");
    }

    #[test]
    fn a_temporary_directory_goes_when_dropped() {
        let d = crate::TempDir::new("testkit-selftest");
        std::fs::write(d.path().join("f"), b"x").unwrap();
        let p = d.path().to_path_buf();
        drop(d);
        assert!(!p.exists());
    }
}
