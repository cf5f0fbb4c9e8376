//! Storage keys: an access key ID the controller makes and records, and
//! its secret, derived from the controller's master key (HMAC-SHA256), so
//! that no secret is stored: the controller shows it once, signs URLs
//! with it, and the endpoint derives it again to check a signature.

use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::sync::Arc;

/// The controller's master key: 32 bytes, from a private file.
#[derive(Clone)]
pub struct MasterKey(Arc<[u8; 32]>);

impl std::fmt::Debug for MasterKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MasterKey(…)")
    }
}

impl MasterKey {
    pub fn new(bytes: [u8; 32]) -> Self {
        Self(Arc::new(bytes))
    }

    /// The master key in file `path` (0600), made there if there is none.
    pub fn load_or_create(path: &std::path::Path) -> std::io::Result<Self> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        if let Ok(b) = std::fs::read(path) {
            let bytes: [u8; 32] = b.try_into().map_err(|_| {
                std::io::Error::other(format!("{}: not a 32-byte key", path.display()))
            })?;
            return Ok(Self::new(bytes));
        }
        let bytes = random()?;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)?;
        f.write_all(&bytes)?;
        Ok(Self::new(bytes))
    }

    /// Access key `access_key`'s secret.
    pub fn secret(&self, access_key: &str) -> String {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.0[..]).expect("any key length");
        mac.update(b"prism-storage-key\0");
        mac.update(access_key.as_bytes());
        let out = mac.finalize().into_bytes();
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&out[..30])
    }
}

/// Whether `s` has the shape of an access key ID the controller makes
/// (`PK` and 18 of A-Z, 0-9).
pub fn is_access_key(s: &str) -> bool {
    s.len() == 20
        && s.starts_with("PK")
        && s.bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
}

/// An access key ID from 18 random bytes.
pub fn access_key_from(random: [u8; 18]) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let tail: String = random
        .iter()
        .map(|b| ALPHABET[usize::from(b % 32)] as char)
        .collect();
    format!("PK{tail}")
}

/// `N` bytes from the kernel's random source.
pub(crate) fn random<const N: usize>() -> std::io::Result<[u8; N]> {
    use std::io::Read;
    let mut bytes = [0u8; N];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_the_keys_own_and_the_masters() {
        let (a, b) = (MasterKey::new([1; 32]), MasterKey::new([2; 32]));
        let k = access_key_from([7; 18]);
        assert!(is_access_key(&k), "{k}");
        assert_eq!(a.secret(&k), a.secret(&k));
        assert_ne!(a.secret(&k), b.secret(&k));
        assert_ne!(a.secret(&k), a.secret(&access_key_from([8; 18])));
        assert_eq!(a.secret(&k).len(), 40);
        assert!(!is_access_key("AKIAIOSFODNN7EXAMPLE"));
    }
}
