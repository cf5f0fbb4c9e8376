//! A researcher's program gone wrong on a live node: network A's program
//! spins past its budget on every frame, while B, in the same worker,
//! carries numbered frames. Counted at B's receiving host: none lost. A's
//! frames are dropped by name (`hardware/program-budget`), each counted.

use crate::common::{SERIAL, root_or_skip};
use base64::Engine as _;
use prism_lab::bench::migrate::{lost, with_traffic};
use prism_lab::bench::reconfig;
use prism_lab::demo::hosts;
use std::sync::atomic::Ordering;
use std::time::Duration;

const PPS: f64 = 5_000.0;

#[test]
fn a_program_spinning_past_its_budget_costs_its_neighbour_nothing() {
    let test = "live: a program past its budget";
    if !root_or_skip(test) {
        return;
    }
    let Some(elf) = prism_testkit::bpf_object(test, "crates/io/tests/linux/programs/spins.c")
    else {
        return;
    };
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    hosts::remove_hosts();
    let run = || -> anyhow::Result<_> {
        hosts::make_hosts(2)?;
        let opts = prism_node::NodeOptions {
            router_exe: Some(crate::common::PRISM.into()),
            ..hosts::demo_options()
        };
        let node = hosts::start_node_with(
            reconfig::scenario("netfpga-v2p")?,
            Default::default(),
            &opts,
        )?;
        std::thread::sleep(Duration::from_millis(500));
        {
            let mut c = node.control.lock().unwrap_or_else(|e| e.into_inner());
            let mut doc = c.doc("a").cloned().expect("network a");
            let object = base64::engine::general_purpose::STANDARD.encode(&elf);
            doc.program = Some(prism_netdoc::ProgramDoc {
                object,
                name: None,
                budget: None,
            });
            doc.reconfigure = Some(prism_netdoc::ReconfigureChoice::Partial);
            c.apply("a", Some(doc))
                .map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        // The slot's modelled load (600.2 ms), then traffic.
        std::thread::sleep(Duration::from_millis(1500));
        let (sent, seen) = with_traffic(&[PPS, PPS], |next| {
            std::thread::sleep(Duration::from_secs(3));
            [0, 1].map(|k| next[k].load(Ordering::Relaxed))
        })?;
        std::thread::sleep(Duration::from_millis(300));
        Ok((sent, seen, node.counters()))
    };
    let r = run();
    hosts::remove_hosts();
    let (sent, seen, counters) = r.unwrap();
    assert!(sent[1] as f64 >= PPS * 2.5, "B sent {}", sent[1]);
    assert_eq!(
        lost(&seen[1], 0, sent[1]).0,
        0,
        "B lost frames beside A's spinning program"
    );
    assert_eq!(
        lost(&seen[0], 0, sent[0]).0,
        sent[0],
        "every frame of A's dropped"
    );
    let a = counters
        .expect("counters")
        .networks
        .into_iter()
        .find(|n| n.name == "a")
        .expect("a");
    let budget = a.drops.get("hardware/program-budget").copied().unwrap_or(0);
    assert!(
        budget as f64 >= sent[0] as f64 * 0.99,
        "A's drops: {:?} of {} sent",
        a.drops,
        sent[0]
    );
}
