//! Passwords and bearer secrets. Passwords are kept as Argon2id hashes
//! (PHC strings, RFC 9106 parameters of the `argon2` crate's default);
//! tokens and API keys are 256 random bits, kept only as their SHA-256:
//! a secret that long needs no slow hash, and the digest is the lookup key.

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use ring::rand::{SecureRandom, SystemRandom};
use sha2::{Digest, Sha256};

/// The shortest password accepted.
pub const MIN_PASSWORD: usize = 10;

/// What prefixes a session token and an API key, so a leaked one is
/// recognisable (as GitHub's `ghp_`).
pub const TOKEN_PREFIX: &str = "prt_";
pub const KEY_PREFIX: &str = "prk_";
/// A node key: what a node presents in its heartbeats.
pub const NODE_KEY_PREFIX: &str = "prn_";

fn random_bytes<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    // The OS generator fails only if the kernel has none: nothing to recover.
    SystemRandom::new()
        .fill(&mut b)
        .expect("the operating system's random generator");
    b
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn hash_password(password: &str) -> Result<String, String> {
    if password.chars().count() < MIN_PASSWORD {
        return Err(format!("at least {MIN_PASSWORD} characters are needed"));
    }
    let salt_bytes: [u8; 16] = random_bytes();
    let salt = SaltString::encode_b64(&salt_bytes).map_err(|e| e.to_string())?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| e.to_string())
}

/// Whether `password` is the one `hash` was made from. A malformed hash
/// verifies nothing.
pub fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash)
        .map(|h| {
            Argon2::default()
                .verify_password(password.as_bytes(), &h)
                .is_ok()
        })
        .unwrap_or(false)
}

/// A hash of nothing anyone knows, verified when a user does not exist so
/// that a login takes as long for an unknown name as for a wrong password.
pub fn dummy_hash() -> &'static str {
    static H: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    H.get_or_init(|| hash_password(&hex(&random_bytes::<16>())).unwrap_or_default())
}

/// A new secret with `prefix`, and the digest to store.
pub fn new_secret(prefix: &str) -> (String, String) {
    let secret = format!("{prefix}{}", hex(&random_bytes::<32>()));
    let digest = digest(&secret);
    (secret, digest)
}

pub fn digest(secret: &str) -> String {
    hex(&Sha256::digest(secret.trim().as_bytes()))
}

pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_verify_only_themselves_and_hashes_are_argon2id() {
        let h = hash_password("correct horse battery").unwrap();
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(verify_password("correct horse battery", &h));
        assert!(!verify_password("correct horse batterY", &h));
        assert!(!verify_password("x", "not a hash"));
        assert!(hash_password("short").is_err());
        let h2 = hash_password("correct horse battery").unwrap();
        assert_ne!(h, h2, "salted");
    }

    #[test]
    fn secrets_are_random_prefixed_and_stored_as_digests() {
        let (a, da) = new_secret(TOKEN_PREFIX);
        let (b, _) = new_secret(TOKEN_PREFIX);
        assert_ne!(a, b);
        assert!(a.starts_with("prt_") && a.len() == 4 + 64);
        assert_eq!(digest(&a), da);
        assert!(!da.contains(&a[4..]));
    }
}
