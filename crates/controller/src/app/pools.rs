//! Which value of a pool (VLANs, tunnel addresses, S-tags) a booking
//! takes: never-released values first, lowest first; then released ones,
//! longest released first (a released value goes to the back of its
//! pool); and none released less than the hold-down ago
//! (`Settings::pool_hold_down_ms`), so a released booking's frames (in
//! flight, replayed, or sent by a far node that has not converged yet)
//! cannot reach the booking that takes its values next (docs/wan.md,
//! "Threat model").

use std::collections::HashMap;
use std::hash::Hash;

/// `n` values of `pool` (in its order) that are not in `used` (sorted),
/// by the order above, none released after `cutoff`; `None` if the pool
/// has fewer free. `released`: each released value's release time.
pub(crate) fn pick<T: Copy + Ord + Hash>(
    pool: impl Iterator<Item = T>,
    used: &[T],
    released: &HashMap<T, i64>,
    cutoff: i64,
    n: usize,
) -> Option<Vec<T>> {
    let mut fresh = Vec::new();
    let mut old: Vec<(i64, T)> = Vec::new();
    for v in pool.filter(|v| used.binary_search(v).is_err()) {
        match released.get(&v) {
            None => {
                fresh.push(v);
                if fresh.len() == n {
                    return Some(fresh);
                }
            }
            Some(&at) if at <= cutoff => old.push((at, v)),
            Some(_) => {}
        }
    }
    old.sort_unstable();
    fresh.extend(old.into_iter().map(|(_, v)| v).take(n - fresh.len()));
    (fresh.len() == n).then_some(fresh)
}

/// `released` with its values parsed (those that do not parse are not
/// this pool's: skipped).
pub(crate) fn parsed<T: std::str::FromStr + Eq + Hash>(
    released: HashMap<String, i64>,
) -> HashMap<T, i64> {
    released
        .into_iter()
        .filter_map(|(v, at)| Some((v.parse().ok()?, at)))
        .collect()
}

/// How many values of a pool are held down now (for a refusal's message).
pub(crate) fn held<T>(released: &HashMap<T, i64>, cutoff: i64) -> usize {
    released.values().filter(|at| **at > cutoff).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_first_then_longest_released_and_none_held_down() {
        let released: HashMap<u16, i64> = [(1, 50), (2, 10), (3, 99)].into();
        let pool = || 1u16..=5;
        // 4 and 5 were never released: first, lowest first.
        assert_eq!(pick(pool(), &[], &released, 60, 2), Some(vec![4, 5]));
        // Then 2 (released at 10) before 1 (at 50); 3 (at 99) is held.
        assert_eq!(pick(pool(), &[], &released, 60, 4), Some(vec![4, 5, 2, 1]));
        assert_eq!(pick(pool(), &[], &released, 60, 5), None);
        assert_eq!(
            pick(pool(), &[4], &released, 100, 4),
            Some(vec![5, 2, 1, 3])
        );
        assert_eq!(held(&released, 60), 1);
    }
}
