//! `prism demo --processing`, the short version CI runs (the whole
//! table is the demo's, run before closing; docs/processing.md): two of
//! Table 2's experiments, each a pair of processing nodes from the base
//! image across node 1's shaped WAN link, booked through a controller and
//! reached by ssh; iperf3 both ways at once, UDP at 1.5 times the booking
//! and TCP as fast as it goes, each direction's rate counted at the
//! receiving container's interface. A policer that charged both ways to
//! one bucket, or dropped what the shaper let out, misses by tens of
//! percent; the bounds here (3% UDP, 15% TCP) are wider than the demo's
//! (1%, 3%) for CI's other lanes sharing its two cores. Then, on the same
//! testbed, the researcher's notebook (examples/experiment.ipynb) runs to
//! its end with nbclient: it books, reaches its nodes by ssh, pings,
//! measures, plots and releases through the SDK alone. Nothing is left.

use crate::common::*;
use crate::live_processing::tools_present;
use prism_lab::processing::demo::{Plan, run};
use prism_lab::processing::notebook::Notebook;
use std::path::Path;

#[test]
fn processing_nodes_across_a_shaped_wan_link_get_their_bookings_rates_both_ways() {
    let what = "Table 2 with processing nodes";
    if !root_or_skip(what) || !tools_present(what) {
        return;
    }
    let base = Path::new("/var/lib/prism/images/base/index.json").exists();
    let image = "the Debian base image (scripts/build-base-image, run by CI's setup)";
    if !prism_testkit::gates::prerequisite(what, image, base, "PRISM_REQUIRE_ROOT") {
        return;
    }
    let python = std::env::var_os("PRISM_SDK_PYTHON").is_some();
    let sdk = "a Python with the SDK and nbclient (scripts/ensure-sdk.sh, run by CI's setup)";
    if !prism_testkit::gates::prerequisite(what, sdk, python, "PRISM_REQUIRE_SDK") {
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let plan = Plan {
        pairs: 2,
        window: (2, 5),
        limited_only: true,
        notebook: Some(Notebook::new(Path::new("../../examples/experiment.ipynb"))),
    };
    let o = run(Path::new(PRISM), true, plan).unwrap();
    assert!(o.leftovers.is_empty(), "left behind: {:?}", o.leftovers);
    assert_eq!(o.columns.len(), 2, "UDP (rl) and TCP (rl): {:?}", o.columns);
    for c in &o.columns {
        assert_eq!(c.cells.len(), 2, "{c:?}");
    }
    // TCP's bound catches a policer or shaper wrong by tens of percent
    // (one bucket for both ways halved each), not the target (3%, the
    // demo's): a spurious retransmission timeout, which CI's other lanes
    // on the same two cores make likelier, costs 7-10% of a 3 s window
    // (CI saw -7.2% once).
    let misses = o.misses((0.03, 0.15));
    assert!(misses.is_empty(), "{}", misses.join("\n"));
    // The notebook's executed copy: every code cell ran, its plot is in.
    let (executed, _) = o.notebook.expect("the notebook ran");
    let nb: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&executed).unwrap()).unwrap();
    let code = (nb["cells"].as_array().unwrap().iter()).filter(|c| c["cell_type"] == "code");
    let outputs: Vec<&serde_json::Value> = code
        .inspect(|c| assert!(c["execution_count"].is_number(), "a cell not run: {c}"))
        .flat_map(|c| c["outputs"].as_array().unwrap())
        .collect();
    assert!(
        outputs.iter().any(|o| o["data"]["image/png"].is_string()),
        "no plot"
    );
    let text: String = (outputs.iter())
        .filter_map(|o| o["text"].as_array())
        .flatten()
        .filter_map(|t| t.as_str())
        .collect();
    for line in ["s after booking", "TCP: ", "unallocated"] {
        assert!(
            text.contains(line),
            "no `{line}` in the notebook's output:\n{text}"
        );
    }
}
