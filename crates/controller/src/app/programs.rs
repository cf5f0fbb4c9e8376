//! Researchers' packet programs, as the controller takes them: besides the
//! checks every node makes when it compiles the document (the object read
//! and checked by `prism_program`: `prism_compile::program`), the kernel's
//! own verifier must take it as an XDP program (`prism_io::program`), so
//! that a program the kernel would refuse is refused here, with the
//! verifier's reason and the instruction it names, before any node sees
//! it. Loading a program to verify it needs `CAP_BPF`: a controller
//! without it refuses programs rather than take one unverified.

use base64::Engine as _;
use prism_io::program::VerifyError;
use prism_netdoc::NetworkDoc;

use crate::app::authz::{Operation, Principal};
use crate::app::bookings::booking_in;
use crate::app::context::Context;
use crate::app::observe::placed;
use crate::app::projects::project_for;
use crate::error::{Error, ErrorCode, Result};
use prism_node_api::{MapView, MapWrite};

/// Refuses `doc`'s program unless the kernel's verifier takes it; `field`
/// is where the document's program is in the request (`spec.program`).
pub(crate) fn verify(doc: &NetworkDoc, field: &str) -> Result<()> {
    let Some(p) = &doc.program else { return Ok(()) };
    let spec = prism_compile::program(p).map_err(Error::from)?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(p.object.trim())
        .map_err(|e| {
            Error::invalid(format!("not base64: {e}")).with_field(format!("{field}.object"))
        })?;
    match prism_io::program::verify(&bytes, &spec.image.name) {
        Ok(_) => Ok(()),
        Err(e @ VerifyError::Refused { .. }) => {
            let log = log_tail(e.log().unwrap_or_default());
            Err(Error::invalid(e.to_string())
                .with_field(format!("{field}.object"))
                .with_detail(log))
        }
        Err(e @ VerifyError::NoPrivilege(_)) => Err(Error::new(ErrorCode::Internal, e.to_string())),
        Err(e) => Err(Error::invalid(e.to_string()).with_field(format!("{field}.object"))),
    }
}

/// The most of the verifier's log a refusal carries: its end, where the
/// reason is (a large program's log at the verifier's debug level runs to
/// megabytes: each instruction walked, on every path).
const LOG_TAIL: usize = 64 * 1024;

/// The last [`LOG_TAIL`] bytes of `log`, from a line's start.
fn log_tail(log: &str) -> String {
    if log.len() <= LOG_TAIL {
        return log.to_string();
    }
    let mut cut = log.len() - LOG_TAIL;
    while !log.is_char_boundary(cut) {
        cut += 1;
    }
    let from = log[cut..].find('\n').map_or(log.len(), |n| cut + n + 1);
    format!("(the log's first {from} bytes left out)\n{}", &log[from..])
}

/// Map `map` of booking `id`'s program, read from its node (the first
/// part's, for a network spanning nodes).
pub async fn read_map(
    cx: &Context,
    p: &Principal,
    project: &str,
    id: &str,
    map: &str,
) -> Result<MapView> {
    let m = project_for(cx, p, project, Operation::BookingsRead).await?;
    let b = booking_in(cx, &m, id).await?;
    runs_a_program(&b)?;
    let (node, network, client) = placed(cx, &b, &not_running(id)).await?;
    client
        .read_map(&network, map)
        .await
        .map_err(|e| from_node(&node, e))
}

/// Sets or deletes one entry of map `map` of booking `id`'s program (its
/// booker, a project owner or an administrator), audited.
pub async fn write_map(
    cx: &Context,
    p: &Principal,
    (project, id, map): (&str, &str, &str),
    w: MapWrite,
) -> Result<MapView> {
    let m = project_for(cx, p, project, Operation::BookingsChange).await?;
    let b = booking_in(cx, &m, id).await?;
    p.may_touch(
        &m,
        Operation::BookingsChange,
        &b.ids.user,
        &format!("booking {id}"),
    )?;
    runs_a_program(&b)?;
    let (node, network, client) = placed(cx, &b, &not_running(id)).await?;
    let view = client
        .write_map(&network, map, &w)
        .await
        .map_err(|e| from_node(&node, e))?;
    let what = if w.value.is_some() { "set" } else { "deleted" };
    let detail = format!("map {map}: key {} {what}", w.key);
    let path = format!("/v1/projects/{project}/bookings/{id}/maps/{map}");
    crate::app::audit::audit_noted(cx, Some(&p.user), "PUT", &path, 200, Some(detail)).await;
    Ok(view)
}

/// 409 unless the booking's network has a program (so has maps).
fn runs_a_program(b: &crate::model::Booking) -> Result<()> {
    match b.spec.get("program") {
        Some(p) if !p.is_null() => Ok(()),
        _ => Err(Error::conflict(format!(
            "booking `{}` runs no program, so has no maps (give it one: spec.program)",
            b.name
        ))),
    }
}

fn not_running(id: &str) -> String {
    format!("booking `{id}` is not provisioned on a node: no program runs")
}

/// The node's refusal as the caller's (a missing map, a bad key), or the
/// node's failure.
fn from_node(node: &str, e: prism_node_api::ClientError) -> Error {
    match e.api() {
        Some(a) if e.status() == Some(404) => Error::not_found(a.message.clone()),
        Some(a) if e.status() == Some(400) => {
            let field = a.field.clone().unwrap_or_default();
            Error::invalid(a.message.clone()).with_field(field)
        }
        _ => crate::app::observe::node_failed(node, e),
    }
}
