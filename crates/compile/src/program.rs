//! A network document's program (`program`) read into what its slot runs:
//! the object decoded, named by its SHA-256, read and checked by
//! `prism_program` (its refusal located at `program.object` or
//! `program.name`), its budget bounded. The kernel's verifier is asked by
//! whoever takes the document from a researcher (the controller), not
//! here: compiling does no I/O.

use std::sync::Arc;

use base64::Engine as _;
use prism_netdoc::{DocError, ProgramDoc};
use prism_pipeline::ProgramSpec;
use prism_program::{DEFAULT_BUDGET, Image, LoadError};
use sha2::Digest as _;

/// The largest budget a network may give its program.
pub const MAX_BUDGET: u32 = 65_536;

/// `doc` as a network's program: its object's bytes and the spec.
pub fn program(doc: &ProgramDoc) -> Result<ProgramSpec, DocError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(doc.object.trim())
        .map_err(|e| DocError::new("program.object", format!("not base64: {e}")))?;
    let budget = doc.budget.unwrap_or(DEFAULT_BUDGET);
    if !(1..=MAX_BUDGET).contains(&budget) {
        return Err(DocError::new(
            "program.budget",
            format!("{budget} instructions: 1 to {MAX_BUDGET} are taken"),
        ));
    }
    let image = Image::load(&bytes, doc.name.as_deref()).map_err(|e| {
        let field = match e {
            LoadError::Unknown(_) | LoadError::Several(_) => "program.name",
            _ => "program.object",
        };
        DocError::new(field, e.to_string())
    })?;
    Ok(ProgramSpec {
        image: Arc::new(image),
        digest: digest(&bytes),
        budget,
    })
}

/// What names an object: its SHA-256, in hex.
pub fn digest(bytes: &[u8]) -> String {
    hex::encode(sha2::Sha256::digest(bytes))
}
