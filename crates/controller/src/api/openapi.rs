//! The controller's OpenAPI document, generated from the handlers and
//! types (`docs/api/controller.json` is its checked-in copy; a test fails
//! when they differ).

use super::{
    heartbeat, identity, images, leases, projects, public, registry, shared_vlans, storage,
};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};
use utoipa::{Modify, OpenApi};

/// The answers any operation may give, whatever it does: a malformed
/// request, no credential, too many requests, a body too large, a failure
/// of the controller, its database out of space. Documented on every operation (schemathesis checks
/// that every answer is documented).
struct CommonErrors;

impl Modify for CommonErrors {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        let common = [
            (
                "400",
                "The request is malformed: the body, a path or query parameter (`invalid_input`)",
            ),
            (
                "401",
                "No credential, or an unknown, expired or revoked one (`unauthorized`)",
            ),
            ("413", "The body is over 1 MiB (`payload_too_large`)"),
            (
                "429",
                "Too many requests with this credential (`rate_limited`)",
            ),
            ("500", "The controller failed (`internal`)"),
            (
                "507",
                "The controller's database is out of space: nothing was changed (`storage_full`)",
            ),
        ];
        for item in doc.paths.paths.values_mut() {
            let ops = [
                &mut item.get,
                &mut item.put,
                &mut item.post,
                &mut item.delete,
                &mut item.patch,
            ];
            for op in ops.into_iter().flatten() {
                for (status, what) in common {
                    op.responses
                        .responses
                        .entry(status.to_string())
                        .or_insert_with(|| {
                            ResponseBuilder::new()
                                .description(what)
                                .content(
                                    "application/json",
                                    ContentBuilder::new()
                                        .schema(Some(Ref::from_schema_name("Error")))
                                        .build(),
                                )
                                .build()
                                .into()
                        });
                }
            }
        }
    }
}

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        if let Some(c) = doc.components.as_mut() {
            c.add_security_scheme(
                "bearer",
                SecurityScheme::Http(
                    HttpBuilder::new()
                        .scheme(HttpAuthScheme::Bearer)
                        .description(Some("A session token from `POST /v1/login` (`prt_…`) or an API key (`prk_…`)"))
                        .build(),
                ),
            );
            c.add_security_scheme(
                "node_key",
                SecurityScheme::Http(
                    HttpBuilder::new()
                        .scheme(HttpAuthScheme::Bearer)
                        .description(Some(
                            "A node key (`prn_…`, `POST /v1/node-keys`): heartbeats only",
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
        title = "Prism controller API",
        description = "Prism's control and management plane (paper 002, VANI): users, projects, roles and service levels; bookings as leases (allocate, provision, renew, release) of virtual networks on nodes; quotas, accounting and audit. Every error has the `Error` body; its `code` decides the status. Authorization: another project's resources answer 404; an operation the caller's role, the project's service level or the API key does not allow answers 403; a change to one booking, API key or public address needs its creator or a project owner. An administrator may call any operation in any project, as the operator's override: each change made so beyond their own membership's rights is written to the audit log with the note `admin-override: project P, RESOURCE`.",
        license(name = "Apache-2.0")
    ),
    paths(
        identity::login, identity::logout, identity::whoami, identity::list_ssh_keys, identity::add_ssh_key, identity::remove_ssh_key, identity::list_users, identity::create_user,
        projects::list_levels, projects::put_level, projects::list_projects, projects::create_project,
        projects::get_project, projects::list_members, projects::set_member, projects::remove_member,
        identity::list_keys, identity::create_key, identity::revoke_key, registry::list_nodes,
        registry::register_node, registry::node_hardware, registry::node_events, heartbeat::heartbeat, heartbeat::list_node_keys,
        heartbeat::create_node_key, heartbeat::revoke_node_key, heartbeat::list_controller_certs,
        heartbeat::revoke_controller_cert, registry::list_types,
        registry::register_type,
        leases::list, leases::create, leases::status, leases::release, leases::provision,
        leases::edit, leases::changes,
        leases::renew, leases::act, leases::counters, leases::read_map, leases::write_map, leases::trace, leases::capture, leases::quota, leases::usage, leases::audit,
        public::list, public::lease, public::renew, public::release,
        shared_vlans::list_members, shared_vlans::invite, shared_vlans::revoke,
        shared_vlans::list_shared, shared_vlans::leave,
        storage::info, storage::list_keys, storage::create_key, storage::revoke_key,
        storage::presign, storage::share, storage::unshare,
        images::save, images::list, images::remove, images::share, images::unshare,
    ),
    modifiers(&BearerAuth, &CommonErrors),
    security(("bearer" = [])),
    tags(
        (name = "identity", description = "Login, tokens, users and API keys"),
        (name = "projects", description = "Projects, members and service levels"),
        (name = "bookings", description = "Leases on resources"),
        (name = "gateway", description = "Public addresses leased from a node's pool (the gateway service)"),
        (name = "accounting", description = "Usage and audit"),
        (name = "nodes", description = "The nodes the controller drives"),
        (name = "registry", description = "Resource types"),
        (name = "storage", description = "The storage service: a project's bucket, its S3 keys, signed URLs, read-only sharing (the objects go through the S3 endpoint)"),
        (name = "images", description = "Images: processing nodes' file systems saved into the storage service, shared read-only"),
        (name = "shared-vlans", description = "Shared VLANs: the projects a shared VLAN's booker invites, and those a project is invited to")
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    const CHECKED_IN: &str = "../../docs/api/controller.json";

    #[test]
    fn the_checked_in_spec_is_the_generated_one() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(CHECKED_IN);
        let check = prism_node_api::check_checked_in_spec(
            &path,
            &spec_json(),
            "cargo test -p prism-controller",
        );
        if let Err(e) = check {
            panic!("{e}");
        }
    }

    #[test]
    fn the_spec_names_exactly_the_served_paths() {
        let doc = ApiDoc::openapi();
        let mut listed: Vec<&str> = doc.paths.paths.keys().map(String::as_str).collect();
        listed.sort();
        let mut served = crate::api::PATHS.to_vec();
        served.sort();
        assert_eq!(listed, served);
    }
}
