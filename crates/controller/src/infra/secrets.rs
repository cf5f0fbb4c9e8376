//! Passwords and bearer secrets. Passwords are kept as Argon2id hashes
//! (PHC strings; the cost is `PasswordCost`, by default the `argon2`
//! crate's: 19 MiB, 2 passes, 1 lane, OWASP's advice for Argon2id, tunable
//! with `prism controller serve --argon2-*`; a hash keeps the cost it was
//! made with, so verifying an older one still works);
//! tokens and API keys are 256 random bits, kept only as their SHA-256:
//! a secret that long needs no slow hash, and the digest is the lookup key.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
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

/// Argon2id's cost for new password hashes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PasswordCost {
    /// Memory, KiB (8 × lanes at least).
    pub memory_kib: u32,
    /// Passes over the memory (at least 1).
    pub passes: u32,
    /// Lanes (1 to 2^24 - 1).
    pub lanes: u32,
}

impl Default for PasswordCost {
    fn default() -> Self {
        PasswordCost {
            memory_kib: Params::DEFAULT_M_COST,
            passes: Params::DEFAULT_T_COST,
            lanes: Params::DEFAULT_P_COST,
        }
    }
}

/// `KIB,PASSES,LANES`, as `prism controller serve --argon2` takes it.
impl std::fmt::Display for PasswordCost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},{},{}", self.memory_kib, self.passes, self.lanes)
    }
}

impl std::str::FromStr for PasswordCost {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let n: Vec<u32> = s
            .split(',')
            .map(|x| x.trim().parse::<u32>())
            .collect::<Result<_, _>>()
            .map_err(|_| format!("`{s}`: KIB,PASSES,LANES, three numbers"))?;
        let [memory_kib, passes, lanes] = n[..] else {
            return Err(format!("`{s}`: KIB,PASSES,LANES, three numbers"));
        };
        let c = PasswordCost {
            memory_kib,
            passes,
            lanes,
        };
        c.hasher().map(|_| c)
    }
}

impl PasswordCost {
    /// The hasher, or why the cost is not one Argon2 takes.
    pub fn hasher(self) -> Result<Argon2<'static>, String> {
        let p = Params::new(self.memory_kib, self.passes, self.lanes, None)
            .map_err(|e| format!("Argon2id cost {self:?}: {e}"))?;
        Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, p))
    }
}

pub fn hash_password(password: &str, cost: PasswordCost) -> Result<String, String> {
    if password.chars().count() < MIN_PASSWORD {
        return Err(format!("at least {MIN_PASSWORD} characters are needed"));
    }
    let salt_bytes: [u8; 16] = random_bytes();
    let salt = SaltString::encode_b64(&salt_bytes).map_err(|e| e.to_string())?;
    cost.hasher()?
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

/// A hash of nothing anyone knows, at `cost`, verified when a user does
/// not exist so that a login takes as long for an unknown name as for a
/// wrong password.
pub fn dummy_hash(cost: PasswordCost) -> Result<String, String> {
    hash_password(&hex(&random_bytes::<16>()), cost)
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

/// A storage key's access key ID (its secret is derived, never stored).
pub fn storage_access_key() -> String {
    prism_storage::keys::access_key_from(random_bytes())
}

pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_verify_only_themselves_and_hashes_are_argon2id() {
        let h = hash_password("correct horse battery", PasswordCost::default()).unwrap();
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(verify_password("correct horse battery", &h));
        assert!(!verify_password("correct horse batterY", &h));
        assert!(!verify_password("x", "not a hash"));
        assert!(hash_password("short", PasswordCost::default()).is_err());
        let h2 = hash_password("correct horse battery", PasswordCost::default()).unwrap();
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

    #[test]
    fn the_cost_is_tunable_and_kept_in_each_hash() {
        let cheap: PasswordCost = "8192,1,1".parse().unwrap();
        assert_eq!(cheap.to_string(), "8192,1,1");
        let h = hash_password("correct horse battery", cheap).unwrap();
        assert!(h.starts_with("$argon2id$v=19$m=8192,t=1,p=1$"), "{h}");
        assert!(verify_password("correct horse battery", &h));
        assert!(!verify_password("correct horse batterz", &h));
        let d = hash_password("correct horse battery", PasswordCost::default()).unwrap();
        assert!(d.contains("$m=19456,t=2,p=1$"), "{d}");
        for bad in ["", "8192,1", "8192,1,1,1", "x,1,1", "1,1,1", "8192,0,1"] {
            assert!(bad.parse::<PasswordCost>().is_err(), "{bad}");
        }
    }
}
