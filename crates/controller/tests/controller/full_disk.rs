//! The controller's database on a full disk (a small tmpfs, as root): a
//! booking is refused with `storage_full` (507) and nothing of it is
//! written (no booking, the quota as it was), the service goes on
//! answering reads, and it books again once space returns.

use crate::common::probe;
use prism_controller::ListQuery;
use prism_controller::prelude::*;
use prism_controller::{Controller, ErrorCode, Settings};
use std::process::Command;

fn sh(args: &[&str]) {
    let o = Command::new(args[0]).args(&args[1..]).output().unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A tmpfs of `mib` MiB at a new directory, unmounted when dropped.
struct Tmpfs(std::path::PathBuf);

impl Tmpfs {
    fn new(mib: u32) -> Self {
        let dir =
            std::env::temp_dir().join(format!("prism-full-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).unwrap();
        let d = dir.display().to_string();
        sh(&[
            "mount",
            "-t",
            "tmpfs",
            "-o",
            &format!("size={mib}m,mode=0700"),
            "tmpfs",
            &d,
        ]);
        Self(dir)
    }

    /// Fills it: a file grown until the disk refuses more.
    fn fill(&self) -> std::path::PathBuf {
        use std::io::Write;
        let p = self.0.join("filler");
        let mut f = std::fs::File::create(&p).unwrap();
        let block = vec![0u8; 64 * 1024];
        while f.write_all(&block).is_ok() {}
        let _ = f.write_all(&[0u8; 512]);
        let _ = f.sync_all();
        p
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_disk_refuses_bookings_whole_and_books_again_when_space_returns() {
    if !prism_testkit::gates::root("full_disk") {
        return;
    }
    let disk = Tmpfs::new(4);
    let db = disk.0.join("controller.db").display().to_string();
    let ctl = Controller::open(&db, Settings::default()).await.unwrap();
    let user = crate::round_trips::setup_in(&ctl).await;
    let first = ctl.allocate(&user, "p", probe("before")).await.unwrap();
    let quota = ctl.quota(&user, "p").await.unwrap();
    let filler = disk.fill();
    let mut refused = 0;
    for i in 0..5 {
        let e = ctl
            .allocate(&user, "p", probe(&format!("full{i}")))
            .await
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::StorageFull, "{e}");
        assert_eq!(e.code.http_status(), 507);
        assert!(e.message.contains("nothing was changed"), "{e}");
        refused += 1;
    }
    assert_eq!(refused, 5);
    // Nothing half-written: the bookings and the quota as they were;
    // reads are still answered.
    let all = ListQuery {
        all: true,
        ..Default::default()
    };
    let listed = ctl.find_bookings(&user, "p", &all).await.unwrap();
    assert_eq!(listed.items.len(), 1, "{:?}", listed.items);
    assert_eq!(listed.items[0].id, first.id);
    assert_eq!(ctl.quota(&user, "p").await.unwrap(), quota);
    // Space back: booked again.
    std::fs::remove_file(filler).unwrap();
    let b = ctl.allocate(&user, "p", probe("after")).await.unwrap();
    assert_eq!(
        ctl.find_bookings(&user, "p", &ListQuery::default())
            .await
            .unwrap()
            .items
            .len(),
        2
    );
    ctl.release(&user, "p", &b.id).await.unwrap();
    drop(ctl);
}
