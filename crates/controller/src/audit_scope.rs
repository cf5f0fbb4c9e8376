//! The audit entry of the API request being served, written in the same
//! transaction as the change the request makes, so a booking and its
//! audit row are one commit (and neither exists without the other).
//!
//! The API layer opens a scope per request ([`PendingAudit::scope`]);
//! the application commits a change with [`Controller::commit_audited`],
//! which adds the entry as the status the request answers on success.
//! The API layer writes the entry after the answer when no commit took
//! it (a refusal, a read-only call, a change not committed this way), or
//! when the answer's status is not the one written.

use crate::controller::Controller;
use crate::datastore::accounting as store;
use crate::db::Tx;
use crate::error::Result;
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
}

impl Controller {
    /// Records accounting event `event` of booking `b`, then commits `tx`
    /// with the request's audit entry as [`Self::commit_audited`] does; on
    /// PostgreSQL the event and the entry are one statement (a round trip
    /// less a booking).
    pub(crate) async fn commit_accounted(
        &self,
        mut tx: Tx,
        (event, b): (&str, &crate::model::Booking),
        (project_id, user_id): (&str, &str),
        status: u16,
    ) -> Result<()> {
        let pending = PENDING
            .try_with(|p| p.clone())
            .ok()
            .filter(|p| p.written().is_none());
        let (Some(p), crate::db::Engine::Postgres) = (&pending, self.engine) else {
            self.account(&mut tx, event, b, project_id, user_id).await?;
            return self.commit_audited(tx, status).await;
        };
        let mut entry = self.audit_entry(p.principal(), &p.method, &p.path, status);
        entry.note = p.note();
        let e = store::Event {
            id: &crate::secrets::new_id(),
            now: self.now_ms(),
            event,
            booking: b,
            project_id,
            user_id,
        };
        store::insert_event_and_audit_pg(&mut tx, &e, &entry).await?;
        tx.commit().await?;
        p.written.store(status, Ordering::Relaxed);
        Ok(())
    }

    /// Commits `tx` with the pending request's audit entry as `status`
    /// (the status the request answers when this change is made), unless
    /// there is none or it is written already.
    pub(crate) async fn commit_audited(&self, mut tx: Tx, status: u16) -> Result<()> {
        let pending = PENDING
            .try_with(|p| p.clone())
            .ok()
            .filter(|p| p.written().is_none());
        if let Some(p) = &pending {
            let mut entry = self.audit_entry(p.principal(), &p.method, &p.path, status);
            entry.note = p.note();
            store::insert_audit_in(&mut tx, &entry).await?;
        }
        tx.commit().await?;
        if let Some(p) = pending {
            p.written.store(status, Ordering::Relaxed);
        }
        Ok(())
    }
}
