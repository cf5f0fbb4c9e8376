//! `prism demo`: the embedded scenario with generated traffic, offline.
//!
//! One second of traffic for five networks enters port `in`: each network's
//! flows, plus frames that must be dropped (TTL 1, a corrupted checksum, a
//! VLAN no network claims, traffic the firewall rules refuse, and more than the
//! rate-limited network's guarantee). The demo then checks that every output
//! port carries exactly its own network's frames.

use prism_compile as scenario;
use prism_node::offline::{self as runner, InputFrame, RunResult};
use prism_pipeline::traffic::{FrameSpec, build};
use prism_wire::Ipv4Address;

pub const SCENARIO: &str = include_str!("../../../../scenarios/demo.toml");

/// Frames per network (name, tag, count, spec).
fn flows() -> Vec<(&'static str, u32, FrameSpec)> {
    let ip = |a, b, c, d| Ipv4Address([a, b, c, d]);
    let on_vlan = |vlan, src, dst, frame_len| FrameSpec {
        vlan: Some(vlan),
        src,
        dst,
        frame_len,
        ..Default::default()
    };
    let blue = FrameSpec {
        tunnel: Some((ip(172, 16, 0, 1), ip(172, 16, 0, 2))),
        src: ip(192, 168, 9, 1),
        dst: ip(192, 168, 1, 7),
        frame_len: 128,
        ..Default::default()
    };
    // 20 000 x 1000 B in one second = 160 Mbit/s against a 40 Mbit/s guarantee.
    let orange = FrameSpec {
        dst_port: 5001,
        ..on_vlan(50, ip(10, 5, 0, 1), ip(10, 55, 0, 1), 1000)
    };
    vec![
        (
            "red",
            20_000,
            on_vlan(10, ip(10, 9, 0, 1), ip(10, 1, 2, 3), 64),
        ),
        ("blue", 20_000, blue),
        (
            "green",
            10_000,
            on_vlan(30, ip(10, 3, 0, 1), ip(8, 8, 8, 8), 256),
        ),
        (
            "violet",
            10_000,
            on_vlan(40, ip(10, 4, 0, 1), ip(10, 44, 0, 9), 512),
        ),
        ("orange", 20_000, orange),
    ]
}

/// Frames that must not come out anywhere.
fn bad_frames() -> Vec<Vec<u8>> {
    let ip = |a, b, c, d| Ipv4Address([a, b, c, d]);
    let mut v = Vec::new();
    for _ in 0..100 {
        v.push(build(
            &FrameSpec {
                vlan: Some(10),
                ttl: 1,
                dst: ip(10, 1, 0, 1),
                ..Default::default()
            },
            b"bad:ttl",
        ));
        let mut f = build(
            &FrameSpec {
                vlan: Some(10),
                dst: ip(10, 1, 0, 1),
                ..Default::default()
            },
            b"bad:cksum",
        );
        f[18 + 10] ^= 0x5a;
        v.push(f);
        v.push(build(
            &FrameSpec {
                vlan: Some(99),
                ..Default::default()
            },
            b"bad:vlan",
        ));
        v.push(build(
            &FrameSpec {
                vlan: Some(50),
                dst_port: 80,
                ..Default::default()
            },
            b"bad:rule",
        ));
        v.push(build(
            &FrameSpec {
                vlan: Some(10),
                dst: ip(10, 2, 0, 1),
                ..Default::default()
            },
            b"bad:route",
        ));
    }
    v
}

/// The demo's input: all flows interleaved over one second.
pub fn input() -> Vec<InputFrame> {
    let mut frames: Vec<(u64, Vec<u8>)> = Vec::new();
    for (name, count, spec) in flows() {
        let step = 1_000_000_000 / u64::from(count);
        for i in 0..count {
            let mut s = spec;
            s.src_port = 1024 + (i % 64) as u16;
            frames.push((u64::from(i) * step + 17, build(&s, name.as_bytes())));
        }
    }
    for (i, f) in bad_frames().into_iter().enumerate() {
        frames.push((i as u64 * 1_000_000 + 3, f));
    }
    frames.sort_by_key(|(t, _)| *t);
    frames
        .into_iter()
        .map(|(t, data)| InputFrame {
            port: 0,
            timestamp_ns: t,
            data,
        })
        .collect()
}

/// Output ports whose frames are not all their own network's.
pub fn isolation_violations(r: &RunResult, port_names: &[String]) -> Vec<String> {
    let mut bad = Vec::new();
    for (port, out) in r.outputs.iter().enumerate() {
        let want = port_names[port].as_bytes();
        let foreign = out
            .frames
            .iter()
            .filter(|(_, f)| {
                !f.windows(want.len()).any(|w| w == want) || f.windows(4).any(|w| w == b"bad:")
            })
            .count();
        if foreign > 0 {
            bad.push(format!(
                "port `{}` sent {foreign} frames of another network",
                port_names[port]
            ));
        }
    }
    bad
}

#[derive(Debug)]
pub struct DemoOutcome {
    pub result: RunResult,
    pub port_names: Vec<String>,
    pub violations: Vec<String>,
    pub summary: String,
}

impl DemoOutcome {
    /// What `prism demo --offline` prints: the placement, the counters
    /// and each port's frames.
    pub fn report(&self) -> String {
        let mut o = String::from(
            "Prism demo: 5 virtual networks, 80 000 frames over 1 s of traffic time plus 500 that must be dropped, offline (in-memory ports)\n\n",
        );
        o.push_str(&self.summary);
        o.push('\n');
        o.push_str(&prism_node::report::table(&self.result.counters));
        for (name, out) in self.port_names.iter().zip(&self.result.outputs) {
            o.push_str(&format!(
                "  port {name:<7} sent {} frames\n",
                out.frames.len()
            ));
        }
        o
    }
}

pub fn run() -> anyhow::Result<DemoOutcome> {
    let sc = scenario::load("demo.toml (embedded)", SCENARIO)?;
    let mut summary = String::new();
    let hw = sc.substrate.hardware();
    summary.push_str(&format!(
        "device {} ({}): {} of {} hardware slots used [modelled: Prism runs the hardware tier in software]\n",
        hw.profile.name,
        hw.profile.description,
        usize::from(hw.profile.slots) - hw.free_slots(),
        hw.profile.slots
    ));
    for (id, spec) in sc.substrate.networks() {
        let slot = hw.slot_of(id).map_or("-".to_string(), |s| s.to_string());
        summary.push_str(&format!(
            "  {:<8} {:<9} {:<20} slot {:<3} {} entries\n",
            spec.name,
            spec.tier.as_str(),
            spec.forwarding.module().as_str(),
            slot,
            spec.forwarding.entries()
        ));
    }
    let pipeline = runner::pipeline_for(sc.substrate.handle());
    let result = runner::run(pipeline, &input(), &sc.port_rates);
    let violations = isolation_violations(&result, &sc.port_names);
    Ok(DemoOutcome {
        result,
        port_names: sc.port_names,
        violations,
        summary,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_isolates_and_counts() {
        let d = run().unwrap();
        assert!(d.violations.is_empty(), "{:?}", d.violations);
        let c = &d.result.counters;
        let by = |n: &str| c.networks.iter().find(|x| x.name == n).unwrap();
        for (name, count) in [
            ("red", 20_000u64),
            ("blue", 20_000),
            ("green", 10_000),
            ("violet", 10_000),
        ] {
            assert_eq!(by(name).counters.tx_packets, count, "{name}");
        }
        assert_eq!(d.result.outputs[1].frames.len(), 20_000);
        assert_eq!(by("green").counters.to_software, 10_000);
        // Orange: 160 Mbit/s offered against 40 Mbit/s policed.
        let orange = by("orange");
        let tx_bits = orange.counters.tx_bytes as f64 * 8.0;
        assert!(
            (38e6..44e6).contains(&tx_bits),
            "orange sent {tx_bits} bit in 1 s"
        );
        assert!(orange.drops.contains_key("output/rate-limited"));
        let red = by("red");
        let reasons: Vec<&str> = red.drops.keys().map(String::as_str).collect();
        assert_eq!(reasons, vec!["action/ttl-expired", "matching/no-route"]);
        // Per-stage accounting: what leaves one stage enters the next.
        let st = |n: &str| c.stages.iter().find(|x| x.stage == n).unwrap();
        assert_eq!(st("parse").packets, 80_500);
        assert_eq!(
            st("mapping").packets,
            st("parse").packets - st("parse").dropped
        );
        assert_eq!(
            st("matching").packets + st("software").packets,
            st("mapping").packets - st("mapping").dropped
        );
        assert_eq!(
            st("action").packets,
            st("matching").packets - st("matching").dropped
        );
        assert_eq!(
            st("output").packets,
            st("action").packets - st("action").dropped + st("software").packets
        );
        let unmapped: Vec<(&str, u64)> = c
            .unmapped_drops
            .iter()
            .map(|(r, n)| (r.as_str(), *n))
            .collect();
        assert_eq!(
            unmapped,
            vec![
                ("mapping/no-network", 100),
                ("parse/ipv4-bad-checksum", 100)
            ]
        );
    }
}
