//! A researcher's program per packet: Prism's engine (`prism_program`)
//! against the kernel's own run of the same object (`BPF_PROG_TEST_RUN`
//! with a repeat count, JIT on), side by side in one run, on one frame
//! run again and again (as the kernel's repeat does: what a run changes,
//! a pushed header, stays for the next). Needs root, clang and libbpf's
//! headers. `cargo bench -p prism-io --bench program`; figures in
//! docs/customizing.md.

use std::time::Instant;

use prism_io::program::verify;
use prism_program::{DEFAULT_BUDGET, Frame, Image, Scratch};

const RUNS: u32 = 2_000_000;

fn udp_frame() -> Vec<u8> {
    let mut f = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00];
    f.extend_from_slice(&[
        0x45, 0, 0, 46, 0, 7, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 9, 0, 2,
    ]);
    f.extend_from_slice(&[0x30, 0x39, 0x00, 0x35, 0, 26, 0, 0, 42]);
    f.resize(64, 0);
    f
}

fn main() {
    if unsafe_free_euid() != 0 {
        eprintln!("program bench: skipped (needs root to load programs into the kernel)");
        return;
    }
    println!(
        "| program | instructions | Prism's engine (ns/packet) | kernel, JIT (ns/packet) | ratio |"
    );
    println!("|---|---|---|---|---|");
    for name in ["count_sources", "content_router", "shim_header"] {
        let Some(elf) = prism_testkit::bpf_object("program bench", &format!("programs/{name}.c"))
        else {
            return;
        };
        let image = Image::load(&elf, None).expect("the engine takes it");
        let kernel = verify(&elf, name).expect("the kernel takes it");
        let program = image.instantiate(DEFAULT_BUDGET);
        if name == "content_router" {
            kernel
                .map_update("routes", &42u32.to_le_bytes(), &2u32.to_le_bytes())
                .unwrap();
            program.maps[0].update(&42u32.to_le_bytes(), &2u32.to_le_bytes(), 0);
        }
        let frame = udp_frame();
        let theirs = kernel
            .test_run(&frame, RUNS)
            .expect("BPF_PROG_TEST_RUN")
            .per_run;
        let mut buf = vec![0u8; 256 + 64 + 256];
        buf[256..320].copy_from_slice(&frame);
        let mut f = Frame {
            buf: &mut buf,
            start: 256,
            len: 64,
            ingress: 1,
            queue: 0,
        };
        let mut scratch = Scratch::default();
        let t = Instant::now();
        for _ in 0..RUNS {
            std::hint::black_box(program.run(&mut f, &mut scratch)).ok();
        }
        let ours = t.elapsed().as_nanos() as f64 / f64::from(RUNS);
        let theirs = theirs.as_nanos() as f64;
        println!(
            "| {name} | {} | {ours:.1} | {theirs:.1} | {:.2} |",
            program.len(),
            ours / theirs.max(0.1)
        );
    }
}

fn unsafe_free_euid() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2)?.parse().ok())
        })
        .unwrap_or(u32::MAX)
}
