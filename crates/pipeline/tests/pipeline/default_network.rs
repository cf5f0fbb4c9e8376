//! With an empty design-select table every packet goes to the default
//! network, and the pipeline decides that once per batch when the network
//! is in hardware and not reconfiguring. These check what that shortcut
//! must leave as the per-packet path would: the network's receive counters
//! (packets and bytes, malformed frames not among them), the packets out,
//! and the cases it must not take (a reconfiguring slot, a software
//! network). Frames are built by etherparse; expected counts are summed
//! here from the frames sent, not read from Prism.

use etherparse::PacketBuilder;
use prism_pipeline::fast::reasons::{HardwareDrop, MapDrop};
use prism_pipeline::*;

const S: u64 = 1_000_000_000;

fn udp(payload: usize) -> Vec<u8> {
    let mut v = Vec::new();
    PacketBuilder::ethernet2([2, 0, 0, 0, 0, 0xa], [2, 0, 0, 0, 0, 0xb])
        .ipv4([10, 0, 0, 1], [10, 1, 0, 1], 64)
        .udp(1, 2)
        .write(&mut v, &vec![0x5a; payload])
        .unwrap();
    v
}

fn spec(tier: Tier, flow: bool) -> NetworkSpec {
    let any = "0.0.0.0/0".parse().unwrap();
    let out = Action {
        out_port: Some(1),
        ..Default::default()
    };
    NetworkSpec {
        name: "d".into(),
        tier,
        mapping: vec![],
        forwarding: if flow {
            ForwardingSpec::Flow(vec![(any, any, out)])
        } else {
            ForwardingSpec::Destination(vec![(any, out)])
        },
        rate_limit: None,
        software_channel: None,
        quantum: 1514,
        tunnels: Vec::new(),
        program: None,
    }
}

fn substrate(tier: Tier) -> Substrate {
    let mut s = Substrate::new(
        prism_pipeline::control::device::profile("netfpga-v2p")
            .unwrap()
            .clone(),
        2,
    );
    s.add_network(spec(tier, false)).unwrap();
    s.set_default_network(Some("d")).unwrap();
    s.set_reconfig_timing(prism_pipeline::control::reconfig::bitstreams("netfpga-v2p"));
    s
}

/// What one batch did: packets out of port 1, and the pipeline's counters.
struct Sent {
    out: usize,
    out_network: Vec<u16>,
    counters: Counters,
    software: usize,
}

/// Sends ten well-formed frames of different sizes and one truncated
/// frame at `now`; returns what left and the counters, and the sum of the
/// well-formed frames' lengths.
fn send(s: &Substrate, now: u64) -> (Sent, u64) {
    let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
    let frames: Vec<Vec<u8>> = (0..10).map(|i| udp(18 + 37 * i)).collect();
    let good_bytes = frames.iter().map(|f| f.len() as u64).sum();
    let mut batch: Vec<Packet> = frames
        .iter()
        .map(|f| p.pool.packet(f, 0, now).unwrap())
        .collect();
    batch.insert(4, p.pool.packet(&udp(18)[..20], 0, now).unwrap());
    p.process(&mut batch, now);
    let mut out = Vec::new();
    p.transmit(1, usize::MAX, &mut out);
    let mut software = Vec::new();
    p.software_pop(
        prism_pipeline::fast::dataplane::SHARED_CHANNEL,
        64,
        &mut software,
    );
    let sent = Sent {
        out: out.len(),
        out_network: out.iter().map(|f| f.network).collect(),
        counters: p.counters().clone(),
        software: software.len(),
    };
    (sent, good_bytes)
}

fn drops(c: &NetworkCounters, r: DropReason) -> u64 {
    c.drops[r.index()]
}

#[test]
fn a_hardware_default_network_counts_and_forwards_every_good_frame() {
    let s = substrate(Tier::Hardware);
    let (sent, bytes) = send(&s, 10 * S);
    assert_eq!(sent.out, 10);
    assert!(sent.out_network.iter().all(|&n| n == 0));
    let n = &sent.counters.networks[0];
    assert_eq!((n.rx_packets, n.rx_bytes), (10, bytes));
    assert_eq!((n.tx_packets, n.to_software), (10, 0));
    // The truncated frame is the parser's, counted as no network's.
    assert_eq!(sent.counters.rx_packets, 11);
    let parse_drops: u64 = sent.counters.unmapped.drops.iter().sum();
    assert_eq!(parse_drops, 1);
    assert_eq!(drops(n, DropReason::Map(MapDrop::NoNetwork)), 0);
}

#[test]
fn a_reconfiguring_default_network_drops_named_and_still_counts() {
    let mut s = substrate(Tier::Hardware);
    s.set_now(10 * S);
    // Destination to flow routing: a new module, so the slot goes dark.
    s.replace_network(spec(Tier::Hardware, true)).unwrap();
    let ready = s.slot_ready_ns("d").unwrap();
    assert!(ready > 10 * S + 1);
    let (sent, bytes) = send(&s, 10 * S + 1);
    assert_eq!(sent.out, 0);
    let n = &sent.counters.networks[0];
    assert_eq!((n.rx_packets, n.rx_bytes), (10, bytes));
    let dark = DropReason::Hardware(HardwareDrop::Reconfiguring);
    assert_eq!(drops(n, dark), 10);
    // Ready again: the shortcut's path, everything forwarded.
    let (sent, _) = send(&s, ready);
    assert_eq!((sent.out, sent.counters.networks[0].rx_packets), (10, 10));
}

#[test]
fn a_software_default_network_gets_every_good_frame_on_its_channel() {
    let s = substrate(Tier::Software);
    let (sent, bytes) = send(&s, 10 * S);
    let n = &sent.counters.networks[0];
    assert_eq!((sent.out, sent.software), (0, 10), "{n:?}");
    let n = &sent.counters.networks[0];
    assert_eq!((n.rx_packets, n.rx_bytes, n.to_software), (10, bytes, 10));
}

/// A batch of good frames only is queued for its port in one move: the
/// frames leave unchanged and in order, every counter as packet by packet;
/// a batch that would overrun the queue's bound goes packet by packet and
/// loses only what the bound refuses, under its name.
#[test]
fn a_whole_batch_is_queued_in_order_and_within_the_bound() {
    let s = substrate(Tier::Hardware);
    let cfg = PipelineConfig {
        queue_limit: 16,
        ..Default::default()
    };
    let mut p = Pipeline::new(s.handle(), cfg);
    let frames: Vec<Vec<u8>> = (0..10).map(|i| udp(18 + 37 * i)).collect();
    let bytes: u64 = frames.iter().map(|f| f.len() as u64).sum();
    for _ in 0..2 {
        let mut batch: Vec<Packet> = frames
            .iter()
            .map(|f| p.pool.packet(f, 0, S).unwrap())
            .collect();
        p.process(&mut batch, S);
        assert!(batch.is_empty());
    }
    let mut out = Vec::new();
    p.transmit(1, usize::MAX, &mut out);
    // The first batch whole, then the first six of the second: 16 in all.
    let want: Vec<&[u8]> = frames
        .iter()
        .chain(&frames[..6])
        .map(Vec::as_slice)
        .collect();
    let got: Vec<&[u8]> = out.iter().map(Packet::data).collect();
    assert_eq!(got, want);
    let c = p.counters();
    let n = &c.networks[0];
    let sent: u64 = want.iter().map(|f| f.len() as u64).sum();
    assert_eq!((n.rx_packets, n.rx_bytes), (20, 2 * bytes));
    assert_eq!((n.tx_packets, n.tx_bytes), (16, sent));
    let full = DropReason::Output(prism_pipeline::fast::reasons::OutputDrop::QueueFull);
    assert_eq!(drops(n, full), 4);
    let stage = c.stages[prism_pipeline::fast::counters::Stage::Output as usize];
    assert_eq!((stage.packets, stage.bytes), (20, 2 * bytes));
}

/// Frames a socket refused are counted by name: against their network on
/// a container link, against no network on a wire port (the node's worker
/// calls this with what `send_batch` did not take).
#[test]
fn refused_sends_are_counted_by_name_against_their_network_or_none() {
    use prism_pipeline::fast::reasons::IoDrop;
    let s = substrate(Tier::Hardware);
    let mut p = Pipeline::new(s.handle(), PipelineConfig::default());
    p.io_drops(Some(0), IoDrop::TxRefused, 3);
    p.io_drops(None, IoDrop::TxRefused, 2);
    p.io_drops(Some(999), IoDrop::TxRefused, 1);
    let c = p.counters();
    assert_eq!(drops(&c.networks[0], DropReason::Io(IoDrop::TxRefused)), 3);
    assert_eq!(drops(&c.unmapped, DropReason::Io(IoDrop::TxRefused)), 3);
    let snap = p.snapshot();
    assert_eq!(snap.unmapped_drops.get("io/tx-refused"), Some(&3));
}
