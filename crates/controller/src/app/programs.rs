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

use crate::error::{Error, ErrorCode, Result};

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
            Err(Error::invalid(e.to_string()).with_field(format!("{field}.object")))
        }
        Err(e @ VerifyError::NoPrivilege(_)) => Err(Error::new(ErrorCode::Internal, e.to_string())),
        Err(e) => Err(Error::invalid(e.to_string()).with_field(format!("{field}.object"))),
    }
}
