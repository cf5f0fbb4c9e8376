//! Users' ssh public keys (an API resource of their own): checked as
//! OpenSSH's `authorized_keys` lines, fingerprinted as OpenSSH does, and
//! installed in their processing nodes at boot.

use crate::app::authz::Principal;
use crate::app::checks::check_name;
use crate::app::context::Context;
use crate::datastore::ssh_keys as store;
use crate::error::{Error, Result};
use crate::infra::secrets;
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use prism_controller_api::{SshKeyRequest, SshKeyView};
use sha2::Digest;

/// The key types OpenSSH's server accepts by default.
const TYPES: [&str; 6] = [
    "ssh-ed25519",
    "ssh-rsa",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
];

/// Most keys a user keeps.
pub const MAX_KEYS: i64 = 32;

/// `TYPE BASE64` of an `authorized_keys` line, and its SHA-256
/// fingerprint; refused (naming `public_key`) unless the blob is base64
/// and names the type it is given as.
pub fn parse(line: &str) -> Result<(String, String)> {
    let bad = |m: &str| Error::invalid(m.to_string()).with_field("public_key");
    let mut w = line.split_whitespace();
    let (Some(kind), Some(b64)) = (w.next(), w.next()) else {
        return Err(bad("`TYPE BASE64 [COMMENT]`, as in a .pub file"));
    };
    if !TYPES.contains(&kind) {
        return Err(bad(&format!("`{kind}`: one of {}", TYPES.join(", "))));
    }
    let blob = STANDARD
        .decode(b64)
        .map_err(|_| bad("the key is not base64"))?;
    let named = blob
        .get(..4)
        .map(|n| u32::from_be_bytes([n[0], n[1], n[2], n[3]]) as usize)
        .and_then(|n| blob.get(4..4 + n));
    if named != Some(kind.as_bytes()) {
        return Err(bad(&format!("the key's data is not a `{kind}` key")));
    }
    let fingerprint = format!(
        "SHA256:{}",
        STANDARD_NO_PAD.encode(sha2::Sha256::digest(&blob))
    );
    Ok((format!("{kind} {b64}"), fingerprint))
}

/// A user's ssh keys are theirs to manage when logged in: an API key
/// (scoped to a project and its operations) manages none.
fn logged_in(p: &Principal) -> Result<()> {
    match p.key_operations {
        Some(_) => Err(Error::forbidden(
            "an API key does not manage ssh keys: log in as the user",
        )),
        None => Ok(()),
    }
}

pub async fn list_ssh_keys(cx: &Context, p: &Principal) -> Result<Vec<SshKeyView>> {
    logged_in(p)?;
    store::of_user(&cx.pool, &p.user_id).await
}

pub async fn add_ssh_key(cx: &Context, p: &Principal, r: SshKeyRequest) -> Result<SshKeyView> {
    logged_in(p)?;
    check_name("name", &r.name)?;
    let (public_key, fingerprint) = parse(&r.public_key)?;
    let v = SshKeyView {
        id: secrets::new_id(),
        name: r.name,
        public_key,
        fingerprint,
        created_ms: cx.now_ms(),
    };
    store::insert(&cx.pool, &p.user_id, &v, MAX_KEYS).await?;
    Ok(v)
}

pub async fn remove_ssh_key(cx: &Context, p: &Principal, id: &str) -> Result<()> {
    logged_in(p)?;
    if !store::delete(&cx.pool, &p.user_id, id).await? {
        return Err(Error::not_found(format!("ssh key {id}")));
    }
    Ok(())
}

/// The `authorized_keys` lines of user `user_id`.
pub(crate) async fn authorized_keys(cx: &Context, user_id: &str) -> Result<Vec<String>> {
    Ok(store::of_user(&cx.pool, user_id)
        .await?
        .into_iter()
        .map(|k| k.public_key)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key `ssh-keygen -t ed25519` made, and its fingerprint as
    /// `ssh-keygen -lf` printed it.
    const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHCItLfCYrMrYzn31VQ4HbFMWqFTXXIecH5o7mTy+Bzm alice@laptop";
    const FINGERPRINT: &str = "SHA256:JjSYOXK+F3wSyqAmQ7WkBWtDtGASE0UZBQtV0XfAIDM";

    #[test]
    fn a_key_is_kept_without_its_comment_and_fingerprinted_as_openssh_does() {
        let (k, f) = parse(KEY).unwrap();
        assert_eq!(k, KEY.rsplit_once(' ').unwrap().0);
        assert_eq!(f, FINGERPRINT);
    }

    #[test]
    fn what_is_not_a_key_is_refused_at_public_key() {
        let rsa_named = KEY.replace("ssh-ed25519 ", "ssh-rsa ");
        for bad in [
            "",
            "ssh-ed25519",
            "ssh-dss AAAA",
            "ssh-ed25519 !!!",
            rsa_named.as_str(),
        ] {
            let e = parse(bad).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("public_key"), "{bad}: {e:?}");
        }
    }
}
