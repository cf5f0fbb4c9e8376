//! The OpenAPI document, generated from the handlers and types
//! (`docs/api/node.json` is its checked-in copy; a test fails when they
//! differ).

use crate::server;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        if let Some(c) = doc.components.as_mut() {
            c.add_security_scheme(
                "control_plane",
                SecurityScheme::Http(
                    HttpBuilder::new()
                        .scheme(HttpAuthScheme::Bearer)
                        .description(Some(
                            "The control plane's credential; required on TCP (`prism node --api-listen`), not on the Unix socket",
                        ))
                        .build(),
                ),
            );
        }
    }
}

#[derive(Debug, OpenApi)]
#[openapi(
    info(
        title = "Prism node API",
        description = "A Prism node's virtual networks, changed at run time. A network is a document with the fields of a scenario file's `[[network]]` table. Every error has the `ApiError` body; its `code` decides the status.",
        license(name = "Apache-2.0")
    ),
    paths(
        server::list_networks,
        server::add_network,
        server::get_network,
        server::replace_network,
        server::remove_network,
        server::set_routes,
        server::set_rules,
        server::set_rate_limit,
        server::set_tier,
        server::counters,
        server::ports,
        server::node,
        server::metrics,
        server::trace_network,
        server::capture_network,
        server::trace_all,
        server::reconfigure,
        server::events,
        server::power,
        server::put_desired,
        server::patch_desired,
        server::processing::put_processing,
        server::processing::list_processing,
        server::processing::save_image,
        server::processing::push_image,
        server::maps::read_map,
        server::maps::write_map,
    ),
    modifiers(&BearerAuth),
    security(("control_plane" = [])),
    tags((name = "networks", description = "Virtual networks"), (name = "node", description = "The node and its counters"), (name = "observe", description = "Packet trace and capture, events, modelled power"), (name = "processing", description = "Processing nodes: containers from images on the networks' VLANs"))
)]
pub struct ApiDoc;

/// The document as pretty JSON, with a final newline.
pub fn spec_json() -> String {
    let mut s = ApiDoc::openapi()
        .to_pretty_json()
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}

/// Checks that the checked-in document at `path` is `generated` (with
/// `PRISM_UPDATE_SPEC` set, writes it first); the error says how to update
/// it with `update`, the crate's test command. Shared by every API crate's
/// drift test.
pub fn check_checked_in_spec(
    path: &std::path::Path,
    generated: &str,
    update: &str,
) -> Result<(), String> {
    if std::env::var_os("PRISM_UPDATE_SPEC").is_some() {
        std::fs::write(path, generated).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let old = std::fs::read_to_string(path).unwrap_or_default();
    if old == generated {
        Ok(())
    } else {
        Err(format!(
            "{} differs from the API the code serves; run `PRISM_UPDATE_SPEC=1 {update}` and commit it",
            path.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHECKED_IN: &str = "../../docs/api/node.json";

    /// The checked-in document must be what the code generates. To update
    /// it after changing the API: `PRISM_UPDATE_SPEC=1 cargo test -p prism-node-api`.
    #[test]
    fn the_checked_in_spec_is_the_generated_one() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(CHECKED_IN);
        if let Err(e) = check_checked_in_spec(&path, &spec_json(), "cargo test -p prism-node-api") {
            panic!("{e}");
        }
    }

    #[test]
    fn the_spec_names_exactly_the_served_paths() {
        let doc = ApiDoc::openapi();
        let mut listed: Vec<&str> = doc.paths.paths.keys().map(String::as_str).collect();
        listed.sort();
        let mut served = server::PATHS.to_vec();
        served.sort();
        assert_eq!(listed, served);
    }
}
