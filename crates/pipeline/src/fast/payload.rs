//! Payload operations (paper 004's co-processors, for real): encryption and
//! compression of UDP payloads, as an action of a network.
//!
//! In: an IPv4/UDP packet (not IPIP, not a fragment). Out: the same packet
//! with its UDP payload transformed, UDP length, IP total length and both
//! checksums updated; or a drop reason: `not-udp`, `payload-too-large`,
//! `auth-failed` (AEAD tag mismatch), `bad-padding` (DES), `corrupt-compressed`.
//!
//! Formats of the transformed payload:
//! - `seal`/`open`: an AEAD, ChaCha20-Poly1305 (RFC 8439), AES-128-GCM or
//!   AES-256-GCM (NIST SP 800-38D): nonce (12) ‖ ciphertext ‖ tag (16).
//!   Nonces are the pipeline id (4 bytes) and a per-pipeline counter (8), so
//!   no nonce repeats under a key while pipeline ids are distinct. The
//!   ciphers are `ring`'s (BoringSSL's assembly: AES-NI, PCLMULQDQ, AVX2),
//!   as fast as OpenSSL's; each pipeline keeps its expanded keys, so a
//!   packet costs no key schedule.
//! - `des-encrypt`/`des-decrypt`: DES-CBC with PKCS#7 padding, IV (8) ‖
//!   ciphertext, for fidelity to paper 004's DES units. DES is broken; use it
//!   to reproduce the paper, never to protect traffic.
//! - `compress`/`decompress`: LZ4 block, original length (u32 LE) ‖ block.
//!
//! Work happens in a per-pipeline scratch buffer: nothing is allocated per
//! packet.

use crate::fast::packet::{MAX_FRAME, Packet};
use crate::fast::reasons::ActionDrop;
use cbc::cipher::block_padding::Pkcs7;
use cbc::cipher::{BlockDecryptMut, BlockEncryptMut, KeyIvInit};
use prism_wire::{PacketInfo, checksum, protocol};
use ring::aead::{self, Aad, LessSafeKey, Nonce, UnboundKey};

/// An authenticated cipher of the `seal` and `open` services.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Aead {
    ChaCha20Poly1305,
    Aes128Gcm,
    Aes256Gcm,
}

impl Aead {
    /// Key bytes (of the 32 a service holds, the first this many).
    pub const fn key_len(self) -> usize {
        match self {
            Aead::Aes128Gcm => 16,
            _ => 32,
        }
    }

    fn algorithm(self) -> &'static aead::Algorithm {
        match self {
            Aead::ChaCha20Poly1305 => &aead::CHACHA20_POLY1305,
            Aead::Aes128Gcm => &aead::AES_128_GCM,
            Aead::Aes256Gcm => &aead::AES_256_GCM,
        }
    }
}

/// A payload operation and its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PayloadOp {
    /// `key`: 32 bytes, of which AES-128 uses the first 16.
    Seal {
        aead: Aead,
        key: [u8; 32],
    },
    Open {
        aead: Aead,
        key: [u8; 32],
    },
    DesEncrypt {
        key: [u8; 8],
    },
    DesDecrypt {
        key: [u8; 8],
    },
    Compress,
    Decompress,
}

const AEAD_OVERHEAD: usize = 12 + 16;

/// Expanded keys a pipeline keeps (a network's services use one or two).
const KEYS: usize = 64;

/// Per-pipeline working memory, nonce state and expanded keys.
pub struct PayloadScratch {
    buf: Box<[u8; MAX_FRAME]>,
    pipeline_id: u32,
    counter: u64,
    keys: Vec<(Aead, [u8; 32], LessSafeKey)>,
}

impl std::fmt::Debug for PayloadScratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PayloadScratch")
            .field("pipeline_id", &self.pipeline_id)
            .field("counter", &self.counter)
            .field("keys", &self.keys.len())
            .finish()
    }
}

impl PayloadScratch {
    pub fn new(pipeline_id: u32) -> Self {
        Self {
            buf: Box::new([0; MAX_FRAME]),
            pipeline_id,
            counter: 0,
            keys: Vec::with_capacity(KEYS),
        }
    }

    /// The expanded key of (`aead`, `key`): found, or expanded once (the
    /// first packet under a key; the oldest is forgotten past `KEYS`).
    fn key(&mut self, aead: Aead, key: &[u8; 32]) -> Option<usize> {
        if let Some(i) = self
            .keys
            .iter()
            .position(|(a, k, _)| *a == aead && k == key)
        {
            return Some(i);
        }
        let unbound = UnboundKey::new(aead.algorithm(), &key[..aead.key_len()]).ok()?;
        if self.keys.len() == KEYS {
            self.keys.remove(0);
        }
        self.keys.push((aead, *key, LessSafeKey::new(unbound)));
        Some(self.keys.len() - 1)
    }

    fn next_nonce(&mut self) -> [u8; 12] {
        self.counter += 1;
        let mut n = [0u8; 12];
        n[..4].copy_from_slice(&self.pipeline_id.to_be_bytes());
        n[4..].copy_from_slice(&self.counter.to_be_bytes());
        n
    }
}

type DesCbcEnc = cbc::Encryptor<des::Des>;
type DesCbcDec = cbc::Decryptor<des::Des>;

/// Applies `svc` to the UDP payload of `pkt`.
pub fn apply(
    svc: &PayloadOp,
    pkt: &mut Packet,
    info: &PacketInfo,
    s: &mut PayloadScratch,
) -> Result<(), ActionDrop> {
    let key = &info.key;
    if !info.is_ipv4() || info.is_ipip() || key.proto != protocol::UDP {
        return Err(ActionDrop::NotUdp);
    }
    let ip = usize::from(info.l3_offset);
    let data = pkt.data();
    let hl = usize::from(data[ip] & 0x0f) * 4;
    let frag = u16::from_be_bytes([data[ip + 6], data[ip + 7]]);
    if frag & 0x3fff != 0 {
        return Err(ActionDrop::NotUdp);
    }
    let udp = ip + hl;
    let start = udp + 8;
    let end = usize::from(info.l3_end);
    if start > end || end > data.len() {
        return Err(ActionDrop::NotUdp);
    }
    let payload = &data[start..end];
    let n = payload.len();
    let room = MAX_FRAME - start;
    let out_len = match svc {
        // The AEADs work in the packet's own buffer. The nonce goes in
        // front of the payload: the headers move 12 bytes into the
        // headroom to make room for it (a move of some 42 bytes, where
        // moving the payload would be up to 1,458), or, with no headroom
        // left, the payload moves.
        PayloadOp::Seal { aead, key } => {
            if n + AEAD_OVERHEAD > room {
                return Err(ActionDrop::PayloadTooLarge);
            }
            let nonce = s.next_nonce();
            let k = s.key(*aead, key).ok_or(ActionDrop::AuthFailed)?;
            let headers_moved = pkt.insert_gap(start, 12);
            if !pkt.set_len(start + n + AEAD_OVERHEAD) {
                return Err(ActionDrop::PayloadTooLarge);
            }
            let d = pkt.data_mut();
            if !headers_moved {
                d.copy_within(start..start + n, start + 12);
            }
            d[start..start + 12].copy_from_slice(&nonce);
            let body = &mut d[start + 12..start + 12 + n];
            let tag = s.keys[k]
                .2
                .seal_in_place_separate_tag(Nonce::assume_unique_for_key(nonce), Aad::empty(), body)
                .map_err(|_| ActionDrop::PayloadTooLarge)?;
            d[start + 12 + n..start + n + AEAD_OVERHEAD].copy_from_slice(tag.as_ref());
            finish(pkt, ip, hl, n + AEAD_OVERHEAD);
            return Ok(());
        }
        PayloadOp::Open { aead, key } => {
            if n < AEAD_OVERHEAD {
                return Err(ActionDrop::AuthFailed);
            }
            let m = n - AEAD_OVERHEAD;
            let nonce: [u8; 12] = payload[..12].try_into().expect("12 bytes");
            let k = s.key(*aead, key).ok_or(ActionDrop::AuthFailed)?;
            // Ciphertext and tag, opened in place, then moved over the nonce;
            // a refused packet is dropped, so its garbled buffer is no loss.
            let d = pkt.data_mut();
            s.keys[k]
                .2
                .open_in_place(
                    Nonce::assume_unique_for_key(nonce),
                    Aad::empty(),
                    &mut d[start + 12..end],
                )
                .map_err(|_| ActionDrop::AuthFailed)?;
            // The headers move 12 bytes forward over the nonce (a move of
            // some 42 bytes, not of the payload).
            if !pkt.remove_gap(start, 12) || !pkt.set_len(start + m) {
                return Err(ActionDrop::PayloadTooLarge);
            }
            finish(pkt, ip, hl, m);
            return Ok(());
        }
        PayloadOp::DesEncrypt { key } => {
            let padded = (n / 8 + 1) * 8;
            if 8 + padded > room {
                return Err(ActionDrop::PayloadTooLarge);
            }
            let nonce = s.next_nonce();
            let iv: [u8; 8] = nonce[4..].try_into().expect("8 bytes");
            s.buf[8..8 + n].copy_from_slice(payload);
            let enc = DesCbcEnc::new(key.into(), &iv.into());
            let ct = enc
                .encrypt_padded_mut::<Pkcs7>(&mut s.buf[8..8 + padded], n)
                .map_err(|_| ActionDrop::PayloadTooLarge)?;
            let len = ct.len();
            s.buf[..8].copy_from_slice(&iv);
            8 + len
        }
        PayloadOp::DesDecrypt { key } => {
            if n < 16 || !(n - 8).is_multiple_of(8) {
                return Err(ActionDrop::BadPadding);
            }
            let iv: [u8; 8] = payload[..8].try_into().expect("8 bytes");
            s.buf[..n - 8].copy_from_slice(&payload[8..]);
            let dec = DesCbcDec::new(key.into(), &iv.into());
            dec.decrypt_padded_mut::<Pkcs7>(&mut s.buf[..n - 8])
                .map_err(|_| ActionDrop::BadPadding)?
                .len()
        }
        PayloadOp::Compress => {
            if 4 + lz4_flex::block::get_maximum_output_size(n) > MAX_FRAME {
                return Err(ActionDrop::PayloadTooLarge);
            }
            s.buf[..4].copy_from_slice(&(n as u32).to_le_bytes());
            let c = lz4_flex::block::compress_into(payload, &mut s.buf[4..])
                .map_err(|_| ActionDrop::PayloadTooLarge)?;
            if 4 + c > room {
                return Err(ActionDrop::PayloadTooLarge);
            }
            4 + c
        }
        PayloadOp::Decompress => {
            let size = payload
                .get(..4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
                .ok_or(ActionDrop::CorruptCompressed)?;
            if size > room {
                return Err(ActionDrop::CorruptCompressed);
            }
            let got = lz4_flex::block::decompress_into(&payload[4..], &mut s.buf[..size])
                .map_err(|_| ActionDrop::CorruptCompressed)?;
            if got != size {
                return Err(ActionDrop::CorruptCompressed);
            }
            size
        }
    };
    // Splice the new payload in and fix the lengths and checksums.
    if !pkt.set_len(start + out_len) {
        return Err(ActionDrop::PayloadTooLarge);
    }
    pkt.data_mut()[start..start + out_len].copy_from_slice(&s.buf[..out_len]);
    finish(pkt, ip, hl, out_len);
    Ok(())
}

/// Sets the IPv4 total length, the UDP length and both checksums of `pkt`,
/// whose UDP payload (after the header at `ip`, `hl` bytes) is now
/// `out_len` bytes.
fn finish(pkt: &mut Packet, ip: usize, hl: usize, out_len: usize) {
    let udp = ip + hl;
    let d = pkt.data_mut();
    let total = (hl + 8 + out_len) as u16;
    d[ip + 2..ip + 4].copy_from_slice(&total.to_be_bytes());
    d[ip + 10..ip + 12].copy_from_slice(&[0, 0]);
    let c = checksum::checksum(&d[ip..ip + hl]);
    d[ip + 10..ip + 12].copy_from_slice(&c.to_be_bytes());
    let ulen = (8 + out_len) as u16;
    d[udp + 4..udp + 6].copy_from_slice(&ulen.to_be_bytes());
    d[udp + 6..udp + 8].copy_from_slice(&[0, 0]);
    let src: [u8; 4] = d[ip + 12..ip + 16].try_into().expect("4 bytes");
    let dst: [u8; 4] = d[ip + 16..ip + 20].try_into().expect("4 bytes");
    let acc = checksum::pseudo_header_sum(src, dst, protocol::UDP, ulen);
    let mut uc = !checksum::fold(checksum::sum(acc, &d[udp..udp + 8 + out_len]));
    if uc == 0 {
        uc = 0xffff;
    }
    d[udp + 6..udp + 8].copy_from_slice(&uc.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fast::packet::PacketPool;

    /// A UDP frame of `n` payload bytes from 10.0.0.1 to 10.0.0.2.
    fn udp_frame(n: usize) -> Vec<u8> {
        let mut f = vec![0u8; 42 + n];
        f[12..14].copy_from_slice(&[0x08, 0x00]);
        f[14] = 0x45;
        f[16..18].copy_from_slice(&((28 + n) as u16).to_be_bytes());
        f[22] = 64;
        f[23] = protocol::UDP;
        f[26..30].copy_from_slice(&[10, 0, 0, 1]);
        f[30..34].copy_from_slice(&[10, 0, 0, 2]);
        let c = checksum::checksum(&f[14..34]);
        f[24..26].copy_from_slice(&c.to_be_bytes());
        f[38..40].copy_from_slice(&((8 + n) as u16).to_be_bytes());
        for (i, b) in f[42..].iter_mut().enumerate() {
            *b = (i * 13 % 256) as u8;
        }
        let acc = checksum::pseudo_header_sum(
            [10, 0, 0, 1],
            [10, 0, 0, 2],
            protocol::UDP,
            (8 + n) as u16,
        );
        let c = match !checksum::fold(checksum::sum(acc, &f[34..])) {
            0 => 0xffff,
            c => c,
        };
        f[40..42].copy_from_slice(&c.to_be_bytes());
        f
    }

    /// With no headroom left the payload moves instead of the headers: the
    /// same bytes either way, and both open back to the frame they were.
    #[test]
    fn seal_and_open_without_headroom_give_the_same_bytes() {
        let mut pool = PacketPool::new(4);
        for aead in [Aead::ChaCha20Poly1305, Aead::Aes128Gcm] {
            let key = [7u8; 32];
            for n in [0usize, 1, 100, 1458] {
                let frame = udp_frame(n);
                let mut out = Vec::new();
                for spend in [false, true] {
                    let mut s = PayloadScratch::new(5);
                    let mut p = pool.packet(&frame, 0, 0).unwrap();
                    if spend {
                        p.spend_headroom();
                    }
                    let info = prism_wire::parse_frame(p.data(), 0).unwrap();
                    apply(&PayloadOp::Seal { aead, key }, &mut p, &info, &mut s).unwrap();
                    let sealed = p.data().to_vec();
                    if spend {
                        p.spend_headroom();
                    }
                    let info = prism_wire::parse_frame(p.data(), 0).unwrap();
                    apply(&PayloadOp::Open { aead, key }, &mut p, &info, &mut s).unwrap();
                    assert_eq!(
                        p.data(),
                        &frame[..],
                        "{aead:?} {n} bytes, no headroom: {spend}"
                    );
                    pool.recycle(p);
                    out.push(sealed);
                }
                assert_eq!(out[0], out[1], "{aead:?} {n} bytes");
                assert_eq!(out[0].len(), frame.len() + AEAD_OVERHEAD);
            }
        }
    }
}
