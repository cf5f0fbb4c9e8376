//! Node identities (the kubelet's TLS bootstrap as the model): a node's
//! heartbeat, authenticated by its node key, carries a certificate
//! request for the key's node name; the controller's CA signs a
//! short-lived certificate for that name, recorded by fingerprint; the
//! heartbeat renews it before it ends. The controller then calls that
//! node in mutual TLS only, checking the name in the node's certificate
//! and that the certificate is one it issued and has not revoked.
//! Revoking the node key revokes its certificates and stops renewal.
//!
//! A node never certified is called with the shared credential
//! (`Settings::node_secret`), if the controller has one; once a node has
//! held a certificate it is never called without one (no downgrade).

use crate::app::client_certs::client_cert_checked;
use crate::app::context::Context;
use crate::datastore::node_certificates as store;
use crate::error::{Error, ErrorCode, Result};
use prism_controller_api::{NodeCaller, NodeCertificate};
use prism_http::identity::{IssueError, wall_ms};
use prism_node_api::{Endpoint, NodeClient};
use std::time::Duration;

/// The certificate asked for by `csr` in a heartbeat of `caller`,
/// recorded in `tx`; or why there is none (no CA). A request for
/// another name is refused (403 at `csr`, audited with the heartbeat).
pub(crate) async fn certify(
    cx: &Context,
    tx: &mut crate::infra::db::Tx,
    caller: &NodeCaller,
    csr: &str,
) -> Result<std::result::Result<NodeCertificate, String>> {
    let Some(ca) = &cx.settings.node_ca else {
        return Ok(Err(
            "this controller holds no CA for node certificates (`prism controller bootstrap` makes one in its --tls-dir)"
                .into(),
        ));
    };
    let life = Duration::from_millis(cx.settings.node_cert_life_ms.max(0) as u64);
    let issued = ca.issue(csr, &caller.node, life).map_err(|e| match e {
        IssueError::OtherName { .. } => Error::forbidden(e.to_string()).with_field("csr"),
        other => Error::invalid(other.to_string()).with_field("csr"),
    })?;
    let c = store::NewCertificate {
        fingerprint: &issued.fingerprint,
        node: &caller.node,
        key_id: &caller.key_id,
        issued_ms: wall_ms(),
        not_after_ms: issued.not_after_ms,
    };
    store::insert(tx, &c).await?;
    Ok(Ok(NodeCertificate {
        chain_pem: issued.chain_pem,
        ca_pem: ca.ca_pem().to_string(),
        not_after_ms: issued.not_after_ms,
    }))
}

/// How to call node `name` at `address`: in mutual TLS if it was ever
/// certified (refused while it holds no live certificate), else with
/// the shared credential, else refused.
pub(crate) async fn node_client(cx: &Context, name: &str, address: &str) -> Result<NodeClient> {
    let (live, ever) = store::of_node(&cx.pool, name, wall_ms()).await?;
    if !ever {
        return match &cx.settings.node_secret {
            Some(_) => Ok(client(cx, address)),
            None => Err(Error::new(
                ErrorCode::NodeFailed,
                format!(
                    "node `{name}` has no certificate yet and this controller no shared credential (--node-credential-file)"
                ),
            )),
        };
    }
    let Some(ca) = &cx.settings.node_ca else {
        return Err(Error::new(
            ErrorCode::NodeFailed,
            format!("node `{name}` was certified, and this controller holds no CA to call it with"),
        ));
    };
    if live.is_empty() {
        return Err(Error::new(
            ErrorCode::NodeFailed,
            format!(
                "node `{name}`'s certificates have ended or were revoked: it is not called until its heartbeat renews one"
            ),
        ));
    }
    client_cert_checked(cx, ca).await?;
    let tls = ca
        .client_for(name, live)
        .map_err(|e| Error::new(ErrorCode::NodeFailed, format!("node `{name}`: {e}")))?;
    Ok(NodeClient::new(Endpoint::Tls {
        addr: address.to_string(),
        token: None,
        tls,
    })
    .with_timeout(node_call_timeout(cx))
    .with_connect_timeout(node_connect_timeout(cx)))
}

/// Revokes the certificates issued under node key `key_id`, in the
/// transaction that revokes the key.
pub(crate) async fn revoke_node_certificates(
    tx: &mut crate::infra::db::Tx,
    key_id: &str,
) -> Result<u64> {
    store::revoke_for_key(tx, key_id, wall_ms()).await
}

pub(crate) fn client(cx: &Context, address: &str) -> NodeClient {
    NodeClient::new(Endpoint::Tcp {
        addr: address.to_string(),
        token: cx.settings.node_secret.clone(),
    })
    .with_timeout(node_call_timeout(cx))
    .with_connect_timeout(node_connect_timeout(cx))
}

pub(crate) fn node_call_timeout(cx: &Context) -> std::time::Duration {
    std::time::Duration::from_millis(cx.settings.node_call_timeout_ms)
}

pub(crate) fn node_connect_timeout(cx: &Context) -> std::time::Duration {
    std::time::Duration::from_millis(cx.settings.node_connect_timeout_ms)
}
