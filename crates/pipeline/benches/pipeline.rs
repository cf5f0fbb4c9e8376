//! Criterion benches of the whole pipeline with 1, 16 and 1024 networks at
//! 64 and 1500 bytes. The figures for the record come from `prism bench`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use prism_pipeline::{Packet, Pipeline, PipelineConfig, fixtures};

fn pipeline(c: &mut Criterion) {
    let mut g = c.benchmark_group("pipeline");
    for nets in [1u16, 16, 1024] {
        for size in [64usize, 1500] {
            let s = fixtures::vlan_networks(nets, 16);
            let frames = fixtures::vlan_traffic(nets, 1024, size);
            let mut p = Pipeline::new(
                s.handle(),
                PipelineConfig {
                    pool_packets: 256,
                    queue_limit: 256,
                    channel_capacity: 64,
                    ..Default::default()
                },
            );
            let mut batch: Vec<Packet> = Vec::with_capacity(32);
            let mut out: Vec<Packet> = Vec::with_capacity(64);
            g.throughput(Throughput::Elements(frames.len() as u64));
            g.bench_function(format!("{nets}-networks/{size}B"), |b| {
                b.iter(|| {
                    for chunk in frames.chunks(32) {
                        for f in chunk {
                            batch.push(p.pool.packet(f, 0, 0).expect("pool sized for a batch"));
                        }
                        p.process(&mut batch, 0);
                        p.transmit(1, usize::MAX, &mut out);
                        for pkt in out.drain(..) {
                            p.pool.recycle(pkt);
                        }
                    }
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, pipeline);
criterion_main!(benches);
