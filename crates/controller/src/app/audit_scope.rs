//! The audit entry of the API request being served, written in the same
//! transaction as the change the request makes, so a booking and its
//! audit row are one commit (and neither exists without the other).
//!
//! The API layer opens a scope per request ([`PendingAudit::scope`]);
//! the application commits a change with `audit::commit_audited`
//! (`crate::app::accounting`),
//! which adds the entry as the status the request answers on success.
//! The API layer writes the entry after the answer when no commit took
//! it (a refusal, a read-only call, a change not committed this way), or
//! when the answer's status is not the one written.

use std::sync::Arc;
use std::sync::atomic::{AtomicU16, Ordering};

tokio::task_local! {
    static PENDING: Arc<PendingAudit>;
}

/// Who asked what; the status written with it, if it was; what the call
/// was beyond its method and path (an administrator's override).
#[derive(Debug)]
pub struct PendingAudit {
    principal: Option<String>,
    method: String,
    path: String,
    written: AtomicU16,
    note: std::sync::Mutex<Option<String>>,
}

/// Notes that the request being served is an administrator acting in
/// project `project` on `resource` (or the project itself) beyond what a
/// membership would allow: its audit entry says `admin-override`.
pub(crate) fn note_admin_override(project: &str, resource: Option<&str>) {
    let note = match resource {
        Some(r) => format!("admin-override: project {project}, {r}"),
        None => format!("admin-override: project {project}"),
    };
    let _ = PENDING.try_with(|p| {
        let mut n = p.note.lock().unwrap_or_else(|e| e.into_inner());
        // The resource's note says more than the project's.
        if n.as_ref().is_none_or(|old| old.len() < note.len()) {
            *n = Some(note);
        }
    });
}

impl PendingAudit {
    pub fn new(principal: Option<&str>, method: &str, path: &str) -> Arc<Self> {
        Arc::new(Self {
            principal: principal.map(str::to_string),
            method: method.into(),
            path: path.into(),
            written: AtomicU16::new(0),
            note: Default::default(),
        })
    }

    /// Runs `f` (the request's handling) with this entry pending.
    pub async fn scope<F: std::future::Future>(self: &Arc<Self>, f: F) -> F::Output {
        PENDING.scope(self.clone(), f).await
    }

    /// The status written in a change's transaction, if one was.
    pub fn written(&self) -> Option<u16> {
        match self.written.load(Ordering::Relaxed) {
            0 => None,
            s => Some(s),
        }
    }

    pub fn principal(&self) -> Option<&str> {
        self.principal.as_deref()
    }

    /// The note its entry carries, if any (`note_admin_override`).
    pub fn note(&self) -> Option<String> {
        self.note.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub(crate) fn method(&self) -> &str {
        &self.method
    }

    pub(crate) fn path(&self) -> &str {
        &self.path
    }

    /// Records that the entry was written, as `status`, in a change's
    /// transaction.
    pub(crate) fn mark_written(&self, status: u16) {
        self.written.store(status, Ordering::Relaxed);
    }
}

/// The entry of the request being served, if it is not written yet.
pub(crate) fn pending_unwritten() -> Option<Arc<PendingAudit>> {
    PENDING
        .try_with(|p| p.clone())
        .ok()
        .filter(|p| p.written().is_none())
}
