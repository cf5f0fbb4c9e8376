//! The end-to-end tests that count frames lost at the receiving hosts
//! under load (moves between tiers at 20,000 frames/s, an automatic
//! network's moves with its measured rate, a soak, paper 000's
//! reconfiguration live, iperf3 UDP through each tier): one binary that
//! `scripts/test-lanes` runs alone, after the others, so that no other
//! work on a 2-core machine costs them frames. Need root, as `live`.

#[path = "../live/common/mod.rs"]
mod common;

mod live_auto;
mod live_forwarding;
mod live_migrate;
mod live_program;
mod live_reconfig;
