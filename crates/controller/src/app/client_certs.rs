//! The controller's own client certificates, which nodes accept it by:
//! each replica makes its own from the CA (`prism_http::NodeCa`), records
//! it, and checks before calling a node (at most every two seconds) that
//! it has not been revoked, taking a new one if it has. Every heartbeat
//! answer carries the CA's revocation list (RFC 5280) of the revoked ones
//! not yet ended, and a certified node refuses the clients it names: a
//! client certificate whose key leaked is refused by every node within a
//! heartbeat of its revocation.

use crate::app::authz::Principal;
use crate::app::context::Context;
use crate::datastore::controller_certificates as store;
use crate::error::{Error, Result};
use prism_controller_api::ControllerCertView;
use prism_http::NodeCa;
use prism_http::identity::wall_ms;
use std::time::{Duration, Instant};

/// How often a replica asks whether its certificate was revoked.
const CHECK_EVERY: Duration = Duration::from_secs(2);

fn tls_error(e: prism_http::TlsError) -> Error {
    Error::internal(format!("the controller's client certificate: {e}"))
}

/// Before a node is called: this replica's client certificate
/// recorded, and replaced if it was revoked.
pub(crate) async fn client_cert_checked(cx: &Context, ca: &NodeCa) -> Result<()> {
    let mut st = cx.client_cert.lock().await;
    let (mut serial, mut not_after) = ca.client_serial().map_err(tls_error)?;
    let due = st.checked.is_none_or(|t| t.elapsed() >= CHECK_EVERY);
    if due && store::is_revoked(&cx.pool, &serial).await? {
        (serial, not_after) = ca.renew_client().map_err(tls_error)?;
        eprintln!(
            "prism controller: replica {}: its client certificate was revoked; now {serial}",
            cx.replica
        );
    }
    if due {
        st.checked = Some(Instant::now());
    }
    if st.recorded.as_deref() != Some(&serial) {
        store::record(&cx.pool, &serial, &cx.replica, wall_ms(), not_after).await?;
        st.recorded = Some(serial);
    }
    Ok(())
}

/// The CA's revocation list of the controller's revoked client
/// certificates, for heartbeat answers (`None` without a CA).
pub(crate) async fn client_crl(cx: &Context) -> Result<Option<String>> {
    let Some(ca) = &cx.settings.node_ca else {
        return Ok(None);
    };
    // This replica's certificate recorded (it may not have called a
    // node yet): an administrator sees it, and may revoke it.
    client_cert_checked(cx, ca).await?;
    let revoked = store::revoked_live(&cx.pool, wall_ms()).await?;
    let mut st = cx.client_cert.lock().await;
    if let Some((listed, pem)) = &st.crl
        && *listed == revoked
    {
        return Ok(Some(pem.clone()));
    }
    // Dated by its last revocation, not now: the same list reads alike.
    let at = revoked.iter().map(|(_, at)| *at).max().unwrap_or(0);
    let pem = ca.crl_pem(&revoked, at).map_err(tls_error)?;
    st.crl = Some((revoked, pem.clone()));
    Ok(Some(pem))
}

/// Every client certificate replicas have used (administrators).
pub async fn list_controller_certificates(
    cx: &Context,
    p: &Principal,
) -> Result<Vec<ControllerCertView>> {
    p.require_admin()?;
    store::all(&cx.pool).await
}

/// Revokes client certificate `serial` (administrators): nodes refuse
/// it from their next heartbeat; a replica using it takes another
/// before its next call to a node (this one at once).
pub async fn revoke_controller_certificate(
    cx: &Context,
    p: &Principal,
    serial: &str,
) -> Result<()> {
    p.require_admin()?;
    if let Some(ca) = &cx.settings.node_ca {
        client_cert_checked(cx, ca).await?;
    }
    if !store::revoke(&cx.pool, serial, wall_ms()).await? {
        return Err(Error::not_found("such live controller certificate"));
    }
    if let Some(ca) = &cx.settings.node_ca {
        cx.client_cert.lock().await.checked = None;
        client_cert_checked(cx, ca).await?;
    }
    Ok(())
}
