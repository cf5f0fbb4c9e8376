//! Password guessing slowed down: failed logins are counted per user name
//! and per source address; past a few free failures, each further one
//! blocks that name (and that address) for twice as long as the last, up
//! to a ceiling, and a blocked login is refused with 429 and when to try
//! again — before the password is even checked, so a guesser learns
//! nothing from it. A success clears the name's and the address's count.
//!
//! The counts are the process's own (an in-memory table, bounded), kept
//! with the controller's clock so tests move time; each refusal is also a
//! row of the audit log (`crate::identity::login_from`).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

/// Failures allowed before the first block.
pub const FREE_FAILURES: u32 = 5;
/// The first block, doubled at each further failure.
pub const FIRST_BLOCK_MS: i64 = 1000;
/// The longest block: 15 minutes.
pub const MAX_BLOCK_MS: i64 = 15 * 60 * 1000;
/// Entries kept at most; past it, those not blocked are forgotten first.
const MAX_ENTRIES: usize = 100_000;

#[derive(Debug, Clone, Copy, Default)]
struct Strikes {
    failures: u32,
    blocked_until_ms: i64,
}

/// The counts of failed logins by name and by address.
#[derive(Debug, Default)]
pub struct LoginGuard {
    strikes: Mutex<HashMap<String, Strikes>>,
}

/// What a login attempt is counted against.
fn keys(user: &str, source: Option<IpAddr>) -> Vec<String> {
    let mut k = vec![format!("user:{user}")];
    k.extend(source.map(|a| format!("addr:{a}")));
    k
}

impl LoginGuard {
    /// Milliseconds until `user` (from `source`) may try again, if either
    /// is blocked at `now_ms`.
    pub fn blocked(&self, user: &str, source: Option<IpAddr>, now_ms: i64) -> Option<i64> {
        let m = self.strikes.lock().unwrap_or_else(|e| e.into_inner());
        keys(user, source)
            .iter()
            .filter_map(|k| m.get(k))
            .map(|s| s.blocked_until_ms - now_ms)
            .filter(|left| *left > 0)
            .max()
    }

    /// Counts a failed login; the block it starts, if any (ms).
    pub fn failed(&self, user: &str, source: Option<IpAddr>, now_ms: i64) -> Option<i64> {
        let mut m = self.strikes.lock().unwrap_or_else(|e| e.into_inner());
        if m.len() >= MAX_ENTRIES {
            m.retain(|_, s| s.blocked_until_ms > now_ms);
        }
        let mut longest = None;
        for k in keys(user, source) {
            let s = m.entry(k).or_default();
            s.failures = s.failures.saturating_add(1);
            if s.failures > FREE_FAILURES {
                let doublings = (s.failures - FREE_FAILURES - 1).min(20);
                let block = (FIRST_BLOCK_MS << doublings).min(MAX_BLOCK_MS);
                s.blocked_until_ms = now_ms + block;
                longest = longest.max(Some(block));
            }
        }
        longest
    }

    /// A login succeeded: the name's and the address's counts start over.
    pub fn succeeded(&self, user: &str, source: Option<IpAddr>) {
        let mut m = self.strikes.lock().unwrap_or_else(|e| e.into_inner());
        for k in keys(user, source) {
            m.remove(&k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Option<IpAddr> = Some(IpAddr::V4(std::net::Ipv4Addr::new(192, 0, 2, 1)));
    const B: Option<IpAddr> = Some(IpAddr::V4(std::net::Ipv4Addr::new(192, 0, 2, 2)));

    #[test]
    fn blocks_double_after_the_free_failures_and_end() {
        let g = LoginGuard::default();
        for _ in 0..FREE_FAILURES {
            assert_eq!(g.failed("ann", A, 0), None);
            assert_eq!(g.blocked("ann", A, 0), None);
        }
        assert_eq!(g.failed("ann", A, 0), Some(1000));
        assert_eq!(g.blocked("ann", A, 0), Some(1000));
        assert_eq!(g.blocked("ann", A, 999), Some(1));
        assert_eq!(g.blocked("ann", A, 1000), None);
        assert_eq!(g.failed("ann", A, 1000), Some(2000));
        assert_eq!(g.failed("ann", A, 3000), Some(4000));
        for _ in 0..30 {
            g.failed("ann", A, 10_000);
        }
        assert_eq!(g.blocked("ann", A, 10_000), Some(MAX_BLOCK_MS));
    }

    #[test]
    fn a_name_is_blocked_from_every_address_and_an_address_for_every_name() {
        let g = LoginGuard::default();
        for _ in 0..=FREE_FAILURES {
            g.failed("ann", A, 0);
        }
        assert!(g.blocked("ann", B, 0).is_some(), "the name, from elsewhere");
        assert!(
            g.blocked("bob", A, 0).is_some(),
            "the address, another name"
        );
        assert!(g.blocked("bob", B, 0).is_none());
        // Many names from one address: the address is blocked.
        let g = LoginGuard::default();
        for i in 0..=FREE_FAILURES {
            g.failed(&format!("u{i}"), B, 0);
        }
        assert!(g.blocked("someone-new", B, 0).is_some());
    }

    #[test]
    fn a_success_starts_the_counts_over() {
        let g = LoginGuard::default();
        for _ in 0..FREE_FAILURES {
            g.failed("ann", A, 0);
        }
        g.succeeded("ann", A);
        assert_eq!(g.failed("ann", A, 0), None, "counted from zero again");
    }
}
