//! Payload encryption against OpenSSL: `openssl speed -evp CIPHER -bytes
//! 1458` (AES-128-GCM, AES-256-GCM, ChaCha20-Poly1305) against Prism's
//! `seal` service on a 1,500-byte UDP frame (1,458 bytes of payload), both
//! on the same core, in turn.
//!
//! OpenSSL's figure is its EVP interface alone; Prism's includes what the
//! pipeline does around the cipher: copying the frame into a pool buffer,
//! parsing it, and rewriting the lengths and both checksums.

use crate::{PeersArgs, Row};
use anyhow::{Context, Result};
use prism_node::pin_to_core;
use prism_pipeline::fast::payload::{self, Aead};
use prism_pipeline::{PacketPool, PayloadOp, PayloadScratch};
use std::process::Command;
use std::time::{Duration, Instant};

const PAYLOAD: usize = 1458;

/// OpenSSL's bytes per second for `cipher` on `core`.
fn openssl(cipher: &str, core: usize, secs: f64) -> Result<f64> {
    let out = Command::new("taskset")
        .args(["-c", &core.to_string(), "openssl", "speed", "-evp", cipher])
        .args(["-bytes", &PAYLOAD.to_string(), "-seconds"])
        .arg(format!("{}", secs.ceil().max(1.0) as u64))
        .output()
        .context("running openssl speed (Debian package openssl)")?;
    let text = String::from_utf8_lossy(&out.stdout);
    parse_speed(&text)
        .with_context(|| format!("openssl speed -evp {cipher} printed no figure:\n{text}"))
}

/// The last line of `openssl speed`: `AES-128-GCM  981752.40k` (1000s of
/// bytes per second).
fn parse_speed(text: &str) -> Option<f64> {
    let last = text.lines().rev().find(|l| !l.trim().is_empty())?;
    let v = last.split_whitespace().last()?;
    let k = v.strip_suffix('k')?;
    k.parse::<f64>().ok().map(|x| x * 1e3)
}

/// Prism's payload bytes per second sealing with `aead` on `core`.
fn prism(aead: Aead, core: usize, secs: f64) -> f64 {
    std::thread::scope(|sc| {
        sc.spawn(|| {
            pin_to_core(core);
            let spec = prism_pipeline::traffic::FrameSpec {
                frame_len: 1500,
                ..Default::default()
            };
            let frame = prism_pipeline::traffic::build(&spec, &[0x5a; PAYLOAD]);
            let svc = PayloadOp::Seal { aead, key: [3; 32] };
            let mut pool = PacketPool::new(2);
            let mut s = PayloadScratch::new(1);
            let mut one = || {
                let mut p = pool.packet(&frame, 0, 0).expect("a pool buffer");
                let info = prism_wire::parse_frame(p.data(), 0).expect("a valid frame");
                payload::apply(&svc, &mut p, &info, &mut s).expect("the payload operation applies");
                pool.recycle(p);
            };
            for _ in 0..1000 {
                one();
            }
            let t = Instant::now();
            let mut n = 0u64;
            while t.elapsed() < Duration::from_secs_f64(secs) {
                for _ in 0..256 {
                    one();
                }
                n += 256;
            }
            n as f64 * PAYLOAD as f64 / t.elapsed().as_secs_f64()
        })
        .join()
        .expect("the measuring thread does not panic")
    })
}

pub fn run(args: &PeersArgs) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for (name, cipher, aead) in [
        ("AES-128-GCM", "aes-128-gcm", Aead::Aes128Gcm),
        ("AES-256-GCM", "aes-256-gcm", Aead::Aes256Gcm),
        (
            "ChaCha20-Poly1305",
            "chacha20-poly1305",
            Aead::ChaCha20Poly1305,
        ),
    ] {
        println!("  AEAD {name}, 1,458-byte payloads: openssl speed and Prism in turn ...");
        let (mut theirs, mut ours) = (Vec::new(), Vec::new());
        for _ in 0..args.rounds {
            theirs.push(openssl(cipher, args.core, args.seconds)?);
            ours.push(prism(aead, args.core, args.seconds));
        }
        // Bytes per second, as Mpps of payloads.
        let mpps =
            |v: Vec<f64>| -> Vec<f64> { v.into_iter().map(|b| b / PAYLOAD as f64 / 1e6).collect() };
        let row = Row::rate(
            format!("AEAD seal, {name}, 1,458-byte payload"),
            &format!("OpenSSL (openssl speed -evp {cipher})"),
            &mpps(theirs),
            &mpps(ours),
        );
        let gbs = |m: f64| m * 1e6 * PAYLOAD as f64 / 1e9;
        let note = format!(
            "{:.2} / {:.2} GB/s; Prism's includes the frame copy, parse and checksums",
            gbs(row.peer_value),
            gbs(row.prism_value)
        );
        rows.push(row.note(note));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    #[test]
    fn openssl_speed_output_is_read() {
        let t = "The 'numbers' are in 1000s of bytes per second processed.\ntype         1458 bytes\nAES-128-GCM     981752.40k\n";
        assert_eq!(super::parse_speed(t), Some(981_752_400.0));
        assert_eq!(super::parse_speed("error\n"), None);
    }
}
