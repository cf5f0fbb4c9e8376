//! Researchers' programs in Prism's engine (`prism_program`) against the
//! kernel's own run of them (`BPF_PROG_TEST_RUN`, JIT on): the same
//! objects, frames and map contents in, the same actions, frames and maps
//! out. And what the kernel's verifier refuses is refused with its log.

use prism_io::program::{VerifyError, verify};
use prism_program::{Frame, Image, Program, Scratch, Verdict};
use prism_testkit::{bpf_object, root};

/// The example `name` (programs/NAME.c), compiled; `None`: skipped.
fn example(test: &str, name: &str) -> Option<Vec<u8>> {
    if !root(test) {
        return None;
    }
    bpf_object(test, &format!("programs/{name}.c"))
}

fn eth_ipv4(proto: u8, src: [u8; 4], payload: &[u8]) -> Vec<u8> {
    let mut f = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00];
    let total = (20 + payload.len()) as u16;
    let mut ip = vec![0x45, 0, 0, 0, 0, 7, 0, 0, 64, proto, 0, 0];
    ip[2..4].copy_from_slice(&total.to_be_bytes());
    ip.extend_from_slice(&src);
    ip.extend_from_slice(&[10, 9, 0, 2]);
    let sum = !ip.chunks(2).fold(0u32, |s, w| {
        let s = s + u32::from(u16::from_be_bytes([w[0], w[1]]));
        (s & 0xffff) + (s >> 16)
    }) as u16;
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
    f.extend_from_slice(&ip);
    f.extend_from_slice(payload);
    f
}

fn udp(src: [u8; 4], first: Option<u8>) -> Vec<u8> {
    let mut u = vec![0x30, 0x39, 0x00, 0x35, 0, 0, 0, 0];
    u.extend(first.map(|b| vec![b, 1, 2, 3]).unwrap_or_default());
    let len = u.len() as u16;
    u[4..6].copy_from_slice(&len.to_be_bytes());
    eth_ipv4(17, src, &u)
}

fn arp_frame() -> Vec<u8> {
    let mut arp = vec![0xff; 6];
    arp.extend_from_slice(&[2, 0, 0, 0, 0, 1, 0x08, 0x06]);
    arp.extend_from_slice(&[0u8; 28]);
    arp
}

/// Frames of every kind the examples tell apart: UDP with and without a
/// payload, TCP, ICMP, a shim already on, ARP, IP with options, runts,
/// tagged frames.
fn frames() -> Vec<Vec<u8>> {
    let mut v = Vec::new();
    for i in 0..40u8 {
        v.push(udp([10, 0, i % 5, 1], Some(i.wrapping_mul(37))));
    }
    v.push(udp([10, 0, 0, 1], None));
    v.push(eth_ipv4(6, [10, 1, 0, 1], &[0u8; 20]));
    v.push(eth_ipv4(1, [10, 2, 0, 1], &[8, 0, 0, 0, 0, 1, 0, 1]));
    let mut options = eth_ipv4(17, [10, 3, 0, 1], &[0u8; 12]);
    options[14] = 0x46;
    v.push(options);
    v.push(arp_frame());
    v.push(vec![0u8; 14]);
    v.push(eth_ipv4(17, [10, 4, 0, 1], &[])[..20].to_vec());
    // A network on a VLAN: its frames come tagged (802.1Q, 802.1ad).
    for (k, tpid) in [0x8100u16, 0x88a8].into_iter().enumerate() {
        v.push(tagged(&udp([10, 5, k as u8, 1], Some(7)), tpid));
    }
    v.push(tagged(&arp_frame(), 0x8100));
    v
}

/// `frame` with a VLAN tag (`tpid`, VLAN 42) after its addresses.
fn tagged(frame: &[u8], tpid: u16) -> Vec<u8> {
    let mut t = frame[..12].to_vec();
    t.extend_from_slice(&tpid.to_be_bytes());
    t.extend_from_slice(&42u16.to_be_bytes());
    t.extend_from_slice(&frame[12..]);
    t
}

/// The engine's run of `program` on `frame`: (action, frame after).
fn engine(program: &Program, frame: &[u8]) -> (u32, Vec<u8>) {
    let mut buf = vec![0u8; 256 + frame.len() + 256];
    buf[256..256 + frame.len()].copy_from_slice(frame);
    let mut f = Frame {
        buf: &mut buf,
        start: 256,
        len: frame.len(),
        ingress: 1,
        queue: 0,
    };
    let action = match program.run(&mut f, &mut Scratch::default()) {
        Ok(Verdict::Aborted) => 0,
        Ok(Verdict::Drop) => 1,
        Ok(Verdict::Pass) => 2,
        Ok(Verdict::Tx) => 3,
        Ok(Verdict::Redirect(_)) => 4,
        Err(trap) => panic!(
            "the engine trapped ({}) where the kernel's verifier proved the program safe",
            trap.reason()
        ),
    };
    (action, f.data().to_vec())
}

fn sorted(mut v: Vec<(Vec<u8>, Vec<u8>)>) -> Vec<(Vec<u8>, Vec<u8>)> {
    v.sort();
    v
}

/// Runs `name` over every frame in the engine and the kernel, with the
/// maps first filled by `fill` in both; compares everything.
fn same_as_the_kernel(test: &str, name: &str, fill: &[(&str, Vec<u8>, Vec<u8>)]) {
    let Some(elf) = example(test, name) else {
        return;
    };
    let image = Image::load(&elf, None).expect("the engine takes the example");
    assert_eq!(image.name, name);
    let kernel = verify(&elf, name).expect("the kernel's verifier takes the example");
    let program = image.instantiate(prism_program::DEFAULT_BUDGET);
    for (map, key, value) in fill {
        kernel.map_update(map, key, value).unwrap();
        let m = program.maps.iter().find(|m| m.def.name == *map).unwrap();
        assert_eq!(m.update(key, value, 0), 0);
    }
    for (k, frame) in frames().iter().enumerate() {
        let k_run = kernel.test_run(frame, 1).unwrap();
        let (action, out) = engine(&program, frame);
        assert_eq!(action, k_run.action, "{name}, frame {k}: the action");
        assert_eq!(out, k_run.frame, "{name}, frame {k}: the frame after");
    }
    for def in &image.maps {
        let ours = program
            .maps
            .iter()
            .find(|m| m.def.name == def.name)
            .unwrap()
            .entries();
        let theirs = kernel.map_entries(&def.name).unwrap();
        assert_eq!(sorted(ours), sorted(theirs), "{name}: map {}", def.name);
    }
}

#[test]
fn the_source_counter_counts_what_the_kernel_counts() {
    same_as_the_kernel("program count_sources", "count_sources", &[]);
}

#[test]
fn the_content_router_chooses_the_ports_the_kernel_chooses() {
    let fill: Vec<(&str, Vec<u8>, Vec<u8>)> = (0u32..256)
        .step_by(3)
        .map(|b| {
            (
                "routes",
                b.to_le_bytes().to_vec(),
                (b % 4).to_le_bytes().to_vec(),
            )
        })
        .collect();
    same_as_the_kernel("program content_router", "content_router", &fill);
}

#[test]
fn the_shim_header_is_pushed_and_popped_as_the_kernel_does() {
    same_as_the_kernel("program shim_header", "shim_header", &[]);
    let Some(elf) = example("program shim_header (round trip)", "shim_header") else {
        return;
    };
    let program = Image::load(&elf, None)
        .unwrap()
        .instantiate(prism_program::DEFAULT_BUDGET);
    let frame = udp([10, 0, 0, 1], Some(9));
    let (_, pushed) = engine(&program, &frame);
    assert_eq!(
        (pushed.len(), pushed[23]),
        (frame.len() + 8, 253),
        "8 bytes more, IP protocol 253"
    );
    let (_, popped) = engine(&program, &pushed);
    assert_eq!(
        popped, frame,
        "popped: the frame as it was, checksum included"
    );
    // Tagged, as a booked network's frames are: after the tag's IPv4 header.
    let frame = tagged(&frame, 0x8100);
    let (_, pushed) = engine(&program, &frame);
    assert_eq!((pushed.len(), pushed[27]), (frame.len() + 8, 253));
    assert_eq!(engine(&program, &pushed).1, frame);
}

#[test]
fn what_the_verifier_refuses_is_refused_with_its_log_at_an_instruction() {
    let test = "program refused by the verifier";
    if !root(test) {
        return;
    }
    let Some(elf) = bpf_object(test, "crates/io/tests/linux/programs/past_the_end.c") else {
        return;
    };
    match verify(&elf, "past_the_end") {
        Err(VerifyError::Refused { at, reason, log }) => {
            assert!(at.is_some(), "the instruction is named: {log}");
            // The wording is the kernel's own and changes between versions
            // ("invalid access to packet", "R1 offset is outside of the packet").
            assert!(reason.contains("packet"), "{reason}");
        }
        other => panic!("the verifier took a program reading past the frame: {other:?}"),
    }
}
