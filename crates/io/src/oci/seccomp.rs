//! The seccomp filter of a processing node: a maintained profile in the
//! Docker/containers-common format (Debian's `containers-common` ships it
//! as `/usr/share/containers/seccomp.json`) turned into the OCI runtime
//! spec's `linux.seccomp` for one architecture and one set of kept
//! capabilities, as Docker and Podman do: an entry that `includes` a
//! capability the container lacks, or `excludes` one it has, is left out.

use oci_spec::runtime::{Arch, LinuxSeccomp, LinuxSeccompAction, LinuxSyscall};
use serde::Deserialize;
use std::path::Path;

/// Where Debian's containers-common package puts its profile.
pub const DEBIAN_PROFILE: &str = "/usr/share/containers/seccomp.json";

/// Why a profile could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("{path}: {source} (install Debian's containers-common, or name another profile)")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: not a seccomp profile: {source}")]
    Parse {
        path: String,
        source: serde_json::Error,
    },
    #[error("{path}: syscall entry {index}: {source}")]
    Entry {
        path: String,
        index: usize,
        source: serde_json::Error,
    },
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Profile {
    default_action: LinuxSeccompAction,
    #[serde(default)]
    default_errno_ret: Option<u32>,
    syscalls: Vec<serde_json::Value>,
}

#[derive(Deserialize, Default)]
struct Condition {
    #[serde(default)]
    caps: Vec<String>,
    #[serde(default)]
    arches: Vec<String>,
}

#[derive(Deserialize)]
struct Gates {
    #[serde(default)]
    includes: Option<Condition>,
    #[serde(default)]
    excludes: Option<Condition>,
}

/// The Docker-format name of this machine's architecture ("amd64", …).
pub fn docker_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        other => other,
    }
}

fn seccomp_arches() -> Vec<Arch> {
    match std::env::consts::ARCH {
        "x86_64" => vec![Arch::ScmpArchX86_64, Arch::ScmpArchX86, Arch::ScmpArchX32],
        "aarch64" => vec![Arch::ScmpArchAarch64, Arch::ScmpArchArm],
        _ => Vec::new(),
    }
}

/// Whether an entry applies to a container on `arch` keeping `caps`
/// (names such as `CAP_NET_RAW`).
fn applies(g: &Gates, arch: &str, caps: &[&str]) -> bool {
    let inc = g.includes.as_ref();
    let exc = g.excludes.as_ref();
    let has = |c: &String| caps.contains(&c.as_str());
    inc.is_none_or(|i| i.caps.iter().all(has))
        && inc.is_none_or(|i| i.arches.is_empty() || i.arches.iter().any(|a| a == arch))
        && exc.is_none_or(|e| !e.caps.iter().any(has))
        && exc.is_none_or(|e| !e.arches.iter().any(|a| a == arch))
}

/// Reads the profile at `path` and keeps what applies to this machine's
/// architecture and `caps`.
pub fn load(path: &Path, caps: &[&str]) -> Result<LinuxSeccomp, ProfileError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| ProfileError::Read {
        path: name.clone(),
        source,
    })?;
    convert(&name, &text, docker_arch(), caps)
}

/// The profile `text` (named `name` in errors) for `arch` and `caps`.
pub fn convert(
    name: &str,
    text: &str,
    arch: &str,
    caps: &[&str],
) -> Result<LinuxSeccomp, ProfileError> {
    let p: Profile = serde_json::from_str(text).map_err(|source| ProfileError::Parse {
        path: name.into(),
        source,
    })?;
    let mut syscalls = Vec::new();
    for (index, entry) in p.syscalls.into_iter().enumerate() {
        let bad = |source| ProfileError::Entry {
            path: name.into(),
            index,
            source,
        };
        let gates: Gates = serde_json::from_value(entry.clone()).map_err(bad)?;
        if !applies(&gates, arch, caps) {
            continue;
        }
        let mut call: LinuxSyscall = serde_json::from_value(entry).map_err(bad)?;
        if call.args().as_ref().is_some_and(Vec::is_empty) {
            call.set_args(None);
        }
        syscalls.push(call);
    }
    let mut s = LinuxSeccomp::default();
    s.set_default_action(p.default_action);
    s.set_default_errno_ret(p.default_errno_ret);
    s.set_architectures(Some(seccomp_arches()));
    s.set_syscalls(Some(syscalls));
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROFILE: &str = r#"{
      "defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 38,
      "syscalls": [
        {"names": ["read", "write"], "action": "SCMP_ACT_ALLOW", "args": []},
        {"names": ["init_module"], "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["CAP_SYS_MODULE"]}},
        {"names": ["vhangup"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1, "excludes": {"caps": ["CAP_SYS_TTY_CONFIG"]}},
        {"names": ["arch_prctl"], "action": "SCMP_ACT_ALLOW", "includes": {"arches": ["amd64", "x32"]}},
        {"names": ["personality"], "action": "SCMP_ACT_ALLOW",
         "args": [{"index": 0, "value": 8, "valueTwo": 0, "op": "SCMP_CMP_EQ"}]}
      ]}"#;

    fn names(s: &LinuxSeccomp) -> Vec<String> {
        s.syscalls()
            .iter()
            .flatten()
            .flat_map(|c| c.names().clone())
            .collect()
    }

    #[test]
    fn entries_follow_the_kept_capabilities_and_the_architecture() {
        let s = convert("p", PROFILE, "amd64", &["CAP_NET_RAW"]).unwrap();
        assert_eq!(s.default_action(), LinuxSeccompAction::ScmpActErrno);
        assert_eq!(s.default_errno_ret(), Some(38));
        assert_eq!(
            names(&s),
            ["read", "write", "vhangup", "arch_prctl", "personality"]
        );
        let s = convert(
            "p",
            PROFILE,
            "arm64",
            &["CAP_SYS_MODULE", "CAP_SYS_TTY_CONFIG"],
        )
        .unwrap();
        assert_eq!(names(&s), ["read", "write", "init_module", "personality"]);
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["syscalls"][2]["args"][0]["op"], "SCMP_CMP_EQ");
        assert!(json["syscalls"][0].get("args").is_none());
    }

    #[test]
    fn a_bad_profile_is_named_with_its_entry() {
        let e = convert("p.json", "{", "amd64", &[]).unwrap_err();
        assert!(
            e.to_string().starts_with("p.json: not a seccomp profile"),
            "{e}"
        );
        let bad = r#"{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [
            {"names": ["read"], "action": "SCMP_ACT_ALLOW"}, {"names": ["x"], "action": "NOPE"}]}"#;
        let e = convert("p.json", bad, "amd64", &[]).unwrap_err();
        assert!(e.to_string().starts_with("p.json: syscall entry 1:"), "{e}");
    }

    #[test]
    fn debians_profile_loads_when_installed() {
        let path = Path::new(DEBIAN_PROFILE);
        let test = "debians_profile_loads_when_installed";
        let what = "Debian's containers-common (its seccomp.json)";
        if !prism_testkit::gates::prerequisite(test, what, path.exists(), "PRISM_REQUIRE_ROOT") {
            return;
        }
        let s = load(path, &["CAP_NET_RAW", "CAP_SETUID"]).unwrap();
        let allowed: Vec<&String> = s
            .syscalls()
            .iter()
            .flatten()
            .filter(|c| c.action() == LinuxSeccompAction::ScmpActAllow)
            .flat_map(|c| c.names())
            .collect();
        assert!(allowed.len() > 300, "{}", allowed.len());
        assert!(allowed.iter().any(|c| *c == "socket" || *c == "clone"));
        // `mount` and `unshare` it allows (a user namespace already keeps
        // root inside from the host's file systems); these it does not.
        let refused = [
            "init_module",
            "finit_module",
            "kexec_load",
            "bpf",
            "open_by_handle_at",
        ];
        for refused in refused {
            assert!(!allowed.iter().any(|c| *c == refused), "{refused} allowed");
        }
    }
}
