//! What a credential stood for, kept for a moment (`Settings::auth_cache_ms`,
//! a second by default): a client making many calls is read from the
//! database once a second, not once a call (each read is a round trip and
//! a pooled connection's test). A credential revoked, a member's role or a
//! service level changed through this replica empties it at once; through
//! another replica, it takes effect here within the moment (as the
//! Kubernetes API server's token cache does, for ten seconds). Expiry is
//! checked at every use.

use crate::app::authz::SeenProject;
use crate::datastore::identity::CredentialRow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most credentials kept; past it, those kept too long are dropped.
const MOST: usize = 10_000;

/// (credential digest, project read with it) → what was read, and when.
type Entry = (CredentialRow, Option<Arc<SeenProject>>, Instant);

#[derive(Debug, Default)]
pub(crate) struct AuthCache {
    entries: Mutex<HashMap<(String, Option<String>), Entry>>,
}

impl AuthCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, Option<String>), Entry>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What `digest` (with `project`) stood for, if read less than `ttl`
    /// ago.
    pub fn get(
        &self,
        digest: &str,
        project: Option<&str>,
        ttl: Duration,
    ) -> Option<(CredentialRow, Option<Arc<SeenProject>>)> {
        let key = (digest.to_string(), project.map(str::to_string));
        let m = self.lock();
        let (c, seen, at) = m.get(&key)?;
        (at.elapsed() < ttl).then(|| (c.clone(), seen.clone()))
    }

    pub fn put(
        &self,
        digest: &str,
        project: Option<&str>,
        c: &CredentialRow,
        seen: Option<Arc<SeenProject>>,
        ttl: Duration,
    ) {
        let mut m = self.lock();
        if m.len() >= MOST {
            m.retain(|_, (_, _, at)| at.elapsed() < ttl);
            if m.len() >= MOST {
                m.clear();
            }
        }
        let key = (digest.to_string(), project.map(str::to_string));
        m.insert(key, (c.clone(), seen, Instant::now()));
    }

    /// Forgets everything (a credential revoked, a role or a service level
    /// changed).
    pub fn clear(&self) {
        self.lock().clear();
    }
}
