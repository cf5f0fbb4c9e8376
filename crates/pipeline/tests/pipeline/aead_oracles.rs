//! The AEAD services against independent implementations (RustCrypto's
//! `chacha20poly1305` and `aes-gcm`; Prism's services run `ring`): what
//! Prism seals they open, what they seal Prism opens, and the wire format
//! is nonce (12) ‖ ciphertext ‖ tag (16) of the UDP payload.

use aes_gcm::aead::{Aead as _, KeyInit, Payload};
use etherparse::{PacketBuilder, SlicedPacket, TransportSlice};
use prism_pipeline::fast::payload::{self, Aead};
use prism_pipeline::{PacketPool, PayloadOp, PayloadScratch};

fn udp(payload: &[u8]) -> Vec<u8> {
    let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
        .udp(1000, 2000);
    let mut v = Vec::new();
    b.write(&mut v, payload).unwrap();
    v
}

fn payload_of(frame: &[u8]) -> Vec<u8> {
    let s = SlicedPacket::from_ethernet(frame).unwrap();
    let Some(TransportSlice::Udp(u)) = s.transport else {
        panic!("not UDP")
    };
    u.payload().to_vec()
}

fn apply(svc: PayloadOp, frame: &[u8], s: &mut PayloadScratch) -> Result<Vec<u8>, String> {
    let mut pool = PacketPool::new(1);
    let mut p = pool.packet(frame, 0, 0).unwrap();
    let info = prism_wire::parse_frame(p.data(), 0).unwrap();
    payload::apply(&svc, &mut p, &info, s).map_err(|e| format!("{e:?}"))?;
    Ok(p.data().to_vec())
}

/// An oracle: (seal?, nonce, data) → its output, `None` if refused.
type Oracle = Box<dyn Fn(bool, &[u8; 12], &[u8]) -> Option<Vec<u8>>>;

/// The oracle's open and seal for `aead` under `key`.
fn oracle(aead: Aead, key: &[u8; 32]) -> Oracle {
    let key = *key;
    Box::new(move |seal, nonce, data| {
        let p = Payload {
            msg: data,
            aad: &[],
        };
        macro_rules! run {
            ($c:expr) => {{
                let c = $c;
                if seal {
                    c.encrypt(nonce.into(), p).ok()
                } else {
                    c.decrypt(nonce.into(), p).ok()
                }
            }};
        }
        match aead {
            Aead::ChaCha20Poly1305 => {
                run!(chacha20poly1305::ChaCha20Poly1305::new((&key).into()))
            }
            Aead::Aes128Gcm => run!(aes_gcm::Aes128Gcm::new_from_slice(&key[..16]).unwrap()),
            Aead::Aes256Gcm => run!(aes_gcm::Aes256Gcm::new((&key).into())),
        }
    })
}

#[test]
fn sealed_by_prism_opens_elsewhere_and_back() {
    let key: [u8; 32] = std::array::from_fn(|i| i as u8 * 7 + 1);
    for aead in [Aead::ChaCha20Poly1305, Aead::Aes128Gcm, Aead::Aes256Gcm] {
        let o = oracle(aead, &key);
        let mut s = PayloadScratch::new(3);
        for len in [0usize, 1, 15, 16, 17, 255, 1458] {
            let text: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            let sealed = apply(PayloadOp::Seal { aead, key }, &udp(&text), &mut s).unwrap();
            let p = payload_of(&sealed);
            assert_eq!(p.len(), len + 28, "{aead:?}");
            let nonce: [u8; 12] = p[..12].try_into().unwrap();
            assert_eq!(&nonce[..4], &3u32.to_be_bytes(), "pipeline id in the nonce");
            assert_eq!(
                o(false, &nonce, &p[12..]).as_deref(),
                Some(&text[..]),
                "{aead:?} {len}"
            );
            // The other way: sealed by the oracle, opened by Prism.
            let theirs = o(true, &[9; 12], &text).unwrap();
            let mut wire = vec![9u8; 12];
            wire.extend_from_slice(&theirs);
            let opened = apply(PayloadOp::Open { aead, key }, &udp(&wire), &mut s).unwrap();
            assert_eq!(payload_of(&opened), text, "{aead:?} {len}");
            // A flipped bit anywhere is refused.
            let mut bad = wire.clone();
            bad[12 + len / 2] ^= 0x40;
            assert!(apply(PayloadOp::Open { aead, key }, &udp(&bad), &mut s).is_err());
        }
    }
}

#[test]
fn the_same_key_under_another_cipher_does_not_open() {
    let key = [4u8; 32];
    let mut s = PayloadScratch::new(1);
    let sealed = apply(
        PayloadOp::Seal {
            aead: Aead::Aes256Gcm,
            key,
        },
        &udp(b"payload"),
        &mut s,
    )
    .unwrap();
    for aead in [Aead::ChaCha20Poly1305, Aead::Aes128Gcm] {
        assert!(apply(PayloadOp::Open { aead, key }, &sealed, &mut s).is_err());
    }
}
