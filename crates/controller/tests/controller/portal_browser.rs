//! The portal in a real browser: Debian's Chromium, headless, driven by
//! Playwright from `portal_browser.py` against this controller (fake nodes;
//! the test says what traffic a network carries, see below). Needs the
//! Python with Playwright (`$PRISM_PORTAL_PYTHON`) and Chromium
//! (`$PRISM_CHROMIUM`), both from `scripts/ensure-sdk.sh`; skipped
//! without them, and failing where every prerequisite is required (CI).

use crate::common::{Harness, PASSWORD, network};
use prism_controller::{Clock, MemberRequest, Role};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Packets a second the busy network is said to carry, counted every tick
/// by the time gone (so a late tick on a loaded machine changes no rate).
const BUSY_PPS: u64 = 5000;
const TICK_MS: u64 = 100;

#[tokio::test(flavor = "multi_thread")]
async fn the_portal_works_in_chromium() {
    let gate = prism_testkit::gates::sdk_program;
    let (Some(python), Some(chromium)) = (
        gate("portal_browser", "PRISM_PORTAL_PYTHON"),
        gate("portal_browser", "PRISM_CHROMIUM"),
    ) else {
        return;
    };
    in_browser(python, ("PRISM_CHROMIUM", chromium), "chromium").await;
}

/// The same in Debian's Firefox ESR, driven over WebDriver BiDi.
#[tokio::test(flavor = "multi_thread")]
async fn the_portal_works_in_firefox() {
    let gate = prism_testkit::gates::sdk_program;
    let (Some(python), Some(firefox)) = (
        gate("portal_browser", "PRISM_PORTAL_PYTHON"),
        gate("portal_browser", "PRISM_FIREFOX"),
    ) else {
        return;
    };
    in_browser(python, ("PRISM_FIREFOX", firefox), "firefox").await;
}

/// Runs `portal_browser.py` in the browser `browser` names (an environment
/// variable and its program) against a controller set up for it; its
/// screenshots go to target/portal-shots/`shots`.
async fn in_browser(python: String, browser: (&'static str, String), shots: &str) {
    // The node is up for the whole test: its clock moves with the wall
    // while the page is driven, however slowly a loaded machine drives it.
    let h = Harness::start_with(prism_controller::Settings {
        node_timeout_ms: 3_600_000,
        ..crate::common::settings()
    })
    .await;
    // Leases on the wall clock: the page shows time left against it.
    let wall = prism_controller::SystemClock.now_ms();
    h.clock.advance_ms(wall - crate::common::START_MS);
    // It runs processing nodes too: the researcher books one on a network.
    let node = h.processing_node("n1", 4, 100).await;
    h.user("fay").await;
    h.project("p", "fay", prism_controller::STANDARD).await;
    h.user("vic").await;
    h.admin
        .set_member("p", "vic", &MemberRequest { role: Role::Viewer })
        .await
        .unwrap();
    let eve = h.user("eve").await;
    h.project("q", "eve", prism_controller::STANDARD).await;
    let theirs = eve
        .book("q", &network("theirs", "software", 1, true))
        .await
        .unwrap();
    // The network the browser books as `busy` carries traffic from the
    // moment it is on the node; `idle` carries none.
    let stop = Arc::new(AtomicBool::new(false));
    let pump = tokio::spawn(pump_busy(
        h.admin.clone(),
        h.clock.clone(),
        node.clone(),
        stop.clone(),
    ));
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/controller/portal_browser.py");
    let shots = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/portal-shots")
        .join(shots);
    let url = format!("http://{}", h.addr);
    let programs = programs(&shots);
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(&python)
            .arg(&script)
            // The browser this test names, not another one the environment has.
            .env_remove("PRISM_CHROMIUM")
            .env_remove("PRISM_FIREFOX")
            .env("PRISM_PORTAL_URL", url)
            .env(browser.0, browser.1)
            .env("PRISM_PASSWORD", PASSWORD)
            .env("PRISM_OTHER_BOOKING", theirs.id)
            .env("PRISM_NODE_SECRET", crate::common::fake_node::SECRET)
            .env("PRISM_PROGRAM_GOOD", &programs.0)
            .env("PRISM_PROGRAM_BAD", &programs.1)
            .env("PRISM_SHOTS", shots)
            .output()
    })
    .await
    .unwrap()
    .expect("running the browser test");
    stop.store(true, Ordering::SeqCst);
    pump.await.unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("portal: every check passed"), "{said}");
    // Released in the browser: gone from the node too (busy and theirs stay).
    let names = node.names();
    assert_eq!(names.len(), 2, "{names:?}");
}

/// Counts traffic for the booking named `busy` (project `p`) every tick,
/// and moves the controller's clock with the wall's (usage accrues).
async fn pump_busy(
    admin: prism_controller::ControllerClient,
    clock: prism_controller::ManualClock,
    node: Arc<crate::common::fake_node::FakeNode>,
    stop: Arc<AtomicBool>,
) {
    let mut on_node: Option<String> = None;
    let started = std::time::Instant::now();
    let mut counted = 0u64;
    while !stop.load(Ordering::SeqCst) {
        if on_node.is_none() {
            on_node = admin
                .bookings("p", false, None)
                .await
                .ok()
                .and_then(|page| {
                    page.items
                        .into_iter()
                        .find(|b| b.name == "busy")
                        .and_then(|b| b.node_network)
                });
        }
        let due = started.elapsed().as_millis() as u64 * BUSY_PPS / 1000;
        if let Some(n) = &on_node {
            node.pass(n, due - counted, 100);
            node.drop_for(n, "stage3/no_route", 1);
        }
        counted = due;
        let before = std::time::Instant::now();
        tokio::time::sleep(std::time::Duration::from_millis(TICK_MS)).await;
        clock.advance_ms(before.elapsed().as_millis() as i64);
    }
}

/// The example counter and a program the verifier refuses, compiled into
/// `dir` (as paths); empty where clang or root is missing (skipped).
fn programs(dir: &std::path::Path) -> (String, String) {
    let test = "portal: a program loaded";
    let objects = prism_testkit::root(test)
        .then(|| {
            let good = prism_testkit::bpf_object(test, "programs/count_sources.c")?;
            let bad =
                prism_testkit::bpf_object(test, "crates/io/tests/linux/programs/past_the_end.c")?;
            Some((good, bad))
        })
        .flatten();
    let Some((good, bad)) = objects else {
        return Default::default();
    };
    std::fs::create_dir_all(dir).expect("the shots' directory");
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).expect("an object file");
        p.display().to_string()
    };
    (
        write("count_sources.o", &good),
        write("past_the_end.o", &bad),
    )
}
