//! Payload operations (paper 004's units, for real): seal and open with
//! three AEADs, DES-CBC, LZ4, per 1500-byte UDP packet, copy-in and parse
//! included.

use super::{BenchArgs, Figure, measure, wanted};
use prism_pipeline::fast::payload::{self, Aead};
use prism_pipeline::{PacketPool, PayloadOp, PayloadScratch};
use std::hint::black_box;

const AEADS: [(&str, Aead); 3] = [
    ("chacha20poly1305", Aead::ChaCha20Poly1305),
    ("aes-128-gcm", Aead::Aes128Gcm),
    ("aes-256-gcm", Aead::Aes256Gcm),
];
const KEY: [u8; 32] = [3; 32];
const DES_KEY: [u8; 8] = [5; 8];

/// A 1500-byte UDP frame whose payload is repetitive text. The UDP
/// checksum is left stale, which the services neither check nor need
/// (they recompute it).
fn plain_frame() -> Vec<u8> {
    let text: Vec<u8> = (0..1458u32)
        .map(|i| b"prism multi-service edge router "[(i % 32) as usize])
        .collect();
    let spec = prism_pipeline::traffic::FrameSpec {
        frame_len: 1500,
        ..Default::default()
    };
    let mut plain = prism_pipeline::traffic::build(&spec, b"");
    plain[42..1500].copy_from_slice(&text);
    plain
}

/// `input` as `svc` leaves it: the input of the inverse service's row.
fn transformed(
    svc: &PayloadOp,
    input: &[u8],
    scratch: &mut PayloadScratch,
    pool: &mut PacketPool,
) -> Vec<u8> {
    let mut p = pool.packet(input, 0, 0).expect("pool");
    let info = prism_wire::parse_frame(p.data(), 0).expect("valid frame");
    payload::apply(svc, &mut p, &info, scratch).expect("the payload operation applies");
    let v = p.data().to_vec();
    pool.recycle(p);
    v
}

/// Each row's name, service and input frame.
fn cases(scratch: &mut PayloadScratch, pool: &mut PacketPool) -> Vec<(String, PayloadOp, Vec<u8>)> {
    let plain = plain_frame();
    let mut cases = Vec::new();
    for (name, aead) in AEADS {
        let seal = PayloadOp::Seal { aead, key: KEY };
        let sealed = transformed(&seal, &plain, scratch, pool);
        cases.push((format!("payload/{name}-seal/1500B"), seal, plain.clone()));
        let open = PayloadOp::Open { aead, key: KEY };
        cases.push((format!("payload/{name}-open/1500B"), open, sealed));
    }
    let des = PayloadOp::DesEncrypt { key: DES_KEY };
    let encrypted = transformed(&des, &plain, scratch, pool);
    let compressed = transformed(&PayloadOp::Compress, &plain, scratch, pool);
    cases.extend(
        [
            ("payload/des-cbc-encrypt/1500B", des, plain.clone()),
            (
                "payload/des-cbc-decrypt/1500B",
                PayloadOp::DesDecrypt { key: DES_KEY },
                encrypted,
            ),
            ("payload/lz4-compress/1500B", PayloadOp::Compress, plain),
            (
                "payload/lz4-decompress/1500B",
                PayloadOp::Decompress,
                compressed,
            ),
        ]
        .map(|(n, s, i)| (n.to_string(), s, i)),
    );
    cases
}

pub fn run(args: &BenchArgs, reps: usize, push: &mut impl FnMut(Figure)) {
    let mut pool = PacketPool::new(2);
    let mut scratch = PayloadScratch::new(9);
    for (name, svc, input) in cases(&mut scratch, &mut pool) {
        if !wanted(args, &name) {
            continue;
        }
        let n = 2000u64;
        let mut f = measure(&name, n, reps, "", || {
            for _ in 0..n {
                let mut p = pool.packet(&input, 0, 0).expect("pool");
                let info = prism_wire::parse_frame(p.data(), 0).expect("valid frame");
                black_box(payload::apply(&svc, &mut p, &info, &mut scratch))
                    .expect("the payload operation applies");
                pool.recycle(p);
            }
        });
        f.note = format!(
            "{:.2} Gbit/s of payload, incl. copy-in and parse",
            1458.0 * 8.0 * f.mpps / 1e3
        );
        push(f);
    }
}
