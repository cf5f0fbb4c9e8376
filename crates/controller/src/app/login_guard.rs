//! Password guessing slowed down: failed logins are counted per user name
//! and per source address; past a few free failures, each further one
//! blocks that name (and that address) for twice as long as the last, up
//! to a ceiling, and a blocked login is refused with 429 and when to try
//! again — before the password is even checked, so a guesser learns
//! nothing from it. Each attempt is counted as a failure before its
//! password is checked (a reservation; a success clears it), so guesses
//! sent at once cannot all pass the check for a block before any is
//! counted. A success clears the name's and the address's count.
//!
//! The counts are in the database (`datastore::login_strikes`), so that
//! every replica of the controller counts the same guesses, kept with the
//! controller's clock so tests move time; the reaper forgets keys not
//! failed for a day and not blocked. Each refusal is also a row of the
//! audit log (`crate::app::identity::login_from`).

use crate::app::context::Context;
use crate::datastore::login_strikes as store;
use crate::error::Result;
use std::net::IpAddr;

/// Failures allowed before the first block.
pub const FREE_FAILURES: u32 = 5;
/// The first block, doubled at each further failure.
pub const FIRST_BLOCK_MS: i64 = 1000;
/// The longest block: 15 minutes.
pub const MAX_BLOCK_MS: i64 = 15 * 60 * 1000;
/// Keys not failed for this long (and not blocked) are forgotten.
const FORGET_AFTER_MS: i64 = 24 * 3600 * 1000;

/// What a login attempt is counted against.
fn keys(user: &str, source: Option<IpAddr>) -> Vec<String> {
    let mut k = vec![format!("user:{user}")];
    k.extend(source.map(|a| format!("addr:{a}")));
    k
}

/// The block the `failures`-th failure of a key starts, if any (ms):
/// none for the free ones, then a second doubling to the ceiling.
fn block_ms(failures: i64) -> Option<i64> {
    let beyond = failures - i64::from(FREE_FAILURES);
    (beyond > 0).then(|| (FIRST_BLOCK_MS << (beyond - 1).min(20)).min(MAX_BLOCK_MS))
}

/// What a login attempt's reservation found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reserved {
    /// Counted as a failure in advance: the password may be checked.
    Counted,
    /// The name or the address is blocked for this many ms more: nothing
    /// counted, the password must not be checked.
    Blocked(i64),
}

/// Counts a login attempt as a failure *before* its password is
/// checked (a success clears it): so guesses sent at once are counted
/// as they arrive, and the one that reaches the allowance blocks the
/// name and the address for the rest before they are checked. N
/// simultaneous guesses get no more checks than N sent one by one.
pub(crate) async fn login_reserve(
    cx: &Context,
    user: &str,
    source: Option<IpAddr>,
) -> Result<Reserved> {
    let now = cx.now_ms();
    let mut tx = crate::infra::db::begin(&cx.pool).await?;
    let mut counted = Vec::new();
    // Always the name first, then the address: no two attempts wait
    // on each other's rows in a circle.
    for k in keys(user, source) {
        match store::reserve_failure(&mut tx, &k, now).await? {
            Some(failures) => counted.push((k, failures)),
            None => {
                drop(tx);
                let until = store::blocked_until(&cx.pool, &keys(user, source)).await?;
                let left = until.map_or(1, |u| (u - now).max(1));
                return Ok(Reserved::Blocked(left));
            }
        }
    }
    for (k, failures) in &counted {
        if let Some(b) = block_ms(*failures) {
            store::block(&mut tx, k, now + b).await?;
        }
    }
    tx.commit().await?;
    Ok(Reserved::Counted)
}

/// A login succeeded: the name's and the address's counts start over.
pub(crate) async fn login_succeeded(
    cx: &Context,
    user: &str,
    source: Option<IpAddr>,
) -> Result<()> {
    store::clear(&cx.pool, &keys(user, source)).await
}

/// Forgets keys not failed for a day and not blocked (the reaper's).
pub(crate) async fn forget_old_login_strikes(cx: &Context) -> Result<u64> {
    let now = cx.now_ms();
    store::prune(&cx.pool, now - FORGET_AFTER_MS, now).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_double_after_the_free_failures_up_to_the_ceiling() {
        let free = i64::from(FREE_FAILURES);
        for n in 0..=free {
            assert_eq!(block_ms(n), None, "failure {n} is free");
        }
        assert_eq!(block_ms(free + 1), Some(1000));
        assert_eq!(block_ms(free + 2), Some(2000));
        assert_eq!(block_ms(free + 3), Some(4000));
        assert_eq!(block_ms(free + 11), Some(1_024_000.min(MAX_BLOCK_MS)));
        assert_eq!(block_ms(free + 1000), Some(MAX_BLOCK_MS));
    }

    #[test]
    fn a_name_and_an_address_are_counted_apart() {
        let a = Some(IpAddr::V4(std::net::Ipv4Addr::new(192, 0, 2, 1)));
        assert_eq!(
            keys("ann", a),
            vec!["user:ann".to_string(), "addr:192.0.2.1".into()]
        );
        assert_eq!(keys("ann", None), vec!["user:ann".to_string()]);
    }
}
