//! DPDK's memory on 2 MiB pages, as DPDK is meant to run.
//!
//! Prism's LPM table asks for transparent huge pages (its 64 MiB first
//! level would otherwise miss the TLB on nearly every random lookup), so
//! the peers get huge pages too: for the run, the harness reserves enough
//! 2 MiB pages, mounts a hugetlbfs of its own and gives DPDK's programs
//! `--huge-dir` (with `--huge-unlink`, so each program's pages go back when
//! it exits); afterwards it unmounts and restores the reservation it found.
//! Where it cannot (no hugetlbfs, or the kernel grants too few pages), the
//! peers run on ordinary memory (`--no-huge`) and the run's header says so.
//!
//! A run killed before it could clean up (SIGKILL leaves no chance) would
//! leave the pages reserved and the hugetlbfs mounted: the reservation it
//! found is written to `hugepages.before` in the work directory while the
//! run holds the pages, and the next run, finding that file, unmounts and
//! restores first, and says so.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const NR: &str = "/proc/sys/vm/nr_hugepages";
/// The most any peer asks for (`dpdk-test-fib -m 2048`), and some spare.
const PAGES: u64 = 2048 / 2 + 64;

static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();

/// The reservation while the run lasts; dropping it gives the pages back.
#[derive(Debug)]
pub struct HugePages {
    before: Option<u64>,
    mount: Option<PathBuf>,
    /// What the header prints.
    pub described: String,
}

impl HugePages {
    /// Reserves pages and mounts a hugetlbfs under `work`, or explains why not.
    pub fn reserve(work: &Path) -> Self {
        if let Some(note) = recover(work) {
            println!("  {note}");
        }
        let mut h = HugePages {
            before: read_nr(),
            mount: None,
            described: String::new(),
        };
        match h.try_reserve(work) {
            Ok(dir) => {
                h.described = format!(
                    "DPDK on 2 MiB huge pages ({PAGES} reserved, hugetlbfs at {}); Prism's LPM on transparent huge pages",
                    dir.display()
                );
                let _ = DIR.set(Some(dir));
            }
            Err(why) => {
                h.described = format!(
                    "DPDK on 4 KiB pages (--no-huge: {why}); Prism's LPM asks for transparent huge pages"
                );
                let _ = DIR.set(None);
            }
        }
        h
    }

    fn try_reserve(&mut self, work: &Path) -> Result<PathBuf, String> {
        let before = self.before.ok_or("no huge page support in this kernel")?;
        if before < PAGES {
            std::fs::write(NR, PAGES.to_string()).map_err(|e| format!("{NR}: {e}"))?;
        }
        let got = read_nr().unwrap_or(0);
        if got < PAGES {
            return Err(format!("the kernel granted {got} of {PAGES} pages"));
        }
        let dir = work.join("hugepages");
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let ok = Command::new("mount")
            .args(["-t", "hugetlbfs", "-o", "pagesize=2M", "prism-peers"])
            .arg(&dir)
            .status()
            .map_err(|e| format!("mount: {e}"))?
            .success();
        if !ok {
            return Err(format!("mounting hugetlbfs at {} failed", dir.display()));
        }
        self.mount = Some(dir.clone());
        // Where a killed run's leftovers are recovered from (`recover`).
        let _ = std::fs::write(marker(work), before.to_string());
        Ok(dir)
    }
}

fn marker(work: &Path) -> PathBuf {
    work.join("hugepages.before")
}

/// Undoes what a killed run left: its mount and its reservation, from the
/// marker it wrote. Returns what it did, if anything.
fn recover(work: &Path) -> Option<String> {
    let before: u64 = std::fs::read_to_string(marker(work))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    let dir = work.join("hugepages");
    let mounted = std::fs::read_to_string("/proc/mounts").is_ok_and(|m| {
        m.lines()
            .any(|l| l.split_whitespace().nth(1) == Some(&dir.display().to_string()))
    });
    if mounted {
        let _ = Command::new("umount").arg(&dir).status();
    }
    let _ = std::fs::write(NR, before.to_string());
    let _ = std::fs::remove_file(marker(work));
    Some(format!(
        "a previous run was killed before cleaning up: unmounted {} ({}), huge page reservation restored to {before}",
        dir.display(),
        if mounted {
            "was mounted"
        } else {
            "was not mounted"
        }
    ))
}

impl Drop for HugePages {
    fn drop(&mut self) {
        if let Some(dir) = &self.mount {
            let _ = Command::new("umount").arg(dir).status();
            if let Some(work) = dir.parent() {
                let _ = std::fs::remove_file(marker(work));
            }
        }
        if let Some(before) = self.before
            && read_nr() != Some(before)
        {
            let _ = std::fs::write(NR, before.to_string());
        }
    }
}

fn read_nr() -> Option<u64> {
    std::fs::read_to_string(NR).ok()?.trim().parse().ok()
}

/// DPDK EAL arguments for `mb` MiB of memory: huge pages where the run
/// reserved them, else `--no-huge`.
pub fn eal_memory(mb: u32) -> Vec<String> {
    let mut a = vec!["-m".to_string(), mb.to_string()];
    match DIR.get() {
        Some(Some(dir)) => {
            a.push("--huge-dir".into());
            a.push(dir.display().to_string());
            a.push("--huge-unlink".into());
        }
        _ => a.push("--no-huge".into()),
    }
    a
}
