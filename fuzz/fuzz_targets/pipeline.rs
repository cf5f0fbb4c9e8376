//! Bytes as frames through the demo-like fixture pipeline: every frame ends
//! forwarded or counted, and nothing panics.
#![no_main]
use prism_pipeline::{Pipeline, PipelineConfig, fixtures};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let s = fixtures::vlan_networks(4, 4);
    let mut p = Pipeline::new(s.handle(), PipelineConfig { pool_packets: 64, queue_limit: 64, channel_capacity: 8, ..Default::default() });
    let mut batch = Vec::new();
    for frame in data.split(|b| *b == 0xa5).take(32) {
        if let Some(pkt) = p.pool.packet(frame, 0, 0) {
            batch.push(pkt);
        }
    }
    let n = batch.len() as u64;
    p.process(&mut batch, 0);
    let mut out = Vec::new();
    p.transmit(1, usize::MAX, &mut out);
    let c = p.counters();
    let dropped: u64 = c.unmapped.dropped() + c.networks.iter().map(|x| x.dropped()).sum::<u64>();
    assert_eq!(out.len() as u64 + dropped, n);
});
