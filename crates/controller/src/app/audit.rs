//! Writing the audit log and the accounting events: an entry for a call,
//! and the commit of a change's transaction with its entry and event in
//! it (so a change is never committed unaudited). Below every resource's
//! module; the log's and the usage's reading is `crate::app::accounting`.

use crate::app::audit_scope::pending_unwritten;
use crate::app::context::Context;
use crate::datastore::accounting as store;
use crate::error::Result;
use crate::infra::db::Tx;
use crate::infra::secrets;
use crate::model::Booking;
use prism_controller_api::AuditEntry;

pub(crate) async fn account(
    cx: &Context,
    tx: &mut Tx,
    event: &str,
    b: &Booking,
    project_id: &str,
    user_id: &str,
) -> Result<()> {
    let e = store::Event {
        id: &secrets::new_id(),
        now: cx.now_ms(),
        event,
        booking: b,
        project_id,
        user_id,
    };
    store::insert_event(tx, &e).await
}

/// An audit entry made now (`anonymous` without a principal).
pub(crate) fn audit_entry(
    cx: &Context,
    principal: Option<&str>,
    method: &str,
    path: &str,
    status: u16,
) -> AuditEntry {
    AuditEntry {
        id: secrets::new_id(),
        at_ms: cx.now_ms(),
        principal: principal.unwrap_or("anonymous").to_string(),
        method: method.to_string(),
        path: path.to_string(),
        status: i64::from(status),
        note: None,
    }
}

pub async fn audit(cx: &Context, principal: Option<&str>, method: &str, path: &str, status: u16) {
    audit_noted(cx, principal, method, path, status, None).await
}

/// An audit entry with a note (`crate::app::audit_scope::note_admin_override`).
pub async fn audit_noted(
    cx: &Context,
    principal: Option<&str>,
    method: &str,
    path: &str,
    status: u16,
    note: Option<String>,
) {
    let mut entry = audit_entry(cx, principal, method, path, status);
    entry.note = note;
    let r = store::insert_audit(&cx.pool, &entry).await;
    if let Err(e) = r {
        eprintln!("prism controller: audit log: {e}");
    }
}

/// Records accounting event `event` of booking `b`, then commits `tx`
/// with the request's audit entry as `commit_audited` does; on
/// PostgreSQL the event and the entry are one statement (a round trip
/// less a booking).
pub(crate) async fn commit_accounted(
    cx: &Context,
    mut tx: Tx,
    (event, b): (&str, &crate::model::Booking),
    (project_id, user_id): (&str, &str),
    status: u16,
) -> Result<()> {
    let pending = pending_unwritten();
    let (Some(p), crate::infra::db::Engine::Postgres) = (&pending, cx.engine) else {
        account(cx, &mut tx, event, b, project_id, user_id).await?;
        return commit_audited(cx, tx, status).await;
    };
    let mut entry = audit_entry(cx, p.principal(), p.method(), p.path(), status);
    entry.note = p.note();
    let e = store::Event {
        id: &crate::infra::secrets::new_id(),
        now: cx.now_ms(),
        event,
        booking: b,
        project_id,
        user_id,
    };
    store::insert_event_and_audit_pg(&mut tx, &e, &entry).await?;
    tx.commit().await?;
    p.mark_written(status);
    Ok(())
}

/// Commits `tx` with the pending request's audit entry as `status`
/// (the status the request answers when this change is made), unless
/// there is none or it is written already.
pub(crate) async fn commit_audited(cx: &Context, mut tx: Tx, status: u16) -> Result<()> {
    let pending = pending_unwritten();
    if let Some(p) = &pending {
        let mut entry = audit_entry(cx, p.principal(), p.method(), p.path(), status);
        entry.note = p.note();
        store::insert_audit_in(&mut tx, &entry).await?;
    }
    tx.commit().await?;
    if let Some(p) = pending {
        p.mark_written(status);
    }
    Ok(())
}
