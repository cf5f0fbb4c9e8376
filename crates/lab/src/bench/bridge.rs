//! The learning bridge in the hardware tier (docs/wan.md): one bridge
//! network mapped by its VLAN, 64-byte frames of 4,096 hosts entering on
//! port 0, every port drained each batch, timed as `pipeline/...` is:
//! - `bridge/known/64B`: to hosts known behind port 1 (static entries; each
//!   frame's source learned, refreshed);
//! - `bridge/s-tag/64B`: the same, port 1 the WAN member (the S-tag pushed:
//!   the bridge service's re-framing);
//! - `bridge/flood-3/64B`: broadcasts to four members: three copies a frame,
//!   each taken from the pool (cycles per frame in, not per copy).
//!
//! Against `wan/plain-hop/64B` (a routed hop) these say what delivery by
//! MAC and a flood cost per frame.

use super::{BenchArgs, Figure, measure, rounds, wanted};
use anyhow::{Context, Result};
use prism_pipeline::fast::bridge::BridgeSpec;
use prism_pipeline::{Action, ForwardingSpec, Packet, Pipeline, PipelineConfig, Substrate, VlanOp};

const VLAN: u16 = 100;
const PORTS: u16 = 4;
const HOSTS: u32 = 4096;

fn mac(side: u8, i: u32) -> [u8; 6] {
    let b = i.to_be_bytes();
    [2, side, b[0], b[1], b[2], b[3]]
}

fn substrate(members: u16, s_tag: Option<u16>, statics: bool) -> Result<Substrate> {
    let mut s = Substrate::new(
        prism_pipeline::control::device::profile("alveo-u280")
            .context("profile")?
            .clone(),
        PORTS,
    );
    let member = |p: u16| Action {
        out_port: Some(p),
        vlan: match s_tag {
            Some(vid) if p == 1 => VlanOp::Push { vid },
            _ => VlanOp::None,
        },
        ..Action::default()
    };
    let statics = match statics {
        true => (0..HOSTS).map(|i| (mac(0xb, i), 1)).collect(),
        false => Vec::new(),
    };
    let bridge = ForwardingSpec::Bridge(BridgeSpec {
        members: (0..members).map(member).collect(),
        statics,
        ageing_s: 300,
    });
    s.add_network(prism_pipeline::fixtures::on_vlan(
        "l2",
        VLAN,
        bridge,
        Vec::new(),
    ))?;
    Ok(s)
}

/// 64-byte frames from host `i` on side 0x0a, to host `i` on side 0x0b
/// (`broadcast`: to everyone).
fn frames(broadcast: bool) -> Vec<Vec<u8>> {
    (0..HOSTS)
        .map(|i| {
            let dst = if broadcast { [0xff; 6] } else { mac(0xb, i) };
            let mut f = dst.to_vec();
            f.extend_from_slice(&mac(0xa, i));
            f.extend_from_slice(&[0x81, 0x00]);
            f.extend_from_slice(&VLAN.to_be_bytes());
            f.extend_from_slice(&[0x88, 0xb5]);
            f.resize(60, 0);
            f
        })
        .collect()
}

/// Every frame in on port 0 in batches of 32, every port drained.
fn bridge_loop(s: &Substrate, frames: Vec<Vec<u8>>, rounds: usize) -> impl FnMut() {
    let mut p = Pipeline::new(
        s.handle(),
        PipelineConfig {
            pool_packets: 4096,
            ..Default::default()
        },
    );
    let (mut batch, mut out) = (Vec::<Packet>::with_capacity(32), Vec::with_capacity(128));
    move || {
        for _ in 0..rounds {
            for chunk in frames.chunks(32) {
                for f in chunk {
                    batch.push(p.pool.packet(f, 0, 0).expect("pool sized for a batch"));
                }
                p.process(&mut batch, 0);
                for port in 1..PORTS {
                    p.transmit(port, usize::MAX, &mut out);
                }
                p.pool.recycle_all(&mut out);
            }
        }
        assert_eq!(p.pool.available(), p.pool.capacity(), "every copy left");
    }
}

pub(crate) fn run(args: &BenchArgs, reps: usize, push: &mut impl FnMut(Figure)) -> Result<()> {
    let cases = [
        (
            "bridge/known/64B",
            2,
            None,
            false,
            "to a known host: MAC lookup, source learned",
        ),
        (
            "bridge/s-tag/64B",
            2,
            Some(3000),
            false,
            "to a known host across the WAN: S-tag pushed",
        ),
        (
            "bridge/flood-3/64B",
            4,
            None,
            true,
            "broadcast to 4 members: 3 copies a frame",
        ),
    ];
    for (name, members, s_tag, broadcast, note) in cases {
        if !wanted(args, name) {
            continue;
        }
        let s = substrate(members, s_tag, !broadcast)?;
        let n = rounds(args.quick);
        let items = u64::from(HOSTS) * n as u64;
        push(measure(
            name,
            items,
            reps,
            note,
            bridge_loop(&s, frames(broadcast), n),
        ));
    }
    Ok(())
}
