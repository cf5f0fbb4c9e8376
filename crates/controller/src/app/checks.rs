//! Checks every resource's request shares: names, and the longest a
//! credential may be given to live.

use crate::error::{Error, Result};

pub(crate) fn check_name(field: &str, name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 48
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
    if ok {
        Ok(())
    } else {
        Err(Error::invalid("1 to 48 characters of a-z, A-Z, 0-9, `-`, `_`, `.`").with_field(field))
    }
}

/// The longest an API key may be given to live (found by schemathesis: a
/// bigger one overflowed the expiry).
pub const MAX_KEY_TTL_S: i64 = 10 * 365 * 24 * 3600;
