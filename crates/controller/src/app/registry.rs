//! The registry of resource types (VANI §3.4): the built-in `network` and
//! `vlan`, and types registered at run time with a JSON Schema for their
//! parameters and the generic operations they support.

use crate::app::authz::Principal;
use crate::app::checks::check_name;
use crate::app::context::Context;
use crate::datastore::registry as store;
use crate::error::{Error, Result};
use crate::model::{Compiled, GenericOp, ResourceType};
use std::sync::Arc;

pub(crate) use crate::model::{NETWORK, VLAN, shares_capacity};

fn builtins() -> Vec<ResourceType> {
    let network =
        serde_json::to_value(<prism_netdoc::NetworkDoc as utoipa::PartialSchema>::schema())
            .unwrap_or_default();
    vec![
        ResourceType {
            name: NETWORK.into(),
            description: "A virtual network on a node, in the hardware, software or auto tier, with a bandwidth guarantee (its rate limit) and the project's VLAN (the fields of a network document without `name`; see docs/scenario.md)".into(),
            schema: network,
            operations: vec![GenericOp::Get, GenericOp::Release, GenericOp::Program],
            builtin: true,
        },
        ResourceType {
            name: crate::model::PROCESSING.into(),
            description: "A processing node (VANI's processing resource): a container from an image on the node of the networks it is attached to, with an interface on each, confined (docs/processing.md)".into(),
            schema: prism_controller_api::processing::schema(),
            operations: vec![GenericOp::Get, GenericOp::Release],
            builtin: true,
        },
        ResourceType {
            name: crate::model::SHARED_VLAN.into(),
            description: "A VLAN on a node shared with the projects its booker invites: their processing nodes attached to it reach each other, and nothing else does (docs/processing.md)".into(),
            schema: prism_controller_api::shared_vlans::schema(),
            operations: vec![GenericOp::Get, GenericOp::Release],
            builtin: true,
        },
        ResourceType {
            name: VLAN.into(),
            description: "A VLAN ID from the pool, the project's alone while booked".into(),
            schema: serde_json::json!({"type": "object", "additionalProperties": false}),
            operations: vec![GenericOp::Get, GenericOp::Release],
            builtin: true,
        },
    ]
}

pub(crate) async fn seed_resource_types(cx: &Context) -> Result<()> {
    for t in builtins() {
        // Refreshed at each start: the network schema follows the code.
        store::refresh_type(&cx.pool, &t, cx.now_ms()).await?;
    }
    Ok(())
}

pub async fn list_resource_types(cx: &Context, _p: &Principal) -> Result<Vec<ResourceType>> {
    store::types(&cx.pool).await
}

pub(crate) async fn resource_type(cx: &Context, name: &str) -> Result<Arc<Compiled>> {
    if let Some(t) = cx.types.lock().unwrap_or_else(|e| e.into_inner()).get(name) {
        return Ok(t.clone());
    }
    let t = store::resource_type(&cx.pool, name)
        .await?
        .ok_or_else(|| Error::not_found(format!("resource type `{name}`")).with_field("type"))?;
    // The built-in network's schema refers to others (`$ref`): its
    // documents are checked by the network document's own parser.
    let validator = if t.name == NETWORK {
        None
    } else {
        Some(jsonschema::validator_for(&t.schema).map_err(|e| {
            Error::internal(format!("the schema of `{}` does not compile: {e}", t.name))
        })?)
    };
    let c = Arc::new(Compiled { t, validator });
    cx.types
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(name.to_string(), c.clone());
    Ok(c)
}

/// Registers a type at run time (administrators).
pub async fn register_resource_type(
    cx: &Context,
    p: &Principal,
    mut t: ResourceType,
) -> Result<ResourceType> {
    p.require_admin()?;
    check_name("name", &t.name)?;
    if let Err(e) = jsonschema::meta::validate(&t.schema) {
        return Err(Error::invalid(format!("not a JSON Schema: {e}")).with_field("schema"));
    }
    for must in [GenericOp::Get, GenericOp::Release] {
        if !t.operations.contains(&must) {
            return Err(
                Error::invalid("every type supports `get` and `release`").with_field("operations")
            );
        }
    }
    t.builtin = false;
    store::insert_type(&cx.pool, &t, cx.now_ms()).await?;
    Ok(t)
}

/// Checks a booking's `spec` against its type's schema; the error names
/// the first failing field.
pub(crate) fn check_spec(c: &Compiled, spec: &serde_json::Value) -> Result<()> {
    let Some(v) = &c.validator else { return Ok(()) };
    if let Err(e) = v.validate(spec) {
        let path = e
            .instance_path()
            .to_string()
            .trim_start_matches('/')
            .replace('/', ".");
        let field = if path.is_empty() {
            "spec".to_string()
        } else {
            format!("spec.{path}")
        };
        return Err(Error::invalid(e.to_string()).with_field(field));
    }
    Ok(())
}
